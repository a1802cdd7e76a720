//! `dyno adapter check` and `dyno adapter new`.

use dyno_lab::{Lab, Outcome};

use crate::cli::{AdapterAction, AdapterArgs};
use crate::print_stdout;

pub(crate) fn adapter(lab: &Lab, args: &AdapterArgs) -> anyhow::Result<Outcome> {
    match &args.action {
        AdapterAction::Check {
            dir,
            quiet,
            write_offers,
        } => {
            let quiet = *quiet;
            // Nothing to save: an interrupt stops its setup and workers.
            dyno_lab::interrupt::exit_at_once()?;
            let report = dyno_lab::conformance::check(lab, dir, *write_offers, |line| {
                if !quiet {
                    eprintln!("{line}");
                }
            });
            print_stdout(&report.render())?;
            Ok(if report.failed() {
                Outcome::Failed
            } else {
                Outcome::Ok
            })
        }
        AdapterAction::New { runtime, dir } => {
            let written = dyno_lab::scaffold::new(&lab.paths, runtime, dir)?;
            eprintln!(
                "dyno adapter new: wrote a {runtime} adapter in {} ({} files); next: `dyno adapter check {}`",
                dir.display(),
                written,
                dir.display()
            );
            Ok(Outcome::Ok)
        }
    }
}
