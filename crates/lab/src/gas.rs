//! The gas session: measure every precompile directly and in bytecode,
//! beside the opcodes, then set time against a fork's gas schedule.

use dyno_format::{BenchResult, Run};
use dyno_price::precompile::{self as pricing, Estimate};
pub use dyno_spec::gas::Schedule;

use crate::error::Context as _;
use crate::paths::Lab;
use crate::session::{self, Measured, Settings};
use crate::suites::load_specs;

/// Measure what `dyno gas` prices (see [`plan`]), saving as a session
/// does.
pub fn measure(lab: &Lab, how: &Settings) -> crate::Result<Measured> {
    let (specs, catalog) = load_specs(&lab.paths)?;
    session::measure(lab, plan(&specs, how.quick), catalog, &lab.paths.ctx(), how)
}

/// The gas schedule of `fork` (specs/gas/FORK.toml); an unknown fork is
/// an error naming the known ones.
pub fn schedule(lab: &Lab, fork: &str) -> crate::Result<Schedule> {
    Schedule::for_fork(&lab.paths.specs, fork).context("--fork")
}

/// A run priced against a fork's schedule.
#[derive(Debug)]
pub struct Priced {
    pub rows: Vec<dyno_format::gas::Row>,
    /// What could not be priced, and why.
    pub left_out: Vec<String>,
    /// ECRECOVER's time, the anchor of calculated gas.
    pub anchor_ns: Estimate,
    /// The bytecode loop's no-op control, if measured.
    pub noop_ns: Option<Estimate>,
}

/// Price `run`'s precompiles against `schedule`: with the nominal gas each
/// result recorded when it was measured, else (`from_vectors`, for `dyno
/// gas`) from the input in the vectors ([`with_nominal_gas`]); a report
/// passes `false` and reads the run alone.
pub fn price(
    lab: &Lab,
    run: &Run,
    schedule: &Schedule,
    anchor: Option<dyno_format::gas::Anchor>,
    factor: f64,
    from_vectors: bool,
) -> crate::Result<Priced> {
    let (results, mut left_out) = match from_vectors {
        true => with_nominal_gas(&lab.paths.ctx(), &run.results, schedule),
        false => (run.results.clone(), Vec::new()),
    };
    let (rows, more) = pricing::price_run(&results, &schedule.fork, anchor, factor)
        .with_context(|| format!("pricing run {}", run.run.id))?;
    left_out.extend(more);
    Ok(Priced {
        rows,
        left_out,
        anchor_ns: timed(&results, pricing::ANCHOR_ID).expect("priced rows imply an anchor"),
        noop_ns: timed(&results, pricing::NOOP_ID),
    })
}

/// `results` with every direct-mode precompile result that recorded no
/// nominal gas for `schedule`'s fork given it, priced from its input in
/// the vectors (a run measured before results recorded their gas, or
/// without that fork's schedule). A result whose input cannot be priced is
/// left out and listed with the reason; one that is not a precompile input
/// of the suite is left out silently.
pub fn with_nominal_gas(
    ctx: &dyno_workload::Ctx,
    results: &[BenchResult],
    schedule: &Schedule,
) -> (Vec<BenchResult>, Vec<String>) {
    let mut left_out = Vec::new();
    let mut out = Vec::with_capacity(results.len());
    for r in results {
        let recorded = r
            .parameters
            .get(pricing::NOMINAL_GAS)
            .and_then(|m| m.get(&schedule.fork))
            .is_some();
        if r.group() != "precompile" || !r.baseline || recorded {
            out.push(r.clone());
            continue;
        }
        let Some(found) = dyno_evm::precompile::input_of(ctx, &r.id) else {
            continue;
        };
        let gas = found
            .map_err(|e| e.to_string())
            .and_then(|(op, input)| schedule.nominal_gas(op, &input).map_err(|e| e.to_string()));
        match gas {
            Ok(g) => {
                let mut r = r.clone();
                let by_fork = r
                    .parameters
                    .entry(pricing::NOMINAL_GAS.to_string())
                    .or_insert_with(|| serde_json::json!({}));
                if !by_fork.is_object() {
                    *by_fork = serde_json::json!({});
                }
                by_fork[&schedule.fork] = serde_json::json!(g);
                out.push(r);
            }
            Err(e) => left_out.push(format!("{}: {e}", r.id)),
        }
    }
    (out, left_out)
}

/// What `dyno gas` (`state`: `--state`) prices, measured now: the run
/// kept (where its files went said, the history saved), its wrong results
/// and build errors reported, the files checked; with how it ended.
pub fn measure_kept(
    lab: &Lab,
    how: &Settings,
    state: bool,
) -> crate::Result<(Run, crate::Outcome)> {
    crate::history::check_location(&lab.paths)?;
    let measured = if state {
        measure_state(lab, how)?
    } else {
        measure(lab, how)?
    };
    measured.keep(&lab.paths, how.quiet);
    let outcome = session::report_problems(&measured.run, &measured.errors, false);
    measured.check_written()?;
    Ok((measured.run, outcome?))
}

/// Measure what `dyno gas --state` prices: the state suite at its
/// default sizes (ECRECOVER, the anchor, is measured by every run).
pub fn measure_state(lab: &Lab, how: &Settings) -> crate::Result<Measured> {
    let (specs, catalog) = load_specs(&lab.paths)?;
    let plan = dyno_spec::plan(&specs, Some(dyno_state::bench::GROUP));
    session::measure(lab, plan, catalog, &lab.paths.ctx(), how)
}

/// Price `run`'s state accesses against every schedule of
/// `specs/gas/state/schedules.toml`, with a throughput anchor of
/// `throughput_mgas`.
pub fn price_state(
    lab: &Lab,
    run: &Run,
    factor: f64,
    throughput_mgas: f64,
) -> crate::Result<dyno_format::state::StatePricing> {
    let schedules =
        dyno_spec::state_gas::load(&lab.paths.specs).context("state-access schedules")?;
    let accesses =
        dyno_spec::state_gas::load_accesses(&lab.paths.specs).context("state-access prices")?;
    dyno_price::state::price(run, &schedules, &accesses, throughput_mgas, factor)
        .with_context(|| format!("pricing run {}", run.run.id))
}

/// What `dyno gas` measures: every precompile input called directly (its
/// baseline implementation) and through bytecode, and the opcodes. Each
/// group is named: a group's name selects that group only, so
/// `precompile` alone would not reach `precompile-bytecode`.
pub fn plan(specs: &[dyno_spec::Spec], quick: bool) -> Vec<dyno_spec::PlanEntry> {
    let filter = format!("precompile,{},opcode/*", dyno_evm::bytecode::GROUP);
    interleave(
        dyno_spec::plan(specs, Some(&filter))
            .into_iter()
            .filter(|e| e.baseline || e.group != "precompile")
            .filter(|e| !(quick && dyno_evm::precompile::is_heavy(&e.id)))
            .collect(),
    )
}

/// Each input's direct call, then its bytecode loop, so that the two are
/// measured close together (this machine's speed drifts over minutes); the
/// no-op control first, anything else last.
fn interleave(plan: Vec<dyno_spec::PlanEntry>) -> Vec<dyno_spec::PlanEntry> {
    let (direct, mut rest): (Vec<_>, Vec<_>) =
        plan.into_iter().partition(|e| e.group == "precompile");
    let mut ordered: Vec<_> = rest
        .iter()
        .position(|e| e.id == pricing::NOOP_ID)
        .map(|k| rest.remove(k))
        .into_iter()
        .collect();
    for d in direct {
        let twin = format!("{}/{}/{}", dyno_evm::bytecode::GROUP, d.op, d.input);
        let found = rest.iter().position(|e| e.id == twin);
        ordered.push(d);
        if let Some(k) = found {
            ordered.push(rest.remove(k));
        }
    }
    ordered.extend(rest);
    ordered
}

fn timed(results: &[BenchResult], id: &str) -> Option<Estimate> {
    results
        .iter()
        .filter(|r| r.id == id && r.baseline)
        .find_map(Estimate::of)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The regression of 8c7ba3a: the plan held no bytecode loop at all.
    #[test]
    fn every_direct_input_is_followed_by_its_bytecode_loop_quick_or_not() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs");
        let paths = crate::Paths::from_flags(
            crate::paths::Flags {
                specs: Some(dir),
                ..Default::default()
            },
            |_| None,
        )
        .unwrap();
        let (specs, _) = load_specs(&paths).unwrap();
        for quick in [false, true] {
            let plan = plan(&specs, quick);
            let direct: Vec<_> = plan.iter().filter(|e| e.group == "precompile").collect();
            assert!(
                direct.len() > 20,
                "quick {quick}: {} direct inputs",
                direct.len()
            );
            for d in direct {
                let twin = format!("{}/{}/{}", dyno_evm::bytecode::GROUP, d.op, d.input);
                let at = plan.iter().position(|e| e.id == d.id).unwrap();
                assert_eq!(
                    plan.get(at + 1).map(|e| e.id.as_str()),
                    Some(twin.as_str()),
                    "quick {quick}: {} is not followed by its bytecode loop",
                    d.id
                );
            }
            assert!(
                plan.iter().any(|e| e.id == pricing::NOOP_ID),
                "quick {quick}: no bytecode no-op control"
            );
            assert!(
                plan.iter().any(|e| e.group == "opcode"),
                "quick {quick}: no opcodes"
            );
        }
    }
}
