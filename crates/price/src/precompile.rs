//! `dyno gas`: what each precompile costs in time against what it costs in
//! gas, from the results of a run.
//!
//! For each precompile input:
//!
//! - **nominal gas**: the fork's schedule applied to the input bytes, as
//!   the result recorded it when it was measured ([`NOMINAL_GAS`]);
//! - **ns direct**: the direct call's time (the fit's slope where the
//!   samples were fitted, otherwise the P50), with its 95% interval;
//! - **ns bytecode**: one STATICCALL's cost beyond the no-op control's
//!   ([`bytecode_net`]): the Theil-Sen slope of the bytecode loop's
//!   samples less the control's timed beside each of them, sample by
//!   sample; for a run made before loops timed their control, the loop's
//!   slope less the no-op result's. Its interval is always kept, and may
//!   include zero;
//! - **calculated gas** = ns × 3000 / ns(ECRECOVER), on direct times. The
//!   interval is carried through conservatively: the lowest time over the
//!   highest anchor time, and the other way round. ECRECOVER itself is
//!   3000 by construction, with no interval of its own;
//! - **bytecode gas**: the same on bytecode times, against bytecode
//!   ECRECOVER (the cross-client method: every client's precompiles timed
//!   through its own EVM);
//! - **MGas/s** = nominal gas / ns × 1000;
//! - a **second anchor**, by choice: a fixed throughput (gas the time would
//!   buy at 60 MGas/s, say), or the median gas rate of the arithmetic
//!   opcode sequences;
//! - a **flag** where calculated gas exceeds nominal gas by more than the
//!   factor (underpriced: it takes longer than its gas pays for) or falls
//!   below it by more than the factor (overpriced).

use dyno_format::BenchResult;
pub use dyno_format::gas::{
    ANCHOR_GAS, ANCHOR_ID, Anchor, CONTROL_SAMPLES, Estimate, NOMINAL_GAS, NOOP_ID, Pricing, Row,
};

use crate::Error;

/// A bytecode loop's cost per call beyond the no-op control's, and whether
/// it is paired. Paired: the result recorded the control's times beside
/// its own ([`CONTROL_SAMPLES`], the last of which pair with its samples,
/// the same N each); the slope is Theil-Sen's over the differences.
/// Otherwise the loop's estimate less `noop`'s (`None` without one).
pub fn bytecode_net(r: &BenchResult, noop: Option<Estimate>) -> Option<(Estimate, bool)> {
    if let Some(diffs) = paired_differences(r) {
        let x: Vec<f64> = diffs.iter().map(|d| d.0).collect();
        let y: Vec<f64> = diffs.iter().map(|d| d.1).collect();
        if let Some((slope, ci)) = dyno_stats::theil_sen(&x, &y, 0.95) {
            return Some((
                Estimate {
                    value: slope,
                    lower: ci.lower,
                    upper: ci.upper,
                },
                true,
            ));
        }
    }
    Some((Estimate::of(r)?.minus(noop?), false))
}

/// `(N, loop ns - control ns)` per sample, when the result's control
/// times pair with its samples (the same N, in order).
fn paired_differences(r: &BenchResult) -> Option<Vec<(f64, f64)>> {
    let control: Vec<(u64, u64)> = r
        .parameters
        .get(CONTROL_SAMPLES)?
        .as_array()?
        .iter()
        .map(|s| Some((s.get("iters")?.as_u64()?, s.get("ns")?.as_u64()?)))
        .collect::<Option<_>>()?;
    let n = r.samples.len();
    if n < 3 || control.len() < n {
        return None;
    }
    let tail = &control[control.len() - n..];
    r.samples
        .iter()
        .zip(tail)
        .map(|(s, &(iters, ns))| {
            (s.iters == iters).then_some((iters as f64, s.ns as f64 - ns as f64))
        })
        .collect()
}

/// A result and the gas it should cost.
#[derive(Debug, Clone)]
pub struct Priced<'a> {
    /// A direct-mode precompile result (`precompile/<op>/<input>`) or an
    /// opcode sequence (`opcode/<op>/<input>`).
    pub direct: &'a BenchResult,
    /// Nominal gas: the fork schedule's price for the precompile input, or
    /// revm's gas for the opcode sequence.
    pub nominal_gas: u64,
}

/// The opcode results that can be priced: each with its `gas_per_op`
/// (sequences that cost no gas, such as the empty loop, are left out).
pub fn opcodes(results: &[BenchResult]) -> Vec<Priced<'_>> {
    results
        .iter()
        .filter(|r| r.group() == "opcode" && r.baseline)
        .filter_map(|r| {
            let gas = r.parameters.get("gas_per_op")?.as_u64()?;
            (gas > 0).then_some(Priced {
                direct: r,
                nominal_gas: gas,
            })
        })
        .collect()
}

/// The gas rate of arithmetic: median over `opcode/arith-*` results of
/// their gas per sequence over ns per sequence.
pub fn arithmetic_rate(results: &[BenchResult]) -> Option<Estimate> {
    let mut rates: Vec<Estimate> = results
        .iter()
        .filter(|r| r.id.starts_with("opcode/arith-"))
        .filter_map(|r| {
            let gas = r.parameters.get("gas_per_op")?.as_f64()?;
            let t = Estimate::of(r)?;
            (t.value > 0.0).then(|| t.inverse(gas))
        })
        .collect();
    if rates.is_empty() {
        return None;
    }
    rates.sort_by(|a, b| a.value.total_cmp(&b.value));
    Some(rates[rates.len() / 2])
}

/// Price every direct-mode precompile result of a run (the baseline
/// implementation's) against fork `fork`'s schedule, with the nominal gas
/// each recorded when it was measured ([`NOMINAL_GAS`]), plus the opcode
/// results, and build the table. Precompile results that recorded no
/// price for `fork` are left out and listed with the reason in the second
/// value.
pub fn price_run(
    results: &[BenchResult],
    fork: &str,
    second: Option<Anchor>,
    factor: f64,
) -> Result<(Vec<Row>, Vec<String>), Error> {
    let mut priced = Vec::new();
    let mut left_out = Vec::new();
    for r in results
        .iter()
        .filter(|r| r.group() == "precompile" && r.baseline)
    {
        let recorded = r
            .parameters
            .get(NOMINAL_GAS)
            .and_then(|m| m.get(fork))
            .and_then(serde_json::Value::as_u64);
        match recorded {
            Some(nominal_gas) => priced.push(Priced {
                direct: r,
                nominal_gas,
            }),
            None => left_out.push(format!(
                "{}: no nominal gas for fork {fork} recorded in the result (measured before \
                 dyno recorded it, or without that fork's schedule); `dyno gas --from RUN \
                 --fork {fork}` prices it from the vectors",
                r.id
            )),
        }
    }
    priced.extend(opcodes(results));
    Ok((table(&priced, results, second, factor)?, left_out))
}

/// Build the table. `priced` holds the direct results in display order;
/// `results` is the whole run (for the anchor, the bytecode loops, the
/// no-op and the opcodes).
pub fn table(
    priced: &[Priced<'_>],
    results: &[BenchResult],
    second: Option<Anchor>,
    factor: f64,
) -> Result<Vec<Row>, Error> {
    if factor.is_nan() || factor <= 1.0 {
        return Err(Error::Factor(factor));
    }
    let timed = |id: &str| {
        results
            .iter()
            .filter(|r| r.id == id && r.baseline)
            .find_map(Estimate::of)
    };
    let anchor = timed(ANCHOR_ID).ok_or_else(|| Error::NoAnchor(ANCHOR_ID.into()))?;
    let noop = timed(NOOP_ID);
    let net = |id: &str| {
        results
            .iter()
            .filter(|r| r.id == id && r.baseline)
            .find_map(|r| bytecode_net(r, noop))
    };
    let anchor_id = ANCHOR_ID.split_once('/').map_or("", |(_, rest)| rest);
    // Bytecode gas needs an ECRECOVER bytecode time clearly above zero.
    let bytecode_anchor = net(&format!("{}/{anchor_id}", dyno_format::gas::BYTECODE_GROUP))
        .map(|(e, _)| e)
        .filter(|e| e.lower > 0.0);
    let second_rate = match second {
        None => None,
        // MGas/s = gas per µs, so gas per ns = MGas/s / 1000.
        Some(Anchor::Throughput(m)) => Some(Estimate::exact(m / 1000.0)),
        Some(Anchor::Arithmetic) => Some(arithmetic_rate(results).ok_or(Error::NoArithmetic)?),
    };
    let mut rows = Vec::new();
    for p in priced {
        let Some(direct) = Estimate::of(p.direct) else {
            continue;
        };
        let mut parts = p.direct.id.splitn(3, '/');
        let (kind, op, input) = (
            parts.next().unwrap_or_default(),
            parts.next().unwrap_or_default(),
            parts.next().unwrap_or_default(),
        );
        let bytecode_id = format!("{}/{op}/{input}", dyno_format::gas::BYTECODE_GROUP);
        let bytecode = net(&bytecode_id);
        let is_anchor = p.direct.id == ANCHOR_ID;
        let calculated_gas = if is_anchor {
            Estimate::exact(ANCHOR_GAS)
        } else {
            direct.ratio(anchor, ANCHOR_GAS)
        };
        let bytecode_gas = bytecode.zip(bytecode_anchor).map(|((b, _), a)| {
            if is_anchor {
                Estimate::exact(ANCHOR_GAS)
            } else {
                b.ratio(a, ANCHOR_GAS)
            }
        });
        let flag = crate::flag(calculated_gas.value, p.nominal_gas, factor);
        rows.push(Row {
            kind: kind.to_string(),
            name: op.to_string(),
            address: p
                .direct
                .parameters
                .get("address")
                .and_then(|a| a.as_str())
                .unwrap_or_default()
                .to_string(),
            input: input.to_string(),
            nominal_gas: p.nominal_gas,
            direct_ns: direct,
            bytecode_ns: bytecode.map(|(e, _)| e),
            bytecode_paired: bytecode.is_some_and(|(_, paired)| paired),
            calculated_gas,
            bytecode_gas,
            second: second_rate.map(|rate| Estimate {
                value: direct.value * rate.value,
                lower: direct.lower * rate.lower,
                upper: direct.upper * rate.upper,
            }),
            // gas / ns = Ggas/s; × 1000 = MGas/s.
            mgas_per_s: direct.inverse(p.nominal_gas as f64 * 1000.0),
            flag,
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dyno_format::{VerificationStatus, fixture};
    use dyno_stats::{Interval, LinearFit};

    /// A passed revm result fitted with `slope` ns per operation, ± `half`.
    fn result(id: &str, slope: f64, half: f64) -> BenchResult {
        let mut r = fixture::result(id, "revm", None);
        r.baseline = true;
        r.verification.status = VerificationStatus::Passed;
        r.fit = Some(LinearFit {
            slope,
            intercept: 0.0,
            slope_ci: Interval {
                lower: slope - half,
                upper: slope + half,
                level: 0.95,
            },
            intercept_ci: Interval {
                lower: 0.0,
                upper: 0.0,
                level: 0.95,
            },
            r_squared: 1.0,
            n: 10,
        });
        r
    }

    fn run() -> Vec<BenchResult> {
        vec![
            result(ANCHOR_ID, 30_000.0, 300.0),
            result("precompile/sha256/32B", 300.0, 3.0),
            result("precompile/bn254-pairing/one_point", 3_000_000.0, 0.0),
            result("precompile-bytecode/sha256/32B", 500.0, 4.0),
            result(NOOP_ID, 150.0, 3.0),
        ]
    }

    fn priced(results: &[BenchResult]) -> Vec<Priced<'_>> {
        [(0, 3000), (1, 72), (2, 79_000)]
            .into_iter()
            .map(|(k, nominal_gas)| Priced {
                direct: &results[k],
                nominal_gas,
            })
            .collect()
    }

    #[test]
    fn gas_formulas_on_known_values() {
        let results = run();
        let rows = table(&priced(&results), &results, None, 2.0).unwrap();
        // The anchor is 3000 by construction.
        assert_eq!(rows[0].calculated_gas, Estimate::exact(3000.0));
        // ECRECOVER: 3000 gas in 30 µs = 100 MGas/s.
        assert!((rows[0].mgas_per_s.value - 100.0).abs() < 1e-9);
        // sha256 32 B: 300 ns × 3000 / 30 000 ns = 30 gas; nominal 72.
        let sha = &rows[1];
        assert!((sha.calculated_gas.value - 30.0).abs() < 1e-9);
        // Its interval pairs 297 ns with 30 300 ns, and 303 with 29 700.
        assert!((sha.calculated_gas.lower - 297.0 * 3000.0 / 30_300.0).abs() < 1e-9);
        assert!((sha.calculated_gas.upper - 303.0 * 3000.0 / 29_700.0).abs() < 1e-9);
        // 72 gas in 300 ns = 240 MGas/s.
        assert!((sha.mgas_per_s.value - 240.0).abs() < 1e-9);
        // 30 / 72 is within a factor 2 of 1 (0.42 < 0.5: overpriced).
        assert_eq!(sha.flag, Some(Pricing::Over));
        // Bytecode: 500 - 150 = 350 ns, half-widths 4 and 3 give 5.
        let b = sha.bytecode_ns.unwrap();
        assert!((b.value - 350.0).abs() < 1e-9 && (b.upper - 355.0).abs() < 1e-9);
        // Pairing: 3 ms = 300 000 calculated gas against 79 000: underpriced.
        assert!((rows[2].calculated_gas.value - 300_000.0).abs() < 1e-6);
        assert_eq!(rows[2].flag, Some(Pricing::Under));
        assert_eq!(rows[2].bytecode_ns, None, "no bytecode result, no column");
        // A looser factor flags neither.
        let loose = table(&priced(&results), &results, None, 4.0).unwrap();
        assert_eq!(loose[1].flag, None);
        assert_eq!(loose[2].flag, None);
    }

    /// A bytecode result whose loop costs `control` + `per_call` ns a call,
    /// sampled at N = 100, 200, 300 (twice), with its control timed beside
    /// each sample at `control` ns a call; `warm` control timings of
    /// warm-up come first.
    fn looped(id: &str, per_call: f64, control: f64, warm: usize) -> BenchResult {
        let mut r = result(id, per_call, 0.0);
        let n = [100u64, 200, 300, 100, 200, 300];
        r.samples = n
            .iter()
            .map(|&iters| dyno_format::Sample {
                iters,
                ns: ((per_call + control) * iters as f64) as u64,
            })
            .collect();
        let mut c: Vec<serde_json::Value> = (0..warm)
            .map(|_| serde_json::json!({"iters": 1, "ns": 5}))
            .collect();
        c.extend(n.iter().map(
            |&iters| serde_json::json!({"iters": iters, "ns": (control * iters as f64) as u64}),
        ));
        r.parameters
            .insert(CONTROL_SAMPLES.into(), serde_json::Value::Array(c));
        r
    }

    #[test]
    fn bytecode_time_is_paired_with_the_control_timed_beside_it() {
        // The loop: 150 ns of control plus 350 ns of sha256 a call. One
        // sample ran with the machine 2.2x slow, loop and control alike;
        // the no-op result, measured on its own minutes earlier, caught a
        // 2x slow spell: 300 ns.
        let mut sha = looped("precompile-bytecode/sha256/32B", 350.0, 150.0, 0);
        let control = sha.parameters[CONTROL_SAMPLES].as_array().unwrap().clone();
        let slow = 2.2;
        sha.samples[3].ns = (sha.samples[3].ns as f64 * slow) as u64;
        let mut control = control;
        control[3]["ns"] =
            (((control[3]["ns"].as_u64().unwrap() as f64) * slow).round() as u64).into();
        sha.parameters
            .insert(CONTROL_SAMPLES.into(), serde_json::Value::Array(control));
        let noop_alone = Some(Estimate::exact(300.0));
        let (e, paired) = bytecode_net(&sha, noop_alone).unwrap();
        assert!(paired);
        assert!((340.0..360.0).contains(&e.value), "{e:?}");
        assert!(e.lower <= e.value && e.value <= e.upper);
        // Unpaired, the same samples against the separate no-op: 200 ns.
        sha.parameters.remove(CONTROL_SAMPLES);
        let (e, paired) = bytecode_net(&sha, noop_alone).unwrap();
        assert!(!paired);
        assert!(e.value < 250.0, "{e:?}");
        // Exactly paired and steady: exactly 350.
        let steady = looped("precompile-bytecode/sha256/32B", 350.0, 150.0, 4);
        let (e, paired) = bytecode_net(&steady, None).unwrap();
        assert!(
            paired,
            "the warm-up's control timings come first and are skipped"
        );
        assert!((e.value - 350.0).abs() < 1.0, "{e:?}");
        // A control whose N do not match the samples is not paired: the
        // separate no-op result is used.
        let mut shifted = steady.clone();
        shifted.samples.rotate_left(1);
        let (e, paired) = bytecode_net(&shifted, Some(Estimate::exact(100.0))).unwrap();
        assert!(!paired);
        assert!((e.value - 400.0).abs() < 1e-6, "{e:?}");
        assert_eq!(bytecode_net(&shifted, None), None, "neither control");
    }

    #[test]
    fn a_call_no_dearer_than_the_control_spans_zero_and_bytecode_gas_has_its_own_anchor() {
        let mut results = run();
        results.retain(|r| r.id != "precompile-bytecode/sha256/32B");
        // ECRECOVER through bytecode: 33 µs beyond the control.
        results.push(looped(
            "precompile-bytecode/ecrecover/ValidKey",
            33_000.0,
            150.0,
            2,
        ));
        // sha256 through bytecode: 330 ns beyond it, so 30 gas.
        results.push(looped("precompile-bytecode/sha256/32B", 330.0, 150.0, 2));
        // The pairing: no dearer than the control, noisy around zero.
        let mut zero = looped("precompile-bytecode/bn254-pairing/one_point", 0.0, 150.0, 0);
        for (s, d) in zero.samples.iter_mut().zip([40i64, -60, 30, -20, 50, -40]) {
            s.ns = (s.ns as i64 + d) as u64;
        }
        results.push(zero);
        let rows = table(&priced(&results), &results, None, 2.0).unwrap();
        assert_eq!(rows[0].bytecode_gas, Some(Estimate::exact(3000.0)));
        assert!(rows[0].bytecode_paired);
        let sha = rows[1].bytecode_gas.unwrap();
        assert!((sha.value - 30.0).abs() < 0.1, "{sha:?}");
        let pairing = rows[2].bytecode_ns.unwrap();
        assert!(pairing.spans_zero(), "{pairing:?}");
        assert!(rows[2].bytecode_gas.unwrap().spans_zero());
        // Without a bytecode ECRECOVER there is no bytecode gas.
        results.retain(|r| r.id != "precompile-bytecode/ecrecover/ValidKey");
        let rows = table(&priced(&results), &results, None, 2.0).unwrap();
        assert!(rows.iter().all(|r| r.bytecode_gas.is_none()));
    }

    #[test]
    fn a_throughput_anchor_prices_time_at_that_rate() {
        let results = run();
        let rows = table(
            &priced(&results),
            &results,
            Some(Anchor::Throughput(60.0)),
            2.0,
        )
        .unwrap();
        // 30 µs at 60 MGas/s = 1800 gas.
        assert!((rows[0].second.unwrap().value - 1800.0).abs() < 1e-9);
    }

    #[test]
    fn the_arithmetic_anchor_is_the_median_opcode_rate() {
        let mut results = run();
        for (name, gas, ns) in [
            ("add", 11.0, 10.0),
            ("mul", 13.0, 10.0),
            ("exp", 100.0, 20.0),
        ] {
            let mut r = result(&format!("opcode/arith-{name}/x"), ns, 0.0);
            r.parameters.insert("gas_per_op".into(), gas.into());
            results.push(r);
        }
        // Rates 1.1, 1.3, 5.0 gas/ns: median 1.3.
        let rate = arithmetic_rate(&results).unwrap();
        assert!((rate.value - 1.3).abs() < 1e-12);
        let rows = table(&priced(&results), &results, Some(Anchor::Arithmetic), 2.0).unwrap();
        assert!((rows[1].second.unwrap().value - 390.0).abs() < 1e-9);
        // Without opcode results the anchor is refused with advice.
        let err = table(&priced(&run()), &run(), Some(Anchor::Arithmetic), 2.0).unwrap_err();
        assert_eq!(err, Error::NoArithmetic);
    }

    #[test]
    fn a_fitted_time_is_robust_to_interrupted_samples() {
        // OLS gave -4.8 µs per call; the samples say ~10 µs.
        let mut r = result("precompile-bytecode/modexp/x", -4820.0, 33_000.0);
        r.samples = fixture::interrupted_fit_samples();
        let e = Estimate::of(&r).unwrap();
        assert!((9_000.0..12_000.0).contains(&e.value), "{e:?}");
        assert!(e.lower <= e.value && e.value <= e.upper);
    }

    #[test]
    fn missing_anchor_and_bad_factor_are_errors() {
        let results = run();
        let p = priced(&results);
        assert_eq!(
            table(&p, &results[1..], None, 2.0).unwrap_err(),
            Error::NoAnchor(ANCHOR_ID.into())
        );
        assert_eq!(
            table(&p, &results, None, 1.0).unwrap_err(),
            Error::Factor(1.0)
        );
    }
}
