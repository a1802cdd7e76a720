//! `dyno gas --state`: the state suite's accesses priced against every
//! state-access schedule.

use dyno_format::Run;
use dyno_lab::Lab;

use crate::cli::GasArgs;
use crate::print_stdout;

/// The throughput `--state` prices at: `--anchor`'s, or 60 MGas/s.
pub(super) fn anchor(args: &GasArgs) -> anyhow::Result<f64> {
    match args.anchor {
        None => Ok(60.0),
        Some(dyno_format::gas::Anchor::Throughput(m)) => Ok(m),
        Some(other) => anyhow::bail!(
            "--anchor {other}: --state prices against a throughput (e.g. --anchor 60mgas)"
        ),
    }
}

/// Print `run`'s state accesses priced at `mgas`.
pub(super) fn print(lab: &Lab, args: &GasArgs, run: &Run, mgas: f64) -> anyhow::Result<()> {
    let priced = dyno_lab::gas::price_state(lab, run, args.factor, mgas)?;
    print_stdout(&dyno_report::state_gas::render(
        &priced,
        args.output.format.into(),
    ))
}
