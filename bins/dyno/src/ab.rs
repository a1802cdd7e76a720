//! `dyno ab`: its flags in, its table or JSON out.

use std::path::PathBuf;

use dyno_lab::ab::{self, Base, Request};
use dyno_lab::{Lab, Outcome};

use crate::cli::{AbArgs, LoadFormat};

pub(crate) fn ab(lab: &Lab, args: &AbArgs) -> anyhow::Result<Outcome> {
    let base = match (&args.base, &args.base_adapter) {
        (Some(path), None) => Base::Binary(path.clone()),
        (None, None) if args.base_rev.is_some() => {
            Base::Revision(args.base_rev.clone().unwrap_or_default())
        }
        (None, Some(spec)) => {
            let (runtime, dir) = spec.split_once('=').ok_or_else(|| {
                anyhow::anyhow!(
                    "--base-adapter {spec:?}: write RUNTIME=FOLDER, e.g. go=/tmp/go-old (a folder \
                     adapters/go/setup installed into)"
                )
            })?;
            Base::Adapter {
                runtime: runtime.trim().to_string(),
                home: PathBuf::from(dir),
            }
        }
        _ => anyhow::bail!(
            "dyno ab needs the other side: --base PATH (another dyno binary), --base-rev REV (the \
             dyno of a git revision) or --base-adapter RUNTIME=FOLDER (another install of an \
             adapter); see `dyno ab --help`"
        ),
    };
    let out = crate::result_file(&args.output, "dyno ab")?;
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
