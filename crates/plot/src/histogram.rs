//! Latency histogram with P50 and P99.

use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::axis::LogAxis;
use crate::style::{self, Drawn, LegendItem, Swatch};
use crate::{LoadPlots, PlotError};

const PLOT: &str = "histogram";

const P50_COLOUR: RGBColor = style::ORANGE;
const P99_COLOUR: RGBColor = style::RED;

/// Bins of the included latencies.
struct Bins {
    log: bool,
    /// Bin edges, one more than `counts`.
    edges: Vec<f64>,
    counts: Vec<u64>,
}

impl Bins {
    /// Bins sorted, finite, non-negative latencies: log-spaced when they span
    /// more than two decades, between 10 and 60 bins (about √n).
    fn new(sorted: &[f64]) -> Option<Self> {
        let (&min, &max) = (sorted.first()?, sorted.last()?);
        let n_bins = ((sorted.len() as f64).sqrt().ceil() as usize).clamp(10, 60);
        let min_pos = sorted.iter().copied().find(|&l| l > 0.0);
        let log = style::wants_log(min_pos, max);
        let edges: Vec<f64> = if let (true, Some(lo)) = (log, min_pos) {
            let (a, b) = ((lo * 0.999).log10(), (max * 1.001).log10());
            (0..=n_bins)
                .map(|i| 10f64.powf(a + (b - a) * i as f64 / n_bins as f64))
                .collect()
        } else {
            let (lo, hi) = style::widen(min, max);
            let (lo, hi) = if min == max {
                (lo.max(0.0), hi)
            } else {
                (lo, hi + (hi - lo) * 1e-9)
            };
            (0..=n_bins)
                .map(|i| lo + (hi - lo) * i as f64 / n_bins as f64)
                .collect()
        };
        let mut counts = vec![0u64; n_bins];
        for &l in sorted {
            // The first edge above `l`; values below the first edge (zero
            // latencies on a log axis) go in the first bin.
            let i = edges.partition_point(|&e| e <= l).clamp(1, n_bins);
            counts[i - 1] += 1;
        }
        Some(Bins { log, edges, counts })
    }
}

pub(crate) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    p: &LoadPlots<'_>,
) -> Result<(), PlotError> {
    let mut lat: Vec<f64> = p
        .txs
        .iter()
        .filter(|tx| tx.ok && tx.t_s.is_finite())
        .filter_map(|tx| tx.latency_ms)
        .filter(|l| l.is_finite() && *l >= 0.0)
        .collect();
    lat.sort_by(f64::total_cmp);
    let p50 = style::quantile(&lat, 0.50);
    let p99 = style::quantile(&lat, 0.99);

    let mut legend = Vec::new();
    if let (Some(p50), Some(p99)) = (p50, p99) {
        legend.push(LegendItem::new(
            Swatch::Bar(style::BLUE),
            format!("included transactions (n = {})", lat.len()),
        ));
        legend.push(LegendItem::new(
            Swatch::Dashed(P50_COLOUR),
            format!("P50 = {}", style::fmt_ms(p50)),
        ));
        legend.push(LegendItem::new(
            Swatch::Dashed(P99_COLOUR),
            format!("P99 = {}", style::fmt_ms(p99)),
        ));
    }
    let area = style::layout(root, PLOT, p.title, &legend)?;

    match Bins::new(&lat) {
        None => chart(&area, None, 0.0..1000.0, &[]),
        Some(bins) => {
            let marks = [(p50, "P50", P50_COLOUR), (p99, "P99", P99_COLOUR)];
            let marks: Vec<(f64, &str, RGBColor)> = marks
                .into_iter()
                .filter_map(|(v, l, c)| Some((v?, l, c)))
                .collect();
            // 2 % of the axis free on each side of the bars.
            let lo = bins.edges[0];
            let hi = bins.edges[bins.edges.len() - 1];
            if bins.log {
                let pad = (hi / lo).powf(0.02);
                chart(&area, Some(&bins), LogAxis::new(lo / pad, hi * pad), &marks)
            } else {
                let pad = (hi - lo) * 0.02;
                chart(&area, Some(&bins), (lo - pad)..(hi + pad), &marks)
            }
        }
    }
}

fn chart<DB, XS>(
    area: &DrawingArea<DB, Shift>,
    bins: Option<&Bins>,
    x_spec: XS,
    marks: &[(f64, &str, RGBColor)],
) -> Result<(), PlotError>
where
    DB: DrawingBackend,
    XS: AsRangedCoord<Value = f64>,
    XS::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let log = bins.is_some_and(|b| b.log);
    let max_count = bins
        .and_then(|b| b.counts.iter().max().copied())
        .unwrap_or(0);
    let y_top = if max_count > 0 {
        (max_count as f64 * 1.12).max(5.0)
    } else {
        10.0
    };

    let mut chart = ChartBuilder::on(area)
        .margin_left(16)
        .margin_right(36)
        .margin_bottom(14)
        .x_label_area_size(58)
        .y_label_area_size(92)
        .build_cartesian_2d(x_spec, 0.0..y_top)
        .drawn(PLOT)?;
    chart
        .configure_mesh()
        .bold_line_style(style::GRID)
        .light_line_style(style::GRID_LIGHT)
        .axis_style(style::GREY)
        .disable_x_mesh()
        .max_light_lines(1)
        .x_labels(if log { 14 } else { 12 })
        .y_labels(10)
        .x_desc(if log {
            "latency to inclusion (ms, log scale)"
        } else {
            "latency to inclusion (ms)"
        })
        .y_desc("transactions per bin")
        .x_label_formatter(&|v| style::fmt_tick(*v))
        .y_label_formatter(&|v| style::fmt_integer(*v))
        .label_style(style::font(style::LABEL_SIZE))
        .axis_desc_style(style::font(style::DESC_SIZE))
        .draw()
        .drawn(PLOT)?;

    let Some(bins) = bins else {
        return style::note(chart.plotting_area(), PLOT, "no included transactions");
    };

    let fill = style::BLUE.mix(0.75).filled();
    let edge = style::BLUE.stroke_width(1);
    let bars = bins
        .edges
        .windows(2)
        .zip(&bins.counts)
        .filter(|(_, c)| **c > 0)
        .map(|(e, &c)| [(e[0], 0.0), (e[1], c as f64)]);
    chart
        .draw_series(bars.clone().map(|r| Rectangle::new(r, fill)))
        .drawn(PLOT)?;
    chart
        .draw_series(bars.map(|r| Rectangle::new(r, edge)))
        .drawn(PLOT)?;

    for (i, &(v, label, colour)) in marks.iter().enumerate() {
        chart
            .draw_series(DashedLineSeries::new(
                [(v, 0.0), (v, y_top)],
                8,
                5,
                colour.stroke_width(2),
            ))
            .drawn(PLOT)?;
        // Label beside the line near the top, staggered so P50 and P99
        // labels cannot overlap.
        let (px, py) = chart.backend_coord(&(v, y_top));
        let area = chart.plotting_area().strip_coord_spec();
        let (ox, oy) = chart.plotting_area().get_base_pixel();
        let (w, _) = area.dim_in_pixel();
        let x = px - ox;
        let right = x < i32::try_from(w).unwrap_or(0) - 160;
        let style = style::bold(style::LABEL_SIZE).color(&colour).pos(Pos::new(
            if right { HPos::Left } else { HPos::Right },
            VPos::Top,
        ));
        let at = (
            if right { x + 6 } else { x - 6 },
            py - oy + 6 + 22 * i as i32,
        );
        area.draw(&Text::new(
            format!("{label} {}", style::fmt_ms(v)),
            at,
            style,
        ))
        .drawn(PLOT)?;
    }
    Ok(())
}
