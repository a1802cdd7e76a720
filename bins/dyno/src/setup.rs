//! `dyno setup` and `dyno doctor`.

use dyno_lab::{Lab, Outcome};

use crate::cli::{DoctorArgs, SetupArgs};
use crate::print_stdout;

pub(crate) fn setup(lab: &Lab, args: &SetupArgs) -> anyhow::Result<Outcome> {
    // Nothing to save: an interrupt stops the builds under way.
    dyno_lab::interrupt::exit_at_once()?;
    dyno_lab::setup::setup(&lab.paths, &args.runtimes, args.quiet)?;
    Ok(Outcome::Ok)
}

pub(crate) fn doctor(lab: &Lab, args: &DoctorArgs) -> anyhow::Result<Outcome> {
    if args.noise {
        if args.seconds == 0 {
            anyhow::bail!("--seconds 0: watch for at least a second, e.g. --seconds 10");
        }
        eprintln!("dyno doctor: watching the machine for {} s", args.seconds);
        print_stdout(&dyno_lab::setup::noise(std::time::Duration::from_secs(
            args.seconds,
        )))?;
        return Ok(Outcome::Ok);
    }
    print_stdout(&dyno_lab::setup::doctor(lab, args.ids)?)?;
    Ok(Outcome::Ok)
}
