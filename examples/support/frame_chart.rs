//! The demo's picture (examples/demo.rs): per-frame series drawn as lines in
//! panels that share the frame axis, written as a standalone SVG file. Kept
//! to plain string building so the library's examples need no plotting
//! dependency (the benchmark charts use plotters, in tools/charts).

use std::fmt::Write;

pub struct Line<'a> {
    pub name: String,
    pub color: &'a str,
    /// One value per frame.
    pub values: &'a [f64],
    pub bold: bool,
}

pub struct Panel<'a> {
    /// The y axis' description, with its unit.
    pub y_label: &'a str,
    pub lines: Vec<Line<'a>>,
    /// Dashed horizontal guides (value, label), e.g. the median; the first
    /// one's label goes under its line, the others' above.
    pub guides: Vec<(f64, String)>,
    /// A log y axis (for frame times with a few long frames).
    pub log: bool,
}

const W: f64 = 1000.0;
const LEFT: f64 = 78.0;
const RIGHT: f64 = 200.0; // legend column
const PANEL_H: f64 = 230.0;
const PANEL_GAP: f64 = 64.0;
const TOP: f64 = 84.0;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

fn fmt(v: f64) -> String {
    if v.abs() >= 1000.0 && v.fract() == 0.0 {
        let s = format!("{v:.0}");
        let n = s.len();
        s.chars().enumerate().fold(String::new(), |mut o, (i, c)| {
            if i > 0 && (n - i) % 3 == 0 {
                o.push(',');
            }
            o.push(c);
            o
        })
    } else if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// Round tick values covering 0..=max (at least 1), and the axis top.
fn ticks(max: f64) -> (Vec<f64>, f64) {
    let max = max.max(1.0);
    let raw = max / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0].into_iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(raw);
    let top = (max / step).ceil() * step;
    let n = (top / step).round() as usize;
    ((0..=n).map(|i| i as f64 * step).collect(), top)
}

/// Log-axis ticks: 1, 2 and 5 times the powers of ten from below `min` to
/// above `max`, and the axis' bottom and top.
fn log_ticks(min: f64, max: f64) -> (Vec<f64>, f64, f64) {
    let min = min.max(1e-3);
    let max = max.max(min * 2.0);
    let (k0, k1) = (min.log10().floor() as i32, max.log10().ceil() as i32);
    let all: Vec<f64> = (k0..=k1).flat_map(|k| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(k))).collect();
    let bottom = all.iter().cloned().filter(|&v| v <= min).fold(all[0], f64::max);
    let top = all.iter().cloned().find(|&v| v >= max).unwrap_or(all[all.len() - 1]);
    (all.into_iter().filter(|&v| v >= bottom && v <= top).collect(), bottom, top)
}

/// At most about 2 points per pixel: long runs are reduced to each bucket's
/// lowest and highest value, so spikes stay visible.
fn points(values: &[f64], x: impl Fn(f64) -> f64, y: impl Fn(f64) -> f64) -> String {
    let n = values.len();
    let bucket = n.div_ceil(1200).max(1);
    let mut out = String::new();
    for (b, chunk) in values.chunks(bucket).enumerate() {
        let i0 = b * bucket;
        let lo = chunk.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = chunk.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let pts: &[(usize, f64)] = if bucket == 1 { &[(0, lo)] } else { &[(0, lo), (chunk.len() - 1, hi)] };
        for &(k, v) in pts {
            let _ = write!(out, "{:.1},{:.1} ", x((i0 + k) as f64), y(v));
        }
    }
    out
}

/// The whole SVG document (`subtitle`: up to two lines). Frames are numbered
/// from 1.
pub fn svg(title: &str, subtitle: &str, x_label: &str, panels: &[Panel]) -> String {
    let frames = panels.iter().flat_map(|p| p.lines.iter().map(|l| l.values.len())).max().unwrap_or(0).max(2);
    let plot_w = W - LEFT - RIGHT;
    let h = TOP + panels.len() as f64 * (PANEL_H + PANEL_GAP) + 10.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" viewBox="0 0 {W} {h}" font-family="sans-serif">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(s, r#"<text x="16" y="28" font-size="19">{}</text>"#, esc(title));
    for (i, line) in subtitle.lines().enumerate() {
        let _ = writeln!(s, r##"<text x="16" y="{}" font-size="12" fill="#555">{}</text>"##, 50 + 16 * i, esc(line));
    }
    let x = |f: f64| LEFT + (f / (frames - 1) as f64) * plot_w;
    let (xt, _) = ticks(frames as f64);
    for (pi, p) in panels.iter().enumerate() {
        let y0 = TOP + pi as f64 * (PANEL_H + PANEL_GAP);
        let max = p
            .lines
            .iter()
            .flat_map(|l| l.values.iter().cloned())
            .chain(p.guides.iter().map(|g| g.0))
            .fold(0.0, f64::max);
        let min = p.lines.iter().flat_map(|l| l.values.iter().cloned()).filter(|&v| v > 0.0).fold(max, f64::min);
        let (yt, bottom, top) = if p.log {
            log_ticks(min, max)
        } else {
            let (t, top) = ticks(max * 1.05);
            (t, 0.0, top)
        };
        let y = |v: f64| {
            let f = if p.log { (v.max(bottom) / bottom).ln() / (top / bottom).ln() } else { v / top };
            y0 + PANEL_H - f * PANEL_H
        };
        for &t in &yt {
            let _ = writeln!(
                s,
                r##"<line x1="{LEFT}" x2="{:.1}" y1="{:.1}" y2="{:.1}" stroke="#e4e4e4"/><text x="{:.1}" y="{:.1}" font-size="12" text-anchor="end" dominant-baseline="middle">{}</text>"##,
                LEFT + plot_w,
                y(t),
                y(t),
                LEFT - 6.0,
                y(t),
                fmt(t)
            );
        }
        for &t in xt.iter().filter(|&&t| t >= 1.0 && t <= frames as f64) {
            let _ = writeln!(
                s,
                r##"<line x1="{:.1}" x2="{:.1}" y1="{y0}" y2="{:.1}" stroke="#f0f0f0"/><text x="{:.1}" y="{:.1}" font-size="12" text-anchor="middle">{}</text>"##,
                x(t - 1.0),
                x(t - 1.0),
                y0 + PANEL_H,
                x(t - 1.0),
                y0 + PANEL_H + 17.0,
                fmt(t)
            );
        }
        let _ = writeln!(
            s,
            r##"<text transform="translate(18 {:.1}) rotate(-90)" font-size="13" text-anchor="middle">{}</text>"##,
            y0 + PANEL_H / 2.0,
            esc(p.y_label)
        );
        for (v, _) in &p.guides {
            let _ = writeln!(
                s,
                r##"<line x1="{LEFT}" x2="{:.1}" y1="{:.1}" y2="{:.1}" stroke="#d62728" stroke-dasharray="6 4"/>"##,
                LEFT + plot_w,
                y(*v),
                y(*v)
            );
        }
        for l in &p.lines {
            let _ = writeln!(
                s,
                r#"<polyline fill="none" stroke="{}" stroke-width="{}" points="{}"/>"#,
                l.color,
                if l.bold { 1.8 } else { 1.2 },
                points(l.values, x, y)
            );
        }
        for (i, (v, label)) in p.guides.iter().enumerate() {
            let _ = writeln!(
                s,
                r##"<text x="{:.1}" y="{:.1}" font-size="11" fill="#d62728" stroke="white" stroke-width="3" paint-order="stroke">{}</text>"##,
                LEFT + 6.0,
                if i == 0 { y(*v) + 13.0 } else { y(*v) - 4.0 },
                esc(label)
            );
        }
        let _ = writeln!(
            s,
            r##"<rect x="{LEFT}" y="{y0}" width="{plot_w}" height="{PANEL_H}" fill="none" stroke="#333"/>"##
        );
        for (li, l) in p.lines.iter().enumerate() {
            let ly = y0 + 10.0 + li as f64 * 18.0;
            let _ = writeln!(
                s,
                r#"<rect x="{:.1}" y="{:.1}" width="14" height="4" fill="{}"/><text x="{:.1}" y="{:.1}" font-size="12" dominant-baseline="middle">{}</text>"#,
                LEFT + plot_w + 8.0,
                ly - 2.0,
                l.color,
                LEFT + plot_w + 28.0,
                ly,
                esc(&l.name)
            );
        }
    }
    let last = TOP + panels.len() as f64 * (PANEL_H + PANEL_GAP) - PANEL_GAP;
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" font-size="13" text-anchor="middle">{}</text>"#,
        LEFT + plot_w / 2.0,
        last + 40.0,
        esc(x_label)
    );
    s.push_str("</svg>\n");
    s
}
