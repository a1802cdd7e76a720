//! `dyno baseline`: save, list, show, export and import baselines.

use std::path::Path;

use anyhow::Context as _;
use dyno_format::baseline::{BASELINE_FORMAT, Baseline, BaselineVersion};
use dyno_format::destination::Destination;
use dyno_format::{Run, VerificationStatus};

use crate::cli::{BaselineAction, BaselineArgs, Global};
use crate::history::{self, short};
use crate::{Outcome, print_stdout};

pub(crate) fn baseline(global: &Global, args: &BaselineArgs) -> anyhow::Result<Outcome> {
    match &args.action {
        BaselineAction::Save { name, from, reason } => save(global, name, from, reason),
        BaselineAction::List => list(global),
        BaselineAction::Show { name, json } => show(global, name, *json),
        BaselineAction::Export { name, out } => export(global, name, out),
        BaselineAction::Import { file, name } => import(global, file, name.as_deref()),
    }
}

fn check_name(name: &str) -> anyhow::Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 100
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if !ok {
        anyhow::bail!(
            "baseline name {name:?}: use letters, digits, '-', '_' and '.' (at most 100), e.g. main or v1.4"
        );
    }
    Ok(())
}

fn save(global: &Global, name: &str, from: &str, reason: &str) -> anyhow::Result<Outcome> {
    check_name(name)?;
    if reason.trim().is_empty() {
        anyhow::bail!("--reason is empty: say why this baseline version exists");
    }
    let (mut run, label) = history::resolve_run(global, from)?;
    if run.results.is_empty() {
        anyhow::bail!("{label} has no benchmark results to keep as a baseline");
    }
    // A baseline keeps verified timings only: a wrong result has no time
    // to compare with, and kept, it would fail every later check with a
    // message about the baseline rather than the code.
    let wrong = run.wrong_results();
    if wrong.len() == run.results.len() {
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
    let mut store = history::open(global)?;
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

fn list(global: &Global) -> anyhow::Result<Outcome> {
    let mut store = history::open_read(global)?;
    let rows = store.baselines()?;
    if rows.is_empty() {
        eprintln!(
            "dyno: no baselines in {}; make one with `dyno baseline save NAME --reason ...`",
            store.location()
        );
        return Ok(Outcome::Ok);
    }
    let mut out = format!(
        "{:<20} {:>8} {:<21} {:<22} {}\n",
        "name", "versions", "updated", "run", "reason"
    );
    for r in rows {
        out.push_str(&format!(
            "{:<20} {:>8} {:<21} {:<22} {}\n",
            r.name, r.versions, r.updated_at, r.run_id, r.latest_reason
        ));
    }
    print_stdout(&out)?;
    Ok(Outcome::Ok)
}

/// A baseline by name from the history, with a helpful error.
pub(crate) fn by_name(global: &Global, name: &str) -> anyhow::Result<Baseline> {
    let mut store = history::open_read(global)?;
    match store.baseline(name)? {
        Some(b) => Ok(b),
        None => {
            let known: Vec<String> = store.baselines()?.into_iter().map(|r| r.name).collect();
            if known.is_empty() {
                anyhow::bail!(
                    "no baseline {name:?} in {}: there are none yet; save one with \
                     `dyno baseline save {name} --reason ...`, or give a baseline file",
                    store.location()
                )
            }
            anyhow::bail!(
                "no baseline {name:?} in {}; known: {}",
                store.location(),
                known.join(", ")
            )
        }
    }
}

fn show(global: &Global, name: &str, json: bool) -> anyhow::Result<Outcome> {
    let b = by_name(global, name)?;
    if json {
        print_stdout(&b.to_json())?;
        return Ok(Outcome::Ok);
    }
    let mut out = format!("baseline {} ({} versions)\n\n", b.name, b.versions.len());
    for v in &b.versions {
        out.push_str(&format!(
            "version {}  {}  run {}  commit {}  {}\n  reason: {}\n",
            v.version,
            v.created_at,
            v.run.run.id,
            short(v.run.run.git_commit.as_deref()),
            v.run.environment.cpu_model,
            v.reason
        ));
        for c in &v.changes {
            out.push_str(&format!("  - {c}\n"));
        }
    }
    if let Some(latest) = b.latest() {
        out.push_str(&format!("\nfigures of version {}:\n", latest.version));
        out.push_str(&dyno_report::render(
            &latest.run,
            dyno_report::Format::Table,
            false,
        ));
    }
    print_stdout(&out)?;
    Ok(Outcome::Ok)
}

fn export(global: &Global, name: &str, out: &Path) -> anyhow::Result<Outcome> {
    let dest = Destination::check(out).map_err(|e| anyhow::anyhow!("-o: {e}"))?;
    let b = by_name(global, name)?;
    if dest == Destination::Stdout {
        print_stdout(&b.to_json())?;
    } else {
        dest.write(b.to_json().as_bytes())?;
        eprintln!(
            "dyno: baseline {name} ({} versions) written to {}",
            b.versions.len(),
            dest
        );
    }
    Ok(Outcome::Ok)
}

fn import(global: &Global, file: &Path, rename: Option<&str>) -> anyhow::Result<Outcome> {
    let mut b = Baseline::read(file)?;
    if let Some(n) = rename {
        b.name = n.to_string();
    }
    check_name(&b.name).with_context(|| format!("importing {}", file.display()))?;
    let mut store = history::open(global)?;
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
pub(crate) fn resolve(global: &Global, what: &str) -> anyhow::Result<(Run, String)> {
    let path = Path::new(what);
    if path.is_file() {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading --baseline {}", path.display()))?;
        let value: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| anyhow::anyhow!("{}:{}:{}: {e}", path.display(), e.line(), e.column()))?;
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
        anyhow::bail!(
            "--baseline {what}: no such file; give an existing baseline or result file, or the \
             name of a baseline in the history (`dyno baseline list`)"
        );
    }
    let b = by_name(global, what)?;
    let v = b.latest().expect("stored baselines have versions");
    Ok((v.run.clone(), format!("baseline {} v{}", b.name, v.version)))
}
