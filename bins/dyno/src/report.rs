//! `dyno report`: one self-contained HTML page, a Markdown comment, or an
//! export (CSV, JSON, Bencher's BMF, Go's benchmark text) of saved runs.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use dyno_format::Run;
use dyno_format::destination::Destination;
use dyno_report::html::{GasInput, HtmlInput, RunInput, Trend, TrendPoint};

use crate::cli::{Global, ReportArgs, ReportFormat};
use crate::{Outcome, data_dir, history, print_stdout};

pub(crate) fn report(global: &Global, args: &ReportArgs) -> anyhow::Result<Outcome> {
    let dest = match &args.out {
        Some(path) => Destination::check(path).map_err(|e| anyhow::anyhow!("-o: {e}"))?,
        None => Destination::Stdout,
    };
    if let Some(out) = dest.path() {
        for what in &args.runs {
            if same_file(Path::new(what), out) {
                anyhow::bail!(
                    "-o {}: that is also the input {what}, which the report would overwrite; \
                     choose another name",
                    out.display()
                );
            }
        }
    }
    let mut runs: Vec<(Run, Option<PathBuf>)> = Vec::new();
    for what in &args.runs {
        let (run, _) = history::resolve_run(global, what)?;
        let dir = Path::new(what)
            .is_file()
            .then(|| Path::new(what).parent().map(Path::to_path_buf))
            .flatten();
        runs.push((run, dir));
    }
    let one = |f: fn(&Run) -> String| -> String { runs.iter().map(|(r, _)| f(r)).collect() };
    let text = match args.format {
        ReportFormat::Html => html(global, args, &runs)?,
        ReportFormat::Markdown => runs
            .iter()
            .map(|(r, _)| dyno_report::markdown::render(r))
            .collect::<Vec<_>>()
            .join("\n---\n\n"),
        ReportFormat::Csv => one(|r| dyno_report::render(r, dyno_report::Format::Csv, false)),
        ReportFormat::Json => {
            if runs.len() > 1 {
                anyhow::bail!("--format json writes one run; give one RUN (or use --format csv)");
            }
            one(|r| dyno_report::render(r, dyno_report::Format::Json, false))
        }
        ReportFormat::Bmf => {
            if runs.len() > 1 {
                anyhow::bail!("--format bmf writes one run's metrics; give one RUN");
            }
            one(dyno_report::bmf::render)
        }
        ReportFormat::Gobench => {
            if runs.len() > 1 {
                anyhow::bail!(
                    "--format gobench writes one run: benchstat would pool several runs' samples \
                     as one; write one file per run and give them to benchstat side by side"
                );
            }
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

/// Whether two paths name one existing file (through links and `..`).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

fn html(
    global: &Global,
    args: &ReportArgs,
    runs: &[(Run, Option<PathBuf>)],
) -> anyhow::Result<String> {
    let specs = data_dir(global.specs.as_deref(), "specs");
    let schedule = dyno_evm::gas::Schedule::for_fork(&specs, &args.fork).context("--fork")?;
    let ctx = crate::run::context(global);
    let mut inputs = Vec::new();
    for (run, dir) in runs {
        let has_precompiles = run.results.iter().any(|r| r.group() == "precompile");
        let gas = if has_precompiles {
            match dyno_evm::pricing::price_run(&run.results, &schedule, &ctx, None, 2.0) {
                Ok((rows, left_out)) => Some(GasInput {
                    rows,
                    fork: args.fork.clone(),
                    factor: 2.0,
                    left_out,
                }),
                Err(e) => {
                    eprintln!("dyno: no gas chart for run {}: {e}", run.run.id);
                    None
                }
            }
        } else {
            None
        };
        let load_svgs = match dir {
            Some(d) if !run.load.is_empty() => dyno_report::html::load_svgs(run, d),
            _ => Vec::new(),
        };
        inputs.push(RunInput {
            run,
            gas,
            load_svgs,
        });
    }
    // Trends across the runs given (ids timed in two or more of them),
    // then the `--trend` ids over the history.
    let mut by_time: Vec<&Run> = runs.iter().map(|(r, _)| r).collect();
    by_time.sort_by(|a, b| a.run.started_at.cmp(&b.run.started_at));
    let mut trends = dyno_report::html::trends(&by_time);
    trends.extend(history_trends(global, args)?);
    let title = match runs {
        [(r, _)] => format!("dyno report: run {}", r.run.id),
        _ => format!("dyno report: {} runs", runs.len()),
    };
    Ok(dyno_report::html::render(&HtmlInput {
        title,
        generated_at: dyno_runner::now_rfc3339(),
        runs: inputs,
        trends,
    }))
}

/// The `--trend` ids over the history, one trend per implementation.
fn history_trends(global: &Global, args: &ReportArgs) -> anyhow::Result<Vec<Trend>> {
    if args.trend.is_empty() {
        return Ok(Vec::new());
    }
    let mut store = history::open_read(global)?;
    let mut out: Vec<Trend> = Vec::new();
    for id in &args.trend {
        let points = store.history(id, None, args.trend_runs as usize)?;
        if points.is_empty() {
            anyhow::bail!(
                "--trend {id}: no saved run in {} measured it; check the id with `dyno history`",
                store.location()
            );
        }
        for p in points {
            let label = if p.runtime == "rust" {
                p.implementation.clone()
            } else {
                format!("{} ({})", p.implementation, p.runtime)
            };
            let point = TrendPoint {
                run_id: p.run_id,
                started_at: p.started_at,
                git_commit: p.git_commit,
                p50_ns: p.p50_ns,
                ci_low_ns: p.ci_low_ns,
                ci_high_ns: p.ci_high_ns,
                n: p.n,
            };
            match out
                .iter_mut()
                .find(|t| t.id == *id && t.implementation == label)
            {
                Some(t) => t.points.push(point),
                None => out.push(Trend {
                    id: id.clone(),
                    implementation: label,
                    points: vec![point],
                }),
            }
        }
    }
    Ok(out)
}
