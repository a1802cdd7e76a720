//! `dyno run`: measure what a filter selects, save it, print a table.

use std::io::IsTerminal;

use dyno_format::destination::Destination;
use dyno_lab::session::{self, Selected, Settings};
use dyno_lab::{Lab, Outcome, callgrind, history};

use crate::cli::{ColorChoice, Output, RunArgs};
use crate::{print_stdout, use_color};

pub(crate) fn run(lab: &Lab, args: &RunArgs, color: ColorChoice) -> anyhow::Result<Outcome> {
    session::check_knobs()?;
    history::check_location(&lab.paths)?;
    let settings = settings(args.quick, &args.output)?;
    if args.instructions {
        callgrind::check_valgrind()?;
        if settings.out == Some(Destination::Stdout) {
            anyhow::bail!(
                "-o - with --instructions: the counts are added after the run is written; \
                 give -o a file name"
            );
        }
    }
    let what = Selected {
        filter: args.filter.as_deref(),
        impls: args.impls.as_deref(),
        only: None,
        quick: args.quick,
    };
    let mut measured = session::select_and_measure(lab, &what, &settings)?;
    if args.instructions {
        callgrind::count_run(lab, &mut measured.run, args.output.quiet)?;
        measured.rewrite()?;
    }
    measured.keep(&lab.paths, args.output.quiet);
    if measured.json != Destination::Stdout {
        let color = use_color(color, std::io::stdout().is_terminal());
        let format = args.output.format.into();
        print_stdout(&dyno_report::render(&measured.run, format, color))?;
    }
    let outcome = session::report_problems(&measured.run, &measured.errors, args.fail_on_target);
    measured.check_written()?;
    Ok(outcome?)
}

/// The session's settings from the shared output flags.
pub(crate) fn settings(quick: bool, o: &Output) -> anyhow::Result<Settings> {
    Ok(Settings::new(quick, o.samples, o.out.as_deref(), o.quiet)?)
}
