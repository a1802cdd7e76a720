//! The paired A/B verdict (`dyno ab`): from each benchmark's passes (the
//! median log ratio of B's rounds against A's, one per pair of fresh
//! worker processes), the t interval against the threshold, Holm's
//! adjustment over the run's benchmarks for the t test of any difference,
//! and the minimum detectable change at the run's number of comparisons.
//! The session measures the passes; this module only judges them, so a
//! saved run is judged again the same way (docs tables do).
//!
//! Verdicts (B, the candidate, against A, the base):
//! - `regressed`: the whole interval lies beyond +threshold, and the t
//!   test (Holm) says B differs;
//! - `improved`: likewise beyond -threshold;
//! - `unchanged`: the whole interval lies within ±threshold;
//! - `inconclusive`: the interval spans a threshold: too noisy here to
//!   say (each result's minimum detectable effect says what would be).

use dyno_format::paired::{Paired, Pass};

/// The confidence of each benchmark's interval, and the family-wise level
/// of the any-difference test.
pub const LEVEL: f64 = 0.95;
/// The power the minimum detectable effect is quoted at.
pub const POWER: f64 = 0.95;
/// The verdict of a benchmark that was not compared (its note says why).
pub const NOT_COMPARED: &str = "not compared";

/// What is compared: an id and implementation, and the two sides' labels.
#[derive(Debug, Clone, Copy)]
pub struct Of<'a> {
    pub id: &'a str,
    pub implementation: &'a str,
    pub base: &'a str,
    pub candidate: &'a str,
}

/// The verdict of an interval of log ratios against `threshold` (a log
/// ratio), given Holm's p of the t test.
pub fn verdict(low: f64, high: f64, threshold: f64, p_holm: f64) -> &'static str {
    let alpha = 1.0 - LEVEL;
    if low > threshold && p_holm < alpha {
        "regressed"
    } else if high < -threshold && p_holm < alpha {
        "improved"
    } else if low > -threshold && high < threshold {
        "unchanged"
    } else {
        "inconclusive"
    }
}

/// A comparison with no verdict: `why`.
pub fn not_compared(of: Of<'_>, threshold: f64, why: String) -> Paired {
    Paired {
        id: of.id.into(),
        implementation: of.implementation.into(),
        base: of.base.into(),
        candidate: of.candidate.into(),
        passes: Vec::new(),
        delta: 0.0,
        delta_low: 0.0,
        delta_high: 0.0,
        level: LEVEL,
        p: 1.0,
        p_holm: 1.0,
        threshold,
        min_detectable: None,
        verdict: NOT_COMPARED.into(),
        note: Some(why),
    }
}

/// Fill in every compared benchmark's Holm p, verdict and minimum
/// detectable effect (which depends on how many were compared).
pub fn judge(paired: &mut [Paired]) {
    let compared = verdicts(paired);
    let comparisons = compared.len();
    for i in compared {
        let p = &mut paired[i];
        let stats: Vec<f64> = p.passes.iter().map(|x| x.statistic).collect();
        if let Some(r) = dyno_stats::paired::passes(&stats, LEVEL) {
            let mde = dyno_stats::paired::detectable(
                (1.0 + p.threshold).ln(),
                r.se,
                (stats.len() - 1) as f64,
                LEVEL,
                POWER,
                comparisons,
            );
            p.min_detectable = Some(mde.exp_m1());
        }
    }
}

/// Fill in every compared benchmark's Holm p and verdict; the indices of
/// those compared.
pub fn verdicts(paired: &mut [Paired]) -> Vec<usize> {
    let compared: Vec<usize> = (0..paired.len())
        .filter(|&i| paired[i].verdict != NOT_COMPARED)
        .collect();
    let ps: Vec<f64> = compared.iter().map(|&i| paired[i].p).collect();
    for (&i, adj) in compared.iter().zip(dyno_stats::twosample::holm(&ps)) {
        let p = &mut paired[i];
        p.p_holm = adj;
        let t = (1.0 + p.threshold).ln();
        p.verdict = verdict((1.0 + p.delta_low).ln(), (1.0 + p.delta_high).ln(), t, adj).into();
    }
    compared
}

/// The comparison of `of` from its passes so far (at least two; `None`
/// with fewer).
pub fn compared(
    of: Of<'_>,
    threshold: f64,
    passes: &[Pass],
    note: Option<String>,
) -> Option<Paired> {
    let stats: Vec<f64> = passes.iter().map(|x| x.statistic).collect();
    let r = dyno_stats::paired::passes(&stats, LEVEL)?;
    Some(Paired {
        id: of.id.into(),
        implementation: of.implementation.into(),
        base: of.base.into(),
        candidate: of.candidate.into(),
        passes: passes.to_vec(),
        delta: r.estimate.exp_m1(),
        delta_low: r.interval.lower.exp_m1(),
        delta_high: r.interval.upper.exp_m1(),
        level: LEVEL,
        p: r.p,
        p_holm: r.p,
        threshold,
        // With the run's number of comparisons, in `judge`.
        min_detectable: None,
        verdict: String::new(),
        note,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dyno_format::paired::Pass;

    #[test]
    fn a_verdict_needs_the_whole_interval_beyond_the_threshold() {
        let t = 1.05f64.ln();
        assert_eq!(verdict(0.06, 0.3, t, 0.001), "regressed");
        assert_eq!(
            verdict(0.06, 0.3, t, 0.2),
            "inconclusive",
            "not significant"
        );
        assert_eq!(verdict(0.02, 0.3, t, 0.001), "inconclusive", "spans +5%");
        assert_eq!(verdict(-0.3, -0.06, t, 0.001), "improved");
        assert_eq!(verdict(-0.02, 0.03, t, 0.001), "unchanged");
        assert_eq!(verdict(-0.2, 0.2, t, 0.9), "inconclusive", "too noisy");
    }

    fn paired(id: &str, low: f64, high: f64, p: f64) -> Paired {
        Paired {
            id: id.into(),
            implementation: "x".into(),
            base: "a".into(),
            candidate: "b".into(),
            passes: Vec::new(),
            delta: (low + high) / 2.0,
            delta_low: low,
            delta_high: high,
            level: LEVEL,
            p,
            p_holm: p,
            threshold: 0.05,
            min_detectable: Some(0.1),
            verdict: String::new(),
            note: None,
        }
    }

    #[test]
    fn holm_runs_over_the_compared_benchmarks_only() {
        // Two clear regressions at p = 0.02 each: Holm makes them 0.04
        // and 0.04, still below 0.05; a third benchmark at 0.02 makes
        // the smallest 0.06, and none is flagged.
        let mut two = vec![paired("a", 0.2, 0.3, 0.02), paired("b", 0.2, 0.3, 0.02)];
        two.push(Paired {
            verdict: NOT_COMPARED.into(),
            ..paired("c", 0.0, 0.0, 0.0)
        });
        judge(&mut two);
        assert_eq!(two[0].verdict, "regressed");
        assert_eq!(two[1].verdict, "regressed");
        assert!((two[0].p_holm - 0.04).abs() < 1e-12);
        assert_eq!(two[2].verdict, "not compared");
        let mut three = vec![
            paired("a", 0.2, 0.3, 0.02),
            paired("b", 0.2, 0.3, 0.02),
            paired("c", 0.2, 0.3, 0.02),
        ];
        judge(&mut three);
        assert!(three.iter().all(|p| p.verdict == "inconclusive"));
    }

    /// A simulated run: `comparisons` benchmarks of 4 passes, each pass's
    /// statistic the median of 25 round ratios plus its processes' own
    /// offset; the first benchmark's true log ratio is `effect`, the rest
    /// are A/As.
    fn simulated_run(
        rng: &mut dyno_stats::SplitMix64,
        comparisons: usize,
        effect: f64,
    ) -> Vec<Paired> {
        (0..comparisons)
            .map(|k| {
                let passes: Vec<Pass> = (0..4)
                    .map(|_| {
                        let ratios: Vec<f64> = (0..25).map(|_| 0.04 * rng.normal()).collect();
                        let statistic = dyno_stats::median(&ratios).unwrap()
                            + 0.01 * rng.normal()
                            + if k == 0 { effect } else { 0.0 };
                        Pass {
                            iterations: 1,
                            order: String::new(),
                            base_ns: Vec::new(),
                            candidate_ns: Vec::new(),
                            log_ratios: Vec::new(),
                            statistic,
                        }
                    })
                    .collect();
                let id = format!("bench/{k}");
                let of = Of {
                    id: &id,
                    implementation: "x",
                    base: "a",
                    candidate: "b",
                };
                compared(of, 0.05, &passes, None).unwrap()
            })
            .collect()
    }

    #[test]
    fn the_reported_detectable_change_is_what_the_verdict_catches() {
        let mut rng = dyno_stats::SplitMix64(0x0d_e7ec7);
        for comparisons in [12, 152] {
            // What a run reports: the median detectable change over an
            // A/A's comparisons.
            let mut aa = simulated_run(&mut rng, comparisons, 0.0);
            judge(&mut aa);
            let mut reported: Vec<f64> = aa.iter().filter_map(|p| p.min_detectable).collect();
            reported.sort_by(f64::total_cmp);
            let mde = reported[reported.len() / 2];
            // A true change of that size on one benchmark, judged by the
            // verdict over the whole run.
            let trials = 300;
            let caught = (0..trials)
                .filter(|_| {
                    let mut run = simulated_run(&mut rng, comparisons, mde.ln_1p());
                    verdicts(&mut run);
                    run[0].verdict == "regressed"
                })
                .count();
            let rate = caught as f64 / trials as f64;
            eprintln!("{comparisons} comparisons: detectable {mde:.4}, caught in {rate:.3}");
            assert!(rate >= 0.90, "{comparisons} comparisons: {rate} at {mde}");
        }
    }

    /// A lone comparison's own figure: its error estimated from its 4
    /// passes alone (3 degrees of freedom), so the change it reports is
    /// caught less often than the 95% a run's median figure is, averaged
    /// over what its own A/A may report. docs/gate.md quotes this rate.
    #[test]
    fn a_single_comparisons_own_detectable_change_is_caught_four_times_in_five() {
        let mut rng = dyno_stats::SplitMix64(0x51_9e1e);
        let (draws, trials) = (200, 25);
        let mut caught = 0;
        for _ in 0..draws {
            let mut aa = simulated_run(&mut rng, 1, 0.0);
            judge(&mut aa);
            let mde = aa[0].min_detectable.expect("a figure");
            caught += (0..trials)
                .filter(|_| {
                    let mut run = simulated_run(&mut rng, 1, mde.ln_1p());
                    verdicts(&mut run);
                    run[0].verdict == "regressed"
                })
                .count();
        }
        let rate = caught as f64 / (draws * trials) as f64;
        eprintln!("1 comparison, its own figure: caught in {rate:.3}");
        // Far below 95%: what the figure of a lone result promises.
        assert!((0.7..0.9).contains(&rate), "{rate}");
    }
}
