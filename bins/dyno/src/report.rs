//! `dyno report`: one self-contained HTML page, a Markdown comment, or an
//! export (CSV, JSON, Bencher's BMF, Go's benchmark text) of saved runs.

use std::path::Path;

use dyno_format::Run;
use dyno_format::destination::Destination;
use dyno_lab::{Lab, Outcome};
use dyno_report::Format;

use crate::cli::{ReportArgs, ReportFormat};
use crate::print_stdout;

pub(crate) fn report(lab: &Lab, args: &ReportArgs) -> anyhow::Result<Outcome> {
    let dest = match &args.out {
        Some(path) => Destination::check(path).map_err(|e| anyhow::anyhow!("-o: {e}"))?,
        None => Destination::Stdout,
    };
    if let Some(out) = dest.path()
        && let Some(what) = args
            .runs
            .iter()
            .find(|w| dyno_lab::report::same_file(Path::new(w), out))
    {
        anyhow::bail!(
            "-o {}: that is also the input {what}, which the report would overwrite; \
             choose another name",
            out.display()
        );
    }
    let runs = dyno_lab::report::runs(lab, &args.runs)?;
    let one = |f: fn(&Run) -> String| -> String { runs.iter().map(|(r, _)| f(r)).collect() };
    let single = |what: &str| match runs.len() {
        1 => Ok(()),
        _ => Err(anyhow::anyhow!("{what}")),
    };
    let text = match args.format {
        ReportFormat::Html => {
            let trend_runs = args.trend_runs as usize;
            dyno_lab::report::html(lab, &runs, &args.fork, &args.trend, trend_runs)?
        }
        ReportFormat::Markdown => runs
            .iter()
            .map(|(r, _)| dyno_report::markdown::render(r))
            .collect::<Vec<_>>()
            .join("\n---\n\n"),
        ReportFormat::Csv => one(|r| dyno_report::render(r, Format::Csv, false)),
        ReportFormat::Json => {
            single("--format json writes one run; give one RUN (or use --format csv)")?;
            one(|r| dyno_report::render(r, Format::Json, false))
        }
        ReportFormat::Bmf => {
            single("--format bmf writes one run's metrics; give one RUN")?;
            one(dyno_report::bmf::render)
        }
        ReportFormat::Gobench => {
            single(
                "--format gobench writes one run: benchstat would pool several runs' samples \
                 as one; write one file per run and give them to benchstat side by side",
            )?;
            one(dyno_report::gobench::render)
        }
    };
    match dest {
        Destination::Stdout => print_stdout(&text)?,
        dest => {
            dest.write(text.as_bytes())?;
            eprintln!("dyno: wrote {dest}");
        }
    }
    Ok(Outcome::Ok)
}
