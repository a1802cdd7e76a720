//! Per-transaction latency over the send window, and below it, in a panel
//! of its own, block progress (head, safe, finalized) over the whole run.
//! Finality can come long after the last send (68 s after a 3-second run
//! against anvil): on one shared time axis the transactions filled a
//! sliver at the left edge.

use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};
use plotters::prelude::*;

use crate::axis::LogAxis;
use crate::style::{self, Axes, Drawn, LegendItem, PixelSet, Swatch};
use crate::{BlockMark, LoadPlots, PlotError};

const PLOT: &str = "latency";

/// Head, safe and finalized step lines: colour, legend label, data.
type BlockLine<'a> = (RGBColor, &'static str, &'a [(f64, u64)]);

/// The latency data, cleaned.
struct Data {
    /// (send time s, latency ms) of included, successful transactions.
    included: Vec<(f64, f64)>,
    /// Send times of failed transactions.
    failed: Vec<f64>,
    /// Send times of transactions sent but never included.
    lost: Vec<f64>,
    head: Vec<(f64, u64)>,
    safe: Vec<(f64, u64)>,
    finalized: Vec<(f64, u64)>,
}

impl Data {
    fn collect(p: &LoadPlots<'_>) -> Self {
        let mut d = Data {
            included: Vec::new(),
            failed: Vec::new(),
            lost: Vec::new(),
            head: marks(p.head),
            safe: marks(p.safe),
            finalized: marks(p.finalized),
        };
        for tx in p.txs.iter().filter(|tx| tx.t_s.is_finite()) {
            match (tx.ok, tx.latency_ms) {
                (false, _) => d.failed.push(tx.t_s),
                (true, None) => d.lost.push(tx.t_s),
                (true, Some(l)) if l.is_finite() && l >= 0.0 => d.included.push((tx.t_s, l)),
                (true, Some(_)) => {}
            }
        }
        d
    }

    fn blocks(&self) -> [BlockLine<'_>; 3] {
        [
            (style::GREEN, "head block", &self.head),
            (style::PURPLE, "safe block", &self.safe),
            (style::INK, "finalized block", &self.finalized),
        ]
    }
}

/// Finite block marks, in time order.
fn marks(m: &[BlockMark]) -> Vec<(f64, u64)> {
    let mut v: Vec<(f64, u64)> = m
        .iter()
        .filter(|b| b.t_s.is_finite())
        .map(|b| (b.t_s, b.number))
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v
}

/// The time ranges of the two panels, in seconds since load start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Windows {
    /// The latency panel: the send window, with a margin of 3% (at least
    /// 0.2 s) on the right.
    pub sends: (f64, f64),
    /// The block panel, when there are block marks: from the start to the
    /// last mark (finality included), and never shorter than the sends.
    pub blocks: Option<(f64, f64)>,
}

/// Where each panel of the latency plot starts and ends.
pub fn windows(p: &LoadPlots<'_>) -> Windows {
    let sends = style::min_max(p.txs.iter().map(|t| t.t_s).filter(|t| t.is_finite()));
    let (lo, hi) = match sends {
        Some((lo, hi)) => (lo.min(0.0), hi),
        None => (0.0, 1.0),
    };
    let margin = ((hi - lo) * 0.03).max(0.2);
    let sends = (lo, hi + margin);
    let marks = style::min_max(
        p.head
            .iter()
            .chain(p.safe)
            .chain(p.finalized)
            .map(|b| b.t_s)
            .filter(|t| t.is_finite()),
    );
    let blocks = marks.map(|(m_lo, m_hi)| {
        let lo = m_lo.min(sends.0);
        let hi = m_hi.max(sends.1);
        (lo, hi + (hi - lo) * 0.01)
    });
    Windows { sends, blocks }
}

/// The latency axis: its range, and where the failed and never-included
/// markers sit (in a band above the highest latency).
#[derive(Debug, Clone, Copy)]
struct YAxis {
    log: bool,
    lo: f64,
    top: f64,
    failed_at: f64,
    lost_at: f64,
}

impl YAxis {
    fn new(d: &Data) -> Self {
        let band = !(d.failed.is_empty() && d.lost.is_empty());
        let lo_pos = style::min_max(d.included.iter().map(|p| p.1).filter(|&l| l > 0.0));
        let hi = style::min_max(d.included.iter().map(|p| p.1)).map_or(0.0, |r| r.1);
        if let Some((lo_pos, _)) = lo_pos.filter(|_| style::wants_log(lo_pos.map(|r| r.0), hi)) {
            // Log: half a decade above the data for the failure band.
            let (top, failed_at, lost_at) = if band {
                (hi * 3.5, hi * 2.2, hi * 1.5)
            } else {
                (hi * 1.5, hi, hi)
            };
            YAxis {
                log: true,
                lo: lo_pos / 1.5,
                top,
                failed_at,
                lost_at,
            }
        } else {
            let hi = if hi > 0.0 { hi } else { 1000.0 };
            let (top, failed_at, lost_at) = if band {
                (hi * 1.2, hi * 1.14, hi * 1.08)
            } else {
                (hi * 1.06, hi, hi)
            };
            YAxis {
                log: false,
                lo: 0.0,
                top,
                failed_at,
                lost_at,
            }
        }
    }
}

pub(crate) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    p: &LoadPlots<'_>,
) -> Result<(), PlotError> {
    let d = Data::collect(p);
    let mut legend = Vec::new();
    if !d.included.is_empty() {
        legend.push(LegendItem::new(
            Swatch::Dot(style::BLUE),
            format!("included (n = {})", d.included.len()),
        ));
    }
    if !d.failed.is_empty() {
        legend.push(LegendItem::new(
            Swatch::Cross(style::RED),
            format!("failed (n = {})", d.failed.len()),
        ));
    }
    if !d.lost.is_empty() {
        legend.push(LegendItem::new(
            Swatch::Triangle(style::ORANGE),
            format!("never included (n = {})", d.lost.len()),
        ));
    }
    for (colour, label, marks) in d.blocks() {
        if !marks.is_empty() {
            legend.push(LegendItem::new(Swatch::Line(colour), label));
        }
    }
    let area = style::layout(root, PLOT, p.title, &legend)?;
    let y = YAxis::new(&d);
    if y.log {
        chart(&area, p, &d, y, LogAxis::new(y.lo, y.top))
    } else {
        chart(&area, p, &d, y, y.lo..y.top)
    }
}

fn chart<DB, YS>(
    area: &DrawingArea<DB, Shift>,
    p: &LoadPlots<'_>,
    d: &Data,
    y: YAxis,
    y_spec: YS,
) -> Result<(), PlotError>
where
    DB: DrawingBackend,
    YS: AsRangedCoord<Value = f64>,
    YS::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let w = windows(p);
    let (top, bottom) = match w.blocks {
        Some(_) => {
            let h = area.dim_in_pixel().1;
            let (a, b) = area.split_vertically(h * 64 / 100);
            (a, Some(b))
        }
        None => (area.clone(), None),
    };
    latency_panel(&top, d, y, y_spec, w.sends)?;
    if let (Some(bottom), Some(range)) = (bottom, w.blocks) {
        block_panel(&bottom, d, range, w.sends)?;
    }
    Ok(())
}

/// Latency against the intended send time, over the send window.
fn latency_panel<DB, YS>(
    area: &DrawingArea<DB, Shift>,
    d: &Data,
    y: YAxis,
    y_spec: YS,
    (x_lo, x_hi): (f64, f64),
) -> Result<(), PlotError>
where
    DB: DrawingBackend,
    YS: AsRangedCoord<Value = f64>,
    YS::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let mut chart = ChartBuilder::on(area)
        .margin_left(16)
        .margin_right(36)
        .margin_bottom(6)
        .x_label_area_size(52)
        .y_label_area_size(92)
        .build_cartesian_2d(x_lo..x_hi, y_spec)
        .drawn(PLOT)?;

    let y_desc = if y.log {
        "latency to inclusion (ms, log scale)"
    } else {
        "latency to inclusion (ms)"
    };
    chart
        .configure_mesh()
        .bold_line_style(style::GRID)
        .light_line_style(style::GRID_LIGHT)
        .axis_style(style::GREY)
        .x_max_light_lines(1)
        .y_max_light_lines(if y.log { 10 } else { 1 })
        .x_labels(12)
        .y_labels(if y.log { 14 } else { 10 })
        .x_desc("intended send time (s since load start)")
        .y_desc(y_desc)
        .x_label_formatter(&|v| style::fmt_tick(*v))
        .y_label_formatter(&|v| style::fmt_tick(*v))
        .label_style(style::font(style::LABEL_SIZE))
        .axis_desc_style(style::font(style::DESC_SIZE))
        .draw()
        .drawn(PLOT)?;

    // The failure band: a faint rule between the data and the markers.
    let band = !(d.failed.is_empty() && d.lost.is_empty());
    if band && !d.included.is_empty() {
        let rule = if y.log {
            (y.lost_at / 1.5 * y.lost_at).sqrt()
        } else {
            y.lost_at - (y.failed_at - y.lost_at)
        };
        chart
            .draw_series(DashedLineSeries::new(
                [(x_lo, rule), (x_hi, rule)],
                6,
                4,
                style::GREY.mix(0.6).stroke_width(1),
            ))
            .drawn(PLOT)?;
    }

    // Included transactions: small translucent dots, one per output pixel.
    let mut seen = PixelSet::default();
    let dots: Vec<(f64, f64)> = d
        .included
        .iter()
        .map(|&(t, l)| (t, l.max(y.lo)))
        .filter(|c| seen.first(chart.backend_coord(c)))
        .collect();
    let dot = style::BLUE.mix(0.45).filled();
    chart
        .draw_series(dots.into_iter().map(|c| Circle::new(c, 2, dot)))
        .drawn(PLOT)?;

    let mut seen = PixelSet::default();
    let lost: Vec<(f64, f64)> = d
        .lost
        .iter()
        .map(|&t| (t, y.lost_at))
        .filter(|c| seen.first(chart.backend_coord(c)))
        .collect();
    chart
        .draw_series(
            lost.into_iter()
                .map(|c| TriangleMarker::new(c, 4, style::ORANGE.mix(0.8).filled())),
        )
        .drawn(PLOT)?;

    let mut seen = PixelSet::default();
    let failed: Vec<(f64, f64)> = d
        .failed
        .iter()
        .map(|&t| (t, y.failed_at))
        .filter(|c| seen.first(chart.backend_coord(c)))
        .collect();
    chart
        .draw_series(
            failed
                .into_iter()
                .map(|c| Cross::new(c, 4, style::RED.stroke_width(2))),
        )
        .drawn(PLOT)?;

    if d.included.is_empty() && d.failed.is_empty() && d.lost.is_empty() {
        style::note(chart.plotting_area(), PLOT, "no transactions")?;
    } else if d.included.is_empty() {
        style::note(chart.plotting_area(), PLOT, "no transaction was included")?;
    }
    Ok(())
}

/// Head, safe and finalized block numbers over the whole run, finality
/// included, with the send window shaded.
fn block_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    d: &Data,
    (x_lo, x_hi): (f64, f64),
    sends: (f64, f64),
) -> Result<(), PlotError> {
    let blocks = style::min_max(
        d.head
            .iter()
            .chain(&d.safe)
            .chain(&d.finalized)
            .map(|b| b.1 as f64),
    );
    let (b_lo, b_hi) = match blocks {
        Some((lo, hi)) => {
            let (lo, hi) = if hi - lo < 4.0 {
                (lo - 2.0, hi + 2.0)
            } else {
                (lo, hi)
            };
            let pad = (hi - lo) * 0.06;
            ((lo - pad).max(0.0), hi + pad)
        }
        None => (0.0, 1.0),
    };
    let mut chart = style::panel(
        area,
        PLOT,
        (x_lo, x_hi),
        (b_lo, b_hi),
        Axes {
            x_desc: "time since load start (s); shaded: the send window",
            y_desc: "block number",
            y_labels: 6,
            x_integer: false,
            y_integer: true,
            bottom: 14,
        },
    )?;
    chart
        .draw_series(std::iter::once(Rectangle::new(
            [(sends.0.max(x_lo), b_lo), (sends.1.min(x_hi), b_hi)],
            style::BLUE.mix(0.07).filled(),
        )))
        .drawn(PLOT)?;
    // Step lines, finalized on top.
    for (colour, _, marks) in d.blocks().into_iter().rev() {
        if marks.is_empty() {
            continue;
        }
        let mut steps = Vec::with_capacity(marks.len() * 2 + 1);
        let mut prev: Option<f64> = None;
        for &(t, n) in marks {
            let n = n as f64;
            if let Some(prev) = prev {
                steps.push((t, prev));
            }
            steps.push((t, n));
            prev = Some(n);
        }
        if let (Some(&(t_last, _)), Some(n)) = (marks.last(), prev)
            && x_hi > t_last
        {
            steps.push((x_hi, n));
        }
        chart
            .draw_series(LineSeries::new(steps, colour.stroke_width(2)))
            .drawn(PLOT)?;
    }
    Ok(())
}
