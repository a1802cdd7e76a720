//! The run history: where it is, saving runs into it, finding runs by file,
//! id or `latest`, and `dyno history`.

use std::path::{Path, PathBuf};

use dyno_format::Run;
use dyno_store::{Location, Store};

use crate::cli::{Global, HistoryArgs};
use crate::{Outcome, print_stdout};

/// The store `--store` (or `DYNO_STORE`) names, else the default file.
pub(crate) fn location(global: &Global) -> anyhow::Result<Location> {
    match &global.store {
        Some(s) if !s.trim().is_empty() => Ok(Location::parse(s.trim())?),
        _ => Ok(Location::default_location()?),
    }
}

/// Refuse a store location that can never work (an unknown scheme, no
/// home) before a command measures anything it would then save there.
pub(crate) fn check_location(global: &Global) -> anyhow::Result<()> {
    if !global.no_store {
        location(global)?;
    }
    Ok(())
}

/// Open the history (creating and migrating it as needed).
pub(crate) fn open(global: &Global) -> anyhow::Result<Store> {
    let loc = location(global)?;
    Ok(Store::open(&loc)?)
}

/// Open the history for a command that only reads it: a store that does
/// not exist is an error naming it, never created empty.
pub(crate) fn open_read(global: &Global) -> anyhow::Result<Store> {
    let loc = location(global)?;
    Ok(Store::open_existing(&loc)?)
}

/// Save a finished run whose JSON is already on disk at `json`. A failure
/// is a warning, never an error: the run is safe in its file, and the
/// message says how to add it later.
pub(crate) fn save(global: &Global, run: &Run, json: Option<&Path>, quiet: bool) {
    if global.no_store {
        return;
    }
    let saved = open(global).and_then(|mut s| {
        s.save_run(run)?;
        Ok(s.location().to_string())
    });
    match saved {
        Ok(loc) if !quiet => eprintln!("dyno: saved run {} to the history ({loc})", run.run.id),
        Ok(_) => {}
        Err(e) => match json {
            Some(json) => eprintln!(
                "dyno: warning: the run was not saved to the history: {e:#}\n  \
                 its results are safe in {}; add them later with `dyno history --import {}`",
                json.display(),
                json.display()
            ),
            None => eprintln!(
                "dyno: warning: the run was not saved to the history: {e:#}\n  \
                 its results went to the -o destination only"
            ),
        },
    }
}

/// A run named on the command line: a result file, a run id in the
/// history, `latest`, or `latest~N` (the Nth before the newest).
pub(crate) fn resolve_run(global: &Global, what: &str) -> anyhow::Result<(Run, String)> {
    let path = PathBuf::from(what);
    if path.is_file() {
        let run = Run::read(&path)?;
        return Ok((run, what.to_string()));
    }
    if looks_like_path(what) {
        anyhow::bail!(
            "{what}: no such file; name a result file, a run id from `dyno history`, or latest"
        );
    }
    let back = match what {
        "latest" => Some(0),
        w => w
            .strip_prefix("latest~")
            .map(|n| {
                n.parse::<usize>().map_err(|_| {
                    anyhow::anyhow!("{what:?}: write latest~N with N a number, e.g. latest~1")
                })
            })
            .transpose()?,
    };
    let mut store = open_read(global)?;
    let loc = store.location().to_string();
    let found = match back {
        Some(0) => store.latest_run()?,
        Some(n) => match store.runs(n + 1)?.get(n) {
            Some(row) => store.run(&row.id)?,
            None => None,
        },
        None => store.run(what)?,
    };
    match found {
        Some(run) => {
            let label = format!("run {}", run.run.id);
            if back.is_some() {
                // Say which run `latest` is, so a gate never compares an
                // older run than the one it thinks.
                eprintln!(
                    "dyno: {what} is run {} (started {}, {} results{}) in {loc}",
                    run.run.id,
                    run.run.started_at,
                    run.results.len(),
                    if run.run.complete { "" } else { ", incomplete" }
                );
            }
            Ok((run, label))
        }
        None if back.is_some() => anyhow::bail!(
            "{what}: the history at {loc} does not hold that many runs; \
             see `dyno history`, or name a result file"
        ),
        None => anyhow::bail!(
            "{what}: no file of that name, and no run with that id in the history at {loc}; \
             see `dyno history` for the saved runs"
        ),
    }
}

/// A commit's first 9 characters, or `-`.
pub(crate) fn short(commit: Option<&str>) -> &str {
    match commit {
        Some(c) => c.get(..9).unwrap_or(c),
        None => "-",
    }
}

fn looks_like_path(s: &str) -> bool {
    s.contains('/') || s.ends_with(".json")
}

/// `dyno history`.
pub(crate) fn history(global: &Global, args: &HistoryArgs) -> anyhow::Result<Outcome> {
    let mut store = if args.import.is_empty() {
        open_read(global)?
    } else {
        open(global)?
    };
    if !args.import.is_empty() {
        for file in &args.import {
            let run = Run::read(file)?;
            store.save_run(&run)?;
            eprintln!("dyno: imported run {} from {}", run.run.id, file.display());
        }
        return Ok(Outcome::Ok);
    }
    let mut out = String::new();
    match &args.id {
        Some(id) => {
            let points = store.history(id, args.implementation.as_deref(), args.limit)?;
            if points.is_empty() {
                anyhow::bail!(
                    "no saved run in {} measured {id:?}; check the id with `dyno list`",
                    store.location()
                );
            }
            if args.json {
                let rows: Vec<_> = points
                    .iter()
                    .map(|p| {
                        serde_json::json!({
                            "run_id": p.run_id, "started_at": p.started_at,
                            "git_commit": p.git_commit, "implementation": p.implementation,
                            "runtime": p.runtime, "p50_ns": p.p50_ns, "p95_ns": p.p95_ns,
                            "p99_ns": p.p99_ns, "ci_low_ns": p.ci_low_ns,
                            "ci_high_ns": p.ci_high_ns, "n": p.n,
                        })
                    })
                    .collect();
                out = serde_json::to_string_pretty(&rows)? + "\n";
            } else {
                out.push_str(&format!(
                    "{:<22} {:<10} {:<16} {:>12} {:>12} {:>12} {:>6}\n",
                    "run", "commit", "impl", "p50", "p99", "±ci", "n"
                ));
                for p in &points {
                    let half = (p.ci_high_ns - p.ci_low_ns) / 2.0 / p.p50_ns * 100.0;
                    out.push_str(&format!(
                        "{:<22} {:<10} {:<16} {:>12} {:>12} {:>11.1}% {:>6}\n",
                        p.run_id,
                        short(p.git_commit.as_deref()),
                        p.implementation,
                        dyno_report::units::duration(p.p50_ns),
                        dyno_report::units::duration(p.p99_ns),
                        half,
                        p.n
                    ));
                }
            }
        }
        None => {
            let rows = store.runs(args.limit)?;
            if args.json {
                let rows: Vec<_> = rows
                    .iter()
                    .map(|r| {
                        serde_json::json!({
                            "id": r.id, "started_at": r.started_at, "complete": r.complete,
                            "git_commit": r.git_commit, "cpu_model": r.cpu_model,
                            "command": r.command, "results": r.results, "load": r.load,
                        })
                    })
                    .collect();
                out = serde_json::to_string_pretty(&rows)? + "\n";
            } else {
                out.push_str(&format!(
                    "{:<22} {:<9} {:>7} {:>5}  {}\n",
                    "run", "commit", "results", "load", "command"
                ));
                for r in &rows {
                    out.push_str(&format!(
                        "{:<22} {:<9} {:>7} {:>5}  {}{}\n",
                        r.id,
                        short(r.git_commit.as_deref()),
                        r.results,
                        r.load,
                        r.command,
                        if r.complete { "" } else { "  (incomplete)" }
                    ));
                }
                eprintln!(
                    "dyno: {} run(s) shown from {}",
                    rows.len(),
                    store.location()
                );
            }
        }
    }
    print_stdout(&out)?;
    Ok(Outcome::Ok)
}
