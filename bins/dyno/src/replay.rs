//! `dyno replay`: the replay's flags in, its tables or JSON out.

use std::time::Duration;

use dyno_lab::replay::{self, Request};
use dyno_lab::{Lab, Outcome};

use crate::cli::{LoadFormat, ReplayArgs};

pub(crate) fn replay(lab: &Lab, args: &ReplayArgs) -> anyhow::Result<Outcome> {
    let out = dyno_lab::session::result_file(args.output.out.as_deref(), "the replay")?;
    let req = Request {
        clients: args.client.clone(),
        client_cmd: args.client_cmd.clone(),
        against: args.against.clone(),
        against_cmd: args.against_cmd.clone(),
        sets: args.sets.clone(),
        fork: args.fork,
        blocks: args.blocks,
        warmup: args.warmup,
        pairs: args.pairs,
        floor: args.floor,
        confidence: args.confidence,
        call_timeout: Duration::from_secs(args.call_timeout.max(1)),
        quick: args.quick,
        out,
        quiet: args.output.quiet,
    };
    if let Some(dir) = &args.export {
        let written = replay::export(lab, &req, dir)?;
        let lines: String = written
            .iter()
            .map(|d| format!("{}\n", d.display()))
            .collect();
        crate::print_stdout(&lines)?;
        return Ok(Outcome::Ok);
    }
    let done = replay::run(lab, &req)?;
    let run = &done.measured.run;
    let text = match args.output.format {
        LoadFormat::Table => dyno_report::replay::table(run),
        LoadFormat::Json => run.to_json(),
        LoadFormat::Markdown => dyno_report::replay::markdown(run),
    };
    crate::deliver(lab, &done.measured, args.output.quiet, &text)?;
    if let Some(e) = done.failure {
        return Err(e.into());
    }
    done.measured.check_written()?;
    Ok(Outcome::Ok)
}
