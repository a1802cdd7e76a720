//! `dyno report`: one self-contained HTML page, a Markdown comment, or an
//! export (CSV, JSON, Bencher's BMF, Go's benchmark text) of saved runs.

use dyno_format::destination::Destination;
use dyno_lab::{Lab, Outcome};
use dyno_report::bmf::Bmf;
use dyno_report::gobench::Gobench;
use dyno_report::markdown::Markdown;
use dyno_report::{Export, Format};

use crate::cli::{ReportArgs, ReportFormat};
use crate::print_stdout;

pub(crate) fn report(lab: &Lab, args: &ReportArgs) -> anyhow::Result<Outcome> {
    let dest = dyno_lab::report::destination(args.out.as_deref(), &args.runs)?;
    let runs = dyno_lab::report::runs(lab, &args.runs)?;
    let exporter: Box<dyn Export> = match args.format {
        ReportFormat::Html => {
            let trend_runs = args.trend_runs as usize;
            let page = dyno_lab::report::html(lab, &runs, &args.fork, &args.trend, trend_runs)?;
            return write(dest, &page);
        }
        ReportFormat::Markdown => Box::new(Markdown),
        ReportFormat::Csv => Format::Csv.exporter(false),
        ReportFormat::Json => Format::Json.exporter(false),
        ReportFormat::Bmf => Box::new(Bmf),
        ReportFormat::Gobench => Box::new(Gobench),
    };
    if runs.len() > 1
        && let Some(why) = exporter.one_run_only()
    {
        anyhow::bail!("{why}");
    }
    let texts: Vec<String> = runs.iter().map(|(r, _)| exporter.render(r)).collect();
    // Markdown documents are separated by a rule; CSV rows simply follow.
    let sep = if args.format == ReportFormat::Markdown {
        "\n---\n\n"
    } else {
        ""
    };
    write(dest, &texts.join(sep))
}

/// Write the report to stdout or the checked destination.
fn write(dest: Destination, text: &str) -> anyhow::Result<Outcome> {
    match dest {
        Destination::Stdout => print_stdout(text)?,
        dest => {
            dest.write(text.as_bytes())?;
            eprintln!("dyno: wrote {dest}");
        }
    }
    Ok(Outcome::Ok)
}
