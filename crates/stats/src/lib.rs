//! Statistics for dyno: the only place in the workspace that computes them.
//!
//! Every function here is a pure function over `f64` slices. They never panic
//! on user data: empty input, non-finite input (NaN or ±∞), mismatched lengths
//! or a result that would overflow `f64` all yield `None` (or, for the two
//! functions that cannot return `Option`, a documented neutral value).
//!
//! # Conventions
//!
//! These are the definitions `docs/methodology.md` cites.
//!
//! * **Percentiles** ([`percentile`], [`median`], the quartiles used by
//!   [`tukey`]) use linear interpolation between closest ranks:
//!   Hyndman & Fan (1996) *type 7*, the default of numpy `percentile`/`quantile`
//!   and of R `quantile`. With `n` sorted values and `p` in `[0, 100]`,
//!   `h = (n - 1) * p / 100` and the result is
//!   `x[floor(h)] + (h - floor(h)) * (x[floor(h) + 1] - x[floor(h)])`
//!   (0-based indexing).
//! * **Standard deviation** ([`stddev`]) is the sample standard deviation with
//!   Bessel's correction (divisor `n - 1`); it is defined as `0` for `n == 1`.
//! * **MAD** ([`mad`]) is the *raw* median absolute deviation,
//!   `median(|x_i - median(x)|)`. It is **not** multiplied by 1.4826 (the
//!   factor that makes it a consistent estimator of σ under normality); do
//!   that yourself if you want a σ estimate.
//! * **Median confidence interval** ([`median_ci`]) is the distribution-free
//!   order-statistic (binomial / sign-test) interval: the narrowest symmetric
//!   rank pair `(j, n + 1 - j)` whose exact coverage
//!   `1 - 2·P(B < j)`, `B ~ Binomial(n, 1/2)`, is at least the requested
//!   level. Because ranks are discrete the *achieved* level is reported and is
//!   usually above the request; for tiny `n` (`n <= 5` at 95 %) no rank pair
//!   reaches it and `[min, max]` is returned with its (lower) achieved level.
//!   The binomial CDF is computed to near machine precision for every `n`
//!   (Loader's saddle-point pmf, as in R's `dbinom`, summed over the tail);
//!   no normal approximation is used, even for `n = 10^6`.
//! * **Outliers** ([`tukey`], [`tukey_fences`]) use Tukey's fences on type-7
//!   quartiles: *mild* beyond `1.5·IQR` from the nearer quartile, *severe*
//!   beyond `3·IQR` ("beyond" is strict). Outliers are only counted, never
//!   removed from any statistic.
//! * **Linear fits** ([`fit_line`]) are ordinary least squares with Student-t
//!   confidence intervals on slope and intercept, `df = n - 2`.
//! * **Geometric mean** ([`geomean`]) is `exp(mean(ln x))`, defined only for
//!   strictly positive values.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// Confidence level requested for [`Summary::median_ci`].
pub const SUMMARY_CI_LEVEL: f64 = 0.95;

/// A confidence interval `[lower, upper]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Lower bound (inclusive).
    pub lower: f64,
    /// Upper bound (inclusive).
    pub upper: f64,
    /// Achieved confidence level, e.g. 0.95 (may be below the requested level for tiny n).
    pub level: f64,
}

impl Interval {
    /// `upper - lower`.
    pub fn width(&self) -> f64 {
        self.upper - self.lower
    }

    /// Whether `x` lies inside the closed interval.
    pub fn contains(&self, x: f64) -> bool {
        self.lower <= x && x <= self.upper
    }
}

/// Counts of Tukey-fence outliers. See [`tukey`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Outliers {
    /// Below `Q1 - 3·IQR`.
    pub low_severe: usize,
    /// In `[Q1 - 3·IQR, Q1 - 1.5·IQR)`.
    pub low_mild: usize,
    /// In `(Q3 + 1.5·IQR, Q3 + 3·IQR]`.
    pub high_mild: usize,
    /// Above `Q3 + 3·IQR`.
    pub high_severe: usize,
}

impl Outliers {
    /// Total number of outliers, mild and severe, on both sides.
    pub fn total(&self) -> usize {
        self.low_severe + self.low_mild + self.high_mild + self.high_severe
    }
}

/// Descriptive statistics of one sample. Built by [`summarize`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of observations.
    pub n: usize,
    /// Smallest observation.
    pub min: f64,
    /// Median (type-7 50th percentile).
    pub p50: f64,
    /// Type-7 95th percentile.
    pub p95: f64,
    /// Type-7 99th percentile.
    pub p99: f64,
    /// Largest observation.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (divisor n-1); 0 for n == 1.
    pub stddev: f64,
    /// Raw median absolute deviation, **not** scaled by 1.4826.
    pub mad: f64,
    /// Distribution-free CI of the median, [`SUMMARY_CI_LEVEL`] (95 %) requested.
    pub median_ci: Interval,
    /// Tukey-fence outlier counts; outliers are counted, never removed.
    pub outliers: Outliers,
}

/// A statistic a target can limit: typed from the spec that names it to
/// the verdict, written by its name (`p50`, `p95`, `p99`, `max`, `mean`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stat {
    /// Median.
    P50,
    /// 95th percentile.
    P95,
    /// 99th percentile.
    P99,
    /// Largest sample.
    Max,
    /// Arithmetic mean.
    Mean,
}

impl Stat {
    /// Every statistic, in the order specs list them.
    pub const ALL: [Stat; 5] = [Stat::P50, Stat::P95, Stat::P99, Stat::Max, Stat::Mean];

    /// The name used in specs and results.
    pub fn name(self) -> &'static str {
        match self {
            Stat::P50 => "p50",
            Stat::P95 => "p95",
            Stat::P99 => "p99",
            Stat::Max => "max",
            Stat::Mean => "mean",
        }
    }

    /// The statistic of this name, if there is one.
    pub fn from_name(name: &str) -> Option<Stat> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Its value in a summary.
    pub fn of(self, s: &Summary) -> f64 {
        match self {
            Stat::P50 => s.p50,
            Stat::P95 => s.p95,
            Stat::P99 => s.p99,
            Stat::Max => s.max,
            Stat::Mean => s.mean,
        }
    }
}

impl std::fmt::Display for Stat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// All descriptive statistics of `xs` in one pass over a sorted copy.
///
/// `xs` may be in any order. `None` if `xs` is empty, contains a non-finite
/// value, or a moment overflows `f64`.
pub fn summarize(xs: &[f64]) -> Option<Summary> {
    let sorted = sorted_copy(xs)?;
    let n = sorted.len();
    let p50 = percentile(&sorted, 50.0)?;
    Some(Summary {
        n,
        min: sorted[0],
        p50,
        p95: percentile(&sorted, 95.0)?,
        p99: percentile(&sorted, 99.0)?,
        max: sorted[n - 1],
        mean: mean(&sorted)?,
        stddev: stddev(&sorted)?,
        mad: mad_about(&sorted, p50)?,
        median_ci: median_ci(&sorted, SUMMARY_CI_LEVEL)?,
        outliers: tukey(&sorted),
    })
}

/// The `p`-th percentile (`p` in `[0, 100]`) of ascending-sorted data.
///
/// Linear interpolation between closest ranks (Hyndman-Fan type 7, the numpy
/// and R default), so `p = 0` is the minimum and `p = 100` the maximum.
/// `None` if `sorted` is empty, not sorted ascending, contains a non-finite
/// value, or `p` is outside `[0, 100]` / NaN.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if !is_valid_sorted(sorted) || !(0.0..=100.0).contains(&p) {
        return None;
    }
    Some(percentile_unchecked(sorted, p))
}

/// Median of `xs` (any order): the type-7 50th percentile, i.e. the mean of
/// the two middle values for even `n`. `None` if empty or non-finite.
pub fn median(xs: &[f64]) -> Option<f64> {
    let sorted = sorted_copy(xs)?;
    Some(percentile_unchecked(&sorted, 50.0))
}

/// Raw median absolute deviation `median(|x_i - median(x)|)` of `xs` (any order).
///
/// Deliberately **not** scaled by 1.4826: it is reported as a robust spread in
/// the data's own units, not as an estimate of a normal σ. `None` if empty or
/// non-finite.
pub fn mad(xs: &[f64]) -> Option<f64> {
    let sorted = sorted_copy(xs)?;
    let med = percentile_unchecked(&sorted, 50.0);
    mad_about(&sorted, med)
}

/// Distribution-free confidence interval for the median of ascending-sorted data.
///
/// Uses order statistics: for `B ~ Binomial(n, 1/2)`,
/// `P(X_(j) <= median <= X_(n+1-j)) = 1 - 2·P(B < j)`. The narrowest symmetric
/// rank pair (largest `j`) whose coverage is `>= level` is chosen and its exact
/// coverage returned as [`Interval::level`]. If even `j = 1` cannot reach
/// `level` (for 95 %: `n <= 5`) the result is `[min, max]` with the lower
/// level it actually achieves (`1 - 2^(1-n)`).
///
/// The binomial CDF is computed to ~1e-13 relative error (no normal
/// approximation); ranks are found by binary
/// search, so the cost is `O(sqrt(n) · log n)` — `n = 10^6` takes well under
/// a millisecond in release builds.
///
/// `None` if `sorted` is empty, unsorted, non-finite, or `level` is not in `(0, 1)`.
pub fn median_ci(sorted: &[f64], level: f64) -> Option<Interval> {
    if !is_valid_sorted(sorted) || !valid_level(level) {
        return None;
    }
    let n = sorted.len();
    let (j, achieved) = median_ci_rank(n as u64, level);
    let j = usize::try_from(j).ok()?;
    Some(Interval {
        lower: sorted[j - 1],
        upper: sorted[n - j],
        level: achieved,
    })
}

/// Tukey-fence outlier counts for ascending-sorted data.
///
/// Fences come from [`tukey_fences`]; a value is an outlier if it lies strictly
/// beyond a fence. Returns all-zero counts when fences cannot be computed
/// (empty, unsorted or non-finite input).
pub fn tukey(sorted: &[f64]) -> Outliers {
    let Some([low_severe, low_mild, high_mild, high_severe]) = tukey_fences(sorted) else {
        return Outliers::default();
    };
    let mut out = Outliers::default();
    for &x in sorted {
        if x < low_severe {
            out.low_severe += 1;
        } else if x < low_mild {
            out.low_mild += 1;
        } else if x > high_severe {
            out.high_severe += 1;
        } else if x > high_mild {
            out.high_mild += 1;
        }
    }
    out
}

/// Tukey's fences `[Q1 - 3·IQR, Q1 - 1.5·IQR, Q3 + 1.5·IQR, Q3 + 3·IQR]`
/// (`[low_severe, low_mild, high_mild, high_severe]`) for ascending-sorted
/// data, with type-7 quartiles. `None` if empty, unsorted or non-finite.
pub fn tukey_fences(sorted: &[f64]) -> Option<[f64; 4]> {
    if !is_valid_sorted(sorted) {
        return None;
    }
    let q1 = percentile_unchecked(sorted, 25.0);
    let q3 = percentile_unchecked(sorted, 75.0);
    let iqr = q3 - q1;
    let fences = [
        q1 - 3.0 * iqr,
        q1 - 1.5 * iqr,
        q3 + 1.5 * iqr,
        q3 + 3.0 * iqr,
    ];
    fences.iter().all(|f| f.is_finite()).then_some(fences)
}

/// Arithmetic mean. `None` if empty, non-finite, or the sum overflows.
pub fn mean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() || !all_finite(xs) {
        return None;
    }
    finite(mean_unchecked(xs))
}

/// Sample standard deviation (divisor `n - 1`, Bessel's correction), computed
/// in two passes around the mean for accuracy; `0` for a single value.
/// `None` if empty, non-finite, or it overflows.
pub fn stddev(xs: &[f64]) -> Option<f64> {
    let m = mean(xs)?;
    if xs.len() == 1 {
        return Some(0.0);
    }
    let ss: f64 = xs.iter().map(|&x| (x - m) * (x - m)).sum();
    finite((ss / (xs.len() - 1) as f64).sqrt())
}

/// Result of [`fit_line`]: `y = intercept + slope · x`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinearFit {
    /// Estimated slope.
    pub slope: f64,
    /// Estimated intercept (value at `x = 0`).
    pub intercept: f64,
    /// Student-t confidence interval of the slope.
    pub slope_ci: Interval,
    /// Student-t confidence interval of the intercept.
    pub intercept_ci: Interval,
    /// Coefficient of determination; `1` when the fit is exact (including constant `y`).
    pub r_squared: f64,
    /// Number of points.
    pub n: usize,
}

/// Ordinary least squares fit of `y = intercept + slope · x`.
///
/// Confidence intervals are `estimate ± t(1 - (1 - level)/2, n - 2) · SE`
/// with the classical standard errors
/// `SE(slope) = s / sqrt(Sxx)`, `SE(intercept) = s · sqrt(1/n + x̄²/Sxx)`,
/// `s² = SSE / (n - 2)`. If every residual is zero the intervals degenerate
/// to a point (the requested level is still reported). Sums are taken around
/// the means for numerical stability.
///
/// `None` if lengths differ, `n < 3`, any value is non-finite, all `x` are
/// equal, `level` is not in `(0, 1)`, or the computation overflows.
pub fn fit_line(x: &[f64], y: &[f64], level: f64) -> Option<LinearFit> {
    let n = x.len();
    if n != y.len() || n < 3 || !all_finite(x) || !all_finite(y) || !valid_level(level) {
        return None;
    }
    let mx = finite(mean_unchecked(x))?;
    let my = finite(mean_unchecked(y))?;
    let (mut sxx, mut sxy, mut syy) = (0.0, 0.0, 0.0);
    for (&xi, &yi) in x.iter().zip(y) {
        let (dx, dy) = (xi - mx, yi - my);
        sxx += dx * dx;
        sxy += dx * dy;
        syy += dy * dy;
    }
    if sxx <= 0.0 || !sxx.is_finite() || !sxy.is_finite() || !syy.is_finite() {
        return None;
    }
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let sse: f64 = x
        .iter()
        .zip(y)
        .map(|(&xi, &yi)| {
            let r = yi - (intercept + slope * xi);
            r * r
        })
        .sum();
    let df = (n - 2) as f64;
    let s2 = sse / df;
    let se_slope = (s2 / sxx).sqrt();
    let se_intercept = (s2 * (1.0 / n as f64 + mx * mx / sxx)).sqrt();
    let t = student_t_quantile(1.0 - (1.0 - level) / 2.0, df);
    let r_squared = if syy == 0.0 || sse == 0.0 {
        1.0
    } else {
        (1.0 - sse / syy).clamp(0.0, 1.0)
    };
    let ci = |est: f64, se: f64| Interval {
        lower: est - t * se,
        upper: est + t * se,
        level,
    };
    let fit = LinearFit {
        slope,
        intercept,
        slope_ci: ci(slope, se_slope),
        intercept_ci: ci(intercept, se_intercept),
        r_squared,
        n,
    };
    let values = [
        fit.slope,
        fit.intercept,
        fit.slope_ci.lower,
        fit.slope_ci.upper,
        fit.intercept_ci.lower,
        fit.intercept_ci.upper,
    ];
    values.iter().all(|v| v.is_finite()).then_some(fit)
}

/// The Theil-Sen slope of `y` against `x`: the median of the slopes of
/// every pair of points with different `x`, with Sen's distribution-free
/// confidence interval (order statistics of the pairwise slopes, from the
/// normal approximation to Kendall's S with the variance corrected for ties
/// in `x`). Up to 29% of the points can be arbitrarily wrong without moving
/// it far, where one wild point can flip an OLS slope's sign: a sampling run
/// that the scheduler interrupts still gets a sensible slope.
///
/// `None` if lengths differ, fewer than 3 points, a value is not finite,
/// all `x` are equal, or `level` is not in `(0, 1)`.
pub fn theil_sen(x: &[f64], y: &[f64], level: f64) -> Option<(f64, Interval)> {
    let n = x.len();
    if n != y.len() || n < 3 || !all_finite(x) || !all_finite(y) || !valid_level(level) {
        return None;
    }
    let mut slopes = Vec::with_capacity(n * (n - 1) / 2);
    for i in 0..n {
        for j in i + 1..n {
            if x[i] != x[j] {
                slopes.push((y[j] - y[i]) / (x[j] - x[i]));
            }
        }
    }
    if slopes.is_empty() || !all_finite(&slopes) {
        return None;
    }
    // Order statistics by selection, not a sort: there are n(n-1)/2
    // slopes (a state benchmark's 2 000 samples make two million). One
    // selection splits them at the median; the interval's ranks are then
    // selected within the half each lies in.
    let m_len = slopes.len();
    let h = (m_len - 1) as f64 * 0.5;
    let mid = h.floor() as usize;
    let frac = h - mid as f64;
    let (left, a, right) = slopes.select_nth_unstable_by(mid, f64::total_cmp);
    let a = *a;
    let next = || right.iter().copied().min_by(f64::total_cmp);
    // The type-7 median, as `percentile` gives it on the sorted slopes.
    let slope = match next() {
        Some(b) if frac > 0.0 => a + frac * (b - a),
        _ => a,
    };
    // Var(S) = [n(n-1)(2n+5) - sum over tie groups t(t-1)(2t+5)] / 18.
    let mut xs = x.to_vec();
    xs.sort_by(f64::total_cmp);
    let tie = |t: f64| t * (t - 1.0) * (2.0 * t + 5.0);
    let mut ties = 0.0;
    let mut run = 1.0;
    for k in 1..=n {
        if k < n && xs[k] == xs[k - 1] {
            run += 1.0;
        } else {
            ties += tie(run);
            run = 1.0;
        }
    }
    let nf = n as f64;
    let var = ((nf * (nf - 1.0) * (2.0 * nf + 5.0)) - ties) / 18.0;
    let z = Normal::new(0.0, 1.0)
        .ok()?
        .inverse_cdf(1.0 - (1.0 - level) / 2.0);
    let c = z * var.max(0.0).sqrt();
    let m = m_len as f64;
    // 1-based ranks (M - C) / 2 and (M + C) / 2 + 1, rounded outward.
    let lo = (((m - c) / 2.0).floor().max(1.0) as usize).min(m_len);
    let hi = (((m + c) / 2.0 + 1.0).ceil() as usize).clamp(1, m_len);
    // 0-based ranks lo - 1 <= mid <= hi - 1 (C >= 0).
    let lower = if lo - 1 < mid {
        *left.select_nth_unstable_by(lo - 1, f64::total_cmp).1
    } else {
        a
    };
    let upper = if hi - 1 > mid {
        *right
            .select_nth_unstable_by(hi - 1 - mid - 1, f64::total_cmp)
            .1
    } else {
        a
    };
    Some((
        slope,
        Interval {
            lower: lower.min(slope),
            upper: upper.max(slope),
            level,
        },
    ))
}

/// Quantile (inverse CDF) of Student's t distribution with `df` degrees of
/// freedom at probability `p`, via `statrs`' `StudentsT::inverse_cdf`.
///
/// E.g. `student_t_quantile(0.975, 10.0) ≈ 2.228138851986`. Returns `-∞` for
/// `p == 0`, `+∞` for `p == 1`, and NaN for `p` outside `[0, 1]` or
/// `df <= 0` / NaN (it never panics).
pub fn student_t_quantile(p: f64, df: f64) -> f64 {
    if !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    let Ok(dist) = StudentsT::new(0.0, 1.0, df) else {
        return f64::NAN;
    };
    if p == 0.0 {
        f64::NEG_INFINITY
    } else if p == 1.0 {
        f64::INFINITY
    } else if df > LARGE_DF {
        // statrs' inversion loses accuracy with very many degrees of
        // freedom (1.83 for p = 0.975 at 10⁷, where the answer is 1.96):
        // there the Cornish-Fisher expansion about the normal quantile,
        // z + (z³ + z) / (4 df), is exact to far below f64's use here.
        let z = Normal::standard().inverse_cdf(p);
        z + (z.powi(3) + z) / (4.0 * df)
    } else {
        dist.inverse_cdf(p)
    }
}

/// Beyond this many degrees of freedom [`student_t_quantile`] expands
/// about the normal quantile.
const LARGE_DF: f64 = 1e4;

/// Geometric mean `exp(mean(ln x))`, computed in log space so large products
/// cannot overflow. The natural average of ratios (e.g. speedups).
/// `None` if empty or any value is not strictly positive and finite.
pub fn geomean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() || !xs.iter().all(|&x| x.is_finite() && x > 0.0) {
        return None;
    }
    let mean_ln = xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64;
    finite(mean_ln.exp())
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// A confidence level strictly between 0 and 1 (false for NaN).
fn valid_level(level: f64) -> bool {
    level > 0.0 && level < 1.0
}

fn all_finite(xs: &[f64]) -> bool {
    xs.iter().all(|x| x.is_finite())
}

fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

/// Non-empty, all finite, ascending.
fn is_valid_sorted(xs: &[f64]) -> bool {
    !xs.is_empty() && all_finite(xs) && xs.windows(2).all(|w| w[0] <= w[1])
}

/// Sorted copy of non-empty, all-finite data.
fn sorted_copy(xs: &[f64]) -> Option<Vec<f64>> {
    if xs.is_empty() || !all_finite(xs) {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_unstable_by(f64::total_cmp);
    Some(v)
}

fn mean_unchecked(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Type-7 percentile; caller guarantees valid sorted input and `p` in `[0, 100]`.
fn percentile_unchecked(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    let h = (n - 1) as f64 * (p / 100.0);
    // h is in [0, n-1]; the min() guards against rounding above n-1.
    let lo = (h.floor() as usize).min(n - 1);
    let frac = h - lo as f64;
    if lo + 1 >= n || frac <= 0.0 {
        return sorted[lo];
    }
    let (a, b) = (sorted[lo], sorted[lo + 1]);
    let d = b - a;
    if d.is_finite() {
        a + frac * d
    } else {
        // b - a overflowed (values near ±f64::MAX with opposite signs).
        a * (1.0 - frac) + b * frac
    }
}

/// MAD around a known median of valid sorted data.
fn mad_about(sorted: &[f64], med: f64) -> Option<f64> {
    let mut dev: Vec<f64> = sorted.iter().map(|&x| (x - med).abs()).collect();
    if !all_finite(&dev) {
        return None;
    }
    dev.sort_unstable_by(f64::total_cmp);
    Some(percentile_unchecked(&dev, 50.0))
}

/// Slack when comparing a computed coverage with the requested level, so that
/// a level equal to an exactly attainable coverage (e.g. 0.9375 for n = 5) is
/// not missed by a rounding error of a few ulps.
const LEVEL_EPS: f64 = 1e-12;

/// `ln(n!) - ln(sqrt(2πn) (n/e)^n)` for `n = 1..=15`, from 50-digit arithmetic
/// (these equal R's `sferr_halves` at integer arguments).
const STIRLERR_SMALL: [f64; 16] = [
    0.0,
    0.08106146679532726,
    0.0413406959554093,
    0.02767792568499834,
    0.020790672103765093,
    0.016644691189821193,
    0.013876128823070748,
    0.01189670994589177,
    0.010411265261972096,
    0.009255462182712733,
    0.00833056343336287,
    0.007573675487951841,
    0.00694284010720953,
    0.006408994188004207,
    0.0059513701127588475,
    0.005554733551962801,
];

/// Stirling-series error `ln(n!) - ln(sqrt(2πn) (n/e)^n)` (Loader 2000; R's `stirlerr`).
fn stirlerr(n: u64) -> f64 {
    const S0: f64 = 1.0 / 12.0;
    const S1: f64 = 1.0 / 360.0;
    const S2: f64 = 1.0 / 1260.0;
    const S3: f64 = 1.0 / 1680.0;
    const S4: f64 = 1.0 / 1188.0;
    if let Some(&v) = STIRLERR_SMALL.get(n as usize) {
        return v;
    }
    let x = n as f64;
    let nn = x * x;
    if n > 500 {
        (S0 - S1 / nn) / x
    } else if n > 80 {
        (S0 - (S1 - S2 / nn) / nn) / x
    } else if n > 35 {
        (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / x
    } else {
        (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / x
    }
}

/// Deviance term `x ln(x/np) + np - x`, summed as a series when `x ≈ np` to
/// avoid cancellation (Loader 2000; R's `bd0`).
fn bd0(x: f64, np: f64) -> f64 {
    if (x - np).abs() < 0.1 * (x + np) {
        let mut v = (x - np) / (x + np);
        let mut s = (x - np) * v;
        if s.abs() < f64::MIN_POSITIVE {
            return s;
        }
        let mut ej = 2.0 * x * v;
        v *= v;
        for j in 1..1000 {
            ej *= v;
            let s1 = s + ej / f64::from(2 * j + 1);
            if s1 == s {
                return s1;
            }
            s = s1;
        }
    }
    x * (x / np).ln() + np - x
}

/// `P(B = k)` for `B ~ Binomial(n, 1/2)` with relative error ~1e-15 for any `n`,
/// by Loader's saddle-point expansion (the algorithm behind R's `dbinom`). A
/// naive `ln C(n,k)` via log-gamma loses ~1e-10 relative at `n = 10^5`.
fn binom_half_pmf(n: u64, k: u64) -> f64 {
    if k > n {
        return 0.0;
    }
    if k == 0 || k == n {
        return (-(n as f64) * std::f64::consts::LN_2).exp();
    }
    let (x, nf) = (k as f64, n as f64);
    let np = nf / 2.0;
    let lc = stirlerr(n) - stirlerr(k) - stirlerr(n - k) - bd0(x, np) - bd0(nf - x, np);
    let lf = (2.0 * std::f64::consts::PI).ln() + x.ln() + (-x / nf).ln_1p();
    (lc - 0.5 * lf).exp()
}

/// `P(B <= k)` for `B ~ Binomial(n, 1/2)`, to ~1e-13 relative error for any `n`.
///
/// Sums pmf terms downward from `k` in ratio form (`pmf(i-1)/pmf(i) = i/(n-i+1)`),
/// starting from [`binom_half_pmf`]; the lower tail is used directly and the
/// upper via symmetry, so terms always decrease and the loop stops once they
/// are negligible (`O(sqrt(n))` terms at worst).
fn binom_half_cdf(n: u64, k: u64) -> f64 {
    if k >= n {
        return 1.0;
    }
    if 2 * k >= n {
        // P(B <= k) = 1 - P(B >= k+1) = 1 - P(B <= n-k-1) by symmetry, n-k-1 < n/2.
        return 1.0 - binom_half_cdf(n, n - k - 1);
    }
    let mut term = binom_half_pmf(n, k);
    if term == 0.0 {
        return 0.0;
    }
    let mut sum = 0.0;
    let mut i = k;
    loop {
        sum += term;
        if i == 0 {
            break;
        }
        term *= i as f64 / (n - i + 1) as f64;
        i -= 1;
        if term <= sum * 1e-18 {
            break;
        }
    }
    sum.min(1.0)
}

/// Coverage `1 - 2·P(B < j)` of the rank pair `(j, n+1-j)`.
fn rank_coverage(n: u64, j: u64) -> f64 {
    (1.0 - 2.0 * binom_half_cdf(n, j - 1)).max(0.0)
}

/// Largest `j` in `[1, (n+1)/2]` with coverage `>= level`, and its coverage;
/// `(1, coverage(1))` if none reaches it. Coverage decreases in `j`, so binary search.
fn median_ci_rank(n: u64, level: f64) -> (u64, f64) {
    let ok = |j: u64| rank_coverage(n, j) >= level - LEVEL_EPS;
    if !ok(1) {
        return (1, rank_coverage(n, 1));
    }
    // Invariant: ok(lo), !ok(hi) (hi may be one past the last valid j).
    let (mut lo, mut hi) = (1, n.div_ceil(2) + 1);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo, rank_coverage(n, lo))
}

pub mod nnls;
pub mod paired;
pub mod twosample;
pub use twosample::{MannWhitney, SplitMix64, holm, mann_whitney, min_attainable_p, ratio_ci};

#[cfg(test)]
mod tests;
