//! The report: the tables, the rows passed between processes, the run of
//! the matrix in several processes.

use super::*;

pub(crate) const COLUMNS: [&str; 4] = [
    "onity FrameAllocator (Frame)",
    "Shared atomic bump, CAS loop (Rewindable analogue)",
    "Thread-local bump (Temp analogue)",
    "malloc (Persistent analogue)",
];
pub(crate) const MALLOC: usize = 3;

pub(crate) struct Row {
    pub(crate) name: String,
    pub(crate) case: Case,
    pub(crate) results: [Measured; 4],
    /// The frame allocator's statistics after the run.
    pub(crate) ours_stats: FrameAllocStats,
    /// Its highest `bytes_reserved` at the end of a set.
    pub(crate) ours_peak: u64,
}

pub(crate) fn fmt_us(ns: u64) -> String {
    let us = ns as f64 / 1000.0;
    if us < 1.0 {
        format!("{us:.2}µs")
    } else {
        format!("{us:.1}µs")
    }
}

pub(crate) fn print_table(rows: &[Row], title: &str, pick: impl Fn(&Measured) -> u64) {
    println!("\n{title}\n");
    println!("| Functionality | {} |", COLUMNS.join(" | "));
    println!("|---|{}", "---|".repeat(COLUMNS.len()));
    for r in rows {
        let vals: Vec<u64> = r.results.iter().map(&pick).collect();
        let base = vals[MALLOC] as f64;
        let best = *vals.iter().min().unwrap();
        let worst = *vals.iter().max().unwrap();
        let cells: Vec<String> = vals
            .iter()
            .map(|&v| {
                let mark = if v == best {
                    " 🟢"
                } else if v == worst {
                    " 🟠"
                } else {
                    ""
                };
                format!("{} ({:.1}x){mark}", fmt_us(v), base / v.max(1) as f64)
            })
            .collect();
        println!("| {} | {} |", r.name, cells.join(" | "));
    }
}

/// Prints `none` when `count` of the onity column is 0 in every row, else
/// `some` and the rows where it is not, with their counts.
pub(crate) fn report_nonzero(rows: &[Row], count: fn(&Measured) -> u64, none: &str, some: &str) {
    let hits: Vec<String> = rows
        .iter()
        .filter(|r| count(&r.results[0]) > 0)
        .map(|r| format!("{} ({})", r.name, count(&r.results[0])))
        .collect();
    if hits.is_empty() {
        println!("{none}");
    } else {
        println!("{some}: {}", hits.join(", "));
    }
}

/// One row as a line of text, for a parent process (see [`run_processes`]).
pub(crate) fn encode_row(r: &Row) -> String {
    let mut f = vec!["ROW".to_string(), r.name.clone()];
    for m in &r.results {
        for v in [m.os_allocs_measured, m.faults_measured, m.wall_ns, m.cpu_ns, m.active_ns, m.own_best_ns] {
            f.push(v.to_string());
        }
    }
    let s = &r.ours_stats;
    for v in [s.high_water_bytes_in_use, s.bytes_claimed, s.bytes_reserved, s.os_allocations, r.ours_peak] {
        f.push(v.to_string());
    }
    f.join("\t")
}

pub(crate) fn decode_row(line: &str) -> Option<Row> {
    let mut f = line.strip_prefix("ROW\t")?.split('\t');
    let name = f.next()?.to_string();
    let case = all_cases().into_iter().find(|c| c.name() == name)?;
    let v: Vec<u64> = f.map(|x| x.parse().ok()).collect::<Option<_>>()?;
    if v.len() != 4 * 6 + 5 {
        return None;
    }
    let m = |i: usize| Measured {
        os_allocs_measured: v[6 * i],
        faults_measured: v[6 * i + 1],
        wall_ns: v[6 * i + 2],
        cpu_ns: v[6 * i + 3],
        active_ns: v[6 * i + 4],
        own_best_ns: v[6 * i + 5],
    };
    let ours_stats = FrameAllocStats {
        high_water_bytes_in_use: v[24],
        bytes_claimed: v[25],
        bytes_reserved: v[26],
        os_allocations: v[27],
        ..FrameAllocStats::default()
    };
    Some(Row { name, case, results: [m(0), m(1), m(2), m(3)], ours_stats, ours_peak: v[28] })
}

/// Runs the matrix in `processes` child processes of this benchmark, one
/// after the other, and merges their rows: every time is the minimum over
/// the processes (the seed's method: several processes per revision, each
/// the minimum of its sets), OS allocations and page faults are summed, the
/// memory statistics are the first process's and the peaks the highest.
/// Returns the rows and the highest peak resident set size (kB).
pub(crate) fn run_processes(processes: usize) -> (Vec<Row>, u64) {
    let exe = std::env::current_exe().expect("benchmark executable");
    let mut merged: Vec<Row> = Vec::new();
    let mut peak_kb = 0;
    for p in 0..processes {
        eprintln!("# process {} of {processes}", p + 1);
        let out = std::process::Command::new(&exe)
            .args(std::env::args().skip(1))
            .env("ONITY_BENCH_CHILD", "1")
            .stderr(std::process::Stdio::inherit())
            .output()
            .expect("start a benchmark process");
        assert!(out.status.success(), "benchmark process {} failed: {}", p + 1, out.status);
        let text = String::from_utf8_lossy(&out.stdout);
        for kb in text.lines().filter_map(|l| l.strip_prefix("HWM\t")?.parse::<u64>().ok()) {
            peak_kb = peak_kb.max(kb);
        }
        let rows: Vec<Row> = text
            .lines()
            .filter(|l| l.starts_with("ROW\t"))
            .map(|l| decode_row(l).unwrap_or_else(|| panic!("benchmark process {}: bad line {l:?}", p + 1)))
            .collect();
        // Every process measures the same rows, in the same order.
        if p > 0 {
            let names = |v: &[Row]| v.iter().map(|r| r.name.clone()).collect::<Vec<_>>();
            assert_eq!(names(&rows), names(&merged), "benchmark process {} measured other rows", p + 1);
        }
        for row in rows {
            match merged.iter_mut().find(|r| r.name == row.name) {
                None => merged.push(row),
                Some(r) => {
                    for (a, b) in r.results.iter_mut().zip(&row.results) {
                        a.os_allocs_measured += b.os_allocs_measured;
                        a.faults_measured += b.faults_measured;
                        a.wall_ns = a.wall_ns.min(b.wall_ns);
                        a.cpu_ns = a.cpu_ns.min(b.cpu_ns);
                        a.active_ns = a.active_ns.min(b.active_ns);
                        a.own_best_ns = a.own_best_ns.min(b.own_best_ns);
                    }
                    r.ours_peak = r.ours_peak.max(row.ours_peak);
                }
            }
        }
    }
    (merged, peak_kb)
}
