//! `dyno gas`: measure every precompile directly and in bytecode, then set
//! time against the fork's gas schedule.

use anyhow::Context as _;
use dyno_evm::gas::Schedule;
use dyno_evm::pricing::{self, Estimate};
use dyno_format::destination::Destination;
use dyno_format::{BenchResult, Run};
use dyno_report::gas::GasTable;

use crate::cli::{GasArgs, Global};
use crate::run::{Settings, context, measure, report_problems};
use crate::{Outcome, data_dir, load_specs, print_stdout};

pub(crate) fn gas(global: &Global, args: &GasArgs) -> anyhow::Result<Outcome> {
    let specs_dir = data_dir(global.specs.as_deref(), "specs");
    // Check the fork first: a typo should not cost a minute of measuring.
    let schedule = Schedule::for_fork(&specs_dir, &args.fork).context("--fork")?;
    if args.factor.is_nan() || args.factor <= 1.0 {
        anyhow::bail!(
            "--factor {} cannot flag anything: give a factor above 1, e.g. 2",
            args.factor
        );
    }
    let ctx = context(global);
    let (run, outcome) = match &args.from {
        Some(path) => (Run::read(path)?, Outcome::Ok),
        None => {
            let settings = Settings::new(args.quick, &args.output)?;
            crate::history::check_location(global)?;
            if settings.out == Some(Destination::Stdout) {
                anyhow::bail!(
                    "-o -: `dyno gas` prints its table on stdout; give -o a file for the \
                     run's JSON (or price a saved run with --from)"
                );
            }
            let (specs, catalog) = load_specs(global)?;
            let measured = measure(gas_plan(&specs, args.quick), catalog, &ctx, &settings)?;
            measured.announce();
            crate::history::save(global, &measured.run, measured.file(), args.output.quiet);
            let outcome = report_problems(&measured.run, &measured.errors, false);
            measured.check_written()?;
            (measured.run, outcome?)
        }
    };

    let (rows, left_out) =
        pricing::price_run(&run.results, &schedule, &ctx, args.anchor, args.factor)
            .with_context(|| format!("pricing run {}", run.run.id))?;
    for why in left_out {
        eprintln!("dyno: left out {why}");
    }
    let table = GasTable {
        fork: &args.fork,
        factor: args.factor,
        second_anchor: args.anchor,
        anchor_ns: timed(&run.results, pricing::ANCHOR_ID).expect("priced rows imply an anchor"),
        noop_ns: timed(&run.results, pricing::NOOP_ID),
        rows: &rows,
        run_id: &run.run.id,
    };
    print_stdout(&dyno_report::gas::render(&table, args.output.format.into()))?;
    Ok(outcome)
}

/// What `dyno gas` measures: every precompile input called directly (its
/// baseline implementation) and through bytecode, and the opcodes. Each
/// group is named: a group's name selects that group only, so
/// `precompile` alone would not reach `precompile-bytecode`.
fn gas_plan(specs: &[dyno_spec::Spec], quick: bool) -> Vec<dyno_spec::PlanEntry> {
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
        let specs = dyno_spec::load_dir(&dir).unwrap();
        for quick in [false, true] {
            let plan = gas_plan(&specs, quick);
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
