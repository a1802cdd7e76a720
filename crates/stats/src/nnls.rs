//! Non-negative least squares, and the cost fit the 2026 repricing EIPs
//! use (EIP-7904, EIP-8038): block time regressed on an operation's count
//! with every coefficient at least zero, kept only when R² > 0.5 and the
//! count's p < 0.05. A fit that fails the rule is still returned, with its
//! figures and `kept = false`: a report shows it rather than dropping it.
//!
//! [`nnls`] is Lawson and Hanson's active-set method (Solving Least Squares
//! Problems, 1974, ch. 23) over the normal equations, which is exact and
//! cheap for the handful of columns a cost model has (an intercept, a
//! count, a count × parameter term).

use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::{Interval, student_t_quantile};

/// Solves `min ‖A x − b‖²` subject to `x ≥ 0`, `A` given by its columns
/// (each of `b.len()` rows). `None` if the shapes disagree, a value is not
/// finite, or there are no columns.
pub fn nnls(columns: &[&[f64]], b: &[f64]) -> Option<Vec<f64>> {
    let k = columns.len();
    let n = b.len();
    if k == 0
        || columns.iter().any(|c| c.len() != n)
        || !b
            .iter()
            .chain(columns.iter().flat_map(|c| c.iter()))
            .all(|v| v.is_finite())
    {
        return None;
    }
    let dot = |u: &[f64], v: &[f64]| u.iter().zip(v).map(|(a, b)| a * b).sum::<f64>();
    let ata: Vec<Vec<f64>> = (0..k)
        .map(|i| (0..k).map(|j| dot(columns[i], columns[j])).collect())
        .collect();
    let atb: Vec<f64> = (0..k).map(|i| dot(columns[i], b)).collect();
    let scale = atb.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
    let tol = 1e-12 * scale;
    let mut x = vec![0.0; k];
    let mut passive = vec![false; k];
    // The gradient of ½‖Ax − b‖², negated: Aᵀ(b − Ax).
    let gradient = |x: &[f64]| -> Vec<f64> {
        (0..k)
            .map(|i| atb[i] - (0..k).map(|j| ata[i][j] * x[j]).sum::<f64>())
            .collect()
    };
    for _ in 0..(3 * k + 10) {
        let w = gradient(&x);
        let Some(t) = (0..k)
            .filter(|&i| !passive[i] && w[i] > tol)
            .max_by(|&a, &b| w[a].total_cmp(&w[b]))
        else {
            break;
        };
        passive[t] = true;
        loop {
            let z = solve_on(&ata, &atb, &passive)?;
            if (0..k).all(|i| !passive[i] || z[i] > 0.0) {
                x = z;
                break;
            }
            // Step from x towards z as far as feasibility allows, and free
            // the coefficients that reach zero.
            let alpha = (0..k)
                .filter(|&i| passive[i] && z[i] <= 0.0)
                .map(|i| x[i] / (x[i] - z[i]))
                .fold(f64::INFINITY, f64::min);
            for i in 0..k {
                let limiting = passive[i] && z[i] <= 0.0 && x[i] / (x[i] - z[i]) <= alpha;
                x[i] += alpha * (z[i] - x[i]);
                if limiting || (passive[i] && x[i] <= 0.0) {
                    passive[i] = false;
                    x[i] = 0.0;
                }
            }
            if !passive.iter().any(|p| *p) {
                break;
            }
        }
    }
    Some(x)
}

/// The least-squares solution restricted to the `passive` columns (others
/// zero), by Gaussian elimination with partial pivoting on the normal
/// equations. `None` when those columns are linearly dependent.
fn solve_on(ata: &[Vec<f64>], atb: &[f64], passive: &[bool]) -> Option<Vec<f64>> {
    let idx: Vec<usize> = (0..passive.len()).filter(|&i| passive[i]).collect();
    let m = idx.len();
    let mut a: Vec<Vec<f64>> = idx
        .iter()
        .map(|&i| {
            let mut row: Vec<f64> = idx.iter().map(|&j| ata[i][j]).collect();
            row.push(atb[i]);
            row
        })
        .collect();
    for col in 0..m {
        let pivot = (col..m).max_by(|&p, &q| a[p][col].abs().total_cmp(&a[q][col].abs()))?;
        if a[pivot][col].abs() < 1e-300 {
            return None;
        }
        a.swap(col, pivot);
        let pivot_row = a[col].clone();
        for (r, row) in a.iter_mut().enumerate() {
            if r != col {
                let f = row[col] / pivot_row[col];
                for (v, p) in row.iter_mut().zip(&pivot_row).skip(col) {
                    *v -= f * p;
                }
            }
        }
    }
    let mut out = vec![0.0; passive.len()];
    for (r, &i) in idx.iter().enumerate() {
        out[i] = a[r][m] / a[r][r];
    }
    Some(out)
}

/// The inverse of a small symmetric positive-definite matrix, or `None`.
fn inverse(m: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let k = m.len();
    let mut a: Vec<Vec<f64>> = m
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let mut r = row.clone();
            r.extend((0..k).map(|j| if i == j { 1.0 } else { 0.0 }));
            r
        })
        .collect();
    for col in 0..k {
        let pivot = (col..k).max_by(|&p, &q| a[p][col].abs().total_cmp(&a[q][col].abs()))?;
        if a[pivot][col].abs() < 1e-300 {
            return None;
        }
        a.swap(col, pivot);
        let d = a[col][col];
        for v in a[col].iter_mut() {
            *v /= d;
        }
        let pivot_row = a[col].clone();
        for (r, row) in a.iter_mut().enumerate() {
            if r != col {
                let f = row[col];
                for (v, p) in row.iter_mut().zip(&pivot_row) {
                    *v -= f * p;
                }
            }
        }
    }
    Some(a.into_iter().map(|r| r[k..].to_vec()).collect())
}

/// One coefficient of a [`CostFit`].
#[derive(Debug, Clone, PartialEq)]
pub struct Coefficient {
    /// The non-negative estimate.
    pub value: f64,
    /// Its Student-t interval (over the coefficients left free), a point at
    /// 0 for one held at zero.
    pub ci: Interval,
    /// Two-sided p of "this coefficient is 0"; 1 for one held at zero.
    pub p: f64,
}

/// `y = Σ coefficient · column`, every coefficient at least zero, with
/// the rule the repricing EIPs keep a fit by.
#[derive(Debug, Clone, PartialEq)]
pub struct CostFit {
    /// One per column, in the order given.
    pub coefficients: Vec<Coefficient>,
    /// Coefficient of determination of the constrained fit.
    pub r_squared: f64,
    /// Points.
    pub n: usize,
    /// R² > 0.5 and the `rule_column`'s p < 0.05.
    pub kept: bool,
}

/// Fits `y` on `columns` with non-negative coefficients (pass a column of
/// ones for an intercept). Intervals and p-values are the ordinary
/// least-squares ones of the coefficients left free (a coefficient the
/// constraint holds at zero has no spread of its own), on n − free degrees
/// of freedom. `kept` applies the repricing rule to `rule_column` (the
/// operation's count). `None` on bad shapes or too few points (n must
/// exceed the number of columns).
pub fn cost_fit(columns: &[&[f64]], y: &[f64], rule_column: usize, level: f64) -> Option<CostFit> {
    let k = columns.len();
    let n = y.len();
    if rule_column >= k || n <= k || !(0.0..1.0).contains(&level) || level == 0.0 {
        return None;
    }
    let x = nnls(columns, y)?;
    let fitted: Vec<f64> = (0..n)
        .map(|r| (0..k).map(|c| x[c] * columns[c][r]).sum())
        .collect();
    let sse: f64 = y.iter().zip(&fitted).map(|(a, b)| (a - b).powi(2)).sum();
    let my = y.iter().sum::<f64>() / n as f64;
    let syy: f64 = y.iter().map(|v| (v - my).powi(2)).sum();
    let r_squared = if syy == 0.0 {
        1.0
    } else {
        (1.0 - sse / syy).clamp(0.0, 1.0)
    };
    let free: Vec<usize> = (0..k).filter(|&c| x[c] > 0.0).collect();
    let df = (n - free.len()) as f64;
    let s2 = sse / df;
    let dot = |u: &[f64], v: &[f64]| u.iter().zip(v).map(|(a, b)| a * b).sum::<f64>();
    let gram: Vec<Vec<f64>> = free
        .iter()
        .map(|&i| free.iter().map(|&j| dot(columns[i], columns[j])).collect())
        .collect();
    let inv = if free.is_empty() {
        Some(Vec::new())
    } else {
        inverse(&gram)
    }?;
    let t = student_t_quantile(1.0 - (1.0 - level) / 2.0, df);
    let dist = StudentsT::new(0.0, 1.0, df).ok()?;
    let coefficients: Vec<Coefficient> = (0..k)
        .map(|c| match free.iter().position(|&f| f == c) {
            Some(at) => {
                let se = (s2 * inv[at][at]).max(0.0).sqrt();
                let p = if se == 0.0 {
                    0.0
                } else {
                    2.0 * (1.0 - dist.cdf((x[c] / se).abs()))
                };
                Coefficient {
                    value: x[c],
                    ci: Interval {
                        lower: x[c] - t * se,
                        upper: x[c] + t * se,
                        level,
                    },
                    p,
                }
            }
            None => Coefficient {
                value: 0.0,
                ci: Interval {
                    lower: 0.0,
                    upper: 0.0,
                    level,
                },
                p: 1.0,
            },
        })
        .collect();
    let kept = r_squared > 0.5 && coefficients[rule_column].p < 0.05;
    Some(CostFit {
        coefficients,
        r_squared,
        n,
        kept,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SplitMix64;

    fn noise(rng: &mut SplitMix64, sd: f64) -> f64 {
        sd * rng.normal()
    }

    #[test]
    fn an_unconstrained_problem_is_ordinary_least_squares() {
        let ones = [1.0; 5];
        let x = [1.0, 2.0, 3.0, 4.0, 5.0];
        let y = [3.1, 4.9, 7.2, 8.8, 11.1];
        let got = nnls(&[&ones, &x], &y).unwrap();
        let ols = crate::fit_line(&x, &y, 0.95).unwrap();
        assert!((got[0] - ols.intercept).abs() < 1e-9, "{got:?} {ols:?}");
        assert!((got[1] - ols.slope).abs() < 1e-9);
    }

    #[test]
    fn a_coefficient_that_would_be_negative_is_held_at_zero() {
        // y falls with x: the best non-negative slope is 0, the intercept
        // then the mean.
        let ones = [1.0; 4];
        let x = [1.0, 2.0, 3.0, 4.0];
        let y = [8.0, 6.0, 4.0, 2.0];
        let got = nnls(&[&ones, &x], &y).unwrap();
        assert_eq!(got[1], 0.0);
        assert!((got[0] - 5.0).abs() < 1e-9, "{got:?}");
        let fit = cost_fit(&[&ones, &x], &y, 1, 0.95).unwrap();
        assert_eq!(fit.coefficients[1].p, 1.0);
        assert!(!fit.kept, "a held-at-zero count is not a cost");
    }

    /// Blocks whose time is 2 ms fixed + 1 500 ns per operation + 40 ns
    /// per operation per parameter unit (`cost` scales the two per-op
    /// terms), with 50 µs of noise: counts over 6 levels, parameters over
    /// 3, each block twice. Returns the columns and the times.
    fn blocks(seed: u64, cost: f64) -> ([Vec<f64>; 3], Vec<f64>) {
        let mut rng = SplitMix64(seed);
        let (mut ones, mut count, mut cross, mut y) = (vec![], vec![], vec![], vec![]);
        for level in [0.0, 200.0, 400.0, 800.0, 1600.0, 3200.0] {
            for param in [1.0, 4.0, 16.0] {
                for _ in 0..2 {
                    ones.push(1.0);
                    count.push(level);
                    cross.push(level * param);
                    y.push(
                        2e6 + cost * (1500.0 * level + 40.0 * level * param) + noise(&mut rng, 5e4),
                    );
                }
            }
        }
        ([ones, count, cross], y)
    }

    #[test]
    fn a_planted_cost_is_recovered_and_a_noise_fit_is_reported_not_kept() {
        // Over 200 seeds each true coefficient lies inside its 95% interval
        // about 95% of the time, and every fit is kept.
        let trials = 200;
        let mut covered = [0usize; 3];
        for seed in 0..trials {
            let ([ones, count, cross], y) = blocks(seed, 1.0);
            let fit = cost_fit(&[&ones, &count, &cross], &y, 1, 0.95).unwrap();
            assert!(fit.kept && fit.r_squared > 0.99, "{fit:?}");
            for (c, truth) in [(0, 2e6), (1, 1500.0), (2, 40.0)] {
                let k = &fit.coefficients[c];
                covered[c] += usize::from(k.ci.lower <= truth && truth <= k.ci.upper);
            }
        }
        for (c, n) in covered.iter().enumerate() {
            let rate = *n as f64 / trials as f64;
            assert!(
                (0.90..=0.99).contains(&rate),
                "coefficient {c}: covered {rate}"
            );
        }

        // The same blocks with no operation cost, only noise: the fit is
        // returned, with its figures, and not kept.
        let ([ones, count, _], flat) = blocks(1, 0.0);
        let fit = cost_fit(&[&ones, &count], &flat, 1, 0.95).unwrap();
        assert!(!fit.kept, "{fit:?}");
        assert!(fit.r_squared < 0.5);
        assert_eq!(fit.n, flat.len());
    }

    #[test]
    fn bad_shapes_are_refused() {
        assert!(nnls(&[], &[1.0]).is_none());
        assert!(nnls(&[&[1.0, 2.0]], &[1.0]).is_none());
        assert!(nnls(&[&[f64::NAN]], &[1.0]).is_none());
        assert!(cost_fit(&[&[1.0, 1.0]], &[1.0, 2.0], 1, 0.95).is_none());
    }
}
