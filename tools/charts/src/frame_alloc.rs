//! The frame allocator benchmark (`cargo bench --bench frame_alloc`) and its
//! 2-against-1-worker side-by-side mode (`scripts/frame-alloc-interleaved.sh`).
//!
//! The benchmark prints one markdown table per measure (wall time, per-worker
//! CPU, active time, each worker's own best set), a row per case and a column
//! per allocator, cells like `0.38µs (6.1x) 🟢`. The interleaved mode prints a
//! table per process (`| row | column | main alone | spawned alone | main,
//! both | spawned, both | ...`, in ns) and the script adds the best of them;
//! the values taken here are the minimum over every such table, which is the
//! script's best-of table whichever of them the file holds.

use crate::data::{leading_number, micros, tables, Header};
use crate::draw::{fmt_num, Bar, BarChart, Group, RefLine, Scale, Series, LIGHT_BLUE, LIGHT_GREEN, PALETTE};

/// The allocator columns, matched by a word of their header.
const COLUMNS: [(&str, &str); 4] = [
    ("onity", "onity FrameAllocator (Frame lifetime)"),
    ("shared", "shared atomic bump, CAS per allocation (Rewindable analogue)"),
    ("thread-local", "thread-local bump (Temp analogue)"),
    ("malloc", "malloc (Persistent analogue)"),
];

#[derive(Debug, Clone, PartialEq)]
pub struct Matrix {
    /// `wall`, `cpu`, `active` or `own best`.
    pub measure: &'static str,
    pub heading: String,
    /// Case name and the four columns' times in µs.
    pub rows: Vec<(String, [Option<f64>; 4])>,
}

/// The measure a table heading names, read before its parenthesis (which
/// mentions other measures: "equals CPU time", "its active time").
fn measure_of(heading: &str) -> Option<&'static str> {
    let h = heading.split('(').next().unwrap_or("").to_lowercase();
    [("wall", "wall"), ("best set", "own best"), ("cpu", "cpu"), ("active", "active")]
        .into_iter()
        .find(|(k, _)| h.contains(k))
        .map(|(_, m)| m)
}

/// The matrix tables of a benchmark output, in the order printed.
pub fn parse_matrix(body: &str) -> Vec<Matrix> {
    let mut out = Vec::new();
    for t in tables(body) {
        let Some(measure) = measure_of(&t.heading) else { continue };
        let idx: Vec<Option<usize>> = COLUMNS.iter().map(|(k, _)| t.col(k)).collect();
        if idx.iter().any(Option::is_none) {
            continue;
        }
        let rows = t
            .rows
            .iter()
            .map(|r| (r[0].clone(), std::array::from_fn(|i| idx[i].and_then(|c| r.get(c)).and_then(|v| micros(v)))))
            .collect();
        out.push(Matrix { measure, heading: t.heading.clone(), rows });
    }
    out
}

/// 2 workers against 1, per (row, column): the four best times in ns.
#[derive(Debug, Clone, PartialEq)]
pub struct SideBySide {
    pub row: String,
    pub column: String,
    /// main alone, spawned alone, main with both, spawned with both.
    pub ns: [f64; 4],
}

impl SideBySide {
    /// Each thread with both allocating against the same thread alone (the larger).
    pub fn per_thread(&self) -> f64 {
        (self.ns[2] / self.ns[0]).max(self.ns[3] / self.ns[1])
    }
    /// The slower thread with both against the main thread alone.
    pub fn vs_main_alone(&self) -> f64 {
        self.ns[2].max(self.ns[3]) / self.ns[0]
    }
}

pub fn parse_interleaved(body: &str) -> Vec<SideBySide> {
    let mut out: Vec<SideBySide> = Vec::new();
    for t in tables(body) {
        let (Some(row), Some(col)) = (t.col("row"), t.col("column")) else { continue };
        let idx = [t.col("main alone"), t.col("spawned alone"), t.col("main, both"), t.col("spawned, both")];
        if idx.iter().any(Option::is_none) {
            continue;
        }
        for r in &t.rows {
            let vals: Vec<f64> = idx
                .iter()
                .filter_map(|c| c.and_then(|c| r.get(c)).and_then(|v| leading_number(v)))
                .map(|x| x.0)
                .collect();
            let (Ok(ns), Some(name), Some(column)) = (<[f64; 4]>::try_from(vals), r.get(row), r.get(col)) else {
                continue;
            };
            match out.iter_mut().find(|s| &s.row == name && &s.column == column) {
                Some(s) => s.ns.iter_mut().zip(ns).for_each(|(a, b)| *a = a.min(b)),
                None => out.push(SideBySide { row: name.clone(), column: column.clone(), ns }),
            }
        }
    }
    out
}

pub fn matrix_chart(m: &Matrix, header: &Header) -> BarChart {
    let (title, note) = match m.measure {
        "wall" => (
            "Frame allocator: wall time per sample set (150 allocations per worker)",
            "Release to last worker done; 4 and 8 workers are oversubscribed on this 2-core machine.",
        ),
        "own best" => (
            "Frame allocator: per-worker time per sample set, each worker's own best set",
            "Slowest worker's own minimum active time over the sets (150 allocations).",
        ),
        "cpu" => ("Frame allocator: per-worker CPU time per sample set", "Slowest worker, minimum over sets."),
        _ => ("Frame allocator: per-worker active time per sample set", "Slowest worker, minimum over sets."),
    };
    let series = COLUMNS
        .iter()
        .enumerate()
        .map(|(i, (_, name))| Series {
            name: name.to_string(),
            color: [PALETTE[0], PALETTE[1], PALETTE[2], PALETTE[4]][i],
        })
        .collect();
    let groups = m
        .rows
        .iter()
        .map(|(name, vals)| Group {
            label: name.replace("1048576", "1 MiB"),
            bars: vals
                .iter()
                .map(|v| v.map(|v| Bar { value: v, range: None, marker: None, text: fmt_num(v) }))
                .collect(),
        })
        .collect();
    let subtitle = vec![
        header.provenance(),
        format!("{note} Case(workers, size): FixedSize, IncSize 1..150 × size, DecSize 150..1 × size."),
    ];
    BarChart::new(title, subtitle, "time per sample set, µs (log scale)", Scale::Log, series, groups)
}

pub fn side_by_side_chart(rows: &[SideBySide], header: &Header) -> BarChart {
    let mut names: Vec<&str> = Vec::new();
    let mut columns: Vec<&str> = Vec::new();
    for r in rows {
        if !names.contains(&r.row.as_str()) {
            names.push(&r.row);
        }
        if !columns.contains(&r.column.as_str()) {
            columns.push(&r.column);
        }
    }
    let mut series = Vec::new();
    for (i, col) in columns.iter().enumerate() {
        let (dark, light) = match i {
            0 => (PALETTE[0], LIGHT_BLUE),
            1 => (PALETTE[2], LIGHT_GREEN),
            _ => (PALETTE[(2 * i) % PALETTE.len()], PALETTE[(2 * i + 1) % PALETTE.len()]),
        };
        let label = if *col == "thread-local" { "thread-local control" } else { col };
        series.push(Series { name: format!("{label}: per thread"), color: dark });
        series.push(Series { name: format!("{label}: vs main alone"), color: light });
    }
    let groups = names
        .iter()
        .map(|name| Group {
            label: name.replace("1048576", "1 MiB"),
            bars: columns
                .iter()
                .flat_map(|col| {
                    let r = rows.iter().find(|r| r.row == *name && r.column == *col);
                    [r.map(SideBySide::per_thread), r.map(SideBySide::vs_main_alone)]
                })
                .map(|v| v.map(|v| Bar { value: v, range: None, marker: None, text: format!("{v:.2}x") }))
                .collect(),
        })
        .collect();
    let subtitle = vec![
        header.provenance(),
        "Per thread: each thread's best set with a second thread allocating at the same time, over its best set \
         alone (the larger of the two threads). Vs main alone: the slower thread with both, over the main thread \
         alone. Thread-local control: a bump allocator that shares nothing (what the machine itself does). \
         Best values over the processes."
            .into(),
    ];
    let title = "Frame allocator: 2 workers against 1, side by side in one process";
    let x_desc = "time with 2 workers / time with 1 (ratio; bars start at 1.0)";
    BarChart {
        baseline: 1.0,
        ref_lines: vec![RefLine { at: 1.3, label: "1.3x: the target (issue #4)".into() }],
        ..BarChart::new(title, subtitle, x_desc, Scale::Linear, series, groups)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_header_styles() {
        let long = "## Wall time per sample set (release to last worker done)\n\n\
| Functionality | onity FrameAllocator (Frame) | Shared atomic bump, CAS loop (Rewindable analogue) | Thread-local bump (Temp analogue) | malloc (Persistent analogue) |\n\
|---|---|---|---|---|\n\
| FixedSize(1, 1024) | 0.47µs (4.5x) | 0.67µs (3.2x) | 0.29µs (7.4x) 🟢 | 2.1µs (1.0x) 🟠 |\n\n\
## Per-worker best set (each worker's own minimum)\n\n\
| row | onity | shared CAS | thread-local | malloc |\n|---|---:|---:|---:|---:|\n\
| IncSize(2, 4096) | 0.68µs (415.4x) | 7.8µs (36.1x) | 0.53µs (532.8x) | 282.9µs (1.0x) |\n\n\
## onity FrameAllocator memory per row\n\n| Functionality | live | high water |\n|---|---|---|\n| x | 1 | 2 |\n";
        let m = parse_matrix(long);
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].measure, "wall");
        assert_eq!(m[0].rows[0], ("FixedSize(1, 1024)".to_string(), [Some(0.47), Some(0.67), Some(0.29), Some(2.1)]));
        assert_eq!(m[1].measure, "own best");
        assert_eq!(m[1].rows[0].1[3], Some(282.9));
    }

    #[test]
    fn measures_by_heading() {
        let m = |h: &str| measure_of(h);
        assert_eq!(m("Wall time per sample set (release to last worker done)"), Some("wall"));
        assert_eq!(m("Per-worker CPU time per sample set (CLOCK_THREAD_CPUTIME_ID, slowest worker)"), Some("cpu"));
        assert_eq!(m("Per-worker active time per sample set (monotonic; equals CPU time when ...)"), Some("active"));
        assert_eq!(m("Per-worker best set (each worker's own minimum of its active time)"), Some("own best"));
        assert_eq!(m("onity FrameAllocator memory per row (after the run)"), None);
    }

    #[test]
    fn side_by_side_takes_the_best_of_every_table() {
        let t = |a: u32| {
            format!(
                "| row | column | main alone | spawned alone | main, both | spawned, both | per thread (max) |\n\
|---|---|---:|---:|---:|---:|---:|\n| FixedSize(w, 1024) | onity | {a} | 400 | 390 | 391 | 1.21x ✓ |\n\n"
            )
        };
        let rows = parse_interleaved(&(t(330) + &t(321)));
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].ns, [321.0, 400.0, 390.0, 391.0]);
        assert!((rows[0].per_thread() - 390.0 / 321.0).abs() < 1e-12);
        assert!((rows[0].vs_main_alone() - 391.0 / 321.0).abs() < 1e-12);
    }
}
