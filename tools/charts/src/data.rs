//! What every data file shares: the provenance header line and markdown tables.
//!
//! A data file in `docs/bench-data/` is a benchmark's output as it printed it,
//! after one header line written by `scripts/charts.sh --run` (or by hand for a
//! transcription):
//!
//! ```text
//! # bench-data | DATE | COMMAND | load LOAD | NOTE
//! ```
//!
//! NOTE is optional. Everything after the header is the benchmark's own text.

use std::path::Path;

/// The header line's fields.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Header {
    pub date: String,
    pub command: String,
    pub load: String,
    pub note: String,
}

impl Header {
    /// One line for a chart: where its figures come from.
    pub fn provenance(&self) -> String {
        let mut s = format!("{} · {}", self.date, self.command);
        if !self.load.is_empty() {
            s.push_str(" · ");
            s.push_str(&self.load);
        }
        s
    }
}

/// A data file: its header and the benchmark output that follows it.
#[derive(Debug, Clone)]
pub struct DataFile {
    pub header: Header,
    pub body: String,
}

const MAGIC: &str = "# bench-data";

/// Splits a data file's text into its header and body. A text without the
/// header line is a bare benchmark output (the header is then empty).
pub fn parse_file(text: &str) -> Result<DataFile, String> {
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    let Some(fields) = first.strip_prefix(MAGIC) else {
        return Ok(DataFile { header: Header::default(), body: text.to_string() });
    };
    let f: Vec<&str> = fields.split(" | ").map(str::trim).collect();
    // f[0] is what followed the magic words (normally nothing).
    if f.len() < 4 || !f[0].is_empty() {
        return Err(format!("header line must be `{MAGIC} | DATE | COMMAND | load LOAD [| NOTE]`, got `{first}`"));
    }
    let header = Header {
        date: f[1].to_string(),
        command: f[2].to_string(),
        load: f[3].to_string(),
        note: f.get(4..).map(|n| n.join(" | ")).unwrap_or_default(),
    };
    Ok(DataFile { header, body: rest.to_string() })
}

pub fn read(path: &Path) -> Result<DataFile, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse_file(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// A markdown table, with the last heading and the last line of text above it.
#[derive(Debug, Clone)]
pub struct Table {
    pub heading: String,
    pub label: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The index of the first column whose header starts with `prefix`
    /// (case-insensitive).
    pub fn col(&self, prefix: &str) -> Option<usize> {
        let p = prefix.to_lowercase();
        self.header.iter().position(|h| h.to_lowercase().starts_with(&p))
    }
}

fn cells(line: &str) -> Vec<String> {
    let t = line.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t.strip_suffix('|').unwrap_or(t);
    t.split('|').map(|c| c.trim().to_string()).collect()
}

fn is_separator(line: &str) -> bool {
    let c = cells(line);
    !c.is_empty() && c.iter().all(|x| !x.is_empty() && x.chars().all(|ch| matches!(ch, '-' | ':' | ' ')))
}

/// Every markdown table in `text` (a header row, a `|---|` row, data rows).
pub fn tables(text: &str) -> Vec<Table> {
    let lines: Vec<&str> = text.lines().collect();
    let (mut heading, mut label) = (String::new(), String::new());
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i].trim();
        if l.starts_with('|') && i + 1 < lines.len() && is_separator(lines[i + 1]) {
            let header = cells(l);
            let mut rows = Vec::new();
            i += 2;
            while i < lines.len() && lines[i].trim().starts_with('|') {
                rows.push(cells(lines[i]));
                i += 1;
            }
            out.push(Table { heading: heading.clone(), label: label.clone(), header, rows });
            continue;
        }
        if l.starts_with('#') {
            heading = l.trim_start_matches('#').trim().to_string();
            label.clear();
        } else if !l.is_empty() {
            label = l.to_string();
        }
        i += 1;
    }
    out
}

/// The number at the start of `s` (digits, `,` thousands separators, one
/// `.`), and the rest of `s` after it. `None` when `s` does not start with a
/// digit (`–`, `-`, text).
pub fn leading_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim_start();
    let end = s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ',')).unwrap_or(s.len());
    let num: String = s[..end].chars().filter(|&c| c != ',').collect();
    if !num.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    num.parse().ok().map(|v| (v, &s[end..]))
}

/// A time such as `0.38µs (6.1x)`, `721 ns` or `1.2ms`, in microseconds.
pub fn micros(s: &str) -> Option<f64> {
    let (v, rest) = leading_number(s)?;
    let unit = rest.trim_start();
    let scale = if unit.starts_with("ns") {
        1e-3
    } else if unit.starts_with("ms") {
        1e3
    } else if unit.starts_with('s') {
        1e6
    } else {
        1.0 // µs, us, or no unit
    };
    Some(v * scale)
}

/// A range cell `34.9–58.7` (en dash or hyphen) or a single value `0.25`.
pub fn range(s: &str) -> Option<(f64, f64)> {
    let (lo, rest) = leading_number(s)?;
    let rest = rest.trim_start();
    let hi = rest.strip_prefix('–').or_else(|| rest.strip_prefix('-')).and_then(leading_number).map(|(v, _)| v);
    Some((lo, hi.unwrap_or(lo)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_body() {
        let f = parse_file("# bench-data | 2026-12-01 | scripts/x.sh 3 | load 1.2 | a | b\nbody\n").unwrap();
        assert_eq!(f.header.date, "2026-12-01");
        assert_eq!(f.header.command, "scripts/x.sh 3");
        assert_eq!(f.header.load, "load 1.2");
        assert_eq!(f.header.note, "a | b");
        assert_eq!(f.body, "body\n");
        assert!(parse_file("# bench-data | only a date\n").is_err());
        let bare = parse_file("scenario instr/op\n").unwrap();
        assert_eq!(bare.header, Header::default());
    }

    #[test]
    fn numbers() {
        assert_eq!(leading_number("13,730 x"), Some((13730.0, " x")));
        assert_eq!(leading_number("–"), None);
        assert_eq!(micros("0.38µs (6.1x) 🟢"), Some(0.38));
        assert_eq!(micros("721"), Some(721.0));
        assert_eq!(micros("500 ns"), Some(0.5));
        assert_eq!(range("34.9–58.7"), Some((34.9, 58.7)));
        assert_eq!(range("0.25"), Some((0.25, 0.25)));
        assert_eq!(range("–"), None);
    }

    #[test]
    fn finds_tables_with_their_heading() {
        let t = tables("## A\n\ntext\n| a | b |\n|---|---:|\n| 1 | 2 |\n\n| not a table\n");
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].heading, "A");
        assert_eq!(t[0].label, "text");
        assert_eq!(t[0].header, ["a", "b"]);
        assert_eq!(t[0].rows, [["1", "2"]]);
        assert_eq!(t[0].col("B"), Some(1));
    }
}
