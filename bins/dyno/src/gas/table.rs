//! `dyno gas`: every precompile input's and opcode's time against a fork's
//! gas schedule, as calculated gas beside nominal gas.

use dyno_format::Run;
use dyno_lab::Lab;
use dyno_lab::gas::Schedule;
use dyno_report::gas::GasTable;

use crate::cli::GasArgs;
use crate::print_stdout;

/// Print `run` priced against `schedule` (from the vectors where a result
/// recorded no gas for it), saying what was left out and why.
pub(super) fn print(
    lab: &Lab,
    args: &GasArgs,
    run: &Run,
    schedule: &Schedule,
) -> anyhow::Result<()> {
    let priced = dyno_lab::gas::price(lab, run, schedule, args.anchor, args.factor, true)?;
    for why in &priced.left_out {
        eprintln!("dyno: left out {why}");
    }
    let table = GasTable {
        fork: &args.fork,
        factor: args.factor,
        second_anchor: args.anchor,
        anchor_ns: priced.anchor_ns,
        noop_ns: priced.noop_ns,
        rows: &priced.rows,
        run_id: &run.run.id,
    };
    print_stdout(&dyno_report::gas::render(&table, args.output.format.into()))
}
