//! The plots' style: layout, fonts, colours, scales and number formatting.

use std::collections::HashSet;
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::{LoadPlots, PlotError};

/// The font family every text uses: plotters' generic sans-serif, backed by
/// the embedded DejaVu Sans for measuring and for PNG rasterising.
const FAMILY: FontFamily<'static> = FontFamily::SansSerif;

/// Registers the embedded DejaVu Sans (regular and bold) as `sans-serif`,
/// once per process.
pub(crate) fn ensure_font() -> Result<(), PlotError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        let name = FAMILY.as_str();
        plotters::style::register_font(name, FontStyle::Normal, dejavu::sans::regular()).is_ok()
            && plotters::style::register_font(name, FontStyle::Bold, dejavu::sans::bold()).is_ok()
    });
    if ok && crate::text::fonts_ok() {
        Ok(())
    } else {
        Err(PlotError::Font)
    }
}

/// Converts plotters' drawing errors into [`PlotError::Render`].
pub(crate) trait Drawn<T> {
    /// Tags a plotters error with the plot being drawn.
    fn drawn(self, plot: &'static str) -> Result<T, PlotError>;
}

impl<T, E: std::error::Error + Send + Sync> Drawn<T> for Result<T, DrawingAreaErrorKind<E>> {
    fn drawn(self, plot: &'static str) -> Result<T, PlotError> {
        self.map_err(|e| render_error(plot, e))
    }
}

/// A plotters drawing error as a [`PlotError::Render`].
pub(crate) fn render_error<E: std::error::Error + Send + Sync>(
    plot: &'static str,
    e: DrawingAreaErrorKind<E>,
) -> PlotError {
    PlotError::Render {
        plot,
        message: e.to_string(),
    }
}

// Palette (colour-blind-friendly "tableau" hues) and neutrals.
pub(crate) const BLUE: RGBColor = RGBColor(31, 119, 180);
pub(crate) const ORANGE: RGBColor = RGBColor(255, 127, 14);
pub(crate) const GREEN: RGBColor = RGBColor(44, 160, 44);
pub(crate) const RED: RGBColor = RGBColor(214, 39, 40);
pub(crate) const PURPLE: RGBColor = RGBColor(148, 103, 189);
pub(crate) const INK: RGBColor = RGBColor(34, 34, 34);
pub(crate) const GREY: RGBColor = RGBColor(96, 96, 96);
/// The target-rate reference line.
pub(crate) const TARGET: RGBColor = RGBColor(80, 80, 80);
pub(crate) const GRID: RGBColor = RGBColor(222, 222, 222);
pub(crate) const GRID_LIGHT: RGBColor = RGBColor(242, 242, 242);

/// Text sizes, in plotters' units (the em is 1/1.24 of this).
pub(crate) const TITLE_SIZE: f64 = 25.0;
pub(crate) const LEGEND_SIZE: f64 = 17.0;
pub(crate) const DESC_SIZE: f64 = 18.0;
pub(crate) const LABEL_SIZE: f64 = 16.0;
pub(crate) const NOTE_SIZE: f64 = 15.0;

/// A text style in the shared family.
pub(crate) fn font(size: f64) -> TextStyle<'static> {
    FontDesc::new(FAMILY, size, FontStyle::Normal).color(&INK)
}

/// A bold text style in the shared family.
pub(crate) fn bold(size: f64) -> TextStyle<'static> {
    FontDesc::new(FAMILY, size, FontStyle::Bold).color(&INK)
}

/// What a legend entry shows next to its label.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Swatch {
    /// A filled circle (scatter points).
    Dot(RGBColor),
    /// A diagonal cross (failures).
    Cross(RGBColor),
    /// A filled triangle (never included).
    Triangle(RGBColor),
    /// A solid line.
    Line(RGBColor),
    /// A dashed line.
    Dashed(RGBColor),
    /// A filled bar (histogram).
    Bar(RGBColor),
}

/// One legend entry.
#[derive(Debug, Clone)]
pub(crate) struct LegendItem {
    pub(crate) swatch: Swatch,
    pub(crate) label: String,
}

impl LegendItem {
    pub(crate) fn new(swatch: Swatch, label: impl Into<String>) -> Self {
        Self {
            swatch,
            label: label.into(),
        }
    }
}

const SWATCH_W: i32 = 28;
const SWATCH_GAP: i32 = 7;
const ITEM_GAP: i32 = 30;
const LEGEND_ROW_H: i32 = 26;
const SIDE_MARGIN: i32 = 24;

/// Clears `root`, draws the title and a centred legend row (wrapped onto
/// more rows if needed) at the top, and returns the area left for the chart.
pub(crate) fn layout<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    plot: &'static str,
    title: &str,
    legend: &[LegendItem],
) -> Result<DrawingArea<DB, Shift>, PlotError> {
    root.fill(&WHITE).drawn(plot)?;
    let (width, _) = root.dim_in_pixel();
    let width = i32::try_from(width).unwrap_or(i32::MAX);
    let mut top = 10;

    let title = title.trim();
    if !title.is_empty() {
        // Shrink a long title until it fits.
        let mut size = TITLE_SIZE;
        let mut style = bold(size);
        while size > 12.0 {
            let (w, _) = root.estimate_text_size(title, &style).drawn(plot)?;
            if i32::try_from(w).unwrap_or(i32::MAX) <= width - 2 * SIDE_MARGIN {
                break;
            }
            size -= 1.0;
            style = bold(size);
        }
        let style = style.pos(Pos::new(HPos::Center, VPos::Top));
        root.draw(&Text::new(title.to_owned(), (width / 2, 14), style))
            .drawn(plot)?;
        top = 14 + (size * 1.15) as i32;
    }

    if !legend.is_empty() {
        let style = font(LEGEND_SIZE);
        let mut rows: Vec<Vec<(&LegendItem, i32)>> = vec![Vec::new()];
        let mut row_w = 0;
        for item in legend {
            let (w, _) = root.estimate_text_size(&item.label, &style).drawn(plot)?;
            let w = SWATCH_W + SWATCH_GAP + i32::try_from(w).unwrap_or(0);
            let extra = if row_w == 0 { w } else { ITEM_GAP + w };
            let row = rows.last_mut().expect("rows starts non-empty");
            if !row.is_empty() && row_w + extra > width - 2 * SIDE_MARGIN {
                rows.push(vec![(item, w)]);
                row_w = w;
            } else {
                row.push((item, w));
                row_w += extra;
            }
        }
        top += 8;
        let label_style = style.pos(Pos::new(HPos::Left, VPos::Center));
        for row in &rows {
            let total: i32 =
                row.iter().map(|(_, w)| *w).sum::<i32>() + ITEM_GAP * (row.len() as i32 - 1);
            let mut x = (width - total) / 2;
            let yc = top + LEGEND_ROW_H / 2;
            for (item, w) in row {
                draw_swatch(root, plot, item.swatch, x, yc)?;
                root.draw(&Text::new(
                    item.label.clone(),
                    (x + SWATCH_W + SWATCH_GAP, yc),
                    label_style.clone(),
                ))
                .drawn(plot)?;
                x += w + ITEM_GAP;
            }
            top += LEGEND_ROW_H;
        }
    }
    top += 6;
    let (_, chart) = root.split_vertically(top);
    Ok(chart)
}

fn draw_swatch<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    plot: &'static str,
    swatch: Swatch,
    x: i32,
    yc: i32,
) -> Result<(), PlotError> {
    let cx = x + SWATCH_W / 2;
    match swatch {
        Swatch::Dot(c) => root.draw(&Circle::new((cx, yc), 4, c.filled())),
        Swatch::Cross(c) => root.draw(&Cross::new((cx, yc), 4, c.stroke_width(2))),
        Swatch::Triangle(c) => root.draw(&TriangleMarker::new((cx, yc), 5, c.filled())),
        Swatch::Line(c) => root.draw(&Rectangle::new(
            [(x, yc - 1), (x + SWATCH_W, yc + 1)],
            c.filled(),
        )),
        Swatch::Dashed(c) => (0..3).try_for_each(|i| {
            let x0 = x + i * 11;
            root.draw(&Rectangle::new(
                [(x0, yc - 1), (x0 + 6, yc + 1)],
                c.filled(),
            ))
        }),
        Swatch::Bar(c) => root.draw(&Rectangle::new(
            [(x + 6, yc - 7), (x + SWATCH_W - 6, yc + 7)],
            c.mix(0.8).filled(),
        )),
    }
    .drawn(plot)
}

/// Writes `text` in grey in the middle of a chart's plotting area.
pub(crate) fn note<DB: DrawingBackend, CT: CoordTranslate>(
    plotting: &DrawingArea<DB, CT>,
    plot: &'static str,
    text: &str,
) -> Result<(), PlotError> {
    let area = plotting.strip_coord_spec();
    let (w, h) = area.dim_in_pixel();
    let style = font(NOTE_SIZE + 3.0)
        .color(&GREY)
        .pos(Pos::new(HPos::Center, VPos::Center));
    let at = (
        i32::try_from(w / 2).unwrap_or(0),
        i32::try_from(h / 2).unwrap_or(0),
    );
    area.draw(&Text::new(text.to_owned(), at, style))
        .drawn(plot)
}

/// The time axis shared by the latency and throughput plots: from load start
/// (or the earliest time, if earlier) to the latest time in any series,
/// plus 1 %.
pub(crate) fn time_range(p: &LoadPlots<'_>) -> (f64, f64) {
    let times = p
        .txs
        .iter()
        .map(|t| t.t_s)
        .chain(p.head.iter().map(|b| b.t_s))
        .chain(p.safe.iter().map(|b| b.t_s))
        .chain(p.finalized.iter().map(|b| b.t_s))
        .chain(p.throughput.iter().map(|w| w.t_s))
        .filter(|t| t.is_finite());
    let (lo, hi) = min_max(times).unwrap_or((0.0, 1.0));
    let lo = lo.min(0.0);
    let hi = if hi > lo { hi } else { lo + 1.0 };
    (lo, hi + (hi - lo) * 0.01)
}

/// A chart of `f64` against `f64`, as the panels of a figure draw them.
pub(crate) type Panel<'a, DB> = ChartContext<
    'a,
    DB,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// The axes of one panel: descriptions, how many labels, and whether a
/// value axis counts (integer labels) or measures (trimmed decimals).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Axes<'a> {
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    pub y_labels: usize,
    pub x_integer: bool,
    pub y_integer: bool,
    /// Room under the plot: the last panel of a figure wants more.
    pub bottom: u32,
}

/// A panel over `x` × `y` in `area`, its grid and axes drawn in the house
/// style.
pub(crate) fn panel<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    plot: &'static str,
    (x_lo, x_hi): (f64, f64),
    (y_lo, y_hi): (f64, f64),
    a: Axes<'_>,
) -> Result<Panel<'a, DB>, PlotError> {
    let mut chart = ChartBuilder::on(area)
        .margin_left(16)
        .margin_right(36)
        .margin_top(6)
        .margin_bottom(a.bottom)
        .x_label_area_size(46)
        .y_label_area_size(92)
        .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)
        .drawn(plot)?;
    let fmt = |integer: bool| -> fn(&f64) -> String {
        if integer {
            |v| fmt_integer(*v)
        } else {
            |v| fmt_tick(*v)
        }
    };
    let (x_fmt, y_fmt) = (fmt(a.x_integer), fmt(a.y_integer));
    chart
        .configure_mesh()
        .bold_line_style(GRID)
        .light_line_style(GRID_LIGHT)
        .axis_style(GREY)
        .x_max_light_lines(1)
        .y_max_light_lines(1)
        .x_labels(12)
        .y_labels(a.y_labels)
        .x_desc(a.x_desc)
        .y_desc(a.y_desc)
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .label_style(font(LABEL_SIZE))
        .axis_desc_style(font(DESC_SIZE))
        .draw()
        .drawn(plot)?;
    Ok(chart)
}

/// Minimum and maximum of an iterator of (finite) values.
pub(crate) fn min_max(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    values.into_iter().fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}

/// Widens a zero-width (or inverted) range so that it can be drawn.
pub(crate) fn widen(lo: f64, hi: f64) -> (f64, f64) {
    if hi > lo {
        (lo, hi)
    } else {
        let pad = (lo.abs() * 0.1).max(1.0);
        (lo - pad, lo + pad)
    }
}

/// Whether positive values from `lo` to `hi` span more than two decades,
/// i.e. want a log axis.
pub(crate) fn wants_log(lo_positive: Option<f64>, hi: f64) -> bool {
    matches!(lo_positive, Some(lo) if lo > 0.0 && hi / lo > 100.0)
}

/// Remembers which output pixels already have a marker of one series, so
/// that dense series draw each pixel once.
#[derive(Debug, Default)]
pub(crate) struct PixelSet(HashSet<(i32, i32)>);

impl PixelSet {
    /// `true` the first time a pixel is seen.
    pub(crate) fn first(&mut self, pixel: (i32, i32)) -> bool {
        self.0.insert(pixel)
    }
}

/// The `q`-quantile (0..=1) of sorted values, interpolating linearly
/// between closest ranks; `None` for no values.
pub(crate) fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let rank = q.clamp(0.0, 1.0) * last as f64;
    let below = rank.floor() as usize;
    let above = rank.ceil() as usize;
    let frac = rank - below as f64;
    Some(sorted[below] + (sorted[above] - sorted[below]) * frac)
}

/// A tick label: up to three decimals, trailing zeros dropped.
pub(crate) fn fmt_tick(v: f64) -> String {
    if !v.is_finite() {
        return String::new();
    }
    let mut s = if v.abs() >= 1e4 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    };
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
    if s == "-0" { "0".to_owned() } else { s }
}

/// A tick label for whole numbers (block numbers, counts), or nothing for
/// a fractional tick.
pub(crate) fn fmt_integer(v: f64) -> String {
    if v.is_finite() && (v - v.round()).abs() < 1e-6 && v >= 0.0 {
        format!("{}", v.round() as u64)
    } else {
        String::new()
    }
}

/// A latency for a label, with unit and precision to match its size.
pub(crate) fn fmt_ms(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0} ms")
    } else if v >= 10.0 {
        format!("{v:.1} ms")
    } else {
        format!("{v:.2} ms")
    }
}

/// A rate for a label.
pub(crate) fn fmt_rate(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else {
        fmt_tick((v * 10.0).round() / 10.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_trimmed() {
        assert_eq!(fmt_tick(10.0), "10");
        assert_eq!(fmt_tick(2.5), "2.5");
        assert_eq!(fmt_tick(0.1 + 0.2), "0.3");
        assert_eq!(fmt_tick(-0.0001), "0");
        assert_eq!(fmt_tick(123456.7), "123457");
        assert_eq!(fmt_tick(f64::NAN), "");
    }

    #[test]
    fn integer_ticks_skip_fractions() {
        assert_eq!(fmt_integer(1234.0), "1234");
        assert_eq!(fmt_integer(1234.5), "");
    }

    #[test]
    fn quantiles_interpolate() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.5), Some(2.5));
        assert_eq!(quantile(&v, 0.0), Some(1.0));
        assert_eq!(quantile(&v, 1.0), Some(4.0));
        assert_eq!(quantile(&[7.0], 0.99), Some(7.0));
        assert_eq!(quantile(&[], 0.5), None);
    }

    #[test]
    fn ranges_widen() {
        assert_eq!(widen(0.0, 0.0), (-1.0, 1.0));
        assert_eq!(widen(100.0, 100.0), (90.0, 110.0));
        assert_eq!(widen(1.0, 2.0), (1.0, 2.0));
        assert_eq!(time_range(&LoadPlots::default()), (0.0, 1.01));
    }

    #[test]
    fn log_wanted_beyond_two_decades() {
        assert!(wants_log(Some(1.0), 101.0));
        assert!(!wants_log(Some(1.0), 100.0));
        assert!(!wants_log(None, 100.0));
    }
}
