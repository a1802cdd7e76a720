//! A report's inputs gathered: the runs named on the command line (files,
//! ids, `latest`), the gas chart's priced rows, and the trends over the
//! history. `dyno_report` renders them.

use std::path::{Path, PathBuf};

use dyno_format::Run;
use dyno_report::html::{GasInput, HtmlInput, RunInput, Trend, TrendPoint};

use crate::paths::Lab;
use crate::{Error, refuse};

/// The runs named (files, ids, `latest`, `latest~N`), each with the
/// folder its file is in (where its load plots are).
pub fn runs(lab: &Lab, named: &[String]) -> crate::Result<Vec<(Run, Option<PathBuf>)>> {
    let mut runs = Vec::new();
    for what in named {
        let (run, _) = crate::history::resolve_run(&lab.paths, what)?;
        let dir = Path::new(what)
            .is_file()
            .then(|| Path::new(what).parent().map(Path::to_path_buf))
            .flatten();
        runs.push((run, dir));
    }
    Ok(runs)
}

/// Where `dyno report` writes (`-o`, else stdout), checked before any
/// run is read: never over one of the `inputs` it reads.
pub fn destination(
    out: Option<&Path>,
    inputs: &[String],
) -> crate::Result<dyno_format::destination::Destination> {
    use dyno_format::destination::Destination;
    let dest = match out {
        Some(path) => Destination::check(path).map_err(|e| Error::Refused(format!("-o: {e}")))?,
        None => Destination::Stdout,
    };
    if let Some(out) = dest.path()
        && let Some(what) = inputs.iter().find(|w| same_file(Path::new(w), out))
    {
        refuse!(
            "-o {}: that is also the input {what}, which the report would overwrite; \
             choose another name",
            out.display()
        );
    }
    Ok(dest)
}

/// Whether two paths name one existing file (through links and `..`).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The HTML page of `runs` (each with the folder its file is in, where
/// the load plots are): the gas chart priced against `fork`, the trends
/// across the runs given, then the `trend` ids over the history.
pub fn html(
    lab: &Lab,
    runs: &[(Run, Option<PathBuf>)],
    fork: &str,
    trend: &[String],
    trend_runs: usize,
) -> crate::Result<String> {
    let schedule = crate::gas::schedule(lab, fork)?;
    let mut inputs = Vec::new();
    for (run, dir) in runs {
        let precompiles: Vec<_> = run
            .results
            .iter()
            .filter(|r| r.group() == "precompile")
            .collect();
        // The report reads results only: a run measured before results
        // recorded their nominal gas gets no chart, and one line says how
        // to price it.
        let recorded = precompiles
            .iter()
            .any(|r| r.parameters.contains_key(dyno_format::gas::NOMINAL_GAS));
        if !precompiles.is_empty() && !recorded {
            eprintln!(
                "dyno: no gas chart for run {}: its results hold no nominal gas (measured before \
                 dyno recorded it); `dyno gas --from RUN` prices it from the vectors",
                run.run.id
            );
        }
        let gas = if recorded {
            match crate::gas::price(lab, run, &schedule, None, 2.0, false) {
                Ok(p) => Some(GasInput {
                    rows: p.rows,
                    fork: fork.to_string(),
                    factor: 2.0,
                    left_out: p.left_out,
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
    trends.extend(history_trends(lab, trend, trend_runs)?);
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
fn history_trends(lab: &Lab, ids: &[String], runs: usize) -> crate::Result<Vec<Trend>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut store = crate::history::open_read(&lab.paths)?;
    let mut out: Vec<Trend> = Vec::new();
    for id in ids {
        let points = store.history(id, None, runs)?;
        if points.is_empty() {
            crate::refuse!(
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
