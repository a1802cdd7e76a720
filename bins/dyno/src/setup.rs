//! `dyno setup` and `dyno doctor`.

use dyno_lab::{Lab, Outcome};

use crate::cli::{DoctorArgs, SetupArgs};
use crate::print_stdout;

pub(crate) fn setup(lab: &Lab, args: &SetupArgs) -> anyhow::Result<Outcome> {
    dyno_lab::setup::setup(&lab.paths, &args.runtimes, args.quiet)?;
    Ok(Outcome::Ok)
}

pub(crate) fn doctor(lab: &Lab, args: &DoctorArgs) -> anyhow::Result<Outcome> {
    print_stdout(&dyno_lab::setup::doctor(lab, args.ids))?;
    Ok(Outcome::Ok)
}
