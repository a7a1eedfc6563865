//! `onity-charts [--data DIR] [--out DIR]`: draws every chart from the data
//! files in DIR (default `docs/bench-data`) into OUT (default `docs/charts`).
//! `onity-charts check FILE.svg [TEXT...]`: parses FILE as SVG and checks that
//! every TEXT appears in one of its text elements.

use std::path::PathBuf;
use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!("usage: onity-charts [--data DIR] [--out DIR]\n       onity-charts check FILE.svg [TEXT...]");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("check") {
        let Some(file) = args.get(1) else { return usage() };
        return match onity_charts::check(file.as_ref(), &args[2..]) {
            Ok(missing) if missing.is_empty() => {
                println!("svg-check {file}: {} texts found", args.len() - 2);
                println!("svg-check: 1 passed, 0 failed");
                ExitCode::SUCCESS
            }
            Ok(missing) => {
                eprintln!("svg-check {file}: missing {missing:?}");
                println!("svg-check: 0 passed, 1 failed");
                ExitCode::FAILURE
            }
            Err(e) => {
                eprintln!("svg-check: {e}");
                println!("svg-check: 0 passed, 1 failed");
                ExitCode::FAILURE
            }
        };
    }
    let (mut data, mut out) = (PathBuf::from("docs/bench-data"), PathBuf::from("docs/charts"));
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match (a.as_str(), it.next()) {
            ("--data", Some(d)) => data = d.into(),
            ("--out", Some(o)) => out = o.into(),
            _ => return usage(),
        }
    }
    let result = onity_charts::charts(&data).and_then(|charts| {
        if charts.is_empty() {
            return Err(format!("no data file in {} (expected {:?})", data.display(), onity_charts::DATA_FILES));
        }
        let written = onity_charts::write_all(&charts, &out)?;
        for (c, p) in charts.iter().zip(written) {
            let series: Vec<&str> = c.chart.series.iter().map(|s| s.name.as_str()).collect();
            println!(
                "{}: {} rows × {} series ({})",
                p.display(),
                c.chart.groups.len(),
                series.len(),
                series.join("; ")
            );
        }
        Ok(())
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("onity-charts: {e}");
            ExitCode::FAILURE
        }
    }
}
