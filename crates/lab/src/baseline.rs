//! Named, versioned baselines in the history: saving one from a run,
//! finding one by name or file, and importing one.

use std::path::Path;

use dyno_format::baseline::{BASELINE_FORMAT, Baseline, BaselineVersion};
use dyno_format::{Run, VerificationStatus};

use crate::error::Context as _;
use crate::history;
use crate::paths::Paths;
use crate::{Outcome, refuse};

pub fn check_name(name: &str) -> crate::Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 100
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if !ok {
        refuse!(
            "baseline name {name:?}: use letters, digits, '-', '_' and '.' (at most 100), e.g. main or v1.4"
        );
    }
    Ok(())
}

/// Save `from` as the next version of baseline `name`, keeping its
/// verified results only; [`Outcome::Failed`] (nothing saved) when every
/// result is wrong.
pub fn save(paths: &Paths, name: &str, from: &str, reason: &str) -> crate::Result<Outcome> {
    check_name(name)?;
    if reason.trim().is_empty() {
        refuse!("--reason is empty: say why this baseline version exists");
    }
    let (mut run, label) = history::resolve_run(paths, from)?;
    if run.results.is_empty() {
        refuse!("{label} has no benchmark results to keep as a baseline");
    }
    // A baseline keeps verified timings only: a wrong result has no time
    // to compare with, and kept, it would fail every later check with a
    // message about the baseline rather than the code.
    let wrong = run.wrong_results();
    // The cross-machine reference every run records is not a result of
    // its own: a run whose every other result is wrong keeps nothing.
    let is_reference = |r: &dyno_format::BenchResult| {
        r.parameters.get("reference") == Some(&serde_json::Value::Bool(true))
    };
    let asked = run.results.iter().filter(|r| !is_reference(r)).count();
    let asked_wrong = run
        .results
        .iter()
        .filter(|r| !is_reference(r) && r.verification.status == VerificationStatus::Failed)
        .count();
    if wrong.len() == run.results.len() || (asked > 0 && asked_wrong == asked) {
        for w in &wrong {
            eprintln!("dyno: WRONG result: {w}");
        }
        eprintln!(
            "dyno: nothing saved: every result in {label} is a wrong result; fix them and \
             measure again"
        );
        return Ok(Outcome::Failed);
    }
    for w in &wrong {
        eprintln!("dyno: warning: left out of the baseline: {w} (a wrong result)");
    }
    run.results
        .retain(|r| r.verification.status != VerificationStatus::Failed);
    if !run.run.complete {
        eprintln!(
            "dyno: warning: {label} is incomplete ({}); saving it anyway",
            run.run.incomplete_reason.as_deref().unwrap_or("no reason")
        );
    }
    let mut store = history::open(paths)?;
    let previous = store.baseline(name)?;
    let changes = dyno_gate::changes(
        previous.as_ref().and_then(|b| b.latest()).map(|v| &v.run),
        &run,
        0.05,
    );
    let version = BaselineVersion {
        version: 0,
        created_at: dyno_runner::now_rfc3339(),
        reason: reason.trim().to_string(),
        changes,
        run,
    };
    let n = store.save_baseline_version(name, &version)?;
    eprintln!(
        "dyno: baseline {name} version {n} saved from {label} in {}",
        store.location()
    );
    for line in &version.changes {
        eprintln!("  {line}");
    }
    Ok(Outcome::Ok)
}

/// A baseline by name from the history, with a helpful error.
pub fn by_name(paths: &Paths, name: &str) -> crate::Result<Baseline> {
    let mut store = history::open_read(paths)?;
    match store.baseline(name)? {
        Some(b) => Ok(b),
        None => {
            let known: Vec<String> = store.baselines()?.into_iter().map(|r| r.name).collect();
            if known.is_empty() {
                refuse!(
                    "no baseline {name:?} in {}: there are none yet; save one with \
                     `dyno baseline save {name} --reason ...`, or give a baseline file",
                    store.location()
                )
            }
            refuse!(
                "no baseline {name:?} in {}; known: {}",
                store.location(),
                known.join(", ")
            )
        }
    }
}

/// Read a baseline file into the history, under `rename` if given.
pub fn import(paths: &Paths, file: &Path, rename: Option<&str>) -> crate::Result<Outcome> {
    let mut b = Baseline::read(file)?;
    if let Some(n) = rename {
        b.name = n.to_string();
    }
    check_name(&b.name).with_context(|| format!("importing {}", file.display()))?;
    let mut store = history::open(paths)?;
    store.import_baseline(&b)?;
    eprintln!(
        "dyno: baseline {} ({} versions) imported into {}",
        b.name,
        b.versions.len(),
        store.location()
    );
    Ok(Outcome::Ok)
}

/// What `--baseline` named: a baseline file, a result file (one version,
/// made up on the spot), or a baseline in the history.
pub fn resolve(paths: &Paths, what: &str) -> crate::Result<(Run, String)> {
    let path = Path::new(what);
    if path.is_file() {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading --baseline {}", path.display()))?;
        let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
            crate::Error::Refused(format!(
                "{}:{}:{}: {e}",
                path.display(),
                e.line(),
                e.column()
            ))
        })?;
        if value.get("dyno_baseline").is_some() {
            let b = Baseline::parse(&text, path)?;
            let v = b
                .latest()
                .expect("parse refuses a baseline without versions");
            let label = format!("baseline {} v{} ({})", b.name, v.version, path.display());
            return Ok((v.run.clone(), label));
        }
        let run = Run::parse(&text, path).with_context(|| {
            format!(
                "--baseline {what}: neither a baseline file (dyno_baseline: {BASELINE_FORMAT}) nor a result file"
            )
        })?;
        return Ok((run, what.to_string()));
    }
    // A name with a slash or a .json ending is a file someone meant: say
    // that it is missing, not that no baseline has that name.
    if what.contains('/') || what.ends_with(".json") {
        refuse!(
            "--baseline {what}: no such file; give an existing baseline or result file, or the \
             name of a baseline in the history (`dyno baseline list`)"
        );
    }
    let b = by_name(paths, what)?;
    let v = b.latest().expect("stored baselines have versions");
    Ok((v.run.clone(), format!("baseline {} v{}", b.name, v.version)))
}
