//! The run history: where it is, saving runs into it, and finding runs by
//! file, id or `latest`.

use std::path::{Path, PathBuf};

use dyno_format::Run;
use dyno_store::{Location, Store};

use crate::paths::Paths;
use crate::refuse;

/// The store `--store` (or `DYNO_STORE`) names, else the default file.
pub fn location(paths: &Paths) -> crate::Result<Location> {
    match &paths.store {
        Some(s) if !s.trim().is_empty() => Ok(Location::parse(s.trim())?),
        _ => Ok(Location::default_location()?),
    }
}

/// Refuse a store location that can never work (an unknown scheme, no
/// home) before a command measures anything it would then save there.
pub fn check_location(paths: &Paths) -> crate::Result<()> {
    if !paths.no_store {
        location(paths)?;
    }
    Ok(())
}

/// Open the history (creating and migrating it as needed).
pub fn open(paths: &Paths) -> crate::Result<Store> {
    let loc = location(paths)?;
    Ok(Store::open(&loc)?)
}

/// Open the history for a command that only reads it: a store that does
/// not exist is an error naming it, never created empty.
pub fn open_read(paths: &Paths) -> crate::Result<Store> {
    let loc = location(paths)?;
    Ok(Store::open_existing(&loc)?)
}

/// Save a finished run whose JSON is already on disk at `json`. A failure
/// is a warning, never an error: the run is safe in its file, and the
/// message says how to add it later.
pub fn save(paths: &Paths, run: &Run, json: Option<&Path>, quiet: bool) {
    if paths.no_store {
        return;
    }
    let saved = open(paths).and_then(|mut s| {
        s.save_run(run)?;
        Ok(s.location().to_string())
    });
    let saved = saved.map_err(|e| e.chain());
    match saved {
        Ok(loc) if !quiet => eprintln!("dyno: saved run {} to the history ({loc})", run.run.id),
        Ok(_) => {}
        Err(e) => match json {
            Some(json) => eprintln!(
                "dyno: warning: the run was not saved to the history: {e}\n  \
                 its results are safe in {}; add them later with `dyno history --import {}`",
                json.display(),
                json.display()
            ),
            None => eprintln!(
                "dyno: warning: the run was not saved to the history: {e}\n  \
                 its results went to the -o destination only"
            ),
        },
    }
}

/// A run named on the command line: a result file, a run id in the
/// history, `latest`, or `latest~N` (the Nth before the newest).
pub fn resolve_run(paths: &Paths, what: &str) -> crate::Result<(Run, String)> {
    let path = PathBuf::from(what);
    if path.is_file() {
        let run = Run::read(&path)?;
        return Ok((run, what.to_string()));
    }
    if looks_like_path(what) {
        refuse!(
            "{what}: no such file; name a result file, a run id from `dyno history`, or latest"
        );
    }
    let back = match what {
        "latest" => Some(0),
        w => w
            .strip_prefix("latest~")
            .map(|n| {
                n.parse::<usize>().map_err(|_| {
                    crate::Error::Refused(format!(
                        "{what:?}: write latest~N with N a number, e.g. latest~1"
                    ))
                })
            })
            .transpose()?,
    };
    let mut store = open_read(paths)?;
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
        None if back.is_some() => refuse!(
            "{what}: the history at {loc} does not hold that many runs; \
             see `dyno history`, or name a result file"
        ),
        None => refuse!(
            "{what}: no file of that name, and no run with that id in the history at {loc}; \
             see `dyno history` for the saved runs"
        ),
    }
}

/// Add result files to the history (ones saved while it was
/// unreachable); each imported run is named on stderr.
pub fn import(paths: &Paths, files: &[PathBuf]) -> crate::Result<()> {
    let mut store = open(paths)?;
    for file in files {
        let run = Run::read(file)?;
        store.save_run(&run)?;
        eprintln!("dyno: imported run {} from {}", run.run.id, file.display());
    }
    Ok(())
}

/// A name with a slash or a `.json` ending is a file someone meant.
fn looks_like_path(s: &str) -> bool {
    s.contains('/') || s.ends_with(".json")
}
