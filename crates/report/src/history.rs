//! The history views: the saved runs, one id's figures over runs, and the
//! baselines, as aligned text or JSON.

use std::fmt::Write as _;

use dyno_format::baseline::Baseline;
use dyno_format::history::{BaselineRow, HistoryPoint, RunRow};

use crate::units::duration;

/// A commit's first 9 characters, or `-`.
pub fn short(commit: Option<&str>) -> &str {
    match commit {
        Some(c) => c.get(..9).unwrap_or(c),
        None => "-",
    }
}

/// The saved runs, newest first.
pub fn runs_text(rows: &[RunRow]) -> String {
    let mut out = format!(
        "{:<22} {:<9} {:>7} {:>5}  {}\n",
        "run", "commit", "results", "load", "command"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:<22} {:<9} {:>7} {:>5}  {}{}",
            r.id,
            short(r.git_commit.as_deref()),
            r.results,
            r.load,
            r.command,
            if r.complete { "" } else { "  (incomplete)" }
        );
    }
    out
}

/// One id's figures over runs: P50, P99 and the half-width of the
/// median's interval as a share of it.
pub fn points_text(points: &[HistoryPoint]) -> String {
    let mut out = format!(
        "{:<22} {:<10} {:<16} {:>12} {:>12} {:>12} {:>6}\n",
        "run", "commit", "impl", "p50", "p99", "±ci", "n"
    );
    for p in points {
        let half = (p.ci_high_ns - p.ci_low_ns) / 2.0 / p.p50_ns * 100.0;
        let _ = writeln!(
            out,
            "{:<22} {:<10} {:<16} {:>12} {:>12} {:>11.1}% {:>6}",
            p.run_id,
            short(p.git_commit.as_deref()),
            p.implementation,
            duration(p.p50_ns),
            duration(p.p99_ns),
            half,
            p.n
        );
    }
    out.push_str(
        "p99: of the samples' per-operation times; for operations under ~10 µs each sample is a batch mean, so it is not one operation's tail\n",
    );
    out
}

/// Rows as a pretty JSON array, one object per row with its fields.
pub fn json<T: serde::Serialize>(rows: &[T]) -> String {
    serde_json::to_string_pretty(rows).expect("history rows serialise") + "\n"
}

/// The baselines: versions, last change and why.
pub fn baselines_text(rows: &[BaselineRow]) -> String {
    let mut out = format!(
        "{:<20} {:>8} {:<21} {:<22} {}\n",
        "name", "versions", "updated", "run", "reason"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:<20} {:>8} {:<21} {:<22} {}",
            r.name, r.versions, r.updated_at, r.run_id, r.latest_reason
        );
    }
    out
}

/// One baseline: every version with its reason and changes, then the
/// newest version's figures.
pub fn baseline_text(b: &Baseline) -> String {
    let mut out = format!("baseline {} ({} versions)\n\n", b.name, b.versions.len());
    for v in &b.versions {
        let _ = writeln!(
            out,
            "version {}  {}  run {}  commit {}  {}\n  reason: {}",
            v.version,
            v.created_at,
            v.run.run.id,
            short(v.run.run.git_commit.as_deref()),
            v.run.environment.cpu_model,
            v.reason
        );
        for c in &v.changes {
            let _ = writeln!(out, "  - {c}");
        }
    }
    if let Some(latest) = b.latest() {
        let _ = write!(out, "\nfigures of version {}:\n", latest.version);
        out.push_str(&crate::render(&latest.run, crate::Format::Table, false));
    }
    out
}
