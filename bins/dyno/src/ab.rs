//! `dyno ab`: its flags in, its table or JSON out.

use dyno_lab::ab::{self, Base, Request};
use dyno_lab::{Lab, Outcome};

use crate::cli::{AbArgs, LoadFormat};

pub(crate) fn ab(lab: &Lab, args: &AbArgs) -> anyhow::Result<Outcome> {
    let base = Base::from_flags(
        args.base.as_deref(),
        args.base_rev.as_deref(),
        args.base_adapter.as_deref(),
    )?;
    let out = dyno_lab::session::result_file(args.output.out.as_deref(), "dyno ab")?;
    let req = Request {
        base,
        filter: args.filter.clone(),
        quick: args.quick,
        passes: args.passes,
        threshold: args.threshold,
        out,
        quiet: args.output.quiet,
    };
    let done = ab::run(lab, &req)?;
    let run = &done.measured.run;
    let text = match args.output.format {
        LoadFormat::Table => dyno_report::paired::table(run),
        LoadFormat::Json => run.to_json(),
        LoadFormat::Markdown => dyno_report::paired::markdown(run),
    };
    crate::deliver(lab, &done.measured, args.output.quiet, &text)?;
    if let Some(e) = done.failure {
        return Err(e.into());
    }
    done.measured.check_written()?;
    Ok(if done.failed {
        Outcome::Failed
    } else {
        Outcome::Ok
    })
}
