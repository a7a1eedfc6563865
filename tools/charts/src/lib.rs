//! Draws the charts of BENCHMARKS.md (`docs/charts/*.svg`) from the saved
//! benchmark outputs in `docs/bench-data/`: `scripts/charts.sh` runs it.
//! A tool of the repository, not part of the shipped library.

pub mod csharp;
pub mod data;
pub mod draw;
pub mod frame_alloc;
pub mod opcount;

use std::path::Path;

pub use draw::BarChart;

/// A chart and the file it goes to (a name in the output directory).
pub struct Chart {
    pub file: String,
    pub chart: BarChart,
}

/// The data files read, in `docs/bench-data/`.
pub const DATA_FILES: [&str; 4] = ["csharp.txt", "opcount.txt", "frame-alloc.txt", "frame-alloc-interleaved.txt"];
pub const GOALS_FILE: &str = "opcount-goals.txt";

/// Every chart the data files in `dir` give. A missing data file gives no
/// chart; a data file that cannot be read is an error.
pub fn charts(dir: &Path) -> Result<Vec<Chart>, String> {
    let mut out = Vec::new();
    let present = |f: &str| dir.join(f).exists();
    let ctx = |f: &str, e: String| format!("{}: {e}", dir.join(f).display());
    if present("csharp.txt") {
        let d = data::read(&dir.join("csharp.txt"))?;
        let sections = csharp::parse(&d.body).map_err(|e| ctx("csharp.txt", e))?;
        if let Some(chart) = csharp::ratio_chart(&sections, &d.header) {
            out.push(Chart { file: "csharp-vs-unitask.svg".into(), chart });
        }
        if let Some(chart) = csharp::times_chart(&sections, &d.header) {
            out.push(Chart { file: "csharp-times.svg".into(), chart });
        }
    }
    if present("opcount.txt") {
        let d = data::read(&dir.join("opcount.txt"))?;
        let rows = opcount::parse(&d.body).map_err(|e| ctx("opcount.txt", e))?;
        let goals = match std::fs::read_to_string(dir.join(GOALS_FILE)) {
            Ok(text) => opcount::goals(&text, &rows).map_err(|e| ctx(GOALS_FILE, e))?,
            Err(_) => Default::default(),
        };
        out.push(Chart { file: "native-opcount.svg".into(), chart: opcount::chart(&rows, &goals, &d.header) });
    }
    if present("frame-alloc.txt") {
        let d = data::read(&dir.join("frame-alloc.txt"))?;
        let tables = frame_alloc::parse_matrix(&d.body);
        if tables.is_empty() {
            return Err(ctx("frame-alloc.txt", "no allocator table (onity / shared / thread-local / malloc)".into()));
        }
        for m in &tables {
            let file = format!("frame-alloc-{}.svg", m.measure.replace(' ', "-"));
            if out.iter().all(|c: &Chart| c.file != file) {
                out.push(Chart { file, chart: frame_alloc::matrix_chart(m, &d.header) });
            }
        }
    }
    if present("frame-alloc-interleaved.txt") {
        let d = data::read(&dir.join("frame-alloc-interleaved.txt"))?;
        let rows = frame_alloc::parse_interleaved(&d.body);
        if rows.is_empty() {
            return Err(ctx(
                "frame-alloc-interleaved.txt",
                "no 2-vs-1 table (main alone / spawned alone / ...)".into(),
            ));
        }
        out.push(Chart {
            file: "frame-alloc-2v1.svg".into(),
            chart: frame_alloc::side_by_side_chart(&rows, &d.header),
        });
    }
    Ok(out)
}

/// Draws `charts` into `out`, and removes any other `.svg` there (a chart
/// whose data is gone). Returns the paths written.
pub fn write_all(charts: &[Chart], out: &Path) -> Result<Vec<std::path::PathBuf>, String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut written = Vec::new();
    for c in charts {
        let p = out.join(&c.file);
        draw::render(&c.chart, &p)?;
        written.push(p);
    }
    for e in std::fs::read_dir(out).map_err(|e| format!("{}: {e}", out.display()))?.flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "svg") && !written.contains(&p) {
            std::fs::remove_file(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        }
    }
    Ok(written)
}

/// Parses an SVG file and returns the text of its `<text>` elements.
pub fn svg_texts(path: &Path) -> Result<Vec<String>, String> {
    let src = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let doc = roxmltree::Document::parse(&src).map_err(|e| format!("{}: not XML: {e}", path.display()))?;
    let root = doc.root_element();
    if root.tag_name().name() != "svg" {
        return Err(format!("{}: root element is <{}>, not <svg>", path.display(), root.tag_name().name()));
    }
    for attr in ["width", "height"] {
        let ok =
            root.attribute(attr).and_then(|v| v.trim_end_matches("px").parse::<f64>().ok()).is_some_and(|v| v > 0.0);
        if !ok {
            return Err(format!("{}: <svg> has no positive {attr}", path.display()));
        }
    }
    Ok(doc
        .descendants()
        .filter(|n| n.tag_name().name() == "text")
        .map(|n| {
            n.descendants().filter(|t| t.is_text()).filter_map(|t| t.text()).collect::<String>().trim().to_string()
        })
        .collect())
}

/// Checks that the SVG at `path` parses and that each of `expected` is the
/// whole text of one of its text elements; returns the ones missing.
pub fn check(path: &Path, expected: &[String]) -> Result<Vec<String>, String> {
    let texts = svg_texts(path)?;
    Ok(expected.iter().filter(|e| !texts.contains(e)).cloned().collect())
}
