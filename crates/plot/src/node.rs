//! The node's side of a load run, four panels over one time axis: the
//! transactions sent and included per second beside those the node's pool
//! admitted, what its pool held, how long its blocks took to insert,
//! execute and write, and how fast its database read and wrote. Drawn from
//! the node's own metrics ([`NodeSeries`], by the names the load lab gives
//! them); a series the node did not serve is left out of its panel.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::style::{self, Axes, Drawn, LegendItem, Swatch};
use crate::{LoadPlots, PlotError};

const PLOT: &str = "node";

// More of the tab10 palette than the house style needs elsewhere, so that
// no two series of the figure share a colour.
const BROWN: RGBColor = RGBColor(140, 86, 75);
const TEAL: RGBColor = RGBColor(23, 190, 207);
const PINK: RGBColor = RGBColor(227, 119, 194);
const OLIVE: RGBColor = RGBColor(188, 189, 34);
const NAVY: RGBColor = RGBColor(31, 60, 120);

/// A series of a panel: its name and colour.
type Line = (&'static str, RGBColor);
/// A panel: the y-axis description, a scale the values are divided by, and
/// its series.
type Panel = (&'static str, f64, &'static [Line]);
/// A series to draw: its name, colour and points.
type Series = (&'static str, RGBColor, Vec<(f64, f64)>);

/// The panels, top to bottom.
const PANELS: [Panel; 4] = [
    (
        "tx/s",
        1.0,
        &[
            ("sent /s", style::BLUE),
            ("included /s", style::GREEN),
            ("txpool admitted /s", style::PURPLE),
            ("blob pool admitted /s", style::GREY),
        ],
    ),
    (
        "in the pool",
        1.0,
        &[
            ("txpool pending", style::ORANGE),
            ("txpool queued", style::RED),
            ("blob pool transactions", NAVY),
        ],
    ),
    (
        "block P50 (ms)",
        1.0,
        &[
            ("block insert P50 ms", BROWN),
            ("block execution P50 ms", TEAL),
            ("block write P50 ms", PINK),
        ],
    ),
    (
        "database (MB/s)",
        1e6,
        &[
            ("db read bytes /s", OLIVE),
            ("db write bytes /s", style::INK),
        ],
    ),
];

/// The points of series `name`: the node's, or the run's own throughput
/// for `sent /s` and `included /s`.
fn points(p: &LoadPlots<'_>, name: &str) -> Vec<(f64, f64)> {
    let own = |f: fn(&crate::ThroughputPoint) -> f64| {
        p.throughput
            .iter()
            .filter(|w| w.t_s.is_finite())
            .map(|w| (w.t_s, f(w)))
            .collect()
    };
    match name {
        "sent /s" => own(|w| w.sent_per_s),
        "included /s" => own(|w| w.included_per_s),
        _ => p
            .node
            .iter()
            .find(|s| s.name == name)
            .map(|s| {
                s.points
                    .iter()
                    .copied()
                    .filter(|(t, v)| t.is_finite() && v.is_finite())
                    .collect()
            })
            .unwrap_or_default(),
    }
}

pub(crate) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    p: &LoadPlots<'_>,
) -> Result<(), PlotError> {
    let drawn: Vec<Vec<Series>> = PANELS
        .iter()
        .map(|(_, _, series)| {
            series
                .iter()
                .map(|(name, colour)| (*name, *colour, points(p, name)))
                .filter(|(_, _, pts)| !pts.is_empty())
                .collect()
        })
        .collect();
    let legend: Vec<LegendItem> = drawn
        .iter()
        .flatten()
        .map(|(name, colour, _)| LegendItem::new(Swatch::Line(*colour), *name))
        .collect();
    let t_hi = drawn
        .iter()
        .flatten()
        .flat_map(|(_, _, pts)| pts.iter().map(|x| x.0))
        .fold(0.0f64, f64::max);
    let x = style::widen(0.0, t_hi);
    let area = style::layout(root, PLOT, p.title, &legend)?;
    let h = area.dim_in_pixel().1;
    let mut rest = area;
    for (k, ((desc, scale, _), series)) in PANELS.iter().zip(&drawn).enumerate() {
        let last = k + 1 == PANELS.len();
        let (panel, below) = if last {
            (rest.clone(), None)
        } else {
            let (a, b) = rest.split_vertically(h / PANELS.len() as u32);
            (a, Some(b))
        };
        let y_hi = series
            .iter()
            .flat_map(|(_, _, pts)| pts.iter().map(|x| x.1 / scale))
            .fold(0.0f64, f64::max);
        let mut chart = style::panel(
            &panel,
            PLOT,
            x,
            (0.0, if y_hi > 0.0 { y_hi * 1.08 } else { 1.0 }),
            Axes {
                x_desc: if last {
                    "time since load start (s)"
                } else {
                    ""
                },
                y_desc: desc,
                y_labels: 4,
                x_integer: false,
                y_integer: false,
                bottom: if last { 14 } else { 2 },
            },
        )?;
        for (_, colour, pts) in series {
            chart
                .draw_series(LineSeries::new(
                    pts.iter().map(|(t, v)| (*t, v / scale)),
                    colour.stroke_width(2),
                ))
                .drawn(PLOT)?;
        }
        if series.is_empty() {
            style::note(chart.plotting_area(), PLOT, "the node served none of these")?;
        }
        if let Some(b) = below {
            rest = b;
        }
    }
    Ok(())
}

/// The series names the node plot draws from the node's metrics.
pub fn drawn_series() -> impl Iterator<Item = &'static str> {
    PANELS
        .iter()
        .flat_map(|(_, _, s)| s.iter().map(|(n, _)| *n))
        .filter(|n| !matches!(*n, "sent /s" | "included /s"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NodeSeries;

    #[test]
    fn node_series_are_found_by_name_and_bad_points_dropped() {
        let node = vec![NodeSeries {
            name: "txpool pending".into(),
            points: vec![(0.0, 1.0), (f64::NAN, 2.0), (2.0, 3.0)],
        }];
        let p = LoadPlots {
            node: &node,
            ..LoadPlots::default()
        };
        assert_eq!(points(&p, "txpool pending"), vec![(0.0, 1.0), (2.0, 3.0)]);
        assert!(points(&p, "txpool queued").is_empty());
        assert!(drawn_series().any(|n| n == "db write bytes /s"));
    }
}
