//! The state suite priced (`dyno gas --state`): each access's time as
//! calculated gas (against ECRECOVER = 3 000 and a throughput anchor),
//! beside what each schedule of `specs/gas/state/schedules.toml` charges
//! for it, and the exponent of its growth with the state's size.
//!
//! What an access costs under a schedule is data, the `[[access]]` table
//! of that file ([`dyno_spec::state_gas::AccessPrice`]): the access alone,
//! not the loop around it nor the warm read some loops add to prove the
//! access happened (together under 200 gas, revm's `loop_gas` shows them).
//! A result is read from its id alone (`state/<access>/<accounts>[-dropped]`),
//! so a saved run prices without the suite.

use dyno_format::gas::{ANCHOR_GAS, ANCHOR_ID, Estimate};
use dyno_format::state::{Nominal, ScheduleName, StatePricing, StateRow, StateTrend};
use dyno_format::{BenchResult, Run};
use dyno_spec::state_gas::{AccessPrice, StateSchedule};

use crate::Error;

pub use dyno_format::state::GROUP;

/// What schedule `s` charges for access kind `name` alone, by `accesses`
/// (the file's `[[access]]` table); `None` for a kind it does not price.
pub fn nominal(name: &str, s: &StateSchedule, accesses: &[AccessPrice]) -> Option<u64> {
    s.charge(accesses.iter().find(|a| a.name == name)?)
}

/// A row's cache state: the page cache kept, or dropped before each access.
const WARM: &str = "warm";
const EVICTED: &str = "evicted";

/// Price every state-access result of `run` against `schedules`, each
/// access by its entry in `accesses`, the rows in its order.
pub fn price(
    run: &Run,
    schedules: &[StateSchedule],
    accesses: &[AccessPrice],
    throughput_mgas: f64,
    factor: f64,
) -> Result<StatePricing, Error> {
    let timed = |r: &BenchResult| Estimate::of(r);
    let anchor = run
        .results
        .iter()
        .find(|r| r.id == ANCHOR_ID)
        .and_then(timed)
        .ok_or(Error::NoStateAnchor)?;
    let mut rows = Vec::new();
    for r in &run.results {
        let mut parts = r.id.splitn(3, '/');
        let (Some(GROUP), Some(name), Some(input)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let (Some((accounts, evicted)), Some(ns)) =
            (dyno_format::state::input_parts(input), timed(r))
        else {
            continue;
        };
        let calculated_gas = ns.ratio(anchor, ANCHOR_GAS);
        let nominal = schedules
            .iter()
            .filter_map(|s| {
                let gas = nominal(name, s, accesses)?;
                Some(Nominal {
                    schedule: s.name.clone(),
                    gas,
                    pricing: crate::flag(calculated_gas.value, gas, factor),
                })
            })
            .collect();
        rows.push(StateRow {
            access: name.to_string(),
            accounts,
            cache: if evicted { EVICTED } else { WARM }.into(),
            implementation: r.implementation.name.clone(),
            ns,
            loop_gas: r.parameters.get("gas_per_op").and_then(|v| v.as_u64()),
            calculated_gas,
            throughput_gas: ns.scale(throughput_mgas * 1e6 / 1e9),
            disk_reads: r
                .parameters
                .get("major_faults_per_op")
                .and_then(|v| v.as_f64()),
            nominal,
        });
    }
    if rows.is_empty() {
        return Err(Error::NoState);
    }
    let order = |name: &str| {
        accesses
            .iter()
            .position(|a| a.name == name)
            .unwrap_or(usize::MAX)
    };
    // Access, implementation, size, then warm before evicted.
    rows.sort_by_key(|r| {
        (
            order(&r.access),
            r.implementation.clone(),
            r.accounts,
            r.cache != WARM,
        )
    });
    Ok(StatePricing {
        run_id: run.run.id.clone(),
        anchor_ns: anchor,
        throughput_mgas,
        factor,
        schedules: schedules
            .iter()
            .map(|s| ScheduleName {
                name: s.name.clone(),
                status: s.status.clone(),
                source: s.source.clone(),
            })
            .collect(),
        trends: trends(&rows),
        rows,
    })
}

/// The exponent of each access's growth with the state: the least-squares
/// slope of ln(ns) on ln(accounts), with its 95% interval (Student t on
/// n − 2 degrees of freedom: wide with three sizes, as it should be).
pub fn trends(rows: &[StateRow]) -> Vec<StateTrend> {
    let mut out: Vec<StateTrend> = Vec::new();
    for r in rows {
        if out.iter().any(|t| {
            t.access == r.access && t.cache == r.cache && t.implementation == r.implementation
        }) {
            continue;
        }
        let same: Vec<&StateRow> = rows
            .iter()
            .filter(|o| {
                o.access == r.access && o.cache == r.cache && o.implementation == r.implementation
            })
            .filter(|o| o.ns.value > 0.0)
            .collect();
        let x: Vec<f64> = same.iter().map(|o| (o.accounts as f64).ln()).collect();
        let y: Vec<f64> = same.iter().map(|o| o.ns.value.ln()).collect();
        if let Some(fit) = dyno_stats::fit_line(&x, &y, 0.95) {
            out.push(StateTrend {
                access: r.access.clone(),
                cache: r.cache.clone(),
                implementation: r.implementation.clone(),
                exponent: Estimate {
                    value: fit.slope,
                    lower: fit.slope_ci.lower,
                    upper: fit.slope_ci.upper,
                },
                sizes: same.iter().map(|o| o.accounts).collect(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use dyno_format::gas::Pricing;

    fn dir() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs")
    }

    fn schedules() -> Vec<StateSchedule> {
        dyno_spec::state_gas::load(&dir()).unwrap()
    }

    fn accesses() -> Vec<AccessPrice> {
        dyno_spec::state_gas::load_accesses(&dir()).unwrap()
    }

    /// Osaka's prices of the accesses agree with revm's own accounting of
    /// the loops (gas_per_op in the committed run of docs/state.md): what
    /// is left is the loop (64 gas), plus the warm BALANCE and the CALL's
    /// arguments (118) or the warm SLOAD and the SSTORE's operands (105 or
    /// 106).
    #[test]
    fn osaka_prices_match_revms_accounting_of_the_loops() {
        let osaka = &schedules()[0];
        let loop_gas = [
            ("sload-cold", 2164, 64),
            ("sload-missing", 2164, 64),
            ("sload-warm", 164, 64),
            ("balance-cold", 2664, 64),
            ("balance-warm", 164, 64),
            ("extcodesize-cold", 2664, 64),
            ("extcodehash-missing", 2664, 64),
            ("call-value-cold", 9482, 64 + 118),
            ("call-value-warm", 6982, 64 + 118),
            ("sstore-fresh", 22270, 64 + 106),
            ("sstore-modify", 5170, 64 + 106),
            ("sstore-clear", 5169, 64 + 105),
            ("sstore-warm", 270, 64 + 106),
        ];
        for (name, gas, around) in loop_gas {
            assert_eq!(
                nominal(name, osaka, &accesses()),
                Some(gas - around),
                "{name}"
            );
        }
        assert_eq!(nominal("create", osaka, &accesses()), Some(32_000));
        let p = schedules()
            .into_iter()
            .find(|s| s.name == "eip-8038")
            .unwrap();
        assert_eq!(nominal("sload-cold", &p, &accesses()), Some(2100));
        assert_eq!(nominal("balance-cold", &p, &accesses()), Some(3000));
        assert_eq!(nominal("call-value-cold", &p, &accesses()), Some(12_000));
        assert_eq!(nominal("sstore-modify", &p, &accesses()), Some(12_100));
        assert_eq!(nominal("create2", &p, &accesses()), Some(12_000));
        assert_eq!(nominal("no-such-access", &p, &accesses()), None);
    }

    /// A made-up run: SLOAD costs 1, 10 and 100 µs at 10⁴, 10⁵ and 10⁶
    /// accounts, ECRECOVER 27 µs.
    #[test]
    fn a_run_is_priced_flagged_and_its_growth_fitted() {
        use dyno_format::fixture::{result, run};
        let mut results = vec![result(ANCHOR_ID, "libsecp256k1", Some(27_000.0))];
        for (n, ns) in [
            (10_000, 1_000.0),
            (100_000, 10_000.0),
            (1_000_000, 100_000.0),
        ] {
            results.push(result(&format!("state/sload-cold/{n}"), "revm", Some(ns)));
            results.push(result(
                &format!("state/sload-cold/{n}-dropped"),
                "revm",
                Some(ns * 2.0),
            ));
        }
        let priced = price(
            &run("r", results.clone()),
            &schedules(),
            &accesses(),
            60.0,
            2.0,
        )
        .unwrap();
        assert_eq!(priced.rows.len(), 6);
        let first = &priced.rows[0];
        assert_eq!((first.accounts, first.cache.as_str()), (10_000, "warm"));
        assert!((first.calculated_gas.value - 1_000.0 * 3_000.0 / 27_000.0).abs() < 1e-9);
        assert!(
            (first.throughput_gas.value - 60.0).abs() < 1e-9,
            "1 µs at 60 MGas/s"
        );
        assert_eq!(
            first.nominal[0].pricing,
            Some(Pricing::Over),
            "111 gas against 2 100"
        );
        let last = priced
            .rows
            .iter()
            .find(|r| r.accounts == 1_000_000)
            .unwrap();
        assert_eq!(
            last.nominal[0].pricing,
            Some(Pricing::Under),
            "11 111 gas against 2 100"
        );
        assert_eq!(priced.trends.len(), 2);
        for t in &priced.trends {
            assert!((t.exponent.value - 1.0).abs() < 1e-9, "{t:?}");
            assert_eq!(t.sizes, [10_000, 100_000, 1_000_000]);
        }
        // Without the anchor, or without a state result: a clear error.
        let e = price(
            &run("r", results[1..].to_vec()),
            &schedules(),
            &accesses(),
            60.0,
            2.0,
        )
        .unwrap_err();
        assert!(matches!(e, Error::NoStateAnchor));
        let e = price(
            &run("r", results[..1].to_vec()),
            &schedules(),
            &accesses(),
            60.0,
            2.0,
        )
        .unwrap_err();
        assert!(e.to_string().contains("dyno run state"), "{e}");
    }
}
