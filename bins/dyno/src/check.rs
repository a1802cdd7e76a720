//! `dyno check` (a run against a baseline, the CI gate) and `dyno compare`
//! (two runs, benchstat style).

use std::io::IsTerminal;
use std::time::Duration;

use dyno_gate::{Comparison, Options, Verdict};
use dyno_lab::check::Request;
use dyno_lab::{Lab, Outcome};

use crate::cli::{CheckArgs, ColorChoice, CompareArgs, DeltaFormat};
use crate::{print_stdout, use_color};

pub(crate) fn check(lab: &Lab, args: &CheckArgs, color: ColorChoice) -> anyhow::Result<Outcome> {
    let req = Request {
        baseline: &args.baseline,
        run: args.run.as_deref(),
        opts: Options {
            alpha: args.alpha,
            threshold: args.threshold,
            normalize: args.normalize.into(),
            reference: args.reference.clone(),
            metric: args.metric.into(),
            ..Options::default()
        },
        remeasure: if args.no_remeasure { 0 } else { args.remeasure },
        gap: Duration::from_secs(args.remeasure_gap),
        quiet: args.quiet,
    };
    let checked = dyno_lab::check::check(lab, &req)?;
    if let Some(why) = &checked.speed_warning {
        eprintln!("dyno: warning: {why}");
    }
    let Some(result) = checked.comparison else {
        return Ok(Outcome::Failed);
    };
    print_stdout(&render(&result, args.format, color)?)?;
    for w in &checked.wrong {
        eprintln!("dyno: WRONG result: {w}");
    }
    let regressed = result.count(Verdict::Regressed);
    if regressed > 0 {
        eprintln!("dyno: {regressed} confirmed regression(s)");
    }
    if regressed > 0 || !checked.wrong.is_empty() {
        return Ok(Outcome::Failed);
    }
    // A gate that did not see every benchmark has not passed.
    if let Some(why) = checked.incomplete {
        anyhow::bail!(
            "the check is incomplete: {why}, so {} of {} benchmarks have insufficient data; \
             the gate did not pass",
            result.count(Verdict::Insufficient),
            result.rows.len()
        );
    }
    Ok(Outcome::Ok)
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
