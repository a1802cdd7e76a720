//! What changed between two versions of a baseline, one line each.

use dyno_format::Run;

use crate::per_op_samples;

/// Lines describing how `new` differs from `old` (the previous version's
/// run): benchmarks added and removed, and medians that moved by more than
/// `moved` (0.05 = 5%). `["first version"]` when there is no previous run.
pub fn changes(old: Option<&Run>, new: &Run, moved: f64) -> Vec<String> {
    let Some(old) = old else {
        return vec!["first version".into()];
    };
    let key = |r: &dyno_format::BenchResult| format!("{} [{}]", r.id, r.implementation.name);
    let median = |r: &dyno_format::BenchResult| dyno_stats::median(&per_op_samples(r));
    let mut lines = Vec::new();
    let mut added = Vec::new();
    let mut moved_lines = Vec::new();
    for r in &new.results {
        match old.results.iter().find(|o| key(o) == key(r)) {
            None => added.push(key(r)),
            Some(o) => {
                if let (Some(a), Some(b)) = (median(o), median(r))
                    && (b / a - 1.0).abs() > moved
                {
                    moved_lines.push(format!(
                        "{}: median {:.4} -> {:.4} ns ({:+.1}%)",
                        key(r),
                        a,
                        b,
                        (b / a - 1.0) * 100.0
                    ));
                }
            }
        }
    }
    let removed: Vec<String> = old
        .results
        .iter()
        .filter(|o| !new.results.iter().any(|r| key(r) == key(o)))
        .map(key)
        .collect();
    if !added.is_empty() {
        lines.push(format!("added {}: {}", added.len(), added.join(", ")));
    }
    if !removed.is_empty() {
        lines.push(format!("removed {}: {}", removed.len(), removed.join(", ")));
    }
    lines.extend(moved_lines);
    if old.environment.cpu_model != new.environment.cpu_model {
        lines.push(format!(
            "machine: {} -> {}",
            old.environment.cpu_model, new.environment.cpu_model
        ));
    }
    if old.run.git_commit != new.run.git_commit {
        lines.push(format!(
            "commit: {} -> {}",
            old.run.git_commit.as_deref().unwrap_or("unknown"),
            new.run.git_commit.as_deref().unwrap_or("unknown")
        ));
    }
    lines.push(format!("run {} -> {}", old.run.id, new.run.id));
    lines
}
