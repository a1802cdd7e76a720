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
//! Interleaved rounds (`dyno ab`) are the other shape: many short rounds
//! of A and B in ABBA order in the same process pair, each pair of
//! adjacent rounds one ratio. There are tens to hundreds of pairs, so
//! [`rounds`] resamples the pairs (a percentile bootstrap of the median
//! ratio) and tests the sign of the ratios, exactly ([`sign_test`]);
//! [`detectable`] is the smallest change a verdict would catch at that
//! noise.

use statrs::distribution::{ContinuousCDF, Normal};

use crate::twosample::SplitMix64;
use crate::{Interval, median, percentile, student_t_quantile, valid_level};

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

/// Interleaved rounds compared: the pairs' log ratios summarised.
#[derive(Debug, Clone, PartialEq)]
pub struct Rounds {
    /// Pairs of rounds.
    pub pairs: usize,
    /// The median over the pairs of ln(b / a).
    pub estimate: f64,
    /// The estimate's percentile-bootstrap interval (whole pairs
    /// resampled).
    pub interval: Interval,
    /// The estimate's bootstrap standard error.
    pub se: f64,
    /// Two-sided exact sign test of "B is as likely slower as faster".
    pub p: f64,
}

/// Summarise the log ratios ln(b / a) of interleaved pairs of rounds: their
/// median, its percentile-bootstrap interval at `level` from `resamples`
/// resamples of the pairs (seeded by `seed`, so the same input gives the
/// same interval), its bootstrap standard error, and the sign test's p.
/// `None` for fewer than 3 pairs, a non-finite ratio, a level outside
/// (0, 1) or no resamples.
pub fn rounds(log_ratios: &[f64], level: f64, resamples: usize, seed: u64) -> Option<Rounds> {
    let n = log_ratios.len();
    if n < 3 || resamples == 0 || !valid_level(level) || !log_ratios.iter().all(|r| r.is_finite()) {
        return None;
    }
    let estimate = median(log_ratios)?;
    let mut rng = SplitMix64(seed);
    let mut draw = vec![0.0; n];
    let mut medians: Vec<f64> = (0..resamples)
        .map(|_| {
            for d in draw.iter_mut() {
                *d = log_ratios[rng.below(n)];
            }
            median(&draw).expect("n >= 3")
        })
        .collect();
    medians.sort_by(f64::total_cmp);
    let tail = (1.0 - level) / 2.0 * 100.0;
    let mean = medians.iter().sum::<f64>() / resamples as f64;
    let se = (medians.iter().map(|m| (m - mean).powi(2)).sum::<f64>()
        / (resamples.max(2) - 1) as f64)
        .sqrt();
    Some(Rounds {
        pairs: n,
        estimate,
        interval: Interval {
            lower: percentile(&medians, tail)?,
            upper: percentile(&medians, 100.0 - tail)?,
            level,
        },
        se,
        p: sign_test(log_ratios),
    })
}

/// The exact two-sided sign test of "positive and negative are equally
/// likely" (zeros dropped): 2 P(X <= min(k, n - k)) for X ~ Binomial(n,
/// 1/2), at most 1; 1 when nothing is left.
pub fn sign_test(xs: &[f64]) -> f64 {
    let pos = xs.iter().filter(|&&x| x > 0.0).count();
    let neg = xs.iter().filter(|&&x| x < 0.0).count();
    let n = pos + neg;
    if n == 0 {
        return 1.0;
    }
    let k = pos.min(neg);
    // Sum C(n, i) / 2^n for i = 0..=k in logs, so large n cannot overflow.
    let ln_half_n = n as f64 * 0.5f64.ln();
    let mut ln_c = 0.0f64; // ln C(n, 0)
    let mut tail = 0.0f64;
    for i in 0..=k {
        if i > 0 {
            ln_c += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        tail += (ln_c + ln_half_n).exp();
    }
    (2.0 * tail).min(1.0)
}

/// The smallest true change (as a log ratio, beyond `threshold`, also a
/// log ratio) that an interval at `level` around an estimate with standard
/// error `se` lies wholly beyond `threshold` with probability `power`:
/// `threshold + (z(1 - (1 - level) / 2) + z(power)) se`, the normal
/// approximation.
pub fn detectable(threshold: f64, se: f64, level: f64, power: f64) -> f64 {
    let z = Normal::new(0.0, 1.0).expect("the standard normal");
    threshold + (z.inverse_cdf(0.5 + level / 2.0) + z.inverse_cdf(power)) * se
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
    fn the_sign_test_is_exact() {
        // 10 of 10 one way: 2 / 2^10.
        assert!((sign_test(&[1.0; 10]) - 2.0 / 1024.0).abs() < 1e-15);
        // 8 of 10: 2 (1 + 10 + 45) / 1024.
        let xs = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, -1.0, -1.0];
        assert!((sign_test(&xs) - 112.0 / 1024.0).abs() < 1e-12);
        assert_eq!(sign_test(&[1.0, -1.0, 0.0]), 1.0);
        assert_eq!(sign_test(&[0.0]), 1.0, "zeros are dropped");
        // Large n: 600 of 1000 one way, scipy.stats.binomtest: 2.6e-10.
        let mut big = vec![1.0; 600];
        big.extend(vec![-1.0; 400]);
        let p = sign_test(&big);
        assert!((p / 2.6e-10 - 1.0).abs() < 0.05, "{p:e}");
    }

    #[test]
    fn rounds_summarise_the_median_ratio_and_its_spread() {
        let r = rounds(&[0.1; 9], 0.95, 500, 1).unwrap();
        assert!((r.estimate - 0.1).abs() < 1e-15);
        assert_eq!((r.interval.lower, r.interval.upper), (0.1, 0.1));
        assert!(r.se < 1e-12, "{}", r.se);
        assert_eq!(r.pairs, 9);
        assert!((r.p - 2.0 / 512.0).abs() < 1e-15);
        let xs = [0.0, 0.01, -0.01, 0.02, -0.02, 0.03, -0.03];
        assert_eq!(
            rounds(&xs, 0.95, 500, 7),
            rounds(&xs, 0.95, 500, 7),
            "seeded"
        );
        assert_eq!(rounds(&xs[..2], 0.95, 500, 7), None);
        assert_eq!(rounds(&[0.1, f64::NAN, 0.1], 0.95, 500, 7), None);
        // threshold 5%, se 1%, 95% two-sided and 95% power: +1.96 +1.645.
        let d = detectable(0.05, 0.01, 0.95, 0.95);
        assert!((d - (0.05 + 0.036_048_9)).abs() < 1e-6, "{d}");
    }

    /// Simulated interleaved rounds on a noisy host: each pair of rounds
    /// shares a machine speed that wanders between episodes (lognormal,
    /// 30%), and each round has its own noise (3%). `effect` is B's true
    /// log ratio.
    fn noisy_pairs(rng: &mut Rng, pairs: usize, effect: f64) -> Vec<f64> {
        let mut speed = 0.0f64;
        (0..pairs)
            .map(|_| {
                if rng.unit() < 0.1 {
                    speed = 0.3 * rng.normal();
                }
                let a = speed + 0.03 * rng.normal();
                let b = speed + effect + 0.03 * rng.normal();
                b - a
            })
            .collect()
    }

    #[test]
    fn interleaved_rounds_hold_their_level_and_catch_what_they_claim() {
        let mut rng = Rng(2026);
        let trials: u64 = 400;
        // A/A: the 95% interval misses zero about 5% of the time, however
        // much the host's speed wanders (it is shared within a pair).
        let misses = (0..trials)
            .filter(|k| {
                let r = rounds(&noisy_pairs(&mut rng, 40, 0.0), 0.95, 1000, *k).unwrap();
                !r.interval.contains(0.0)
            })
            .count();
        assert!(misses as u64 <= trials * 9 / 100, "{misses} of {trials}");
        // A true change at the detectable size is caught (the interval
        // wholly beyond the threshold) about 95% of the time.
        let threshold = 1.05f64.ln();
        let probe = rounds(&noisy_pairs(&mut rng, 40, 0.0), 0.95, 1000, 1).unwrap();
        let mde = detectable(threshold, probe.se, 0.95, 0.95);
        let caught = (0..trials)
            .filter(|k| {
                let r = rounds(&noisy_pairs(&mut rng, 40, mde), 0.95, 1000, *k).unwrap();
                r.interval.lower > threshold
            })
            .count();
        assert!(
            caught as u64 >= trials * 85 / 100,
            "{caught} of {trials} at {mde}"
        );
    }
}
