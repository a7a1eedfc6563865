//! One kind of picture: horizontal bars in groups (one group per benchmark
//! row, one bar per series), on a linear or a log axis, with optional range
//! whiskers, goal markers and reference lines. Drawn with plotters' SVG
//! backend; axis ticks are placed here so a log axis gets a label at every
//! power of ten.

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

pub const FONT: &str = "sans-serif";
const WIDTH: u32 = 1000;
const BAR_PX: f64 = 13.0;
const GAP: f64 = 0.9; // between groups, in bars
/// A glyph's width over the font size, a little above DejaVu Sans' (one of
/// the widest common sans-serif fonts): sizes the label column, the legend
/// and the room for value texts, and wraps the subtitle.
fn em(c: char) -> f64 {
    match c {
        'i' | 'j' | 'l' | 't' | 'f' | 'r' | 'I' | ' ' | '.' | ',' | ':' | ';' | '(' | ')' | '|' | '\'' => 0.4,
        'm' | 'w' | 'M' | 'W' => 0.9,
        c if c.is_uppercase() || c.is_ascii_digit() => 0.7,
        _ => 0.62,
    }
}
const MARGIN_RIGHT: u32 = 24;

/// Colours of the series, in order, and of the goal marker.
pub const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),  // blue
    RGBColor(255, 127, 14),  // orange
    RGBColor(44, 160, 44),   // green
    RGBColor(148, 103, 189), // purple
    RGBColor(140, 140, 140), // grey
    RGBColor(23, 190, 207),  // cyan
];
pub const LIGHT_BLUE: RGBColor = RGBColor(158, 202, 225);
pub const LIGHT_GREEN: RGBColor = RGBColor(161, 217, 155);
pub const REF_RED: RGBColor = RGBColor(214, 39, 40);
const DARK: RGBColor = RGBColor(40, 40, 40);
const GREY: RGBColor = RGBColor(100, 100, 100);

#[derive(Debug, Clone)]
pub struct Series {
    pub name: String,
    pub color: RGBColor,
}

#[derive(Debug, Clone, Default)]
pub struct Bar {
    pub value: f64,
    /// A whisker from `.0` to `.1` (a range over processes).
    pub range: Option<(f64, f64)>,
    /// A goal marker drawn across the bar.
    pub marker: Option<f64>,
    /// Printed right of the bar.
    pub text: String,
}

#[derive(Debug, Clone)]
pub struct Group {
    pub label: String,
    /// One entry per series; `None`: this row has no bar of that series.
    pub bars: Vec<Option<Bar>>,
}

#[derive(Debug, Clone)]
pub struct RefLine {
    pub at: f64,
    pub label: String,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scale {
    Linear,
    Log,
}

#[derive(Debug, Clone)]
pub struct BarChart {
    pub title: String,
    /// Smaller lines under the title: what was run, when, at what load.
    pub subtitle: Vec<String>,
    /// The x axis' description, with its unit.
    pub x_desc: String,
    pub scale: Scale,
    /// Where bars start on a linear axis (0, or 1.0 for ratios).
    pub baseline: f64,
    pub series: Vec<Series>,
    pub groups: Vec<Group>,
    /// Legend entry of the markers, when there are any.
    pub marker_name: Option<String>,
    pub ref_lines: Vec<RefLine>,
}

impl BarChart {
    /// Bars from 0 (linear axis) or from the axis' start (log), no goal
    /// markers, no reference lines.
    pub fn new(
        title: &str,
        subtitle: Vec<String>,
        x_desc: &str,
        scale: Scale,
        series: Vec<Series>,
        groups: Vec<Group>,
    ) -> Self {
        let (title, x_desc) = (title.to_string(), x_desc.to_string());
        BarChart { title, subtitle, x_desc, scale, baseline: 0.0, series, groups, marker_name: None, ref_lines: vec![] }
    }
}

/// A font of `px` rendered pixels (plotters' SVG backend writes sizes divided
/// by 1.24).
fn font(px: f64) -> FontDesc<'static> {
    (FONT, px * 1.24).into_font()
}

fn text_px(s: &str, size: f64) -> f64 {
    s.chars().map(em).sum::<f64>() * size
}

/// Splits `s` into lines of at most `px` pixels at `size`, at spaces.
fn wrap(s: &str, size: f64, px: f64) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in s.split(' ') {
        let last = lines.last_mut().unwrap();
        if !last.is_empty() && text_px(&format!("{last} {word}"), size) > px {
            lines.push(word.to_string());
        } else {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(word);
        }
    }
    lines
}

/// `1,234`, `56.7`, `0.25`.
pub fn fmt_num(v: f64) -> String {
    if v >= 1000.0 || (v >= 1.0 && v.fract() == 0.0) {
        let s = format!("{:.0}", v);
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        return out;
    }
    let s = if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else if v >= 0.1 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    };
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

struct Axis {
    scale: Scale,
    lo: f64, // in axis space (log10 for a log axis)
    hi: f64,
}

impl Axis {
    fn t(&self, v: f64) -> f64 {
        match self.scale {
            Scale::Linear => v,
            Scale::Log => v.max(1e-12).log10(),
        }
    }

    /// (value in axis space, label, labelled?)
    fn ticks(&self) -> Vec<(f64, String, bool)> {
        let mut out = Vec::new();
        match self.scale {
            Scale::Log => {
                let decades = self.hi - self.lo;
                let mut k = self.lo.floor() as i32;
                while (k as f64) <= self.hi {
                    for m in 1..10 {
                        let v = 10f64.powi(k) * m as f64;
                        let t = v.log10();
                        if t < self.lo - 1e-9 || t > self.hi + 1e-9 {
                            continue;
                        }
                        let first = out.is_empty();
                        let labelled = m == 1 || ((decades < 2.5 || first) && (m == 2 || m == 5));
                        out.push((t, fmt_num(v), labelled));
                    }
                    k += 1;
                }
            }
            Scale::Linear => {
                let raw = (self.hi - self.lo) / 8.0;
                let mag = 10f64.powf(raw.log10().floor());
                let step = [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(raw);
                let mut v = (self.lo / step).ceil() * step;
                while v <= self.hi + 1e-9 {
                    out.push((v, fmt_num((v * 1e6).round() / 1e6), true));
                    v += step;
                }
            }
        }
        out
    }
}

enum Swatch {
    Box(RGBColor),
    Marker,
    Line(RGBColor),
}

/// Draws the chart into an SVG file at `path`.
pub fn render(c: &BarChart, path: &Path) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let label_px = c.groups.iter().map(|g| text_px(&g.label, 13.0)).fold(60.0, f64::max).min(380.0) + 14.0;
    let plot_px = WIDTH as f64 - label_px - MARGIN_RIGHT as f64 - 10.0;

    // Legend entries and their layout, in rows under the title.
    let mut legend: Vec<(Swatch, String)> = c.series.iter().map(|s| (Swatch::Box(s.color), s.name.clone())).collect();
    if let Some(m) = &c.marker_name {
        legend.push((Swatch::Marker, m.clone()));
    }
    for r in &c.ref_lines {
        legend.push((Swatch::Line(REF_RED), r.label.clone()));
    }
    let mut rows: Vec<Vec<(f64, usize)>> = vec![Vec::new()];
    let mut x = 0.0;
    for (i, (_, name)) in legend.iter().enumerate() {
        let w = 20.0 + text_px(name, 12.0) + 22.0;
        if x + w > WIDTH as f64 - 40.0 && x > 0.0 {
            rows.push(Vec::new());
            x = 0.0;
        }
        rows.last_mut().unwrap().push((x, i));
        x += w;
    }
    let subtitle: Vec<String> =
        c.subtitle.iter().flat_map(|s| wrap(&s.replace('`', ""), 12.0, WIDTH as f64 - 40.0)).collect();
    let top = 14.0 + 24.0 + 16.0 * subtitle.len() as f64 + 20.0 * rows.len() as f64 + 6.0;

    // Vertical layout in bar units: y grows upwards in plotters, so slot k
    // from the top sits at total - k.
    let slots: Vec<usize> = c.groups.iter().map(|g| g.bars.iter().flatten().count().max(1)).collect();
    let total = slots.iter().map(|&n| n as f64).sum::<f64>() + GAP * (c.groups.len() as f64 + 1.0);
    let plot_h = total * BAR_PX;
    let bottom = 46.0;
    let height = (top + plot_h + bottom).ceil() as u32;

    // The x axis: room for every value, whisker, marker and reference line,
    // and for each bar's text right of it.
    let axis = {
        let mut lo_v = f64::INFINITY;
        let mut hi_v: f64 = 0.0;
        let mut ends = Vec::new();
        for b in c.groups.iter().flat_map(|g| g.bars.iter().flatten()) {
            let mut end = b.value;
            lo_v = lo_v.min(b.value);
            if let Some((l, h)) = b.range {
                lo_v = lo_v.min(l);
                end = end.max(h);
            }
            if let Some(m) = b.marker {
                lo_v = lo_v.min(m);
                end = end.max(m);
            }
            hi_v = hi_v.max(end);
            ends.push((end, text_px(&b.text, 11.0) + 8.0));
        }
        for r in &c.ref_lines {
            lo_v = lo_v.min(r.at);
            hi_v = hi_v.max(r.at * 1.02);
        }
        if !lo_v.is_finite() {
            lo_v = 1.0;
            hi_v = 10.0;
        }
        let mut a = match c.scale {
            Scale::Log => {
                let v = (lo_v * 0.8).max(1e-9);
                let p = 10f64.powf(v.log10().floor());
                let m = [5.0, 2.0, 1.0].into_iter().find(|m| m * p <= v).unwrap_or(1.0);
                Axis { scale: Scale::Log, lo: (m * p).log10(), hi: 0.0 }
            }
            Scale::Linear => {
                let mut lo = c.baseline;
                if lo_v < lo {
                    lo = (lo_v * 10.0).floor() / 10.0;
                }
                Axis { scale: Scale::Linear, lo, hi: 0.0 }
            }
        };
        a.hi = a.t(hi_v).max(a.lo + 1e-9);
        for (end, tw) in ends {
            let need = a.lo + (a.t(end) - a.lo) * plot_px / (plot_px - tw).max(plot_px * 0.3);
            a.hi = a.hi.max(need);
        }
        if c.scale == Scale::Linear {
            a.hi += (a.hi - a.lo) * 0.02;
        }
        a
    };

    let root = SVGBackend::new(path, (WIDTH, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let left = |size: f64, color: &'static RGBColor| {
        TextStyle::from(font(size)).color(color).pos(Pos::new(HPos::Left, VPos::Center))
    };
    root.draw(&Text::new(c.title.clone(), (16, 24), left(18.0, &BLACK))).map_err(|e| err(&e))?;
    for (i, s) in subtitle.iter().enumerate() {
        root.draw(&Text::new(s.clone(), (16, 46 + 16 * i as i32), left(12.0, &GREY))).map_err(|e| err(&e))?;
    }
    let legend_y0 = 14.0 + 24.0 + 16.0 * subtitle.len() as f64 + 12.0;
    for (r, row) in rows.iter().enumerate() {
        let y = (legend_y0 + 20.0 * r as f64) as i32;
        for &(x, i) in row {
            let x = 16 + x as i32;
            match &legend[i].0 {
                Swatch::Box(col) => root.draw(&Rectangle::new([(x, y - 6), (x + 13, y + 6)], col.filled())),
                Swatch::Marker => root.draw(&Rectangle::new([(x + 5, y - 8), (x + 8, y + 8)], BLACK.filled())),
                Swatch::Line(col) => root.draw(&Rectangle::new([(x + 5, y - 8), (x + 7, y + 8)], col.filled())),
            }
            .map_err(|e| err(&e))?;
            root.draw(&Text::new(legend[i].1.clone(), (x + 20, y), left(12.0, &DARK))).map_err(|e| err(&e))?;
        }
    }

    let (_, lower) = root.split_vertically(top as u32);
    let mut chart = ChartBuilder::on(&lower)
        .margin_right(MARGIN_RIGHT)
        .margin_left(10)
        .x_label_area_size(bottom as u32)
        .y_label_area_size(label_px as u32)
        .build_cartesian_2d(axis.lo..axis.hi, 0.0..total)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(0)
        .y_labels(0)
        .x_desc(c.x_desc.clone())
        .axis_desc_style(font(13.0))
        .draw()
        .map_err(|e| err(&e))?;

    // Bands behind every other group, grid lines, tick labels.
    let mut pos = GAP;
    for (gi, n) in slots.iter().enumerate() {
        let (top_y, bot_y) = (total - pos + GAP / 2.0, total - pos - *n as f64 - GAP / 2.0);
        if gi % 2 == 1 {
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(axis.lo, top_y), (axis.hi, bot_y)],
                    RGBColor(244, 244, 244).filled(),
                )))
                .map_err(|e| err(&e))?;
        }
        pos += *n as f64 + GAP;
    }
    let ticks = axis.ticks();
    for (t, _, labelled) in &ticks {
        let col = if *labelled { RGBColor(200, 200, 200) } else { RGBColor(230, 230, 230) };
        chart.draw_series(std::iter::once(PathElement::new([(*t, 0.0), (*t, total)], col))).map_err(|e| err(&e))?;
    }
    let centered = TextStyle::from(font(12.0)).color(&DARK).pos(Pos::new(HPos::Center, VPos::Top));
    for (t, label, labelled) in &ticks {
        if *labelled {
            let (px, py) = chart.backend_coord(&(*t, 0.0));
            root.draw(&Text::new(label.clone(), (px, py + 6), centered.clone())).map_err(|e| err(&e))?;
            root.draw(&PathElement::new([(px, py), (px, py + 4)], BLACK)).map_err(|e| err(&e))?;
        }
    }

    for r in &c.ref_lines {
        let style = ShapeStyle::from(&REF_RED).stroke_width(2);
        chart
            .draw_series(std::iter::once(PathElement::new([(axis.t(r.at), 0.0), (axis.t(r.at), total)], style)))
            .map_err(|e| err(&e))?;
    }

    // Bars, whiskers, markers, texts.
    let right = TextStyle::from(font(13.0)).color(&BLACK).pos(Pos::new(HPos::Right, VPos::Center));
    let start = match c.scale {
        Scale::Linear => c.baseline,
        Scale::Log => 10f64.powf(axis.lo),
    };
    let mut pos = GAP;
    for (g, n) in c.groups.iter().zip(&slots) {
        let (px, py) = chart.backend_coord(&(axis.lo, total - pos - *n as f64 / 2.0));
        root.draw(&Text::new(g.label.clone(), (px - 8, py), right.clone())).map_err(|e| err(&e))?;
        for (s, bar) in g.bars.iter().enumerate() {
            let Some(b) = bar else { continue };
            let (y0, y1) = (total - pos - 0.12, total - pos - 0.88);
            let ym = (y0 + y1) / 2.0;
            let color = c.series.get(s).map(|s| s.color).unwrap_or(PALETTE[s % PALETTE.len()]);
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(axis.t(start), y0), (axis.t(b.value), y1)],
                    color.filled(),
                )))
                .map_err(|e| err(&e))?;
            let mut end = axis.t(b.value);
            if let Some((l, h)) = b.range {
                let w = ShapeStyle::from(&DARK).stroke_width(1);
                chart
                    .draw_series(std::iter::once(PathElement::new([(axis.t(l), ym), (axis.t(h), ym)], w)))
                    .map_err(|e| err(&e))?;
                for v in [l, h] {
                    let cap = [(axis.t(v), y0 - 0.05), (axis.t(v), y1 + 0.05)];
                    chart.draw_series(std::iter::once(PathElement::new(cap, w))).map_err(|e| err(&e))?;
                }
                end = end.max(axis.t(h));
            }
            if let Some(m) = b.marker {
                let (mx, my0) = chart.backend_coord(&(axis.t(m), y0 + 0.15));
                let (_, my1) = chart.backend_coord(&(axis.t(m), y1 - 0.15));
                root.draw(&Rectangle::new([(mx - 1, my0), (mx + 2, my1)], BLACK.filled())).map_err(|e| err(&e))?;
                end = end.max(axis.t(m));
            }
            if !b.text.is_empty() {
                let (tx, ty) = chart.backend_coord(&(end, ym));
                root.draw(&Text::new(b.text.clone(), (tx + 6, ty), left(11.0, &DARK))).map_err(|e| err(&e))?;
            }
            pos += 1.0;
        }
        if g.bars.iter().all(Option::is_none) {
            pos += 1.0;
        }
        pos += GAP;
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(fmt_num(13730.0), "13,730");
        assert_eq!(fmt_num(406.0), "406");
        assert_eq!(fmt_num(31.8), "31.8");
        assert_eq!(fmt_num(0.25), "0.25");
        assert_eq!(fmt_num(1.3), "1.3");
        assert_eq!(fmt_num(1_000_000.0), "1,000,000");
    }

    #[test]
    fn log_ticks_label_every_power_of_ten() {
        let a = Axis { scale: Scale::Log, lo: 0.0, hi: 4.2 };
        let labels: Vec<String> = a.ticks().into_iter().filter(|t| t.2).map(|t| t.1).collect();
        assert_eq!(labels, ["1", "10", "100", "1,000", "10,000"]);
    }
}
