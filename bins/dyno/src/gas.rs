//! `dyno gas`: measure every precompile directly and in bytecode, then set
//! time against the fork's gas schedule.

use anyhow::Context as _;
use dyno_evm::gas::Schedule;
use dyno_evm::pricing::{self, Estimate};
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
            let (specs, catalog) = load_specs(global)?;
            let filter = "precompile,opcode/*";
            let plan = interleave(
                dyno_spec::plan(&specs, Some(filter), None)
                    .into_iter()
                    .filter(|e| e.baseline || e.group != "precompile")
                    .filter(|e| !(args.quick && dyno_evm::precompile::is_heavy(&e.id)))
                    .collect(),
            );
            let measured = measure(
                plan,
                catalog,
                &ctx,
                &Settings::new(args.quick, &args.output),
            )?;
            measured.announce();
            crate::history::save(global, &measured.run, &measured.json, args.output.quiet);
            let outcome = report_problems(&measured.run, &measured.errors, false)?;
            (measured.run, outcome)
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
