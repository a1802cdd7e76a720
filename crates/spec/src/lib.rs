//! Benchmark specs: what runs, as data.
//!
//! A spec file (`specs/<group>.toml`) names a group's benchmarks: operations,
//! inputs, implementations (the first, or `baseline`, is the one others are
//! compared with), regression thresholds and targets. Loading checks the
//! file's shape; [`Spec::check`] checks every name against what dyno can
//! build. Every error names the file, the line and the key, and suggests the
//! nearest valid name when one is close.
//!
//! ```toml
//! [suite]
//! group = "crypto"
//! description = "ECDSA as clients use it"
//! default = true              # part of a plain `dyno run`
//!
//! [defaults]
//! threshold = "20%"           # a slowdown beyond this is a regression
//!
//! [[bench]]
//! op = "secp256k1-recover"
//! inputs = ["valid"]
//! impls = ["libsecp256k1", "k256"]
//! target = { p50 = "1ms" }
//! ```
//!
//! A bench may measure another group's workload under its own id
//! (`workload = "trie/state-root"`: `mem/state-root/100000` runs
//! `trie/state-root/100000`), and a suite may ask for `isolate = true`:
//! each of its benchmarks in a fresh worker process, so that what one
//! scenario left resident never counts against the next (the `mem` suite).

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

mod error;
pub mod gas;
pub mod mixes;
pub mod operations;
mod plan;
mod quantity;
pub mod reprice;
pub mod state_gas;

pub use error::SpecError;
pub use plan::{FilterError, Known, PlanEntry, check_filter, plan};
pub use quantity::{Stat, parse_duration_ns, parse_threshold};

/// The regression threshold when a spec gives none: 20%.
pub const DEFAULT_THRESHOLD: f64 = 0.20;

/// One loaded spec file.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// Where it came from.
    pub path: PathBuf,
    /// The benchmark group: the first part of every id.
    pub group: String,
    /// One line for `dyno list`.
    pub description: String,
    /// Part of a plain `dyno run` (no filter).
    pub default: bool,
    /// Run each benchmark in a fresh worker process.
    pub isolate: bool,
    /// The `[[bench]]` entries.
    pub benches: Vec<BenchSpec>,
    /// The suite's benchmarks are every (id, implementation) the built-in
    /// suite of its group defines (`[suite] registry = true`), filled in by
    /// [`Spec::fill_from_registry`] from the registry the binary has.
    pub from_registry: bool,
    group_line: usize,
    default_threshold: f64,
}

/// One `[[bench]]` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchSpec {
    /// The operation: the id's second part.
    pub op: Located<String>,
    /// Inputs: the id's third part.
    pub inputs: Vec<Located<String>>,
    /// Implementations to run, in table order.
    pub impls: Vec<Located<String>>,
    /// The implementation the others are compared with.
    pub baseline: Located<String>,
    /// Relative slowdown that counts as a regression.
    pub threshold: f64,
    /// An optional limit on one statistic.
    pub target: Option<TargetSpec>,
    /// The `group/op` whose workload this bench measures, when not its own.
    pub workload: Option<Located<String>>,
    /// Run only when a filter names one of its inputs exactly
    /// (`dyno run 'state/*/10000000'`): for inputs too costly for a run of
    /// the whole suite.
    pub explicit: bool,
}

impl BenchSpec {
    /// The `(group, op)` whose workload runs: `workload`'s, else `group`'s.
    pub fn measured<'a>(&'a self, group: &'a str) -> (&'a str, &'a str) {
        match &self.workload {
            Some(w) => w.value.split_once('/').unwrap_or((w.value.as_str(), "")),
            None => (group, self.op.value.as_str()),
        }
    }
}

/// A target: `stat` must not exceed `limit_ns` per operation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TargetSpec {
    /// Which statistic.
    pub stat: Stat,
    /// The limit in nanoseconds.
    pub limit_ns: f64,
}

/// A value with the line it was written on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located<T> {
    /// The value.
    pub value: T,
    /// 1-based line in the spec file.
    pub line: usize,
}

impl<T: fmt::Display> fmt::Display for Located<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.value.fmt(f)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    suite: RawSuite,
    #[serde(default)]
    defaults: RawDefaults,
    #[serde(default)]
    bench: Vec<RawBench>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSuite {
    group: Spanned<String>,
    #[serde(default)]
    description: String,
    #[serde(default = "yes")]
    default: bool,
    #[serde(default)]
    isolate: bool,
    /// The suite's benchmarks are the operation table's loop level
    /// (`specs/operations.toml`, `loop = [...]`), each in these
    /// implementations.
    operations: Option<Spanned<Vec<Spanned<String>>>>,
    /// The suite's benchmarks are everything the built-in suite of its
    /// group defines (each id in every implementation it has, the first
    /// its baseline).
    registry: Option<Spanned<bool>>,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawDefaults {
    threshold: Option<Spanned<toml::Value>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBench {
    op: Spanned<String>,
    inputs: Spanned<Vec<Spanned<String>>>,
    impls: Spanned<Vec<Spanned<String>>>,
    baseline: Option<Spanned<String>>,
    threshold: Option<Spanned<toml::Value>>,
    target: Option<Spanned<toml::Table>>,
    workload: Option<Spanned<String>>,
    #[serde(default)]
    explicit: bool,
}

/// A spec file's text, or an error naming it.
pub(crate) fn read(path: &Path) -> Result<String, SpecError> {
    std::fs::read_to_string(path).map_err(|e| SpecError::Io {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

/// Line number (1-based) of a byte offset.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

impl Spec {
    /// Load and shape-check one spec file.
    pub fn load(path: &Path) -> Result<Self, SpecError> {
        let text = crate::read(path)?;
        Self::parse(&text, path)
    }

    /// Parse spec text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Self, SpecError> {
        let raw: RawSpec = toml::from_str(text).map_err(|e| error::from_toml(&e, text, path))?;
        let at = |span: std::ops::Range<usize>| line_of(text, span.start);
        let located = |s: &Spanned<String>| Located {
            value: s.get_ref().clone(),
            line: at(s.span()),
        };
        let invalid = |line, key: &str, reason: String| SpecError::Invalid {
            path: path.to_path_buf(),
            line,
            key: key.into(),
            reason,
        };

        let default_threshold = match &raw.defaults.threshold {
            Some(t) => parse_threshold(t.get_ref())
                .map_err(|r| invalid(at(t.span()), "defaults.threshold", r))?,
            None => DEFAULT_THRESHOLD,
        };

        let mut benches = Vec::new();
        for b in &raw.bench {
            let op = located(&b.op);
            let field = |key: &str| format!("bench[op={}].{key}", op.value);
            let list = |v: &Spanned<Vec<Spanned<String>>>, key: &str| {
                if v.get_ref().is_empty() {
                    return Err(invalid(
                        at(v.span()),
                        &field(key),
                        "must list at least one name".into(),
                    ));
                }
                Ok(v.get_ref().iter().map(located).collect::<Vec<_>>())
            };
            let inputs = list(&b.inputs, "inputs")?;
            let impls = list(&b.impls, "impls")?;
            let baseline = match &b.baseline {
                Some(name) => {
                    let name = located(name);
                    if !impls.iter().any(|i| i.value == name.value) {
                        return Err(invalid(
                            name.line,
                            &field("baseline"),
                            format!(
                                "{:?} is not one of this bench's impls ({})",
                                name.value,
                                names(&impls)
                            ),
                        ));
                    }
                    name
                }
                None => impls[0].clone(),
            };
            let threshold = match &b.threshold {
                Some(t) => parse_threshold(t.get_ref())
                    .map_err(|r| invalid(at(t.span()), &field("threshold"), r))?,
                None => default_threshold,
            };
            let target = match &b.target {
                Some(t) => Some(
                    quantity::parse_target(t.get_ref())
                        .map_err(|r| invalid(at(t.span()), &field("target"), r))?,
                ),
                None => None,
            };
            let workload = b.workload.as_ref().map(located);
            if let Some(w) = &workload {
                let parts: Vec<&str> = w.value.split('/').collect();
                if parts.len() != 2 || parts.iter().any(|p| p.is_empty()) {
                    return Err(invalid(
                        w.line,
                        &field("workload"),
                        format!(
                            "{:?} is not a `group/op` (for example \"trie/state-root\")",
                            w.value
                        ),
                    ));
                }
            }
            benches.push(BenchSpec {
                op,
                inputs,
                impls,
                baseline,
                threshold,
                target,
                workload,
                explicit: b.explicit,
            });
        }
        if let Some(impls) = &raw.suite.operations {
            if !raw.bench.is_empty() {
                return Err(invalid(
                    at(impls.span()),
                    "suite.operations",
                    "its benchmarks come from specs/operations.toml: list no [[bench]] too".into(),
                ));
            }
            let impls: Vec<Located<String>> = impls.get_ref().iter().map(located).collect();
            let Some(baseline) = impls.first().cloned() else {
                return Err(invalid(
                    at(raw.suite.group.span()),
                    "suite.operations",
                    "must list at least one implementation".into(),
                ));
            };
            let line = baseline.line;
            for o in &operations::builtin().operations {
                if o.loop_inputs.is_empty() {
                    continue;
                }
                benches.push(BenchSpec {
                    op: Located {
                        value: o.loop_op(),
                        line,
                    },
                    inputs: o
                        .loop_inputs
                        .iter()
                        .map(|i| Located {
                            value: i.clone(),
                            line,
                        })
                        .collect(),
                    impls: impls.clone(),
                    baseline: baseline.clone(),
                    threshold: default_threshold,
                    target: None,
                    workload: None,
                    explicit: false,
                });
            }
        }
        let from_registry = raw.suite.registry.as_ref().is_some_and(|r| *r.get_ref());
        if let Some(r) = raw.suite.registry.as_ref().filter(|_| from_registry)
            && (!raw.bench.is_empty() || raw.suite.operations.is_some())
        {
            return Err(invalid(
                at(r.span()),
                "suite.registry",
                "its benchmarks are the built-in suite's: list no [[bench]] and no `operations` too"
                    .into(),
            ));
        }
        Ok(Spec {
            path: path.to_path_buf(),
            group: raw.suite.group.get_ref().clone(),
            description: raw.suite.description,
            default: raw.suite.default,
            isolate: raw.suite.isolate,
            benches,
            from_registry,
            group_line: at(raw.suite.group.span()),
            default_threshold,
        })
    }

    /// A `registry` suite's benchmarks from what the built-in suites
    /// define: `(group, op, input, implementation)` in the registry's
    /// order. Each op's inputs with the same implementations are one bench,
    /// its first implementation the baseline; every line is the suite's.
    pub fn fill_from_registry<'a>(
        &mut self,
        defs: impl IntoIterator<Item = (&'a str, &'a str, &'a str, &'a str)>,
    ) {
        if !self.from_registry {
            return;
        }
        // Each op with its inputs, each input with its implementations.
        type Inputs = Vec<(String, Vec<String>)>;
        let mut ops: Vec<(String, Inputs)> = Vec::new();
        for (group, op, input, implementation) in defs {
            if group != self.group {
                continue;
            }
            let at = match ops.iter().position(|(o, _)| o == op) {
                Some(k) => k,
                None => {
                    ops.push((op.to_string(), Vec::new()));
                    ops.len() - 1
                }
            };
            let inputs = &mut ops[at].1;
            match inputs.iter_mut().find(|(i, _)| i == input) {
                Some((_, impls)) => impls.push(implementation.to_string()),
                None => inputs.push((input.to_string(), vec![implementation.to_string()])),
            }
        }
        let line = self.group_line;
        let here = |value: &str| Located {
            value: value.to_string(),
            line,
        };
        for (op, inputs) in ops {
            let mut k = 0;
            while k < inputs.len() {
                let impls = &inputs[k].1;
                let run: Vec<&(String, Vec<String>)> =
                    inputs[k..].iter().take_while(|(_, i)| i == impls).collect();
                self.benches.push(BenchSpec {
                    op: here(&op),
                    inputs: run.iter().map(|(i, _)| here(i)).collect(),
                    impls: impls.iter().map(|i| here(i)).collect(),
                    baseline: here(&impls[0]),
                    threshold: self.default_threshold,
                    target: None,
                    workload: None,
                    explicit: false,
                });
                k += run.len();
            }
        }
    }

    /// Check every group, op, input and implementation name against what can
    /// be built, and that no (id, implementation) appears twice.
    pub fn check(&self, known: &Known) -> Result<(), SpecError> {
        let unknown =
            |line, what: &'static str, name: &str, valid: Vec<String>| SpecError::Unknown {
                path: self.path.clone(),
                line,
                what,
                name: name.into(),
                suggestion: error::nearest(name, &valid),
                valid,
            };
        let mut seen = BTreeSet::new();
        for b in &self.benches {
            let (group, op) = b.measured(&self.group);
            if !known.groups().iter().any(|g| g == group) {
                return Err(match &b.workload {
                    Some(w) => unknown(w.line, "workload group", group, known.groups()),
                    None => unknown(self.group_line, "group", group, known.groups()),
                });
            }
            let ops = known.ops(group);
            if !ops.iter().any(|o| o == op) {
                return Err(match &b.workload {
                    Some(w) => unknown(w.line, "workload op", op, ops),
                    None => unknown(b.op.line, "op", op, ops),
                });
            }
            for input in &b.inputs {
                let valid = known.inputs(group, op);
                if !valid.contains(&input.value) {
                    return Err(unknown(input.line, "input", &input.value, valid));
                }
            }
            for imp in &b.impls {
                let valid = known.impls(group, op);
                if !valid.contains(&imp.value) {
                    return Err(unknown(imp.line, "implementation", &imp.value, valid));
                }
                for input in &b.inputs {
                    if !known.has(group, op, &input.value, &imp.value) {
                        return Err(SpecError::Invalid {
                            path: self.path.clone(),
                            line: imp.line,
                            key: format!("bench[op={}].impls", b.op.value),
                            reason: format!(
                                "{:?} has no benchmark for input {:?}",
                                imp.value, input.value
                            ),
                        });
                    }
                    let id = format!("{}/{}/{}", self.group, b.op.value, input.value);
                    if !seen.insert((id.clone(), imp.value.clone())) {
                        return Err(SpecError::Invalid {
                            path: self.path.clone(),
                            line: imp.line,
                            key: format!("bench[op={}]", b.op.value),
                            reason: format!("{id} on {} is listed twice", imp.value),
                        });
                    }
                }
            }
        }
        Ok(())
    }
}

fn names(items: &[Located<String>]) -> String {
    items
        .iter()
        .map(|i| i.value.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Load every `*.toml` in `dir`, sorted by file name; refuse two files for
/// the same group.
pub fn load_dir(dir: &Path) -> Result<Vec<Spec>, SpecError> {
    let entries = std::fs::read_dir(dir).map_err(|e| SpecError::Io {
        path: dir.to_path_buf(),
        reason: format!("{e} (pass --specs DIR to point at the specs folder)"),
    })?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        // The operation table is no suite: the suites that say so
        // (`[suite] operations`) read their benchmarks from it.
        .filter(|p| p.file_name().is_none_or(|n| n != operations::FILE))
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(SpecError::Io {
            path: dir.to_path_buf(),
            reason: "no *.toml spec files here (pass --specs DIR to point at the specs folder)"
                .into(),
        });
    }
    let mut specs: Vec<Spec> = Vec::new();
    for p in paths {
        let spec = Spec::load(&p)?;
        if let Some(other) = specs.iter().find(|s| s.group == spec.group) {
            return Err(SpecError::Invalid {
                path: p,
                line: spec.group_line,
                key: "suite.group".into(),
                reason: format!(
                    "group {:?} is already defined by {}",
                    spec.group,
                    other.path.display()
                ),
            });
        }
        specs.push(spec);
    }
    Ok(specs)
}

#[cfg(test)]
mod tests;
