//! Unit tests. Every expected value is either hand-computed (shown inline),
//! taken from numpy / R conventions, or computed with exact rational/integer
//! arithmetic (Python `fractions`, big integers); the source is stated at each test.

use super::*;
use statrs::distribution::{Binomial, DiscreteCDF};

/// Absolute-tolerance float comparison with a readable failure message.
#[track_caller]
fn close(actual: f64, expected: f64, tol: f64) {
    assert!(
        (actual - expected).abs() <= tol,
        "expected {expected}, got {actual} (tol {tol})"
    );
}

/// 1.0, 2.0, ..., n as f64.
fn one_to(n: usize) -> Vec<f64> {
    (1..=n).map(|i| i as f64).collect()
}

/// 1..=100 in a fixed scrambled order (i -> 37 i mod 101 is a permutation of 1..=100).
fn scrambled_1_to_100() -> Vec<f64> {
    (1..=100u32).map(|i| f64::from(i * 37 % 101)).collect()
}

// --- percentile / median ------------------------------------------------------

#[test]
fn percentile_type7_matches_numpy() {
    // numpy.percentile([1,2,3,4], 50) == 2.5; (..., 25) == 1.75; (..., 75) == 3.25
    let xs = [1.0, 2.0, 3.0, 4.0];
    assert_eq!(percentile(&xs, 50.0), Some(2.5));
    assert_eq!(percentile(&xs, 25.0), Some(1.75));
    assert_eq!(percentile(&xs, 75.0), Some(3.25));
    // numpy.percentile(np.arange(1, 101), 95) == 95.05: h = 99 * 0.95 = 94.05 -> 95 + 0.05 * 1
    let hundred = one_to(100);
    close(percentile(&hundred, 95.0).unwrap(), 95.05, 1e-12);
    // numpy.percentile(np.arange(1, 101), 99) == 99.01
    close(percentile(&hundred, 99.0).unwrap(), 99.01, 1e-12);
}

#[test]
fn percentile_extremes_and_single_element() {
    let xs = [-3.0, 0.5, 2.0, 10.0];
    assert_eq!(percentile(&xs, 0.0), Some(-3.0));
    assert_eq!(percentile(&xs, 100.0), Some(10.0));
    for p in [0.0, 13.0, 50.0, 99.9, 100.0] {
        assert_eq!(percentile(&[42.0], p), Some(42.0));
    }
    // Ties: interpolating between equal neighbours returns that value.
    assert_eq!(percentile(&[1.0, 2.0, 2.0, 2.0, 3.0], 40.0), Some(2.0));
}

#[test]
fn percentile_rejects_bad_input() {
    let xs = [1.0, 2.0, 3.0];
    assert_eq!(percentile(&[], 50.0), None);
    assert_eq!(percentile(&xs, -0.1), None);
    assert_eq!(percentile(&xs, 100.1), None);
    assert_eq!(percentile(&xs, f64::NAN), None);
    assert_eq!(percentile(&[1.0, f64::NAN, 3.0], 50.0), None);
    assert_eq!(percentile(&[f64::NAN], 50.0), None);
    assert_eq!(percentile(&[1.0, f64::INFINITY], 50.0), None);
    // Not sorted ascending.
    assert_eq!(percentile(&[3.0, 1.0, 2.0], 50.0), None);
}

#[test]
fn percentile_does_not_overflow_between_extremes() {
    // b - a would overflow; the weighted form gives (−MAX + MAX) / 2 = 0.
    assert_eq!(percentile(&[-f64::MAX, f64::MAX], 50.0), Some(0.0));
}

#[test]
fn median_odd_even_unsorted() {
    assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
    assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    assert_eq!(median(&[7.0]), Some(7.0));
    assert_eq!(median(&[]), None);
    assert_eq!(median(&[1.0, f64::NAN]), None);
}

// --- MAD ----------------------------------------------------------------------

#[test]
fn mad_known_values() {
    // median = 2; |x - 2| = [1,1,0,0,2,4,7] -> sorted [0,0,1,1,2,4,7] -> median 1.
    assert_eq!(mad(&[1.0, 1.0, 2.0, 2.0, 4.0, 6.0, 9.0]), Some(1.0));
    // Order does not matter.
    assert_eq!(mad(&[9.0, 1.0, 6.0, 2.0, 4.0, 1.0, 2.0]), Some(1.0));
    // median 3; devs [2,1,0,1,97] -> [0,1,1,2,97] -> 1. Robust to the 100.
    assert_eq!(mad(&[1.0, 2.0, 3.0, 4.0, 100.0]), Some(1.0));
    // Unscaled: 1.4826 is NOT applied. median 2.5; devs [1.5,.5,.5,1.5] -> 1.0.
    assert_eq!(mad(&[1.0, 2.0, 3.0, 4.0]), Some(1.0));
    assert_eq!(mad(&[5.0, 5.0, 5.0]), Some(0.0));
    assert_eq!(mad(&[5.0]), Some(0.0));
    assert_eq!(mad(&[]), None);
    assert_eq!(mad(&[1.0, f64::NAN]), None);
}

// --- mean / stddev --------------------------------------------------------------

#[test]
fn mean_and_stddev_known_values() {
    // Classic example: mean 5, population sd 2, sample variance 32/7, sample sd sqrt(32/7).
    let xs = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
    assert_eq!(mean(&xs), Some(5.0));
    close(stddev(&xs).unwrap(), (32.0f64 / 7.0).sqrt(), 1e-14);
    close(stddev(&xs).unwrap(), 2.138089935299395, 1e-14);
    // R: sd(1:10) = 3.0276503540974917
    close(stddev(&one_to(10)).unwrap(), 3.0276503540974917, 1e-14);
    // Single value: sd defined as 0.
    assert_eq!(stddev(&[3.5]), Some(0.0));
    assert_eq!(mean(&[3.5]), Some(3.5));
    // Two-pass sd is exact-ish around a large offset (naive sum-of-squares would lose it).
    let shifted: Vec<f64> = [4.0, 7.0, 13.0, 16.0].iter().map(|x| x + 1e9).collect();
    // sd(c(4,7,13,16)) = sqrt(30) in R.
    close(stddev(&shifted).unwrap(), 30f64.sqrt(), 1e-6);
}

#[test]
fn mean_and_stddev_reject_bad_input() {
    assert_eq!(mean(&[]), None);
    assert_eq!(stddev(&[]), None);
    assert_eq!(mean(&[1.0, f64::NAN]), None);
    assert_eq!(stddev(&[1.0, f64::NAN]), None);
    assert_eq!(mean(&[1.0, f64::NEG_INFINITY]), None);
    // Sum overflows f64: reported as None, not +inf.
    assert_eq!(mean(&[f64::MAX, f64::MAX]), None);
    assert_eq!(stddev(&[-f64::MAX, f64::MAX / 2.0, f64::MAX]), None);
}

// --- binomial CDF ------------------------------------------------------------------

#[test]
fn binom_half_cdf_exact_small() {
    // P(B <= 1), B ~ Bin(10, 1/2) = (1 + 10) / 1024.
    close(binom_half_cdf(10, 1), 11.0 / 1024.0, 1e-15);
    // P(B <= 2) = (1 + 10 + 45) / 1024.
    close(binom_half_cdf(10, 2), 56.0 / 1024.0, 1e-15);
    // P(B <= 0) = 2^-n.
    close(binom_half_cdf(5, 0), 1.0 / 32.0, 1e-15);
    // Upper half via symmetry: P(B <= 5) for n = 10 = (1024 + 252) / 2048.
    close(binom_half_cdf(10, 5), 638.0 / 1024.0, 1e-15);
    assert_eq!(binom_half_cdf(10, 10), 1.0);
    assert_eq!(binom_half_cdf(10, 99), 1.0);
    // Far tail underflows cleanly to 0 instead of looping.
    assert_eq!(binom_half_cdf(1_000_000, 10), 0.0);
}

#[test]
fn binom_half_cdf_matches_exact_big_integer_sums() {
    // sum_{i<=k} C(n, i) / 2^n evaluated with Python big integers and 40-digit decimals.
    for &(n, k, exact) in &[
        (50u64, 20u64, 0.10131937553227033),
        (333, 150, 0.03967231015285397),
        (1_000, 468, 0.023145598680249076),
        (20_000, 9_800, 0.002390444727951322),
        (100_000, 49_689, 0.024777857334762465),
    ] {
        let got = binom_half_cdf(n, k);
        let rel = (got - exact).abs() / exact;
        assert!(
            rel < 1e-13,
            "n={n} k={k}: got {got}, exact {exact}, rel {rel:e}"
        );
    }
}

#[test]
fn binom_half_pmf_small_exact() {
    // C(10, k) / 1024.
    for (k, c) in [
        (0u64, 1.0),
        (1, 10.0),
        (2, 45.0),
        (3, 120.0),
        (5, 252.0),
        (10, 1.0),
    ] {
        let got = binom_half_pmf(10, k);
        let want = c / 1024.0;
        assert!((got - want).abs() / want < 1e-14, "k={k}: {got} vs {want}");
    }
    // C(40, 17) / 2^40 = 88732378800 / 1099511627776 (Stirling-series branch, n > 35).
    let got = binom_half_pmf(40, 17);
    let want = 88_732_378_800.0 / 1_099_511_627_776.0;
    assert!((got - want).abs() / want < 1e-14, "{got} vs {want}");
    assert_eq!(binom_half_pmf(10, 11), 0.0);
}

#[test]
fn binom_half_cdf_matches_statrs() {
    for &(n, k) in &[
        (1u64, 0u64),
        (7, 3),
        (20, 5),
        (100, 39),
        (1_000, 468),
        (1_000, 500),
        (1_000, 700),
        (100_000, 49_689),
        (1_000_000, 499_019),
    ] {
        let want = Binomial::new(0.5, n).unwrap().cdf(k);
        let got = binom_half_cdf(n, k);
        assert!(
            // statrs' incomplete-beta route is itself only good to ~2e-10 relative here.
            (got - want).abs() <= 1e-9 * want + 1e-15,
            "n={n} k={k}: got {got}, statrs {want}"
        );
    }
}

// --- median CI ---------------------------------------------------------------------

/// Data whose value at 1-based rank r is 10 r, so ranks can be read off the interval.
fn ranked(n: usize) -> Vec<f64> {
    (1..=n).map(|r| 10.0 * r as f64).collect()
}

#[test]
fn median_ci_n10_uses_ranks_2_and_9() {
    // j = 2: 1 - 2 * 11/1024 = 0.978515625 >= 0.95; j = 3: 1 - 2 * 56/1024 = 0.890625 < 0.95.
    let ci = median_ci(&ranked(10), 0.95).unwrap();
    assert_eq!((ci.lower, ci.upper), (20.0, 90.0));
    close(ci.level, 0.978515625, 1e-12);
}

#[test]
fn median_ci_tiny_n_falls_back_to_min_max() {
    // n = 5: best possible is [x(1), x(5)] with 1 - 2 / 2^5 = 0.9375 < 0.95.
    let ci = median_ci(&ranked(5), 0.95).unwrap();
    assert_eq!((ci.lower, ci.upper), (10.0, 50.0));
    close(ci.level, 0.9375, 1e-12);
    // Requesting exactly the attainable 0.9375 returns the same pair (no rounding miss).
    let ci = median_ci(&ranked(5), 0.9375).unwrap();
    assert_eq!((ci.lower, ci.upper), (10.0, 50.0));
    // n = 6: [min, max] is the answer AND reaches the level: 1 - 2/64 = 0.96875.
    let ci = median_ci(&ranked(6), 0.95).unwrap();
    assert_eq!((ci.lower, ci.upper), (10.0, 60.0));
    close(ci.level, 0.96875, 1e-12);
    // n = 1: a point; P(median == x) = 0, achieved level 0.
    let ci = median_ci(&[3.0], 0.95).unwrap();
    assert_eq!((ci.lower, ci.upper, ci.level), (3.0, 3.0, 0.0));
    // n = 2: [min, max], 1 - 2 * 1/4 = 0.5.
    let ci = median_ci(&[1.0, 2.0], 0.95).unwrap();
    assert_eq!((ci.lower, ci.upper), (1.0, 2.0));
    close(ci.level, 0.5, 1e-12);
}

#[test]
fn median_ci_matches_exact_tables() {
    // Expected ranks and levels from exact big-integer binomial sums (Python fractions);
    // n = 100 at 95% -> (40, 61) is the textbook sign-test table value.
    let cases: [(usize, f64, usize, usize, f64); 5] = [
        (20, 0.95, 6, 15, 0.9586105346679688),
        (100, 0.95, 40, 61, 0.9647997997822951),
        (100, 0.99, 37, 64, 0.9933628794840739),
        (1000, 0.95, 469, 532, 0.9537088026395019),
        (100_000, 0.95, 49_690, 50_311, 0.9504442853304751),
    ];
    for (n, level, lo, hi, achieved) in cases {
        let ci = median_ci(&ranked(n), level).unwrap();
        assert_eq!(
            (ci.lower, ci.upper),
            (10.0 * lo as f64, 10.0 * hi as f64),
            "n={n} level={level}"
        );
        close(ci.level, achieved, 1e-12);
        assert!(ci.level >= level);
    }
}

#[test]
fn median_ci_large_n_is_fast_and_near_normal_approximation() {
    // Normal approximation: j ≈ n/2 - z(0.975) * sqrt(n) / 2.
    // n = 100000 -> 49690.1, n = 1000000 -> 499020.0. The exact rank must be within ±2.
    // Cost is O(sqrt(n) log n) binomial terms, so this is instantaneous even in debug builds.
    let z = 1.959963984540054;
    for n in [100_000usize, 1_000_000] {
        let xs = one_to(n);
        let ci = median_ci(&xs, 0.95).unwrap();
        let approx = n as f64 / 2.0 - z * (n as f64).sqrt() / 2.0;
        let j = ci.lower;
        assert!((j - approx).abs() <= 2.0, "n={n}: j={j}, approx={approx}");
        // Symmetric pair (j, n + 1 - j).
        assert_eq!(ci.upper, (n + 1) as f64 - j);
        assert!(ci.level >= 0.95 && ci.level < 0.951, "level {}", ci.level);
    }
}

#[test]
fn median_ci_rejects_bad_input() {
    let xs = ranked(10);
    assert_eq!(median_ci(&[], 0.95), None);
    assert_eq!(median_ci(&xs, 0.0), None);
    assert_eq!(median_ci(&xs, 1.0), None);
    assert_eq!(median_ci(&xs, 1.5), None);
    assert_eq!(median_ci(&xs, f64::NAN), None);
    assert_eq!(median_ci(&[1.0, f64::NAN, 3.0], 0.95), None);
    assert_eq!(median_ci(&[2.0, 1.0, 3.0], 0.95), None);
}

// --- Tukey ----------------------------------------------------------------------------

/// 1..=20 plus planted outliers. Sorted: -40, -20, 1, ..., 20, 35, 40, 100 (n = 25).
/// Type-7 quartiles: Q1 = x[6] = 5, Q3 = x[18] = 17 (0-based), IQR = 12.
/// Fences: [5 - 36, 5 - 18, 17 + 18, 17 + 36] = [-31, -13, 35, 53].
/// -40 low severe, -20 low mild, 35 sits exactly on the mild fence (not beyond),
/// 40 high mild, 100 high severe.
fn planted() -> Vec<f64> {
    let mut xs = vec![-40.0, -20.0];
    xs.extend(one_to(20));
    xs.extend([35.0, 40.0, 100.0]);
    xs
}

#[test]
fn tukey_fences_known_values() {
    assert_eq!(tukey_fences(&planted()), Some([-31.0, -13.0, 35.0, 53.0]));
    assert_eq!(tukey_fences(&[]), None);
    assert_eq!(tukey_fences(&[2.0, 1.0]), None);
    assert_eq!(tukey_fences(&[1.0, f64::NAN]), None);
}

#[test]
fn tukey_counts_planted_outliers() {
    let out = tukey(&planted());
    assert_eq!(
        out,
        Outliers {
            low_severe: 1,
            low_mild: 1,
            high_mild: 1,
            high_severe: 1,
        }
    );
    assert_eq!(out.total(), 4);
}

#[test]
fn tukey_degenerate_inputs() {
    // No outliers in clean data.
    assert_eq!(tukey(&one_to(20)), Outliers::default());
    // Constant data: IQR 0, nothing is strictly beyond the fences.
    assert_eq!(tukey(&[5.0; 10]), Outliers::default());
    // Invalid input: zero counts rather than a panic.
    assert_eq!(tukey(&[]), Outliers::default());
    assert_eq!(tukey(&[3.0, 1.0, 2.0]), Outliers::default());
    assert_eq!(tukey(&[1.0, f64::NAN]), Outliers::default());
}

#[test]
fn outliers_total_sums_all_fields() {
    let o = Outliers {
        low_severe: 1,
        low_mild: 2,
        high_mild: 3,
        high_severe: 4,
    };
    assert_eq!(o.total(), 10);
    assert_eq!(Outliers::default().total(), 0);
}

// --- Student t ----------------------------------------------------------------------

#[test]
fn student_t_quantile_known_values() {
    // R: qt(0.975, 10) = 2.228138851986; qt(0.975, 48) = 2.010634757624;
    // qt(0.975, 1) = 12.706204736175; qt(0.995, 30) = 2.749995653567.
    close(student_t_quantile(0.975, 10.0), 2.228138851986, 1e-9);
    close(student_t_quantile(0.975, 48.0), 2.010634757624, 1e-9);
    close(student_t_quantile(0.975, 1.0), 12.706204736175, 1e-8);
    close(student_t_quantile(0.995, 30.0), 2.749995653567, 1e-9);
    // Symmetry and centre.
    close(student_t_quantile(0.025, 10.0), -2.228138851986, 1e-9);
    // Very many degrees of freedom: the normal quantile, 1.959963984540
    // (Python's statistics.NormalDist); statrs' own inversion gave 1.83 at
    // 10⁷. No step where the expansion takes over.
    close(student_t_quantile(0.975, 1e7), 1.959963984540, 1e-6);
    close(student_t_quantile(0.95, 1e9), 1.644853626951, 1e-8);
    close(
        student_t_quantile(0.975, 1e4),
        student_t_quantile(0.975, 1e4 + 1.0),
        1e-7,
    );
    close(student_t_quantile(0.5, 5.0), 0.0, 1e-12);
    // Edges and invalid input: no panic.
    assert_eq!(student_t_quantile(0.0, 5.0), f64::NEG_INFINITY);
    assert_eq!(student_t_quantile(1.0, 5.0), f64::INFINITY);
    assert!(student_t_quantile(1.5, 5.0).is_nan());
    assert!(student_t_quantile(-0.1, 5.0).is_nan());
    assert!(student_t_quantile(f64::NAN, 5.0).is_nan());
    assert!(student_t_quantile(0.975, 0.0).is_nan());
    assert!(student_t_quantile(0.975, f64::NAN).is_nan());
}

// --- linear fit ----------------------------------------------------------------------

#[test]
fn fit_line_exact_line() {
    // y = 3x + 7 exactly: slope 3, intercept 7, r² 1, zero-width CIs.
    let x: Vec<f64> = (0..=10).map(f64::from).collect();
    let y: Vec<f64> = x.iter().map(|x| 3.0 * x + 7.0).collect();
    let fit = fit_line(&x, &y, 0.95).unwrap();
    assert_eq!(fit.n, 11);
    close(fit.slope, 3.0, 1e-12);
    close(fit.intercept, 7.0, 1e-12);
    assert_eq!(fit.r_squared, 1.0);
    assert!(fit.slope_ci.width() < 1e-9);
    assert!(fit.intercept_ci.width() < 1e-9);
    assert!(fit.slope_ci.contains(fit.slope));
    assert_eq!(fit.slope_ci.level, 0.95);
    assert_eq!(fit.intercept_ci.level, 0.95);
}

#[test]
fn fit_line_exactly_degenerate_ci() {
    // Residuals exactly zero in f64: CI collapses to the point estimate.
    let fit = fit_line(&[0.0, 1.0, 2.0], &[1.0, 3.0, 5.0], 0.9).unwrap();
    assert_eq!(fit.slope, 2.0);
    assert_eq!(fit.intercept, 1.0);
    assert_eq!((fit.slope_ci.lower, fit.slope_ci.upper), (2.0, 2.0));
    assert_eq!((fit.intercept_ci.lower, fit.intercept_ci.upper), (1.0, 1.0));
    assert_eq!(fit.slope_ci.level, 0.9);
    // Constant y: horizontal exact fit, r² defined as 1.
    let fit = fit_line(&[1.0, 2.0, 3.0], &[4.0, 4.0, 4.0], 0.95).unwrap();
    assert_eq!((fit.slope, fit.intercept, fit.r_squared), (0.0, 4.0, 1.0));
}

#[test]
fn fit_line_noisy_hand_computed() {
    // x = 1..12, n = 12, df = 10, t(0.975, 10) = 2.228138851986.
    // Exact rational arithmetic: Sxx = 143, Sxy = 5699/20, Syy = 681707/1200,
    // slope = 5699/2860 = 1.9926573426573426, intercept = 37/660 = 0.05606060606060606,
    // SSE = 24149/85800, SE(slope) = 0.014029361729219338, SE(intercept) = 0.1032533065830641,
    // r² = 1 - SSE/Syy = 0.9995045551068886.
    let x = one_to(12);
    let y = [
        2.1, 3.9, 6.2, 7.8, 10.1, 12.2, 13.8, 16.1, 18.0, 19.9, 22.2, 23.8,
    ];
    let fit = fit_line(&x, &y, 0.95).unwrap();
    assert_eq!(fit.n, 12);
    close(fit.slope, 1.9926573426573426, 1e-12);
    close(fit.intercept, 0.05606060606060606, 1e-12);
    close(fit.r_squared, 0.9995045551068886, 1e-12);
    let t = 2.228138851986;
    close(
        fit.slope_ci.lower,
        1.9926573426573426 - t * 0.014029361729219338,
        1e-10,
    );
    close(
        fit.slope_ci.upper,
        1.9926573426573426 + t * 0.014029361729219338,
        1e-10,
    );
    close(
        fit.intercept_ci.lower,
        0.05606060606060606 - t * 0.1032533065830641,
        1e-10,
    );
    close(
        fit.intercept_ci.upper,
        0.05606060606060606 + t * 0.1032533065830641,
        1e-10,
    );
}

#[test]
fn fit_line_matches_r_cars() {
    // R: datasets::cars; lm(dist ~ speed):
    //   (Intercept) -17.579095 (SE 6.758440), speed 3.932409 (SE 0.415513), R² 0.6510794
    //   confint():  (Intercept) -31.167850 -3.990340; speed 3.096964 4.767853
    let speed = [
        4., 4., 7., 7., 8., 9., 10., 10., 10., 11., 11., 12., 12., 12., 12., 13., 13., 13., 13.,
        14., 14., 14., 14., 15., 15., 15., 16., 16., 17., 17., 17., 18., 18., 18., 18., 19., 19.,
        19., 20., 20., 20., 20., 20., 22., 23., 24., 24., 24., 24., 25.,
    ];
    let dist = [
        2., 10., 4., 22., 16., 10., 18., 26., 34., 17., 28., 14., 20., 24., 28., 26., 34., 34.,
        46., 26., 36., 60., 80., 20., 26., 54., 32., 40., 32., 40., 50., 42., 56., 76., 84., 36.,
        46., 68., 32., 48., 52., 56., 64., 66., 54., 70., 92., 93., 120., 85.,
    ];
    let fit = fit_line(&speed, &dist, 0.95).unwrap();
    assert_eq!(fit.n, 50);
    close(fit.slope, 3.932409, 1e-6);
    close(fit.intercept, -17.579095, 1e-6);
    close(fit.r_squared, 0.6510794, 1e-7);
    close(fit.slope_ci.lower, 3.096964, 1e-6);
    close(fit.slope_ci.upper, 4.767853, 1e-6);
    close(fit.intercept_ci.lower, -31.167850, 1e-6);
    close(fit.intercept_ci.upper, -3.990340, 1e-6);
}

#[test]
fn fit_line_rejects_bad_input() {
    let x = [1.0, 2.0, 3.0];
    assert!(fit_line(&x, &[1.0, 2.0], 0.95).is_none()); // length mismatch
    assert!(fit_line(&[1.0, 2.0], &[1.0, 2.0], 0.95).is_none()); // n < 3
    assert!(fit_line(&[], &[], 0.95).is_none());
    assert!(fit_line(&[2.0, 2.0, 2.0], &[1.0, 2.0, 3.0], 0.95).is_none()); // all x equal
    assert!(fit_line(&[1.0, f64::NAN, 3.0], &[1.0, 2.0, 3.0], 0.95).is_none());
    assert!(fit_line(&x, &[1.0, 2.0, f64::INFINITY], 0.95).is_none());
    assert!(fit_line(&x, &[1.0, 2.0, 4.0], 0.0).is_none());
    assert!(fit_line(&x, &[1.0, 2.0, 4.0], 1.0).is_none());
    assert!(fit_line(&x, &[1.0, 2.0, 4.0], f64::NAN).is_none());
}

// --- geomean ----------------------------------------------------------------------------

#[test]
fn geomean_known_values() {
    close(geomean(&[1.0, 10.0, 100.0]).unwrap(), 10.0, 1e-12);
    close(geomean(&[2.0, 8.0]).unwrap(), 4.0, 1e-12);
    close(geomean(&[5.0]).unwrap(), 5.0, 1e-12);
    // Log space: the product 1e600 would overflow, the geomean does not.
    close(geomean(&[1e300, 1e300]).unwrap() / 1e300, 1.0, 1e-12);
    assert_eq!(geomean(&[]), None);
    assert_eq!(geomean(&[1.0, 0.0]), None);
    assert_eq!(geomean(&[1.0, -2.0]), None);
    assert_eq!(geomean(&[1.0, f64::NAN]), None);
    assert_eq!(geomean(&[1.0, f64::INFINITY]), None);
}

// --- summarize ------------------------------------------------------------------------------

#[test]
fn summarize_one_to_hundred() {
    // 1..=100 in scrambled order.
    // numpy: percentiles 50 -> 50.5, 95 -> 95.05, 99 -> 99.01; mean 50.5;
    // sample sd of 1..n = sqrt(n (n + 1) / 12) = sqrt(841.666...) = 29.011491975882016;
    // MAD: |x - 50.5| = 0.5, 0.5, 1.5, 1.5, ..., 49.5, 49.5 -> median (24.5 + 25.5) / 2 = 25;
    // median CI: ranks (40, 61) at level 0.9647997997822951 (see median_ci_matches_exact_tables).
    let s = summarize(&scrambled_1_to_100()).unwrap();
    assert_eq!(s.n, 100);
    assert_eq!(s.min, 1.0);
    assert_eq!(s.max, 100.0);
    close(s.p50, 50.5, 1e-12);
    close(s.p95, 95.05, 1e-12);
    close(s.p99, 99.01, 1e-12);
    close(s.mean, 50.5, 1e-12);
    close(s.stddev, 29.011491975882016, 1e-12);
    assert_eq!(s.mad, 25.0);
    assert_eq!((s.median_ci.lower, s.median_ci.upper), (40.0, 61.0));
    close(s.median_ci.level, 0.9647997997822951, 1e-12);
    assert_eq!(s.outliers, Outliers::default());
}

#[test]
fn summary_serde_round_trip() {
    // Reports persist summaries as JSON. serde_json (without its `float_roundtrip`
    // feature) may parse a float back one ulp off, so floats are compared to 1e-15 relative.
    let s = summarize(&scrambled_1_to_100()).unwrap();
    let json = serde_json::to_string(&s).unwrap();
    let back: Summary = serde_json::from_str(&json).unwrap();
    assert_eq!(back.n, s.n);
    assert_eq!(back.outliers, s.outliers);
    let pairs = [
        (back.min, s.min),
        (back.p50, s.p50),
        (back.p95, s.p95),
        (back.p99, s.p99),
        (back.max, s.max),
        (back.mean, s.mean),
        (back.stddev, s.stddev),
        (back.mad, s.mad),
        (back.median_ci.lower, s.median_ci.lower),
        (back.median_ci.upper, s.median_ci.upper),
        (back.median_ci.level, s.median_ci.level),
    ];
    for (got, want) in pairs {
        close(got, want, 1e-15 * want.abs());
    }
    // Field names are part of the report format.
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    for key in [
        "n",
        "min",
        "p50",
        "p95",
        "p99",
        "max",
        "mean",
        "stddev",
        "mad",
        "median_ci",
        "outliers",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert!(v["median_ci"].get("level").is_some());
    assert!(v["outliers"].get("high_severe").is_some());
}

#[test]
fn summarize_counts_but_keeps_outliers() {
    let mut xs = planted();
    xs.reverse(); // any order
    let s = summarize(&xs).unwrap();
    assert_eq!(s.n, 25);
    assert_eq!(s.min, -40.0);
    assert_eq!(s.max, 100.0);
    assert_eq!(s.outliers.total(), 4);
    // Mean includes the outliers: (210 - 40 - 20 + 35 + 40 + 100) / 25 = 325 / 25 = 13.
    close(s.mean, 13.0, 1e-12);
}

#[test]
fn summarize_single_element() {
    let s = summarize(&[4.25]).unwrap();
    assert_eq!(s.n, 1);
    assert_eq!(
        (s.min, s.p50, s.p95, s.p99, s.max, s.mean),
        (4.25, 4.25, 4.25, 4.25, 4.25, 4.25)
    );
    assert_eq!((s.stddev, s.mad), (0.0, 0.0));
    assert_eq!(
        s.median_ci,
        Interval {
            lower: 4.25,
            upper: 4.25,
            level: 0.0
        }
    );
    assert_eq!(s.outliers, Outliers::default());
}

#[test]
fn summarize_rejects_empty_and_non_finite() {
    assert_eq!(summarize(&[]), None);
    assert_eq!(summarize(&[1.0, f64::NAN, 3.0]), None);
    assert_eq!(summarize(&[f64::NAN]), None);
    assert_eq!(summarize(&[1.0, f64::INFINITY]), None);
    assert_eq!(summarize(&[f64::NEG_INFINITY, 1.0]), None);
}

#[test]
fn interval_helpers() {
    let i = Interval {
        lower: 1.0,
        upper: 4.0,
        level: 0.95,
    };
    assert_eq!(i.width(), 3.0);
    assert!(i.contains(1.0) && i.contains(4.0) && i.contains(2.5));
    assert!(!i.contains(0.99) && !i.contains(4.01));
}

#[test]
fn theil_sen_is_exact_on_a_line_and_shrugs_off_wild_points() {
    let x = [100.0, 200.0, 300.0, 100.0, 200.0, 300.0];
    let y: Vec<f64> = x.iter().map(|v| 10.0 * v + 500.0).collect();
    let (slope, ci) = theil_sen(&x, &y, 0.95).unwrap();
    assert_eq!(slope, 10.0);
    assert_eq!((ci.lower, ci.upper), (10.0, 10.0));
    // Two interrupted samples (60x and 9x too long) of twelve: OLS turns
    // negative, Theil-Sen stays at the line.
    let x = [
        100.0, 200.0, 300.0, 100.0, 200.0, 300.0, 100.0, 200.0, 300.0, 100.0, 200.0, 300.0,
    ];
    let mut y: Vec<f64> = x.iter().map(|v| 10_000.0 * v + 2_000.0).collect();
    y[3] = 63_500_000.0;
    y[6] = 9_000_000.0;
    let ols = fit_line(&x, &y, 0.95).unwrap();
    assert!(ols.slope < 0.0, "{}", ols.slope);
    let (slope, ci) = theil_sen(&x, &y, 0.95).unwrap();
    assert!((slope - 10_000.0).abs() < 1e-6, "{slope}");
    assert!(ci.lower <= slope && slope <= ci.upper);
}

/// Selection gives what sorting every slope gave: the same median (type 7)
/// and the same ranks for Sen's interval, on noisy data with ties in x.
#[test]
fn theil_sen_by_selection_is_theil_sen_by_sorting() {
    let mut rng = crate::SplitMix64(0x7e11);
    for n in [3usize, 4, 7, 40, 201] {
        let x: Vec<f64> = (0..n).map(|i| (1 + i % 9) as f64 * 100.0).collect();
        let y: Vec<f64> = x.iter().map(|&x| 3.0 * x + 50.0 * rng.normal()).collect();
        let (slope, ci) = theil_sen(&x, &y, 0.95).unwrap();
        let mut slopes = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                if x[i] != x[j] {
                    slopes.push((y[j] - y[i]) / (x[j] - x[i]));
                }
            }
        }
        slopes.sort_by(f64::total_cmp);
        assert_eq!(slope, percentile(&slopes, 50.0).unwrap(), "n = {n}");
        assert!(
            slopes.contains(&ci.lower) && slopes.contains(&ci.upper),
            "n = {n}"
        );
        assert!(ci.lower <= slope && slope <= ci.upper);
    }
}

#[test]
fn theil_sen_known_answer_and_refusals() {
    // Pairwise slopes of (1,1) (2,2) (3,3) (4,4) (5,100): 1 six times, then
    // 99, 48.5, 32.33, 24.75: the median of the ten is 1.
    let (slope, ci) = theil_sen(
        &[1.0, 2.0, 3.0, 4.0, 5.0],
        &[1.0, 2.0, 3.0, 4.0, 100.0],
        0.95,
    )
    .unwrap();
    assert_eq!(slope, 1.0);
    assert!(ci.lower <= 1.0 && ci.upper >= 1.0);
    assert!(
        theil_sen(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0], 0.95).is_none(),
        "all x equal"
    );
    assert!(
        theil_sen(&[1.0, 2.0], &[1.0, 2.0], 0.95).is_none(),
        "two points"
    );
    assert!(theil_sen(&[1.0, 2.0, 3.0], &[1.0, f64::NAN, 3.0], 0.95).is_none());
}
