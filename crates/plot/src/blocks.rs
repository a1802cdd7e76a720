//! The blocks of a load run, three panels over one figure: the time to
//! inclusion of the transactions in each block (a box per block), the
//! transactions sent but not yet included over time, and the gas each
//! block used against its limit.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::style::{self, Axes, Drawn, LegendItem, Swatch};
use crate::{LoadPlots, PlotError, TxPoint};

const PLOT: &str = "blocks";

/// The spread of one block's times to inclusion, in ms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoxStats {
    /// The block number.
    pub block: u64,
    /// Transactions of the run in it.
    pub n: usize,
    /// The fastest.
    pub min: f64,
    /// The first quartile.
    pub p25: f64,
    /// The median.
    pub p50: f64,
    /// The third quartile.
    pub p75: f64,
    /// The slowest.
    pub max: f64,
}

/// Each block's box of times to inclusion (intended send to the block seen
/// as head), over the run's successful, included transactions, in block
/// order.
pub fn per_block(txs: &[TxPoint]) -> Vec<BoxStats> {
    let mut by: std::collections::BTreeMap<u64, Vec<f64>> = Default::default();
    for t in txs.iter().filter(|t| t.ok) {
        if let (Some(b), Some(l)) = (t.block, t.latency_ms)
            && l.is_finite()
        {
            by.entry(b).or_default().push(l);
        }
    }
    by.into_iter()
        .map(|(block, mut v)| {
            v.sort_by(f64::total_cmp);
            let q = |p: f64| style::quantile(&v, p).unwrap_or(v[0]);
            BoxStats {
                block,
                n: v.len(),
                min: v[0],
                p25: q(0.25),
                p50: q(0.5),
                p75: q(0.75),
                max: v[v.len() - 1],
            }
        })
        .collect()
}

/// Transactions sent and not yet included, over time: a step at every
/// intended send (+1) and every inclusion (−1), as `(t_s, pending)` after
/// each event, in time order. A transaction never included stays pending;
/// a failed one never was.
pub fn pending(txs: &[TxPoint]) -> Vec<(f64, i64)> {
    let mut events: Vec<(f64, i64)> = Vec::with_capacity(txs.len() * 2);
    for t in txs.iter().filter(|t| t.ok && t.t_s.is_finite()) {
        events.push((t.t_s, 1));
        if let Some(l) = t.latency_ms.filter(|l| l.is_finite() && *l >= 0.0) {
            events.push((t.t_s + l / 1e3, -1));
        }
    }
    // at one instant, inclusions before sends: the count never overshoots
    events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut n = 0;
    events
        .into_iter()
        .map(|(t, d)| {
            n += d;
            (t, n)
        })
        .collect()
}

pub(crate) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    p: &LoadPlots<'_>,
) -> Result<(), PlotError> {
    let boxes = per_block(p.txs);
    let pend = pending(p.txs);
    let mut gas: Vec<_> = p.blocks.iter().filter(|b| b.t_s.is_finite()).collect();
    gas.sort_by_key(|b| b.number);
    let legend = vec![
        LegendItem::new(
            Swatch::Line(style::BLUE),
            format!(
                "time to inclusion: P25-P75 box, median, min-max ({} blocks)",
                boxes.len()
            ),
        ),
        LegendItem::new(Swatch::Line(style::ORANGE), "pending transactions"),
        LegendItem::new(Swatch::Line(style::GREEN), "gas used"),
        LegendItem::new(Swatch::Dashed(style::TARGET), "gas limit"),
    ];
    let area = style::layout(root, PLOT, p.title, &legend)?;
    let h = area.dim_in_pixel().1;
    let (top, rest) = area.split_vertically(h * 40 / 100);
    let (middle, bottom) = rest.split_vertically(h * 30 / 100);
    inclusion_panel(&top, &boxes)?;
    pending_panel(&middle, &pend)?;
    gas_panel(&bottom, &gas)?;
    Ok(())
}

fn blocks_range(lo: u64, hi: u64) -> (f64, f64) {
    (lo as f64 - 0.7, hi as f64 + 0.7)
}

fn inclusion_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    boxes: &[BoxStats],
) -> Result<(), PlotError> {
    let (x_lo, x_hi) = match (boxes.first(), boxes.last()) {
        (Some(a), Some(b)) => blocks_range(a.block, b.block),
        _ => (0.0, 1.0),
    };
    let y_hi = boxes.iter().map(|b| b.max).fold(0.0f64, f64::max);
    let y_hi = if y_hi > 0.0 { y_hi * 1.08 } else { 1000.0 };
    let mut chart = style::panel(
        area,
        PLOT,
        (x_lo, x_hi),
        (0.0, y_hi),
        Axes {
            x_desc: "block number",
            y_desc: "to inclusion (ms)",
            y_labels: 5,
            x_integer: true,
            y_integer: false,
            bottom: 4,
        },
    )?;
    let half = 0.3;
    for b in boxes {
        let x = b.block as f64;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(x, b.min), (x, b.max)],
                style::BLUE.stroke_width(1),
            )))
            .drawn(PLOT)?;
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(x - half, b.p25), (x + half, b.p75)],
                style::BLUE.mix(0.35).filled(),
            )))
            .drawn(PLOT)?;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(x - half, b.p50), (x + half, b.p50)],
                style::INK.stroke_width(2),
            )))
            .drawn(PLOT)?;
    }
    if boxes.is_empty() {
        style::note(chart.plotting_area(), PLOT, "no transaction was included")?;
    }
    Ok(())
}

fn pending_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    pend: &[(f64, i64)],
) -> Result<(), PlotError> {
    let (x_lo, x_hi) = match (pend.first(), pend.last()) {
        (Some(a), Some(b)) => style::widen(a.0.min(0.0), b.0),
        _ => (0.0, 1.0),
    };
    let y_hi = pend.iter().map(|p| p.1).max().unwrap_or(0).max(1) as f64 * 1.08;
    let mut chart = style::panel(
        area,
        PLOT,
        (x_lo, x_hi),
        (0.0, y_hi),
        Axes {
            x_desc: "time since load start (s)",
            y_desc: "pending",
            y_labels: 5,
            x_integer: false,
            y_integer: true,
            bottom: 4,
        },
    )?;
    // One point per output pixel column is enough for a step line.
    let mut steps: Vec<(f64, f64)> = Vec::with_capacity(pend.len().min(4096) * 2);
    let mut last_x = i32::MIN;
    let mut prev = 0.0;
    for &(t, n) in pend {
        let n = n as f64;
        let px = chart.backend_coord(&(t, n)).0;
        if px != last_x {
            steps.push((t, prev));
            last_x = px;
        } else {
            steps.pop();
        }
        steps.push((t, n));
        prev = n;
    }
    chart
        .draw_series(LineSeries::new(steps, style::ORANGE.stroke_width(2)))
        .drawn(PLOT)?;
    Ok(())
}

fn gas_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    gas: &[&crate::BlockGas],
) -> Result<(), PlotError> {
    let (x_lo, x_hi) = match (gas.first(), gas.last()) {
        (Some(a), Some(b)) => blocks_range(a.number, b.number),
        _ => (0.0, 1.0),
    };
    let y_hi = gas
        .iter()
        .flat_map(|b| [b.gas_used, b.gas_limit])
        .max()
        .unwrap_or(0)
        .max(1) as f64
        * 1.08
        / 1e6;
    let mut chart = style::panel(
        area,
        PLOT,
        (x_lo, x_hi),
        (0.0, y_hi),
        Axes {
            x_desc: "block number",
            y_desc: "gas (millions)",
            y_labels: 5,
            x_integer: true,
            y_integer: false,
            bottom: 14,
        },
    )?;
    chart
        .draw_series(gas.iter().map(|b| {
            let x = b.number as f64;
            Rectangle::new(
                [(x - 0.35, 0.0), (x + 0.35, b.gas_used as f64 / 1e6)],
                style::GREEN.mix(0.7).filled(),
            )
        }))
        .drawn(PLOT)?;
    let limit: Vec<(f64, f64)> = gas
        .iter()
        .flat_map(|b| {
            let x = b.number as f64;
            let y = b.gas_limit as f64 / 1e6;
            [(x - 0.5, y), (x + 0.5, y)]
        })
        .collect();
    chart
        .draw_series(DashedLineSeries::new(
            limit,
            6,
            4,
            style::TARGET.stroke_width(2),
        ))
        .drawn(PLOT)?;
    if gas.is_empty() {
        style::note(chart.plotting_area(), PLOT, "no block was seen")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tx(t_s: f64, latency_ms: Option<f64>, block: Option<u64>, ok: bool) -> TxPoint {
        TxPoint {
            t_s,
            latency_ms,
            ok,
            block,
        }
    }

    #[test]
    fn each_block_gets_the_quartiles_of_its_own_transactions() {
        let mut txs: Vec<TxPoint> = (1..=5)
            .map(|i| tx(0.0, Some(f64::from(i) * 100.0), Some(7), true))
            .collect();
        txs.push(tx(0.0, Some(50.0), Some(8), true));
        txs.push(tx(0.0, Some(9e9), Some(8), false)); // failed: not counted
        txs.push(tx(0.0, None, None, true)); // never included
        let b = per_block(&txs);
        assert_eq!(b.len(), 2);
        assert_eq!(
            b[0],
            BoxStats {
                block: 7,
                n: 5,
                min: 100.0,
                p25: 200.0,
                p50: 300.0,
                p75: 400.0,
                max: 500.0
            }
        );
        assert_eq!((b[1].block, b[1].n, b[1].p50), (8, 1, 50.0));
    }

    #[test]
    fn pending_rises_with_sends_and_falls_with_inclusions() {
        let txs = [
            tx(0.0, Some(2000.0), Some(1), true), // included at 2 s
            tx(1.0, Some(1000.0), Some(1), true), // included at 2 s
            tx(1.5, None, None, true),            // never included
            tx(1.7, None, None, false),           // failed: never pending
        ];
        assert_eq!(
            pending(&txs),
            [(0.0, 1), (1.0, 2), (1.5, 3), (2.0, 2), (2.0, 1)]
        );
    }
}
