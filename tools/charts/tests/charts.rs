//! The chart generator on the committed data (docs/bench-data) and on samples
//! of each benchmark's live output (tests/fixtures): every chart is drawn, the
//! SVG parses and shows every series, row and value; docs/charts is what the
//! committed data draws.

use std::path::{Path, PathBuf};

use onity_charts::{charts, svg_texts, write_all, Chart};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("onity-charts-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Draws `charts` into a scratch directory and checks each file: it parses as
/// SVG and every series name, row label and bar text is one of its texts.
fn draw_and_read_back(charts: &[Chart], name: &str) -> PathBuf {
    let out = scratch(name);
    let written = write_all(charts, &out).unwrap();
    for (c, path) in charts.iter().zip(&written) {
        let texts = svg_texts(path).unwrap();
        let has = |s: &str| texts.iter().any(|t| t == s);
        assert!(has(&c.chart.title), "{}: no title", path.display());
        for s in &c.chart.series {
            assert!(has(&s.name), "{}: no legend entry for series `{}`", path.display(), s.name);
        }
        let mut bars = 0;
        for g in &c.chart.groups {
            assert!(has(&g.label), "{}: no row label `{}`", path.display(), g.label);
            for b in g.bars.iter().flatten() {
                assert!(b.value.is_finite() && b.value > 0.0, "{}: bar {b:?}", path.display());
                assert!(has(&b.text), "{}: row `{}` has no value text `{}`", path.display(), g.label, b.text);
                bars += 1;
            }
        }
        assert!(bars > 0, "{}: no bars", path.display());
        let rects = std::fs::read_to_string(path).unwrap().matches("<rect").count();
        assert!(rects >= bars, "{}: {rects} rectangles for {bars} bars", path.display());
    }
    out
}

/// The charts the committed data gives, in order.
const COMMITTED: [&str; 6] = [
    "csharp-vs-unitask.svg",
    "csharp-times.svg",
    "native-opcount.svg",
    "frame-alloc-wall.svg",
    "frame-alloc-own-best.svg",
    "frame-alloc-2v1.svg",
];

fn files(charts: &[Chart]) -> Vec<&str> {
    charts.iter().map(|c| c.file.as_str()).collect()
}

#[test]
fn committed_data_draws_every_chart() {
    let charts = charts(&repo().join("docs/bench-data")).unwrap();
    assert_eq!(files(&charts), COMMITTED);
    let series = |f: &str| -> Vec<String> {
        charts.iter().find(|c| c.file == f).unwrap().chart.series.iter().map(|s| s.name.clone()).collect()
    };
    assert_eq!(
        series("csharp-vs-unitask.svg"),
        ["plain thread", "with a SynchronizationContext (as Unity's main thread)"]
    );
    assert_eq!(
        series("csharp-times.svg"),
        ["Onity", "Onity, context flow off", "UniTask 2.2.5", "System.Threading.Tasks"]
    );
    assert_eq!(series("frame-alloc-wall.svg").len(), 4);
    assert_eq!(series("frame-alloc-2v1.svg").len(), 4);
    let rows = |f: &str| charts.iter().find(|c| c.file == f).unwrap().chart.groups.len();
    assert_eq!(rows("csharp-vs-unitask.svg"), 16);
    // One group per Rust row of the opcount data (the C rows pair with them).
    let opcount = std::fs::read_to_string(repo().join("docs/bench-data/opcount.txt")).unwrap();
    let rust_rows = opcount.lines().skip(2).filter(|l| !l.trim().is_empty() && !l.starts_with("c:")).count();
    assert_eq!(rows("native-opcount.svg"), rust_rows);
    assert_eq!(rows("frame-alloc-wall.svg"), 24);
    assert_eq!(rows("frame-alloc-2v1.svg"), 6);
    draw_and_read_back(&charts, "committed");
}

#[test]
fn committed_charts_are_what_the_committed_data_draws() {
    let charts = charts(&repo().join("docs/bench-data")).unwrap();
    let fresh = draw_and_read_back(&charts, "drift");
    let committed = repo().join("docs/charts");
    let mut names: Vec<String> = std::fs::read_dir(&committed)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    names.sort();
    let mut expected: Vec<String> = files(&charts).iter().map(|s| s.to_string()).collect();
    expected.sort();
    assert_eq!(names, expected, "docs/charts holds other files than the data draws: run scripts/charts.sh");
    for n in names {
        let a = std::fs::read(committed.join(&n)).unwrap();
        let b = std::fs::read(fresh.join(&n)).unwrap();
        assert!(a == b, "docs/charts/{n} is not what docs/bench-data draws: run scripts/charts.sh");
    }
}

/// Copies fixtures into a data directory under the names the generator reads.
fn data_dir(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let d = scratch(name);
    for (fixture, as_name) in files {
        std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(fixture), d.join(as_name))
            .unwrap();
    }
    d
}

#[test]
fn live_outputs_of_every_benchmark_draw() {
    let dir = data_dir(
        "live",
        &[
            ("opcount-live.txt", "opcount.txt"),
            ("frame-alloc-quick.txt", "frame-alloc.txt"),
            ("frame-alloc-interleaved-live.txt", "frame-alloc-interleaved.txt"),
            ("csharp-live.txt", "csharp.txt"),
        ],
    );
    std::fs::copy(repo().join("docs/bench-data/opcount-goals.txt"), dir.join("opcount-goals.txt")).unwrap();
    let charts = charts(&dir).unwrap();
    // A live frame_alloc output has all four measures.
    let mut expected = COMMITTED.to_vec();
    expected.splice(4..4, ["frame-alloc-cpu.svg", "frame-alloc-active.svg"]);
    assert_eq!(files(&charts), expected);
    let op = &charts.iter().find(|c| c.file == "native-opcount.svg").unwrap().chart;
    let labels: Vec<&str> = op.groups.iter().map(|g| g.label.as_str()).collect();
    assert_eq!(labels, ["completed", "next_frame_callback", "next_frame_task", "when_any_32"]);
    // Goals come from the goals file.
    assert_eq!(op.groups[0].bars[0].as_ref().unwrap().marker, Some(200.0));
    let wall = &charts.iter().find(|c| c.file == "frame-alloc-wall.svg").unwrap().chart;
    assert_eq!(wall.groups.len(), 4);
    assert!(wall.groups.iter().all(|g| g.bars.iter().all(Option::is_some)));
    draw_and_read_back(&charts, "live-drawn");
}

#[test]
fn bad_data_is_an_error_naming_the_file() {
    let d = scratch("bad");
    std::fs::write(d.join("opcount.txt"), "# bench-data | today | scripts/opcount.sh | load 1\nnothing\n").unwrap();
    let e = charts(&d).err().unwrap();
    assert!(e.contains("opcount.txt") && e.contains("instr/op"), "{e}");
    std::fs::remove_file(d.join("opcount.txt")).unwrap();
    std::fs::write(d.join("csharp.txt"), "no section\n").unwrap();
    assert!(charts(&d).err().unwrap().contains("csharp.txt"));
    std::fs::remove_file(d.join("csharp.txt")).unwrap();
    std::fs::write(d.join("frame-alloc.txt"), "# bench-data | a | b\n").unwrap();
    assert!(charts(&d).err().unwrap().contains("header line"));
    std::fs::remove_file(d.join("frame-alloc.txt")).unwrap();
    assert!(charts(&d).unwrap().is_empty(), "no data file, no chart");
}

#[test]
fn check_finds_texts_and_rejects_what_is_not_svg() {
    let d = scratch("check");
    let svg = d.join("a.svg");
    std::fs::write(
        &svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="5"><text>frame time</text></svg>"#,
    )
    .unwrap();
    assert!(onity_charts::check(&svg, &["frame time".into()]).unwrap().is_empty());
    assert_eq!(onity_charts::check(&svg, &["delay".into()]).unwrap(), ["delay"]);
    std::fs::write(&svg, "<svg width='10' height='5'><text>unclosed</svg>").unwrap();
    assert!(onity_charts::check(&svg, &[]).is_err());
    std::fs::write(&svg, "<html width='10' height='5'/>").unwrap();
    assert!(onity_charts::check(&svg, &[]).is_err());
}
