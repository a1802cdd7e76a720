//! Two clients (A and B) compared on the same blocks, in interleaved
//! runs: pairs of runs in ABBA order (A B, B A, A B, ...), so a drift of
//! the machine over the session (heat, a neighbour, the page cache) falls
//! on both sides alike. Within a pair, block i of A's run and of B's run
//! are the same block; the pair's effect is the median over the id's
//! blocks of ln(B / A) ([`dyno_stats::paired`]), and the effect over pairs
//! gets a Student-t interval over the pairs. The intervals of all ids
//! compared in one session hold together (Bonferroni), so an A/A of one
//! build against itself finds no difference anywhere at that level.
//!
//! Verdicts: `slower` or `faster` (B against A) only when the interval
//! excludes zero *and* the effect is larger than the noise floor; else `no
//! difference`. One pair is never enough: at least [`MIN_PAIRS`].

use dyno_format::BenchResult;
use dyno_format::replay::Comparison;
use dyno_stats::paired::{cluster_interval, pair_statistic, simultaneous_level};

/// The fewest pairs of runs a comparison is made from.
pub const MIN_PAIRS: usize = 3;
/// The default confidence of all of a session's intervals together.
pub const FAMILY_LEVEL: f64 = 0.95;
/// The default noise floor: a difference below 1% is no difference (reth's
/// published floor for the mean, the median and MGas/s is 1.2%).
pub const DEFAULT_FLOOR: f64 = 0.01;

/// A side of an A/B.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    A,
    B,
}

/// The order of `pairs` pairs of runs: A B, B A, A B, ...
pub fn order(pairs: usize) -> Vec<Side> {
    (0..pairs)
        .flat_map(|p| {
            if p % 2 == 0 {
                [Side::A, Side::B]
            } else {
                [Side::B, Side::A]
            }
        })
        .collect()
}

/// `ABBAAB` for three pairs.
pub fn order_text(pairs: usize) -> String {
    order(pairs)
        .iter()
        .map(|s| if *s == Side::A { 'A' } else { 'B' })
        .collect()
}

/// How a comparison is judged.
#[derive(Debug, Clone, Copy)]
pub struct Judge {
    /// Pairs of runs made.
    pub pairs: usize,
    /// Ids compared in the session (the intervals hold together).
    pub ids: usize,
    /// The confidence of all the session's intervals together.
    pub family: f64,
    /// A relative difference under this is none.
    pub floor: f64,
}

/// The comparison of B's result against A's for one id; `None` when
/// fewer than two pairs of runs measured it completely.
pub fn compare(a: &BenchResult, b: &BenchResult, judge: Judge) -> Option<Comparison> {
    let Judge {
        pairs,
        ids,
        family,
        floor,
    } = judge;
    let times = |r: &BenchResult, run: u32| -> Vec<f64> {
        r.blocks
            .iter()
            .filter(|x| x.run == run)
            .map(|x| x.new_payload_ns as f64)
            .collect()
    };
    let stats: Vec<f64> = (0..pairs as u32)
        .filter_map(|k| pair_statistic(&times(a, k), &times(b, k)))
        .collect();
    let level = simultaneous_level(family, ids);
    let (mean, ci) = cluster_interval(&stats, level)?;
    let rel = |x: f64| x.exp() - 1.0;
    let delta = rel(mean);
    let verdict = if ci.contains(0.0) || delta.abs() < floor {
        "no difference"
    } else if delta > 0.0 {
        "slower"
    } else {
        "faster"
    };
    Some(Comparison {
        id: a.id.clone(),
        a: a.implementation.name.clone(),
        b: b.implementation.name.clone(),
        order: order_text(pairs),
        pair_log_ratios: stats,
        delta,
        delta_low: rel(ci.lower),
        delta_high: rel(ci.upper),
        level,
        floor,
        verdict: verdict.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dyno_format::replay::Block;

    #[test]
    fn runs_alternate_abba() {
        assert_eq!(order_text(3), "ABBAAB");
        assert_eq!(order_text(4), "ABBAABBA");
    }

    fn result(name: &str, runs: &[&[u64]]) -> BenchResult {
        let mut r = dyno_format::fixture::result("client/newpayload/30M-full", name, Some(1.0));
        for (k, times) in runs.iter().enumerate() {
            for (i, &t) in times.iter().enumerate() {
                r.blocks.push(Block {
                    run: k as u32,
                    number: i as u64 + 1,
                    hash: format!("0x{:064x}", i),
                    gas_used: 1,
                    transactions: 0,
                    new_payload_ns: t,
                    forkchoice_ns: 1,
                    round: None,
                    client_log: None,
                });
            }
        }
        r
    }

    fn judge(pairs: usize) -> Judge {
        Judge {
            pairs,
            ids: 12,
            family: FAMILY_LEVEL,
            floor: DEFAULT_FLOOR,
        }
    }

    #[test]
    fn a_consistent_slowdown_is_slower_and_noise_is_no_difference() {
        let a = result("A", &[&[100, 200, 300], &[110, 190, 310], &[100, 210, 290]]);
        // 20% slower on every block of every pair.
        let slow: Vec<Vec<u64>> = [[100, 200, 300], [110, 190, 310], [100, 210, 290]]
            .iter()
            .map(|r| r.iter().map(|t| t * 12 / 10).collect())
            .collect();
        let b = result("B", &slow.iter().map(Vec::as_slice).collect::<Vec<_>>());
        let c = compare(&a, &b, judge(3)).unwrap();
        assert_eq!(c.verdict, "slower", "{c:?}");
        assert!((c.delta - 0.2).abs() < 1e-9, "{c:?}");
        assert_eq!(c.order, "ABBAAB");
        // And the other way round.
        let c = compare(&b, &a, judge(3)).unwrap();
        assert_eq!(c.verdict, "faster", "{c:?}");

        // Pairs that disagree in sign: no difference.
        let b = result("B", &[&[105, 210, 315], &[104, 181, 295], &[101, 212, 292]]);
        let c = compare(&a, &b, judge(3)).unwrap();
        assert_eq!(c.verdict, "no difference", "{c:?}");
        assert!(c.delta_low < 0.0 && c.delta_high > 0.0, "{c:?}");

        // A tiny but consistent difference under the floor: no difference.
        let tiny: Vec<Vec<u64>> = [
            [100_000u64, 200_000],
            [110_000, 190_000],
            [100_000, 210_000],
        ]
        .iter()
        .map(|r| r.iter().map(|t| t * 1005 / 1000).collect())
        .collect();
        let a2 = result(
            "A",
            &[
                &[100_000, 200_000],
                &[110_000, 190_000],
                &[100_000, 210_000],
            ],
        );
        let b2 = result("B", &tiny.iter().map(Vec::as_slice).collect::<Vec<_>>());
        let c = compare(&a2, &b2, judge(3)).unwrap();
        assert!(c.delta_low > 0.0, "the interval excludes zero: {c:?}");
        assert_eq!(c.verdict, "no difference", "0.5% is under the 1% floor");

        // One pair: no comparison.
        assert!(compare(&a, &b, judge(1)).is_none());
    }
}
