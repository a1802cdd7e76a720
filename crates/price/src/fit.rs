//! The op-isolation fits (`dyno gas --blocks`): block time on operation
//! count by non-negative least squares with the repricing EIPs' rule, the
//! Theil-Sen slope beside it, on every measure of block time a client
//! gave, each less its control series' per-operation time (the glue); and
//! the joint fit of an operation measured at several parameters.

use dyno_format::gas::Estimate;
use dyno_format::reprice::{Coefficient, Fit};
use dyno_format::state::ScheduleName;
use dyno_format::{BenchResult, Mode, Sample};

/// The measures of block time a fit is made on.
pub const TIMES: [&str; 3] = ["new_payload", "client_execution", "client_total"];
/// The confidence of every interval.
const LEVEL: f64 = 0.95;

/// The block times of `r` on `time`, with the blocks' operation counts;
/// `None` when a block lacks that measure (a client log missing).
fn points(r: &BenchResult, time: &str) -> Option<(Vec<f64>, Vec<f64>)> {
    let y: Vec<f64> = (0..r.samples.len())
        .map(|k| dyno_format::reprice::block_ns(r, k, time))
        .collect::<Option<_>>()?;
    let x = r.samples.iter().map(|s| s.iters as f64).collect();
    Some((x, y))
}

/// One fit of `y` on `x`, or `None` with too few distinct counts.
fn fit(time: &str, x: &[f64], y: &[f64]) -> Option<Fit> {
    let ones = vec![1.0; x.len()];
    let f = dyno_stats::nnls::cost_fit(&[&ones, x], y, 1, LEVEL)?;
    let (slope, ci) = dyno_stats::theil_sen(x, y, LEVEL)?;
    let coef = |c: &dyno_stats::nnls::Coefficient| Coefficient {
        value: c.value,
        lower: c.ci.lower,
        upper: c.ci.upper,
        p: c.p,
    };
    Some(Fit {
        time: time.into(),
        n: f.n,
        intercept_ns: coef(&f.coefficients[0]),
        per_op_ns: coef(&f.coefficients[1]),
        r_squared: f.r_squared,
        kept: f.kept,
        robust_per_op_ns: Estimate {
            value: slope,
            lower: ci.lower,
            upper: ci.upper,
        },
        net_per_op_ns: None,
        net_robust_per_op_ns: None,
    })
}

/// Fit every op-isolation result (those with `reprice`) on each measure of
/// block time it has, then subtract, per implementation and measure, its
/// control's per-operation time. A fit that fails the EIPs' rule stays,
/// marked `kept: false`. The results' `mode` becomes a linear fit (time
/// against operations), `fit` the OLS line, `stats` per operation.
pub fn fit_results(results: &mut [BenchResult]) {
    for r in results.iter_mut() {
        if r.reprice.is_none() {
            continue;
        }
        let mut fits = Vec::new();
        for time in TIMES {
            if let Some((x, y)) = points(r, time)
                && let Some(f) = fit(time, &x, &y)
            {
                fits.push(f);
            }
        }
        if let Some((x, y)) = points(r, "new_payload") {
            r.fit = dyno_stats::fit_line(&x, &y, LEVEL);
            r.mode = Some(Mode::LinearFit);
        }
        let per_op: Vec<f64> = r
            .samples
            .iter()
            .filter(|s| s.iters > 0)
            .map(Sample::per_op)
            .collect();
        r.stats = dyno_stats::summarize(&per_op);
        r.ops_per_sec = r.stats.as_ref().map(|s| 1e9 / s.p50);
        if let Some(iso) = &mut r.reprice {
            iso.fits = fits;
        }
    }
    // The glue: each op series less its control, same client, same time,
    // per loop turn: a control that counts two POPs a turn where its
    // series counts one SSTORE has its per-count time doubled.
    let controls: Vec<(String, String, f64, Vec<Fit>)> = results
        .iter()
        .filter_map(|r| {
            let iso = r.reprice.as_ref()?;
            iso.control.is_none().then(|| {
                (
                    r.id.clone(),
                    r.implementation.name.clone(),
                    per_turn(r),
                    iso.fits.clone(),
                )
            })
        })
        .collect();
    let as_estimate = |c: &Coefficient| Estimate {
        value: c.value,
        lower: c.lower,
        upper: c.upper,
    };
    for r in results.iter_mut() {
        let who = r.implementation.name.clone();
        let own_turn = per_turn(r);
        let Some(iso) = &mut r.reprice else { continue };
        let Some(control) = &iso.control else {
            continue;
        };
        let Some((_, _, control_turn, cfits)) = controls
            .iter()
            .find(|(id, name, ..)| id == control && *name == who)
        else {
            continue;
        };
        let scale = control_turn / own_turn;
        for f in &mut iso.fits {
            if let Some(c) = cfits.iter().find(|c| c.time == f.time) {
                let glue = as_estimate(&c.per_op_ns).scale(scale);
                f.net_per_op_ns = Some(as_estimate(&f.per_op_ns).minus(glue));
                f.net_robust_per_op_ns =
                    Some(f.robust_per_op_ns.minus(c.robust_per_op_ns.scale(scale)));
            }
        }
    }
}

/// An op-isolation result's counts are what a block can hold: one sample
/// per block, each block counting at least one operation and at most one
/// per unit of the gas it used (no operation costs less than 1 gas), and
/// a time above 0.
pub(crate) fn check_counts(r: &BenchResult) -> Result<(), String> {
    if !r.blocks.is_empty() && r.blocks.len() != r.samples.len() {
        return Err(format!(
            "{} samples for {} blocks (one per block)",
            r.samples.len(),
            r.blocks.len()
        ));
    }
    for (k, s) in r.samples.iter().enumerate() {
        let gas = r.blocks.get(k).map(|b| b.gas_used);
        if s.iters == 0 {
            return Err(format!("block {} counts 0 operations", k + 1));
        }
        if let Some(gas) = gas
            && s.iters > gas
        {
            return Err(format!(
                "block {} counts {} operations in {gas} gas (each costs at least 1)",
                k + 1,
                s.iters
            ));
        }
        if s.ns == 0 {
            return Err(format!("block {} took 0 ns", k + 1));
        }
    }
    Ok(())
}

/// Counted operations a loop turn of `r`'s program makes (recorded when
/// measured; 1 when it was not).
pub(crate) fn per_turn(r: &BenchResult) -> f64 {
    r.parameters
        .get("per_turn")
        .and_then(|v| v.as_f64())
        .filter(|&t| t > 0.0)
        .unwrap_or(1.0)
}

/// Every operation measured at two or more parameters, in each client and
/// on each measure of time, fitted on (1, count, count × parameter) over
/// all its blocks ([`dyno_format::reprice::Joint`]). Each block's glue is
/// its control's per-count slope times the control's counts a turn times
/// the block's turns, taken off before the fit.
pub fn joint_fits(
    results: &[BenchResult],
    schedules: &[ScheduleName],
    anchor_mgas: f64,
) -> Vec<dyno_format::reprice::Joint> {
    let mut out = Vec::new();
    let keys: Vec<(String, String)> = {
        let mut k: Vec<(String, String)> = Vec::new();
        for r in results {
            let Some(iso) = &r.reprice else { continue };
            let key = (iso.op.clone(), r.implementation.name.clone());
            if iso.control.is_some() && iso.units.is_some() && !k.contains(&key) {
                k.push(key);
            }
        }
        k
    };
    for (op, client) in keys {
        let members: Vec<&BenchResult> = results
            .iter()
            .filter(|r| {
                r.implementation.name == client
                    && r.reprice
                        .as_ref()
                        .is_some_and(|i| i.op == op && i.control.is_some() && i.units.is_some())
            })
            .collect();
        let mut units: Vec<u64> = members
            .iter()
            .filter_map(|r| r.reprice.as_ref()?.units)
            .collect();
        units.sort_unstable();
        units.dedup();
        if units.len() < 2 {
            continue;
        }
        for time in TIMES {
            let (mut x1, mut x2, mut y) = (Vec::new(), Vec::new(), Vec::new());
            let mut series = Vec::new();
            let mut complete = true;
            for r in &members {
                let iso = r.reprice.as_ref().expect("filtered");
                let u = iso.units.expect("filtered") as f64;
                let control = results.iter().find(|c| {
                    Some(&c.id) == iso.control.as_ref() && c.implementation.name == client
                });
                let glue_turn = control.and_then(|c| {
                    Some(c.reprice.as_ref()?.fit(time)?.per_op_ns.value * per_turn(c))
                });
                let (Some((xs, ys)), Some(glue_turn)) = (points(r, time), glue_turn) else {
                    complete = false;
                    break;
                };
                let own = per_turn(r);
                for (x, t) in xs.iter().zip(ys) {
                    x1.push(*x);
                    x2.push(x * u);
                    y.push(t - glue_turn * x / own);
                }
                series.push((r.id.clone(), u as u64));
            }
            if !complete {
                continue;
            }
            let ones = vec![1.0; y.len()];
            let Some(f) = dyno_stats::nnls::cost_fit(&[&ones, &x1, &x2], &y, 2, LEVEL) else {
                continue;
            };
            let coef = |c: &dyno_stats::nnls::Coefficient| Coefficient {
                value: c.value,
                lower: c.ci.lower,
                upper: c.ci.upper,
                p: c.p,
            };
            let gas = |c: &Coefficient| {
                Estimate {
                    value: c.value,
                    lower: c.lower,
                    upper: c.upper,
                }
                .scale(anchor_mgas / 1000.0)
            };
            let (per_op, per_unit) = (coef(&f.coefficients[1]), coef(&f.coefficients[2]));
            let prices = schedules
                .iter()
                .map(|sch| {
                    let at: Vec<(f64, f64)> = members
                        .iter()
                        .map(|r| {
                            let g = r.parameters.get(&format!("gas_{}", sch.name))?.as_f64()?;
                            Some((r.reprice.as_ref()?.units? as f64, g))
                        })
                        .collect::<Option<_>>()?;
                    line_through(&at)
                })
                .collect();
            out.push(dyno_format::reprice::Joint {
                op: op.clone(),
                client: client.clone(),
                time: time.into(),
                series,
                n: f.n,
                intercept_ns: coef(&f.coefficients[0]),
                gas_base: gas(&per_op),
                gas_per_unit: gas(&per_unit),
                per_op_ns: per_op,
                per_unit_ns: per_unit,
                r_squared: f.r_squared,
                kept: f.kept,
                prices,
            });
        }
    }
    out
}

/// The line `base + per_unit × units` through every point, if they lie on
/// one (a price linear in its parameter) and there are two distinct units.
fn line_through(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let (u1, g1) = *points.first()?;
    let &(u2, g2) = points.iter().find(|(u, _)| *u != u1)?;
    let per_unit = (g2 - g1) / (u2 - u1);
    let base = g1 - per_unit * u1;
    points
        .iter()
        .all(|(u, g)| (base + per_unit * u - g).abs() < 1e-6 * g.abs().max(1.0))
        .then_some((base, per_unit))
}
