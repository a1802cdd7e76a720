//! Sent and included transactions per second over time.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::style::{self, Drawn, LegendItem, Swatch};
use crate::{LoadPlots, PlotError};

const PLOT: &str = "throughput";

pub(crate) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    p: &LoadPlots<'_>,
) -> Result<(), PlotError> {
    let mut windows: Vec<(f64, f64, f64)> = p
        .throughput
        .iter()
        .filter(|w| w.t_s.is_finite())
        .map(|w| (w.t_s, rate(w.sent_per_s), rate(w.included_per_s)))
        .collect();
    windows.sort_by(|a, b| a.0.total_cmp(&b.0));
    let target = p.target_rate.filter(|r| r.is_finite() && *r >= 0.0);

    let mean = |f: fn(&(f64, f64, f64)) -> f64| {
        windows.iter().map(f).sum::<f64>() / windows.len().max(1) as f64
    };
    let mut legend = Vec::new();
    if !windows.is_empty() {
        legend.push(LegendItem::new(
            Swatch::Line(style::BLUE),
            format!("sent/s (mean {})", style::fmt_rate(mean(|w| w.1))),
        ));
        legend.push(LegendItem::new(
            Swatch::Line(style::GREEN),
            format!("included/s (mean {})", style::fmt_rate(mean(|w| w.2))),
        ));
    }
    if let Some(r) = target {
        legend.push(LegendItem::new(
            Swatch::Dashed(style::TARGET),
            format!("target {} tx/s", style::fmt_rate(r)),
        ));
    }
    let area = style::layout(root, PLOT, p.title, &legend)?;

    let (x_lo, x_hi) = style::time_range(p);
    let y_max = windows
        .iter()
        .flat_map(|w| [w.1, w.2])
        .chain(target)
        .fold(0.0f64, f64::max);
    let y_top = if y_max > 0.0 { y_max * 1.08 } else { 1.0 };

    let mut chart = ChartBuilder::on(&area)
        .margin_left(16)
        .margin_right(36)
        .margin_bottom(14)
        .x_label_area_size(58)
        .y_label_area_size(92)
        .build_cartesian_2d(x_lo..x_hi, 0.0..y_top)
        .drawn(PLOT)?;
    chart
        .configure_mesh()
        .bold_line_style(style::GRID)
        .light_line_style(style::GRID_LIGHT)
        .axis_style(style::GREY)
        .max_light_lines(1)
        .x_labels(12)
        .y_labels(10)
        .x_desc("time (s since load start)")
        .y_desc("transactions per second (1 s windows)")
        .x_label_formatter(&|v| style::fmt_tick(*v))
        .y_label_formatter(&|v| style::fmt_tick(*v))
        .label_style(style::font(style::LABEL_SIZE))
        .axis_desc_style(style::font(style::DESC_SIZE))
        .draw()
        .drawn(PLOT)?;

    chart
        .draw_series(LineSeries::new(
            windows.iter().map(|w| (w.0, w.1)),
            style::BLUE.stroke_width(2),
        ))
        .drawn(PLOT)?;
    chart
        .draw_series(LineSeries::new(
            windows.iter().map(|w| (w.0, w.2)),
            style::GREEN.stroke_width(2),
        ))
        .drawn(PLOT)?;
    // The target last, dashed, so that a sent line on it shows through.
    if let Some(r) = target {
        chart
            .draw_series(DashedLineSeries::new(
                [(x_lo, r), (x_hi, r)],
                10,
                6,
                style::TARGET.stroke_width(2),
            ))
            .drawn(PLOT)?;
    }
    if windows.len() == 1 {
        // A single window has no line to draw: mark it.
        let w = windows[0];
        chart
            .draw_series([
                Circle::new((w.0, w.1), 4, style::BLUE.filled()),
                Circle::new((w.0, w.2), 4, style::GREEN.filled()),
            ])
            .drawn(PLOT)?;
    }
    if windows.is_empty() {
        style::note(chart.plotting_area(), PLOT, "no throughput data")?;
    }
    Ok(())
}

/// A rate as drawn: non-finite and negative rates count as zero.
fn rate(r: f64) -> f64 {
    if r.is_finite() { r.max(0.0) } else { 0.0 }
}
