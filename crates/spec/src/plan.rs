//! From checked specs and a filter to the list of benchmarks to run.

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::{Spec, TargetSpec};

/// What dyno can build: every (group, op, input, implementation).
#[derive(Debug, Clone, Default)]
pub struct Known {
    entries: BTreeSet<(String, String, String, String)>,
}

impl Known {
    /// From (group, op, input, implementation) tuples.
    pub fn new<I, S>(entries: I) -> Self
    where
        I: IntoIterator<Item = (S, S, S, S)>,
        S: Into<String>,
    {
        Self {
            entries: entries
                .into_iter()
                .map(|(g, o, i, m)| (g.into(), o.into(), i.into(), m.into()))
                .collect(),
        }
    }

    fn collect(
        &self,
        keep: impl Fn(&(String, String, String, String)) -> Option<&String>,
    ) -> Vec<String> {
        let set: BTreeSet<&String> = self.entries.iter().filter_map(keep).collect();
        set.into_iter().cloned().collect()
    }

    /// Every group.
    pub fn groups(&self) -> Vec<String> {
        self.collect(|e| Some(&e.0))
    }

    /// Every op of a group.
    pub fn ops(&self, group: &str) -> Vec<String> {
        self.collect(|e| (e.0 == group).then_some(&e.1))
    }

    /// Every input of an op.
    pub fn inputs(&self, group: &str, op: &str) -> Vec<String> {
        self.collect(|e| (e.0 == group && e.1 == op).then_some(&e.2))
    }

    /// Every implementation of an op.
    pub fn impls(&self, group: &str, op: &str) -> Vec<String> {
        self.collect(|e| (e.0 == group && e.1 == op).then_some(&e.3))
    }

    /// Every implementation of anything.
    pub fn all_impls(&self) -> Vec<String> {
        self.collect(|e| Some(&e.3))
    }

    /// Whether this exact benchmark exists.
    pub fn has(&self, group: &str, op: &str, input: &str, imp: &str) -> bool {
        self.entries
            .contains(&(group.into(), op.into(), input.into(), imp.into()))
    }
}

/// One benchmark to run, with what the spec says about it.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanEntry {
    /// `group/op/input`.
    pub id: String,
    /// Group.
    pub group: String,
    /// Operation.
    pub op: String,
    /// Input.
    pub input: String,
    /// Implementation.
    pub implementation: String,
    /// The `group/op/input` whose workload runs: `id`, unless the spec
    /// borrows another group's (`workload = "trie/state-root"`).
    pub workload: String,
    /// Run it in a fresh worker process (the suite says `isolate = true`).
    pub isolate: bool,
    /// The implementation others in this id are compared with.
    pub baseline: bool,
    /// Regression threshold.
    pub threshold: f64,
    /// Target, if any.
    pub target: Option<TargetSpec>,
    /// The spec file it came from.
    pub spec: PathBuf,
}

/// Whether `id` is selected by `pattern`: a glob (`*`, `?`) matched against
/// the whole id; a group's exact name (`hash`), that group only, so that
/// `hash` does not also pick `pow/hashimoto-light`; or else a plain substring.
fn matches(pattern: &str, id: &str, groups: &BTreeSet<&str>) -> bool {
    if pattern.contains(['*', '?']) {
        glob(pattern.as_bytes(), id.as_bytes())
    } else if groups.contains(pattern) {
        id.strip_prefix(pattern)
            .is_some_and(|rest| rest.starts_with('/'))
    } else {
        id.contains(pattern)
    }
}

fn glob(p: &[u8], s: &[u8]) -> bool {
    match (p.first(), s.first()) {
        (None, None) => true,
        (Some(b'*'), _) => glob(&p[1..], s) || (!s.is_empty() && glob(p, &s[1..])),
        (Some(b'?'), Some(_)) => glob(&p[1..], &s[1..]),
        (Some(a), Some(b)) if a == b => glob(&p[1..], &s[1..]),
        _ => false,
    }
}

/// Why a filter selects nothing it was meant to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilterError {
    /// Only commas and spaces: it would silently mean "the default suites".
    #[error(
        "the filter {0:?} holds no pattern; give a group (`hash`), a substring (`keccak`) or a \
         glob (`hash/*/32B`), or leave it out for the default suites"
    )]
    Empty(String),
    /// A pattern that selects no benchmark id.
    #[error(
        "{pattern:?} matches no benchmark id{}; see `dyno list` for every id",
        suggestion.as_ref().map(|s| format!(" (did you mean {s:?}?)")).unwrap_or_default()
    )]
    Unmatched {
        /// The pattern.
        pattern: String,
        /// The nearest group, op, input or id.
        suggestion: Option<String>,
    },
}

/// Check a filter the user gave: it must hold a pattern, and every
/// comma-separated pattern must select at least one id of `specs` (default
/// suite or not), or the run would quietly do less than was asked.
pub fn check_filter(specs: &[Spec], filter: &str) -> Result<(), FilterError> {
    let patterns: Vec<&str> = filter
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    if patterns.is_empty() {
        return Err(FilterError::Empty(filter.to_string()));
    }
    let groups: BTreeSet<&str> = specs.iter().map(|s| s.group.as_str()).collect();
    let mut names: BTreeSet<String> = BTreeSet::new();
    let mut ids = Vec::new();
    for spec in specs {
        names.insert(spec.group.clone());
        for b in &spec.benches {
            names.insert(b.op.value.clone());
            for input in &b.inputs {
                names.insert(input.value.clone());
                let id = format!("{}/{}/{}", spec.group, b.op.value, input.value);
                names.insert(id.clone());
                ids.push(id);
            }
        }
    }
    for p in patterns {
        if !ids.iter().any(|id| matches(p, id, &groups)) {
            let names: Vec<String> = names.iter().cloned().collect();
            return Err(FilterError::Unmatched {
                pattern: p.to_string(),
                suggestion: crate::error::nearest(p, &names),
            });
        }
    }
    Ok(())
}

/// The benchmarks to run, in spec order. With no filter, only specs marked
/// `default = true`; with a filter (comma-separated patterns), any spec.
/// Every implementation is planned; which ones run is the lab's choice
/// (`--impl`), made where the other runtimes' implementations are known.
pub fn plan(specs: &[Spec], filter: Option<&str>) -> Vec<PlanEntry> {
    let patterns: Vec<&str> = filter
        .map(|f| {
            f.split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let groups: BTreeSet<&str> = specs.iter().map(|s| s.group.as_str()).collect();
    let mut out = Vec::new();
    for spec in specs {
        if patterns.is_empty() && !spec.default {
            continue;
        }
        for b in &spec.benches {
            for input in &b.inputs {
                let id = format!("{}/{}/{}", spec.group, b.op.value, input.value);
                let (wg, wo) = b.measured(&spec.group);
                let workload = format!("{wg}/{wo}/{}", input.value);
                if !patterns.is_empty() && !patterns.iter().any(|p| matches(p, &id, &groups)) {
                    continue;
                }
                // An explicit bench runs only when a pattern that selects it
                // names its input exactly.
                if b.explicit
                    && !patterns.iter().any(|p| {
                        matches(p, &id, &groups) && p.rsplit('/').next() == Some(&input.value)
                    })
                {
                    continue;
                }
                for imp in &b.impls {
                    out.push(PlanEntry {
                        id: id.clone(),
                        group: spec.group.clone(),
                        op: b.op.value.clone(),
                        input: input.value.clone(),
                        implementation: imp.value.clone(),
                        workload: workload.clone(),
                        isolate: spec.isolate,
                        baseline: imp.value == b.baseline.value,
                        threshold: b.threshold,
                        target: b.target,
                        spec: spec.path.clone(),
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_that_select_nothing_are_named() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs");
        let specs = crate::load_dir(&dir).unwrap();
        assert_eq!(check_filter(&specs, "hash,crypto"), Ok(()));
        assert_eq!(check_filter(&specs, "keccak,hash/*/32B"), Ok(()));
        for empty in ["", ",", " , "] {
            assert_eq!(
                check_filter(&specs, empty),
                Err(FilterError::Empty(empty.into()))
            );
        }
        let e = check_filter(&specs, "hash,crpyto").unwrap_err();
        assert_eq!(
            e,
            FilterError::Unmatched {
                pattern: "crpyto".into(),
                suggestion: Some("crypto".into())
            }
        );
        assert!(e.to_string().contains("did you mean \"crypto\""), "{e}");
        let e = check_filter(&specs, "zzzzqqq").unwrap_err().to_string();
        assert!(!e.contains("did you mean"), "{e}");
    }

    #[test]
    fn globs_group_names_and_substrings() {
        let groups = BTreeSet::from(["hash", "pow", "crypto"]);
        let m = |p: &str, id: &str| matches(p, id, &groups);
        assert!(m("hash/*/32B", "hash/keccak256/32B"));
        assert!(!m("hash/*/32B", "hash/keccak256/1KiB"));
        assert!(m("keccak", "hash/keccak256/32B"));
        assert!(m("hash/sha?56/*", "hash/sha256/1B"));
        assert!(!m("crypto", "hash/keccak256/32B"));
        // A group's name is that group, not every id it is a substring of.
        assert!(m("hash", "hash/keccak256/32B"));
        assert!(!m("hash", "pow/hashimoto-light/epoch0"));
        assert!(!m("hash", "net/decode/new-pooled-tx-hashes-100"));
        assert!(m("hashimoto", "pow/hashimoto-light/epoch0"));
    }
}
