//! `dyno check` (a run against a baseline, the CI gate) and `dyno compare`
//! (two runs, benchstat style).

use std::io::IsTerminal;

use dyno_gate::Comparison;
use dyno_lab::{Lab, Outcome};

use crate::cli::{CheckArgs, ColorChoice, CompareArgs, DeltaFormat};
use crate::{print_stdout, use_color};

pub(crate) fn check(lab: &Lab, args: &CheckArgs, color: ColorChoice) -> anyhow::Result<Outcome> {
    let req = args.request();
    let checked = dyno_lab::check::check(lab, &req)?;
    if let Some(why) = &checked.speed_warning {
        eprintln!("dyno: warning: {why}");
    }
    if let Some(result) = &checked.comparison {
        print_stdout(&render(result, args.format, color)?)?;
    }
    Ok(checked.verdict()?)
}

pub(crate) fn compare(
    lab: &Lab,
    args: &CompareArgs,
    color: ColorChoice,
) -> anyhow::Result<Outcome> {
    let c = dyno_lab::check::compare(lab, &args.old, &args.new, args.alpha, args.normalize.into())?;
    print_stdout(&render(&c, args.format, color)?)?;
    Ok(Outcome::Ok)
}

fn render(c: &Comparison, format: DeltaFormat, color: ColorChoice) -> anyhow::Result<String> {
    Ok(match format {
        DeltaFormat::Table => {
            dyno_report::delta::text(c, use_color(color, std::io::stdout().is_terminal()))
        }
        DeltaFormat::Markdown => dyno_report::delta::markdown(c),
        DeltaFormat::Json => serde_json::to_string_pretty(c)? + "\n",
    })
}
