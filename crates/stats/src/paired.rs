//! Paired comparisons over interleaved runs: two builds (A and B) each
//! process the same items (blocks) in runs made in ABBA order, and each
//! pair of runs (A's k-th, B's k-th) is compared item by item.
//!
//! * [`pair_statistic`]: one pair's effect, the median over items of
//!   ln(b / a). Items are matched by position: item i of A's run and of
//!   B's run are the same input. The log makes the effect a ratio and
//!   symmetric (B twice as slow is +ln 2, twice as fast -ln 2).
//! * [`cluster_interval`]: the effect over pairs and its confidence
//!   interval. The unit of independence is the pair of runs, not the item:
//!   items within a run share that run's machine state (a fresh client,
//!   its caches, the page cache, the frequency the CPU settled at), so the
//!   interval is Student's t over the pairs' statistics with (pairs - 1)
//!   degrees of freedom (Donald and Lang, 2007: with few clusters,
//!   aggregate to the cluster and use t with G - 1 df). A percentile
//!   bootstrap over so few runs would not hold its level: with three pairs
//!   there are ten distinct resamples, and its interval is close to the
//!   range of the three pair statistics, which misses zero in an A/A a
//!   quarter of the time (the tests below measure it).
//!
//! Interleaved rounds (`dyno ab`) have the same shape one level down: in
//! each *pass* both sides run in fresh processes, and many short rounds of
//! A and B alternate (ABBA), each pair of adjacent rounds one ratio; the
//! pass's statistic is the median of its ratios ([`pair_statistic`] over
//! rounds). Within a pass the host's slow spells cancel; what does not is
//! the process: the same binary in two processes can differ by a few
//! percent for the whole life of the processes (memory layout, the
//! environment's size moving the stack, the core it lands on). So the
//! pass, not the round, is the unit of independence, and [`passes`] is
//! Student's t over the passes' statistics, with its t test's p;
//! [`detectable`] is the smallest change the verdict (the interval beyond
//! the threshold and Holm's test over the run's comparisons) would catch
//! at that noise.

use statrs::distribution::{ChiSquared, ContinuousCDF, StudentsT};

use crate::{Interval, median, student_t_quantile, valid_level};

/// One pair of runs' effect: the median over items of ln(b_i / a_i).
/// `None` when the runs differ in length, are empty, or a time is not
/// strictly positive.
pub fn pair_statistic(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.len() != b.len() || a.is_empty() {
        return None;
    }
    let ratios: Option<Vec<f64>> = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| {
            (x > 0.0 && y > 0.0 && x.is_finite() && y.is_finite()).then(|| (y / x).ln())
        })
        .collect();
    median(&ratios?)
}

/// The mean of the pairs' statistics and its two-sided confidence interval
/// at `level`, Student's t with `stats.len() - 1` degrees of freedom.
/// `None` for fewer than two pairs or a level outside (0, 1).
pub fn cluster_interval(stats: &[f64], level: f64) -> Option<(f64, Interval)> {
    let n = stats.len();
    if n < 2 || !valid_level(level) || !stats.iter().all(|s| s.is_finite()) {
        return None;
    }
    let mean = stats.iter().sum::<f64>() / n as f64;
    let var = stats.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let half = student_t_quantile(0.5 + level / 2.0, (n - 1) as f64) * (var / n as f64).sqrt();
    Some((
        mean,
        Interval {
            lower: mean - half,
            upper: mean + half,
            level,
        },
    ))
}

/// The level each of `k` intervals needs for all of them to hold together
/// at `family` (Bonferroni): 1 - (1 - family) / k.
pub fn simultaneous_level(family: f64, k: usize) -> f64 {
    1.0 - (1.0 - family) / k.max(1) as f64
}

/// Passes of interleaved rounds compared: each pass's statistic (its
/// median log ratio) summarised.
#[derive(Debug, Clone, PartialEq)]
pub struct Passes {
    /// The mean of the passes' statistics.
    pub estimate: f64,
    /// Its Student's t interval over the passes.
    pub interval: Interval,
    /// Its standard error.
    pub se: f64,
    /// The two-sided one-sample t test's p of "no difference".
    pub p: f64,
}

/// Summarise the passes' statistics (each a pass's median ln(b / a)):
/// their mean, its t interval at `level` and standard error, and the t
/// test's p. `None` for fewer than two passes.
pub fn passes(stats: &[f64], level: f64) -> Option<Passes> {
    let (estimate, interval) = cluster_interval(stats, level)?;
    let n = stats.len() as f64;
    let sd = crate::stddev(stats)?;
    let se = sd / n.sqrt();
    let p = if se > 0.0 {
        let t = StudentsT::new(0.0, 1.0, n - 1.0).ok()?;
        (2.0 * (1.0 - t.cdf((estimate / se).abs()))).min(1.0)
    } else if estimate == 0.0 {
        1.0
    } else {
        0.0
    };
    Some(Passes {
        estimate,
        interval,
        se,
        p,
    })
}

/// The smallest true change (a log ratio beyond `threshold`, also a log
/// ratio) that the **verdict** flags with probability `power`, for passes
/// whose statistic has standard error `se` (`df` degrees of freedom) in a
/// run of `comparisons` comparisons.
///
/// A `regressed` verdict needs two things at once: the t interval at
/// `level` wholly beyond the threshold (estimate - t(1 - α/2)·ŝe >
/// threshold), and the t test's p, Holm-adjusted over the run, below α =
/// 1 - `level`. A single real change among `comparisons` otherwise equal
/// ones has the smallest p and meets Holm's first step, p < α /
/// comparisons, that is estimate > t(1 - α / (2 comparisons))·ŝe. With 4
/// passes and 152 comparisons that is |t| > 18.8, far beyond the
/// interval's 3.18, so the test, not the interval, decides what can be
/// caught.
///
/// Both conditions use the estimated standard error ŝe = σ·S, S² =
/// χ²(df)/df, so the power is the average over S of Φ((δ - max(threshold +
/// t(1 - α/2)·σ·S, t(1 - α/(2 comparisons))·σ·S)) / σ) (normal pass
/// statistics), solved for δ by bisection. Holm's first step is the
/// strictest: with several real changes in one run each needs less, so
/// this is what a lone change needs.
///
/// `se` is the run's estimate ŝe; the true σ is taken as ŝe / median(S),
/// its median-unbiased correction (on 3 df ŝe's median is 0.89 σ, so
/// taking ŝe as σ would make the median reported change one the verdict
/// catches about 89% of the time, not 95%).
pub fn detectable(
    threshold: f64,
    se: f64,
    df: f64,
    level: f64,
    power: f64,
    comparisons: usize,
) -> f64 {
    if !(se.is_finite() && se > 0.0) {
        return threshold;
    }
    let alpha = 1.0 - level;
    let interval = student_t_quantile(1.0 - alpha / 2.0, df);
    let test = student_t_quantile(1.0 - alpha / (2.0 * comparisons.max(1) as f64), df);
    let spreads = se_spreads(df);
    let se = se / median(&spreads).unwrap_or(1.0);
    let needed: Vec<f64> = spreads
        .iter()
        .map(|s| (threshold / se + interval * s).max(test * s))
        .collect();
    let power_at = |lambda: f64| {
        needed.iter().map(|n| normal_cdf(lambda - n)).sum::<f64>() / needed.len() as f64
    };
    let (mut lo, mut hi) = (0.0, needed.iter().copied().fold(0.0, f64::max) + 10.0);
    for _ in 0..100 {
        let mid = (lo + hi) / 2.0;
        if power_at(mid) < power {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi * se
}

/// S = ŝe / se at `SPREAD_POINTS` equally likely points: sqrt(χ²(df)/df)
/// at the middle of each of that many equal slices of its distribution.
/// Kept per df: a run judges every comparison with the same few.
fn se_spreads(df: f64) -> std::sync::Arc<Vec<f64>> {
    type Known = Vec<(u64, std::sync::Arc<Vec<f64>>)>;
    static KNOWN: std::sync::Mutex<Known> = std::sync::Mutex::new(Vec::new());
    let key = df.to_bits();
    let mut known = KNOWN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, s)) = known.iter().find(|(k, _)| *k == key) {
        return s.clone();
    }
    let spreads = std::sync::Arc::new(match ChiSquared::new(df) {
        Ok(chi) => (0..SPREAD_POINTS)
            .map(|i| {
                let u = (i as f64 + 0.5) / SPREAD_POINTS as f64;
                (chi.inverse_cdf(u) / df).sqrt()
            })
            .collect(),
        Err(_) => vec![1.0],
    });
    if known.len() < 64 {
        known.push((key, spreads.clone()));
    }
    spreads
}

/// How finely [`detectable`] averages over the estimated standard error.
const SPREAD_POINTS: usize = 400;

/// Φ(z), the standard normal CDF.
fn normal_cdf(z: f64) -> f64 {
    0.5 * statrs::function::erf::erfc(-z / std::f64::consts::SQRT_2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SplitMix64 as Rng;

    #[test]
    fn a_pair_is_the_median_log_ratio_by_position() {
        let a = [10.0, 20.0, 40.0];
        let b = [11.0, 20.0, 20.0];
        // ln 1.1, 0, ln 0.5: the median is 0.
        assert_eq!(pair_statistic(&a, &b), Some(0.0));
        let s = pair_statistic(&[1.0, 2.0], &[2.0, 4.0]).unwrap();
        assert!((s - 2f64.ln()).abs() < 1e-12);
        assert_eq!(pair_statistic(&a, &b[..2]), None, "different lengths");
        assert_eq!(pair_statistic(&[], &[]), None);
        assert_eq!(pair_statistic(&[0.0], &[1.0]), None, "a zero time");
    }

    #[test]
    fn the_interval_is_t_over_pairs() {
        // Three pairs: mean 0.02, sd 0.01, t(0.975, 2) = 4.3027.
        let (mean, ci) = cluster_interval(&[0.01, 0.02, 0.03], 0.95).unwrap();
        assert!((mean - 0.02).abs() < 1e-12);
        let half = 4.302_652_729_911 * 0.01 / 3f64.sqrt();
        assert!((ci.upper - (0.02 + half)).abs() < 1e-9, "{ci:?}");
        assert!((ci.lower - (0.02 - half)).abs() < 1e-9, "{ci:?}");
        assert_eq!(
            cluster_interval(&[0.01], 0.95),
            None,
            "one pair says nothing"
        );
        assert_eq!(cluster_interval(&[0.01, 0.02], 1.0), None);
        assert!((simultaneous_level(0.95, 12) - (1.0 - 0.05 / 12.0)).abs() < 1e-15);
    }

    /// A simulated A/A: every run has its own speed (a run effect with a
    /// 2% standard deviation) and every block its own noise (5%); the same
    /// build on both sides, so the true effect is zero.
    fn a_a_pairs(rng: &mut Rng, pairs: usize, blocks: usize) -> Vec<(Vec<f64>, Vec<f64>)> {
        let base: Vec<f64> = (0..blocks).map(|i| 50.0 + i as f64).collect();
        let run = |rng: &mut Rng| {
            let speed = (0.02 * rng.normal()).exp();
            base.iter()
                .map(|t| t * speed * (0.05 * rng.normal()).exp())
                .collect::<Vec<f64>>()
        };
        (0..pairs).map(|_| (run(rng), run(rng))).collect()
    }

    /// The percentile bootstrap over whole pairs of runs, of the pooled
    /// median log ratio: what the field uses, kept here to show why dyno
    /// does not.
    fn percentile_cluster_bootstrap(
        pairs: &[(Vec<f64>, Vec<f64>)],
        level: f64,
        rng: &mut Rng,
    ) -> (f64, f64) {
        let ratios: Vec<Vec<f64>> = pairs
            .iter()
            .map(|(a, b)| a.iter().zip(b).map(|(x, y)| (y / x).ln()).collect())
            .collect();
        let mut medians: Vec<f64> = (0..2000)
            .map(|_| {
                let pooled: Vec<f64> = (0..ratios.len())
                    .flat_map(|_| ratios[rng.below(ratios.len())].iter().copied())
                    .collect();
                median(&pooled).unwrap()
            })
            .collect();
        medians.sort_by(f64::total_cmp);
        let at = |p: f64| medians[((medians.len() - 1) as f64 * p).round() as usize];
        (at((1.0 - level) / 2.0), at((1.0 + level) / 2.0))
    }

    #[test]
    fn with_three_pairs_the_t_interval_holds_its_level_and_the_bootstrap_does_not() {
        let mut rng = Rng(0xab_ba);
        let trials = 600;
        let (mut t_misses, mut boot_misses) = (0, 0);
        for _ in 0..trials {
            let pairs = a_a_pairs(&mut rng, 3, 16);
            let stats: Vec<f64> = pairs
                .iter()
                .map(|(a, b)| pair_statistic(a, b).unwrap())
                .collect();
            let (_, ci) = cluster_interval(&stats, 0.95).unwrap();
            t_misses += usize::from(!ci.contains(0.0));
            let (lo, hi) = percentile_cluster_bootstrap(&pairs, 0.95, &mut rng);
            boot_misses += usize::from(!(lo <= 0.0 && 0.0 <= hi));
        }
        let t_rate = t_misses as f64 / trials as f64;
        let boot_rate = boot_misses as f64 / trials as f64;
        // 5% nominal; 600 trials give a standard error of about 0.9%.
        eprintln!("A/A: t interval missed zero in {t_rate:.3}, the bootstrap in {boot_rate:.3}");
        assert!(
            t_rate < 0.08,
            "t interval missed zero in {t_rate:.3} of A/As"
        );
        assert!(
            boot_rate > 0.15,
            "bootstrap missed zero in {boot_rate:.3} of A/As"
        );
    }

    #[test]
    fn a_real_difference_is_found() {
        let mut rng = Rng(7);
        let pairs = a_a_pairs(&mut rng, 3, 16);
        // B 20% slower on every block.
        let stats: Vec<f64> = pairs
            .iter()
            .map(|(a, b)| {
                let slow: Vec<f64> = b.iter().map(|t| t * 1.20).collect();
                pair_statistic(a, &slow).unwrap()
            })
            .collect();
        let (mean, ci) = cluster_interval(&stats, 0.95).unwrap();
        assert!(ci.lower > 0.0, "{ci:?}");
        assert!(ci.contains(1.2f64.ln()), "{ci:?} around {}", mean.exp());
    }

    #[test]
    fn passes_give_a_t_interval_a_t_test_and_what_they_could_detect() {
        let r = passes(&[0.01, 0.02, 0.03], 0.95).unwrap();
        let (mean, ci) = cluster_interval(&[0.01, 0.02, 0.03], 0.95).unwrap();
        assert_eq!((r.estimate, r.interval), (mean, ci));
        assert!((r.se - 0.01 / 3f64.sqrt()).abs() < 1e-12);
        // t = 0.02 / 0.005774 = 3.464 on 2 df: p = 0.0742 (scipy.stats.ttest_1samp).
        assert!((r.p - 0.074_180).abs() < 1e-5, "{}", r.p);
        assert_eq!(passes(&[0.01], 0.95), None);
        assert_eq!(passes(&[0.0, 0.0], 0.95).unwrap().p, 1.0);
    }

    #[test]
    fn with_the_error_known_the_detectable_change_is_the_closed_form() {
        // With very many degrees of freedom ŝe = se, and a change is caught
        // when its estimate clears the larger of the two bars: δ = max(thr
        // + z(0.975) se, z(1 - 0.05 / (2m)) se) + z(0.95) se. Quantiles
        // from Python's statistics.NormalDist.
        let (z975, z95, z_holm152) = (1.959_963_984_540, 1.644_853_626_951, 3.591_367_527_312);
        let d = detectable(0.05, 0.01, 1e7, 0.95, 0.95, 1);
        assert!((d - (0.05 + (z975 + z95) * 0.01)).abs() < 1e-5, "{d}");
        // se 1%: the interval's bar is the higher (6.96% against 3.59%).
        let d = detectable(0.05, 0.01, 1e7, 0.95, 0.95, 152);
        assert!((d - (0.05 + (z975 + z95) * 0.01)).abs() < 1e-5, "{d}");
        // se 5%: Holm's is (14.8% against 17.96%).
        let d = detectable(0.05, 0.05, 1e7, 0.95, 0.95, 152);
        assert!((d - (z_holm152 + z95) * 0.05).abs() < 1e-4, "{d}");
        // No noise: the threshold itself.
        assert_eq!(detectable(0.05, 0.0, 3.0, 0.95, 0.95, 152), 0.05);
        // With 3 df the estimated error widens both bars, and Holm's over
        // 152 comparisons (t > 18.8) dominates: near three times the
        // interval's (30.4% against 10.7% at se 1%).
        let one = detectable(0.05, 0.01, 3.0, 0.95, 0.95, 1);
        let many = detectable(0.05, 0.01, 3.0, 0.95, 0.95, 152);
        assert!(one > 0.05 + (3.18 + 2.35) * 0.01, "{one}");
        assert!(many > 2.5 * one, "{many} against {one}");
    }

    /// Simulated passes on a noisy host: each pass's processes carry their
    /// own offset (process effect, 2%); within a pass, each pair of rounds
    /// shares a machine speed that wanders in episodes (30%), and each
    /// round has its own noise (3%). `effect` is B's true log ratio.
    fn noisy_passes(rng: &mut Rng, passes: usize, pairs: usize, effect: f64) -> Vec<f64> {
        (0..passes)
            .map(|_| {
                let process = 0.02 * rng.normal() - 0.02 * rng.normal();
                let mut speed = 0.0f64;
                let ratios: Vec<f64> = (0..pairs)
                    .map(|_| {
                        if rng.unit() < 0.1 {
                            speed = 0.3 * rng.normal();
                        }
                        let a = speed + 0.03 * rng.normal();
                        let b = speed + effect + process + 0.03 * rng.normal();
                        b - a
                    })
                    .collect();
                median(&ratios).unwrap()
            })
            .collect()
    }

    #[test]
    fn passes_hold_their_level_and_catch_what_they_claim() {
        let mut rng = Rng(2026);
        let trials: u64 = 400;
        // A/A: the 95% interval misses zero about 5% of the time, however
        // much the host's speed wanders, with a process effect per pass.
        let misses = (0..trials)
            .filter(|_| {
                let r = passes(&noisy_passes(&mut rng, 4, 25, 0.0), 0.95).unwrap();
                !r.interval.contains(0.0)
            })
            .count() as u64;
        assert!(misses <= trials * 9 / 100, "{misses} of {trials}");
        // A true change at the detectable size is caught (the interval
        // wholly beyond the threshold) most of the time.
        let threshold = 1.05f64.ln();
        // A typical run's estimate: the median over runs of ŝe.
        let se_probe: Vec<f64> = (0..200)
            .map(|_| {
                passes(&noisy_passes(&mut rng, 4, 25, 0.0), 0.95)
                    .unwrap()
                    .se
            })
            .collect();
        let se = median(&se_probe).unwrap();
        // A lone comparison: only the interval's bar (and p < 0.05, which
        // an interval beyond a positive threshold implies).
        let mde = detectable(threshold, se, 3.0, 0.95, 0.95, 1);
        let caught = (0..trials)
            .filter(|_| {
                let r = passes(&noisy_passes(&mut rng, 4, 25, mde), 0.95).unwrap();
                r.interval.lower > threshold
            })
            .count() as u64;
        assert!(caught >= trials * 90 / 100, "{caught} of {trials} at {mde}");
    }
}
