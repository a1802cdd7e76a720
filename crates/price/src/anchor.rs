//! Each op-isolation series beside its anchor, round by round (`dyno gas
//! --blocks`): in every round, every client took every series and
//! ECRECOVER one after another, so the series' per-operation time over
//! ECRECOVER's, both measured in that client in that round, holds while
//! the host's speed swings between rounds. The ratio's mean across rounds
//! and its t-interval are the figure the table leads with.

use std::collections::BTreeMap;

use dyno_format::BenchResult;
use dyno_format::reprice::{ANCHOR_SERIES, ANCHOR_TARGET, AnchorRatio};

/// The confidence of the interval across rounds.
const LEVEL: f64 = 0.95;

/// Each round's least-squares slope of `r`'s newPayload time on its
/// operation count, over the round's blocks (a round with fewer than two
/// distinct counts gives none).
pub fn round_slopes(r: &BenchResult) -> BTreeMap<u32, f64> {
    let mut by_round: BTreeMap<u32, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for (k, (sample, block)) in r.samples.iter().zip(&r.blocks).enumerate() {
        let (Some(round), Some(ns)) = (
            block.round,
            dyno_format::reprice::block_ns(r, k, "new_payload"),
        ) else {
            continue;
        };
        let points = by_round.entry(round).or_default();
        points.0.push(sample.iters as f64);
        points.1.push(ns);
    }
    by_round
        .into_iter()
        .filter_map(|(round, (x, y))| Some((round, slope(&x, &y)?)))
        .collect()
}

/// The ordinary least-squares slope of `y` on `x`; `None` without two
/// distinct `x`.
fn slope(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    let mx = x.iter().sum::<f64>() / n;
    let my = y.iter().sum::<f64>() / n;
    let sxx: f64 = x.iter().map(|a| (a - mx) * (a - mx)).sum();
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

/// The mean of `values` and its `LEVEL` t-interval; no interval with
/// fewer than two.
pub fn mean_interval(values: &[f64]) -> (f64, Option<[f64; 2]>) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if values.len() < 2 {
        return (mean, None);
    }
    let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1.0);
    let half =
        dyno_stats::student_t_quantile(1.0 - (1.0 - LEVEL) / 2.0, n - 1.0) * (var / n).sqrt();
    (mean, Some([mean - half, mean + half]))
}

/// Every series' ratio to [`ANCHOR_SERIES`] in the same implementation,
/// round by round, each net of its own control's glue (the control's
/// slope in the same round, scaled to the series' counts a loop turn, as
/// [`crate::fit::fit_results`] does): into each result's
/// `reprice.anchor`. Controls, the anchor itself, and implementations
/// without the anchor get none.
pub fn anchor_ratios(results: &mut [BenchResult]) {
    // (implementation, id) -> (per turn, slopes by round)
    let slopes: BTreeMap<(String, String), (f64, BTreeMap<u32, f64>)> = results
        .iter()
        .filter(|r| r.reprice.is_some())
        .map(|r| {
            (
                (r.implementation.name.clone(), r.id.clone()),
                (crate::fit::per_turn(r), round_slopes(r)),
            )
        })
        .collect();
    let net = |who: &str, id: &str| -> Option<BTreeMap<u32, f64>> {
        let (turn, own) = slopes.get(&(who.to_string(), id.to_string()))?;
        let control = results
            .iter()
            .find(|r| r.id == id && r.implementation.name == who)?
            .reprice
            .as_ref()?
            .control
            .clone()?;
        let (control_turn, glue) = slopes.get(&(who.to_string(), control))?;
        let scale = control_turn / turn;
        Some(
            own.iter()
                .filter_map(|(round, s)| Some((*round, s - scale * glue.get(round)?)))
                .collect(),
        )
    };
    let mut ratios = Vec::new();
    for r in results.iter() {
        let Some(iso) = &r.reprice else { continue };
        if iso.control.is_none() || r.id == ANCHOR_SERIES {
            continue;
        }
        let who = &r.implementation.name;
        let (Some(own), Some(anchor)) = (net(who, &r.id), net(who, ANCHOR_SERIES)) else {
            continue;
        };
        let mut rounds = Vec::new();
        let mut per_op_ns = Vec::new();
        for (round, s) in &own {
            if let Some(a) = anchor.get(round)
                && *s > 0.0
                && *a > 0.0
            {
                rounds.push(s / a);
                per_op_ns.push(*s);
            }
        }
        if rounds.is_empty() {
            continue;
        }
        let (ratio, interval) = mean_interval(&rounds);
        let reached = interval.is_some_and(|[lo, hi]| (hi - lo) / 2.0 <= ANCHOR_TARGET * ratio);
        ratios.push((
            r.id.clone(),
            who.clone(),
            AnchorRatio {
                anchor: ANCHOR_SERIES.into(),
                rounds,
                ratio,
                interval,
                per_op_ns,
                reached,
            },
        ));
    }
    for (id, who, ratio) in ratios {
        if let Some(iso) = results
            .iter_mut()
            .find(|r| r.id == id && r.implementation.name == who)
            .and_then(|r| r.reprice.as_mut())
        {
            iso.anchor = Some(ratio);
        }
    }
}

/// Of the ratios in `results`, how many reached their target and how
/// many there are.
pub fn reached(results: &[BenchResult]) -> (usize, usize) {
    let all: Vec<&AnchorRatio> = results
        .iter()
        .filter_map(|r| r.reprice.as_ref()?.anchor.as_ref())
        .collect();
    (all.iter().filter(|a| a.reached).count(), all.len())
}
