//! `scripts/opcount.sh`: callgrind instructions per operation of the native
//! hot paths, against their goals.
//!
//! The output is a header line naming the columns (`scenario` or `row`,
//! `instr/op`, ...) and one line per row: its name, then numbers, then a
//! description. Rows are read by name, so rows the script gains later just
//! appear. A name `PREFIX:base` (e.g. `c:completed`, the same scenario
//! measured from C through `libonity.so`) is drawn as a second series of the
//! row `base`. Goals come from a `goal` column when the output has one, else
//! from `docs/bench-data/opcount-goals.txt`.

use std::collections::BTreeMap;

use crate::data::{leading_number, Header};
use crate::draw::{fmt_num, Bar, BarChart, Group, Scale, Series, PALETTE};

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub name: String,
    pub instr: f64,
    /// The numeric columns of the row by header name (`instr/op`, `goal`, ...).
    pub columns: BTreeMap<String, f64>,
    pub what: String,
}

fn is_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "_:.-()".contains(c))
}

/// A number cell: `406`, `13,730`; `None` for anything else.
fn number(s: &str) -> Option<f64> {
    leading_number(s).filter(|(_, rest)| rest.is_empty()).map(|(v, _)| v)
}

/// The rows of an opcount output, in order.
pub fn parse(body: &str) -> Result<Vec<Row>, String> {
    let mut header: Option<Vec<String>> = None;
    let mut rows = Vec::new();
    for line in body.lines() {
        let tok: Vec<&str> = line.split_whitespace().collect();
        if tok.is_empty() || tok[0].starts_with('#') {
            continue;
        }
        if tok.iter().any(|t| t.eq_ignore_ascii_case("instr/op")) {
            header = Some(tok[1..].iter().map(|t| t.to_lowercase()).collect());
            continue;
        }
        let Some(cols) = &header else { continue };
        if tok.len() < 2 || !is_name(tok[0]) {
            continue;
        }
        // The run of numeric cells after the name, matched to the header by position.
        // `–` or `-` stands for an empty cell.
        let cells: Vec<Option<f64>> = tok[1..]
            .iter()
            .map_while(|t| if matches!(*t, "–" | "-") { Some(None) } else { number(t).map(Some) })
            .collect();
        let Some(Some(first)) = cells.first().copied() else { continue };
        let columns: BTreeMap<String, f64> =
            cols.iter().zip(&cells).filter_map(|(c, v)| v.map(|v| (c.clone(), v))).collect();
        let instr = columns.get("instr/op").copied().unwrap_or(first);
        rows.push(Row { name: tok[0].to_string(), instr, columns, what: tok[1 + cells.len()..].join(" ") });
    }
    if header.is_none() {
        return Err("no header line with an `instr/op` column".into());
    }
    if rows.is_empty() {
        return Err("no rows".into());
    }
    Ok(rows)
}

/// Goals by row name from the goals file: `ROW NUMBER` or `ROW OTHER*FACTOR`
/// (relative to the other row's measured figure), `#` comments.
pub fn goals(text: &str, rows: &[Row]) -> Result<BTreeMap<String, f64>, String> {
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let bad = || format!("goals line {}: `{line}` (expected `ROW NUMBER` or `ROW OTHER*FACTOR`)", n + 1);
        let mut it = line.split_whitespace();
        let (Some(name), Some(spec), None) = (it.next(), it.next(), it.next()) else { return Err(bad()) };
        let goal = if let Some(v) = number(spec) {
            Some(v)
        } else {
            let (other, factor) = spec.split_once('*').ok_or_else(bad)?;
            let factor = number(factor).ok_or_else(bad)?;
            rows.iter().find(|r| r.name == other).map(|r| r.instr * factor)
        };
        if let Some(g) = goal {
            out.insert(name.to_string(), g);
        }
    }
    Ok(out)
}

fn split(name: &str) -> (&str, &str) {
    match name.split_once(':') {
        Some((prefix, base)) => (prefix, base),
        None => ("", name),
    }
}

fn series_name(prefix: &str) -> String {
    match prefix {
        "" => "Rust (examples/opcount.rs, exports through function pointers)".into(),
        "c" => "C through libonity.so (dlopen + dlsym)".into(),
        p => p.to_string(),
    }
}

pub fn chart(rows: &[Row], goals: &BTreeMap<String, f64>, header: &Header) -> BarChart {
    let mut prefixes: Vec<&str> = Vec::new();
    let mut bases: Vec<&str> = Vec::new();
    for r in rows {
        let (p, b) = split(&r.name);
        if !prefixes.contains(&p) {
            prefixes.push(p);
        }
        if !bases.contains(&b) {
            bases.push(b);
        }
    }
    let series = prefixes
        .iter()
        .enumerate()
        .map(|(i, p)| Series { name: series_name(p), color: PALETTE[i % PALETTE.len()] })
        .collect();
    let groups = bases
        .iter()
        .map(|base| Group {
            label: base.to_string(),
            bars: prefixes
                .iter()
                .map(|p| {
                    let r = rows.iter().find(|r| split(&r.name) == (*p, *base))?;
                    let goal = r.columns.get("goal").or_else(|| goals.get(&r.name)).copied();
                    let text = match goal {
                        Some(g) => {
                            format!("{} ({:.2}x the goal, {})", fmt_num(r.instr), r.instr / g, fmt_num(g.round()))
                        }
                        None => fmt_num(r.instr),
                    };
                    Some(Bar { value: r.instr, range: None, marker: goal, text })
                })
                .collect(),
        })
        .collect();
    let subtitle = vec![
        header.provenance(),
        "Each export called as a host calls a DLL; 2N iterations minus N, divided by N. Goals: issue #15.".into(),
    ];
    BarChart {
        marker_name: Some("goal (docs/bench-data/opcount-goals.txt)".into()),
        ..BarChart::new(
            "Native hot paths: instructions per operation (callgrind) against their goals",
            subtitle,
            "instructions per operation (log scale)",
            Scale::Log,
            series,
            groups,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TODAY: &str = "scenario                     instr/op  op
completed                         406  create + set_result + consume
when_any_32                     13730  WhenAny(32) group
";
    // The layout of the extended script: a `row` column, prefixed C rows, a goal column.
    const EXTENDED: &str = "Compiling...\nrow                        instr/op  goal  op
completed                       198   200  create + set_result + consume
from_result                     140     –  onity_task_from_result + consume
c:completed                     203   210  C through libonity.so: create + set_result + consume
";

    #[test]
    fn reads_rows_by_name() {
        let rows = parse(TODAY).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].name, "when_any_32");
        assert_eq!(rows[1].instr, 13730.0);
        assert_eq!(rows[1].what, "WhenAny(32) group");
        let rows = parse(EXTENDED).unwrap();
        assert_eq!(
            rows.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
            ["completed", "from_result", "c:completed"]
        );
        assert_eq!(rows[0].columns.get("goal"), Some(&200.0));
        assert_eq!(rows[1].columns.get("goal"), None);
        assert!(parse("nothing here\n").is_err());
    }

    #[test]
    fn goals_from_the_file_and_relative_goals() {
        let rows = parse(EXTENDED).unwrap();
        let g = goals("# c\ncompleted 200\nc:completed completed*1.05\nmissing other*2\n", &rows).unwrap();
        assert_eq!(g.get("completed"), Some(&200.0));
        assert!((g["c:completed"] - 207.9).abs() < 1e-9);
        assert!(!g.contains_key("missing"));
        assert!(goals("completed\n", &rows).is_err());
    }

    #[test]
    fn prefixed_rows_become_a_second_series() {
        let rows = parse(EXTENDED).unwrap();
        let c = chart(&rows, &BTreeMap::new(), &Header::default());
        assert_eq!(c.series.len(), 2);
        assert_eq!(c.groups.len(), 2);
        let completed = &c.groups[0];
        assert_eq!(completed.bars[1].as_ref().unwrap().value, 203.0);
        assert_eq!(completed.bars[1].as_ref().unwrap().marker, Some(210.0));
        assert!(c.groups[1].bars[1].is_none());
    }
}
