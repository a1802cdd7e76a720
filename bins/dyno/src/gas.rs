//! `dyno gas`: three tables behind one name. Each precompile's and
//! opcode's time against a fork's gas schedule (`table`), the state
//! suite's accesses against every state-access schedule (`--state`), and
//! one operation's cost inside each client (`--blocks`). The first two
//! measure (or read `--from`) the same way; this file checks the flags and
//! measures, each table's file prices and prints.

use dyno_format::Run;
use dyno_format::destination::Destination;
use dyno_lab::{Lab, Outcome};

use crate::cli::GasArgs;

mod blocks;
mod state;
mod table;

pub(crate) fn gas(lab: &Lab, args: &GasArgs) -> anyhow::Result<Outcome> {
    // Check the fork and the anchor first: a typo should not cost a minute
    // of measuring.
    let schedule = dyno_lab::gas::schedule(lab, &args.fork)?;
    if args.factor.is_nan() || args.factor <= 1.0 {
        anyhow::bail!(
            "--factor {} cannot flag anything: give a factor above 1, e.g. 2",
            args.factor
        );
    }
    if args.blocks {
        return blocks::blocks(lab, args);
    }
    let state_mgas = args.state.then(|| state::anchor(args)).transpose()?;
    let (run, outcome) = match &args.from {
        Some(path) => (Run::read(path)?, Outcome::Ok),
        None => {
            let settings = crate::run::settings(args.quick, &args.output)?;
            if settings.out == Some(Destination::Stdout) {
                anyhow::bail!(
                    "-o -: `dyno gas` prints its table on stdout; give -o a file for the \
                     run's JSON (or price a saved run with --from)"
                );
            }
            dyno_lab::gas::measure_kept(lab, &settings, args.state)?
        }
    };
    match state_mgas {
        Some(mgas) => state::print(lab, args, &run, mgas)?,
        None => table::print(lab, args, &run, &schedule)?,
    }
    Ok(outcome)
}
