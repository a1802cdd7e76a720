//! Two-sample comparisons: is B different from A, and by how much?
//!
//! * [`mann_whitney`]: the Mann-Whitney U (Wilcoxon rank-sum) test, two-sided.
//!   Distribution-free: it asks whether a value drawn from one sample tends
//!   to be larger than one drawn from the other, and assumes nothing about
//!   the shape of timing distributions (which are skewed and often
//!   multi-modal). The p-value is exact (the permutation distribution of U,
//!   counted by recursion) when both samples hold at most
//!   [`EXACT_MAX`] values and there are no ties, and otherwise from the
//!   normal approximation with the tie correction of the variance and a
//!   continuity correction of 0.5.
//! * [`holm`]: Holm's step-down adjustment of p-values for comparing many
//!   benchmarks at once. It controls the family-wise error rate (the chance
//!   of *any* false alarm) like Bonferroni, and is never less powerful.
//! * [`ratio_ci`]: a percentile bootstrap confidence interval of the ratio
//!   of medians `median(B) / median(A)`. The resampling generator is seeded,
//!   so the interval is a pure function of its inputs.
//! * [`min_attainable_p`]: the smallest p-value samples of these sizes could
//!   ever give, to tell "no change" apart from "too few samples to say".

use crate::{Interval, percentile_unchecked, sorted_copy, valid_level};

/// Both samples at most this large (and no ties): the exact distribution.
pub const EXACT_MAX: usize = 30;

/// The outcome of a two-sided Mann-Whitney U test of B against A.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MannWhitney {
    /// U of sample B: the number of (a, b) pairs with b > a, ties counting
    /// one half. `U / (n_a · n_b)` estimates P(B > A).
    pub u: f64,
    /// Two-sided p-value.
    pub p: f64,
    /// True if `p` is exact rather than from the normal approximation.
    pub exact: bool,
}

impl MannWhitney {
    /// The common-language effect size P(B > A) + ½P(B = A), in [0, 1].
    pub fn prob_b_greater(&self, n_a: usize, n_b: usize) -> f64 {
        self.u / (n_a as f64 * n_b as f64)
    }
}

/// Two-sided Mann-Whitney U test of `b` against `a`.
///
/// `None` if either sample is empty or holds a non-finite value.
pub fn mann_whitney(a: &[f64], b: &[f64]) -> Option<MannWhitney> {
    let (na, nb) = (a.len(), b.len());
    if na == 0 || nb == 0 {
        return None;
    }
    sorted_copy(a)?;
    sorted_copy(b)?;
    // Rank the pooled sample (average ranks for ties).
    let mut pooled: Vec<(f64, bool)> = a
        .iter()
        .map(|&x| (x, false))
        .chain(b.iter().map(|&x| (x, true)))
        .collect();
    pooled.sort_unstable_by(|x, y| x.0.total_cmp(&y.0));
    let n = pooled.len();
    let mut rank_sum_b = 0.0;
    let mut tie_term = 0.0; // Σ (t³ - t) over tie groups
    let mut i = 0;
    while i < n {
        let mut j = i + 1;
        while j < n && pooled[j].0 == pooled[i].0 {
            j += 1;
        }
        let t = (j - i) as f64;
        let avg_rank = (i + j + 1) as f64 / 2.0; // ranks are 1-based: i+1 ..= j
        for item in &pooled[i..j] {
            if item.1 {
                rank_sum_b += avg_rank;
            }
        }
        tie_term += t * t * t - t;
        i = j;
    }
    let (naf, nbf) = (na as f64, nb as f64);
    let u = rank_sum_b - nbf * (nbf + 1.0) / 2.0;
    let mean_u = naf * nbf / 2.0;

    if na <= EXACT_MAX && nb <= EXACT_MAX && tie_term == 0.0 {
        // U is an integer without ties.
        let p = exact_two_sided(na, nb, u.round() as usize);
        return Some(MannWhitney { u, p, exact: true });
    }
    let nf = naf + nbf;
    let var = naf * nbf / 12.0 * ((nf + 1.0) - tie_term / (nf * (nf - 1.0)));
    if var <= 0.0 {
        // Every value identical: no evidence of any difference.
        return Some(MannWhitney {
            u,
            p: 1.0,
            exact: false,
        });
    }
    let z = ((u - mean_u).abs() - 0.5).max(0.0) / var.sqrt();
    let p = (2.0 * normal_sf(z)).min(1.0);
    Some(MannWhitney { u, p, exact: false })
}

/// Exact two-sided p-value: 2 · P(U ≤ min(u, n_a·n_b - u)), capped at 1.
fn exact_two_sided(na: usize, nb: usize, u: usize) -> f64 {
    type Cache = std::collections::HashMap<(usize, usize), std::rc::Rc<Vec<f64>>>;
    thread_local! {
        static CACHE: std::cell::RefCell<Cache> = std::cell::RefCell::default();
    }
    // The distribution depends on the sizes alone; a check compares many
    // benchmarks with the same sample counts.
    let dist = CACHE.with(|c| {
        c.borrow_mut()
            .entry((na, nb))
            .or_insert_with(|| std::rc::Rc::new(u_distribution(na, nb)))
            .clone()
    });
    let total: f64 = dist.iter().sum();
    let u = u.min(na * nb);
    let lo = u.min(na * nb - u);
    let tail: f64 = dist[..=lo].iter().sum();
    (2.0 * tail / total).min(1.0)
}

/// Counts of each U value (0 ..= na·nb) over all arrangements, by the
/// recursion f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u), kept as f64 (exact
/// well past the sizes used here, and only ratios matter).
fn u_distribution(na: usize, nb: usize) -> Vec<f64> {
    let max_u = na * nb;
    // f[m][n] for the current m, built up over n; keep a 2-D table by rows.
    // table[n] = distribution for (m, n), updated as m grows.
    let mut prev: Vec<Vec<f64>> = (0..=nb)
        .map(|_| {
            let mut v = vec![0.0; max_u + 1];
            v[0] = 1.0; // m = 0: one arrangement, U = 0
            v
        })
        .collect();
    for _m in 1..=na {
        let mut cur: Vec<Vec<f64>> = Vec::with_capacity(nb + 1);
        let mut zero = vec![0.0; max_u + 1];
        zero[0] = 1.0; // n = 0: U = 0
        cur.push(zero);
        for n in 1..=nb {
            let mut v = vec![0.0; max_u + 1];
            for (uu, slot) in v.iter_mut().enumerate() {
                let from_a = if uu >= n { prev[n][uu - n] } else { 0.0 };
                *slot = from_a + cur[n - 1][uu];
            }
            cur.push(v);
        }
        prev = cur;
    }
    prev.swap_remove(nb)
}

/// The smallest two-sided p-value a Mann-Whitney test of samples of these
/// sizes can give (all of one sample above all of the other, no ties):
/// `2 / C(n_a + n_b, n_a)`, capped at 1. Below a significance level this
/// small, no data could ever show a difference.
pub fn min_attainable_p(na: usize, nb: usize) -> f64 {
    if na == 0 || nb == 0 {
        return 1.0;
    }
    // 1 / C(n, k) computed as a product to stay in range.
    let (k, n) = (na.min(nb), na + nb);
    let mut inv = 1.0;
    for i in 0..k {
        inv *= (i + 1) as f64 / (n - i) as f64;
    }
    (2.0 * inv).min(1.0)
}

/// Holm's step-down adjusted p-values, in the input's order: with the m
/// p-values sorted ascending, `p_adj(i) = max over j <= i of min(1, (m - j + 1) p(j))`.
/// A hypothesis is rejected at family-wise level α when its adjusted p is
/// below α. NaN inputs are treated as 1.
pub fn holm(ps: &[f64]) -> Vec<f64> {
    let m = ps.len();
    let clean = |p: f64| if p.is_nan() { 1.0 } else { p.clamp(0.0, 1.0) };
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| clean(ps[i]).total_cmp(&clean(ps[j])));
    let mut adjusted = vec![1.0; m];
    let mut running = 0.0f64;
    for (rank, &i) in order.iter().enumerate() {
        let p = ((m - rank) as f64 * clean(ps[i])).min(1.0);
        running = running.max(p);
        adjusted[i] = running;
    }
    adjusted
}

/// Percentile-bootstrap confidence interval of `median(b) / median(a)`,
/// from `resamples` resamples of each sample drawn with a generator seeded
/// by `seed`. `None` if either sample is empty, non-finite or has a
/// non-positive median, `level` is not in (0, 1), or `resamples` is 0.
pub fn ratio_ci(a: &[f64], b: &[f64], level: f64, resamples: usize, seed: u64) -> Option<Interval> {
    let sa = sorted_copy(a)?;
    let sb = sorted_copy(b)?;
    if !valid_level(level) || resamples == 0 {
        return None;
    }
    if percentile_unchecked(&sa, 50.0) <= 0.0 || percentile_unchecked(&sb, 50.0) <= 0.0 {
        return None;
    }
    let mut rng = SplitMix64(seed);
    let mut buf = Vec::with_capacity(sa.len().max(sb.len()));
    let mut ratios = Vec::with_capacity(resamples);
    // The type-7 median by selection (O(n)), not a full sort.
    let mut resampled_median = |xs: &[f64], rng: &mut SplitMix64| {
        buf.clear();
        buf.extend((0..xs.len()).map(|_| xs[rng.below(xs.len())]));
        let n = buf.len();
        let (_, &mut upper, _) = buf.select_nth_unstable_by(n / 2, f64::total_cmp);
        if n % 2 == 1 {
            upper
        } else {
            let lower = buf[..n / 2]
                .iter()
                .copied()
                .fold(f64::NEG_INFINITY, f64::max);
            (lower + upper) / 2.0
        }
    };
    for _ in 0..resamples {
        let ma = resampled_median(&sa, &mut rng);
        let mb = resampled_median(&sb, &mut rng);
        if ma > 0.0 {
            ratios.push(mb / ma);
        }
    }
    if ratios.is_empty() {
        return None;
    }
    ratios.sort_unstable_by(f64::total_cmp);
    let tail = (1.0 - level) / 2.0 * 100.0;
    Some(Interval {
        lower: percentile_unchecked(&ratios, tail),
        upper: percentile_unchecked(&ratios, 100.0 - tail),
        level,
    })
}

/// Survival function of the standard normal, 1 - Φ(z), accurate in the far
/// tail (where `1 - cdf` would round to 0).
fn normal_sf(z: f64) -> f64 {
    0.5 * statrs::function::erf::erfc(z / std::f64::consts::SQRT_2)
}

/// A small, fast, seedable generator (Steele et al., SplitMix64): enough
/// for resampling indices, and the same sequence on every platform.
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform index below `n` (`n > 0`), by Lemire's multiply-shift.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// A uniform float in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A standard normal deviate (Box-Muller).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.unit(); // (0, 1]
        let u2 = self.unit();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_p_matches_published_tables() {
        // All of b above all of a, n = 3 + 3: p = 2 / C(6,3) = 0.1.
        let m = mann_whitney(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]).unwrap();
        assert!(m.exact);
        assert_eq!(m.u, 9.0);
        assert!((m.p - 0.1).abs() < 1e-12, "{}", m.p);
        assert!((min_attainable_p(3, 3) - 0.1).abs() < 1e-12);
        // scipy.stats.mannwhitneyu([1,2,3,4,5],[3.5,6,7,8,9], method="exact")
        // gives U(b) = 23 and p = 0.031746031746031744.
        let m = mann_whitney(&[1.0, 2.0, 3.0, 4.0, 5.0], &[3.5, 6.0, 7.0, 8.0, 9.0]).unwrap();
        assert_eq!(m.u, 23.0);
        assert!((m.p - 0.031_746_031_746_031_744).abs() < 1e-12, "{}", m.p);
        // Identical samples (interleaved): p = 1.
        let m = mann_whitney(&[1.0, 3.0, 5.0], &[2.0, 4.0, 6.0]).unwrap();
        assert!(m.p > 0.5);
    }

    #[test]
    fn normal_approximation_with_ties_matches_scipy_exactly() {
        // Heavy ties force the tie-corrected normal approximation.
        // scipy.stats.mannwhitneyu(b, a, method="asymptotic",
        // use_continuity=True) gives U = 2466, p = 0.0003659689325005145.
        let a: Vec<f64> = [1.0, 2.0, 2.0, 3.0, 3.0, 3.0, 4.0, 4.0, 5.0, 6.0]
            .iter()
            .cycle()
            .take(60)
            .copied()
            .collect();
        let b: Vec<f64> = a.iter().map(|x| x + 1.0).collect();
        let m = mann_whitney(&a, &b).unwrap();
        assert!(!m.exact);
        assert_eq!(m.u, 2466.0);
        assert!((m.p - 0.000_365_968_932_500_514_5).abs() < 1e-12, "{}", m.p);
        let same = mann_whitney(&a, &a).unwrap();
        assert!((same.p - 1.0).abs() < 1e-12);
        let all_equal = mann_whitney(&[2.0; 60], &[2.0; 60]).unwrap();
        assert_eq!(all_equal.p, 1.0);
    }

    #[test]
    fn exact_and_approximate_agree_at_the_boundary() {
        let mut rng = SplitMix64(7);
        let a: Vec<f64> = (0..EXACT_MAX).map(|_| rng.normal()).collect();
        let b: Vec<f64> = (0..EXACT_MAX).map(|_| rng.normal() + 0.4).collect();
        let exact = mann_whitney(&a, &b).unwrap();
        assert!(exact.exact);
        let mut b2 = b.clone();
        b2.push(b[0] + 1e-9); // one more value forces the approximation
        let approx = mann_whitney(&a, &b2).unwrap();
        assert!(!approx.exact);
        assert!(
            (exact.p.ln() - approx.p.ln()).abs() < 0.3,
            "{} {}",
            exact.p,
            approx.p
        );
    }

    #[test]
    fn bad_input_gives_none() {
        assert!(mann_whitney(&[], &[1.0]).is_none());
        assert!(mann_whitney(&[f64::NAN], &[1.0]).is_none());
        assert!(ratio_ci(&[1.0], &[], 0.95, 100, 1).is_none());
        assert!(ratio_ci(&[1.0], &[1.0], 1.5, 100, 1).is_none());
        assert!(ratio_ci(&[-1.0], &[1.0], 0.95, 100, 1).is_none());
    }

    #[test]
    fn holm_adjusts_step_down() {
        // p = [0.01, 0.04, 0.03, 0.005], m = 4: sorted 0.005, 0.01, 0.03, 0.04
        // → 0.02, 0.03, 0.06, 0.06 (monotone).
        let adj = holm(&[0.01, 0.04, 0.03, 0.005]);
        let want = [0.03, 0.06, 0.06, 0.02];
        for (x, w) in adj.iter().zip(want) {
            assert!((x - w).abs() < 1e-12, "{adj:?}");
        }
        assert_eq!(holm(&[f64::NAN]), vec![1.0]);
        assert!(holm(&[]).is_empty());
    }

    #[test]
    fn ratio_ci_brackets_the_true_ratio_and_is_deterministic() {
        let mut rng = SplitMix64(42);
        let a: Vec<f64> = (0..200)
            .map(|_| 100.0 * (0.03 * rng.normal()).exp())
            .collect();
        let b: Vec<f64> = (0..200)
            .map(|_| 125.0 * (0.03 * rng.normal()).exp())
            .collect();
        let ci = ratio_ci(&a, &b, 0.95, 2000, 9).unwrap();
        assert!(ci.lower < 1.25 && ci.upper > 1.25, "{ci:?}");
        assert!(ci.upper - ci.lower < 0.03, "{ci:?}");
        assert_eq!(ci, ratio_ci(&a, &b, 0.95, 2000, 9).unwrap());
    }

    #[test]
    fn min_attainable_p_is_two_over_binomial() {
        assert!((min_attainable_p(5, 5) - 2.0 / 252.0).abs() < 1e-15);
        assert_eq!(min_attainable_p(1, 1), 1.0);
        assert_eq!(min_attainable_p(0, 4), 1.0);
        assert!(min_attainable_p(40, 40) < 1e-20);
    }
}
