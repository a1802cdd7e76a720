//! Other runtimes in a run: which adapters `--impl` selects, their
//! workers, and the jobs that run the plan's ids on them beside Rust's.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;

use dyno_adapter::{Adapter, AdapterWorkload, Checker, Pool};
use dyno_format::Implementation;
use dyno_protocol::Hello;
use dyno_runner::Job;
use dyno_spec::PlanEntry;
use dyno_workload::{BuildError, Ctx};

use crate::cases;
use crate::paths::Paths;
use crate::refuse;

/// The runtimes that have adapters.
pub const RUNTIMES: [&str; 4] = ["go", "java", "node", "python"];

/// Warm-up a JIT runtime gets in each fresh worker, as JMH's warm-up
/// iterations give it: 2 s, or 0.5 s with `--quick`.
pub fn jit_warmup_ns(quick: bool) -> u64 {
    if quick { 500_000_000 } else { 2_000_000_000 }
}

/// dyno's own adapters (under `paths.adapters`), then the external
/// folders (`--adapter`, `DYNO_ADAPTERS`), each installed under
/// `paths.cache`. An external folder that is not an adapter, or two
/// adapters of one name, are refused, naming the folders.
pub fn adapters(paths: &Paths) -> crate::Result<Vec<Adapter>> {
    let mut all = dyno_adapter::discover(&paths.adapters, &paths.cache);
    for dir in &paths.external {
        let a = Adapter::external(dir, &paths.cache)
            .map_err(|e| crate::Error::Refused(e.to_string()))?;
        if all.iter().any(|b| b.dir == a.dir) {
            continue; // given twice, or one of dyno's own named again
        }
        if let Some(b) = all.iter().find(|b| b.runtime == a.runtime) {
            refuse!(
                "two adapters are named {:?}: {} and {}; an adapter is named by its folder, so rename one folder",
                a.runtime,
                b.dir.display(),
                a.dir.display()
            );
        }
        all.push(a);
    }
    Ok(all)
}

/// What a run records of an adapter whose worker measured in it.
pub fn record(
    a: &Adapter,
    hello: &Hello,
    implementations: Vec<String>,
) -> dyno_format::adapter::AdapterRecord {
    let digest = a.source_digest().ok();
    dyno_format::adapter::AdapterRecord {
        name: a.runtime.clone(),
        external: a.external,
        dir: if a.external {
            a.dir.display().to_string()
        } else {
            format!("adapters/{}", a.runtime)
        },
        adapter: format!("{} {}", hello.adapter.name, hello.adapter.version),
        runtime: format!("{} {}", hello.runtime.name, hello.runtime.version),
        protocol: hello.protocol,
        stale: a.installed() && a.stale_against(digest.as_deref()),
        source_digest: digest,
        implementations,
    }
}

/// The dev nodes dyno can start (`paths.nodes`), installed under
/// `<cache>/nodes/`.
pub fn nodes(paths: &Paths) -> Vec<Adapter> {
    dyno_adapter::discover_into(&paths.nodes, &paths.cache.join("nodes"))
}

/// What `--impl` asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    all: bool,
    runtimes: BTreeSet<String>,
    names: BTreeSet<String>,
}

impl Selection {
    /// From `--impl` (absent: Rust's implementations only).
    pub fn parse(impls: Option<&[String]>) -> Self {
        let mut s = Self {
            all: false,
            runtimes: BTreeSet::new(),
            names: BTreeSet::new(),
        };
        match impls {
            None => {
                s.runtimes.insert("rust".into());
            }
            Some(list) => {
                for name in list.iter().map(|n| n.trim().to_ascii_lowercase()) {
                    if name == "all" {
                        s.all = true;
                    } else if name == "rust" || RUNTIMES.contains(&name.as_str()) {
                        s.runtimes.insert(name);
                    } else if !name.is_empty() {
                        s.names.insert(name);
                    }
                }
            }
        }
        s
    }

    /// True if `implementation` of `runtime` is selected.
    /// A name given may be an implementation's or an adapter's (an
    /// external adapter's folder name selects all it offers).
    pub fn wants(&self, runtime: &str, implementation: &str) -> bool {
        self.all
            || self.runtimes.contains(runtime)
            || self.names.contains(implementation)
            || self.names.contains(runtime)
    }

    /// True if an adapter's workers must be started to know (a runtime
    /// selected, or names that may be its implementations).
    fn may_want(&self, runtime: &str) -> bool {
        self.all || self.runtimes.contains(runtime) || !self.names.is_empty()
    }

    /// The explicitly named implementations.
    pub fn names(&self) -> &BTreeSet<String> {
        &self.names
    }
}

/// A started adapter: its pool and what its first worker said.
#[allow(missing_debug_implementations)] // a pool of live worker processes
pub struct Started {
    pub pool: Rc<RefCell<Pool>>,
    pub hello: Hello,
}

/// What starting the adapters said that the user should hear: a stale
/// install, a runtime skipped and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// The adapter's sources changed since `dyno setup` installed it: its
    /// name, and the command that reinstalls it.
    Stale(String, String),
    /// The runtime is not installed, or its worker did not start.
    Skipped {
        /// The runtime.
        runtime: String,
        /// The error, as the adapter reported it.
        reason: String,
    },
}

/// Start the adapters `sel` may need. One that is not installed or fails
/// to start is skipped, with a [`Notice`] saying why. Two adapters that
/// offer one implementation name are refused, naming both folders.
pub fn start(paths: &Paths, sel: &Selection) -> crate::Result<(Vec<Started>, Vec<Notice>)> {
    let mut out: Vec<Started> = Vec::new();
    let mut notices = Vec::new();
    for a in adapters(paths)? {
        if !sel.may_want(&a.runtime) {
            continue;
        }
        let runtime = a.runtime.clone();
        let setup = setup_command(&a);
        if a.external && !a.installed() {
            notices.push(Notice::Skipped {
                runtime,
                reason: format!("not installed: run `{setup}`"),
            });
            continue;
        }
        if a.installed() && a.stale() {
            notices.push(Notice::Stale(runtime.clone(), setup));
        }
        let mut pool = Pool::new(a);
        match pool.hello() {
            Ok(h) => {
                let hello = h.clone();
                out.push(Started {
                    pool: Rc::new(RefCell::new(pool)),
                    hello,
                });
            }
            Err(e) => notices.push(Notice::Skipped {
                runtime,
                reason: e.to_string(),
            }),
        }
    }
    let mut seen: std::collections::BTreeMap<&str, &Started> = std::collections::BTreeMap::new();
    for s in &out {
        for o in s.hello.benchmarks.iter().chain(&s.hello.patterns) {
            match seen.get(o.implementation.as_str()) {
                Some(other) if !std::ptr::eq(*other, s) => refuse!(
                    "two adapters offer the implementation {:?}: {} and {}; implementation names are unique across adapters (docs/adapter-protocol.md, \"hello\"), so rename it in one of them",
                    o.implementation,
                    other.pool.borrow().adapter().dir.display(),
                    s.pool.borrow().adapter().dir.display()
                ),
                _ => {
                    seen.insert(&o.implementation, s);
                }
            }
        }
    }
    Ok((out, notices))
}

/// The command that installs `a`: `dyno setup go`, or for an external
/// adapter `dyno setup --adapter DIR`.
pub fn setup_command(a: &Adapter) -> String {
    if a.external {
        format!("dyno setup --adapter {}", a.dir.display())
    } else {
        format!("dyno setup {}", a.runtime)
    }
}

/// The plan's jobs with the selected adapters' implementations added: for
/// each id, Rust's and every other runtime's implementations one after the
/// other (the order rotated from id to id, so no runtime always goes
/// first), then the next id. Each adapter's `harness/noop/empty` runs
/// first, to measure its own overhead.
pub fn interleave(
    rust: Vec<Job>,
    plan: &[PlanEntry],
    started: &[Started],
    sel: &Selection,
    ctx: &Ctx,
    quick: bool,
) -> Vec<Job> {
    let mut ids: Vec<&PlanEntry> = Vec::new();
    for e in plan {
        if !ids.iter().any(|x| x.id == e.id) {
            ids.push(e);
        }
    }
    let mut rust = rust;
    let mut jobs = Vec::new();
    let mut used = vec![false; started.len()];
    for (k, e) in ids.into_iter().enumerate() {
        let mut group: Vec<Job> = Vec::new();
        let (mine, rest): (Vec<Job>, Vec<Job>) = rust.into_iter().partition(|j| j.id == e.id);
        rust = rest;
        group.extend(mine);
        let exported = cases::cases(ctx, &e.workload).is_some();
        for (n, s) in started.iter().enumerate() {
            if !exported {
                continue;
            }
            for offer in s.hello.implementations_of(&e.workload) {
                if sel.wants(&s.hello.runtime.name, &offer.implementation)
                    || sel.wants(
                        s.pool.borrow().adapter().runtime.as_str(),
                        &offer.implementation,
                    )
                {
                    used[n] = true;
                    group.push(adapter_job(
                        s,
                        &offer.implementation,
                        offer.library.as_deref(),
                        Planned::Entry(e),
                        ctx,
                        quick,
                    ));
                }
            }
        }
        if !group.is_empty() {
            let by = k % group.len();
            group.rotate_left(by);
        }
        jobs.extend(group);
    }
    jobs.extend(rust);
    // each adapter in use first measures its own loop's cost
    let mut noops = Vec::new();
    for (s, _) in started.iter().zip(&used).filter(|(_, u)| **u) {
        let noop = dyno_protocol::NOOP_ID;
        for offer in s.hello.implementations_of(noop) {
            noops.push(adapter_job(
                s,
                &offer.implementation,
                offer.library.as_deref(),
                Planned::Noop,
                ctx,
                quick,
            ));
        }
    }
    noops.extend(jobs);
    noops
}

/// What an adapter job runs: a plan entry, or the adapter's own empty loop.
#[derive(Clone, Copy)]
enum Planned<'a> {
    Entry(&'a PlanEntry),
    Noop,
}

fn adapter_job(
    s: &Started,
    implementation: &str,
    library: Option<&str>,
    planned: Planned<'_>,
    ctx: &Ctx,
    quick: bool,
) -> Job {
    let (id, workload, isolate, entry) = match planned {
        Planned::Entry(e) => (e.id.as_str(), e.workload.as_str(), e.isolate, Some(e)),
        Planned::Noop => (dyno_protocol::NOOP_ID, dyno_protocol::NOOP_ID, false, None),
    };
    let hello = &s.hello;
    let runtime = s.pool.borrow().adapter().runtime.clone();
    let version = library
        .and_then(|l| hello.libraries.get(l))
        .cloned()
        .unwrap_or_else(|| hello.adapter.version.clone());
    let mut parameters = std::collections::BTreeMap::new();
    if let Some(l) = library {
        parameters.insert("library".to_string(), serde_json::Value::from(l));
    }
    parameters.insert(
        "runtime_flags".to_string(),
        serde_json::Value::from(hello.runtime.flags.join(" ")),
    );
    parameters.insert(
        "adapter_clock".to_string(),
        serde_json::Value::from(hello.clock.source.as_str()),
    );
    parameters.extend(cases::parameters(workload, implementation));
    if workload != id {
        parameters.insert("workload".into(), workload.into());
    }
    if isolate {
        parameters.insert("fresh_worker".into(), true.into());
    }
    let pool = s.pool.clone();
    let ctx = ctx.clone();
    let (id_owned, imp) = (workload.to_string(), implementation.to_string());
    let runtime_name = runtime.clone();
    Job {
        id: id.to_string(),
        implementation: Implementation {
            name: implementation.to_string(),
            version,
            runtime,
        },
        baseline: false,
        parameters,
        threshold: entry.map_or(0.2, |e| e.threshold),
        target: entry.and_then(|e| e.target.as_ref().map(|t| (t.stat, t.limit_ns))),
        build: Box::new(move || {
            let cases = cases::cases(&ctx, &id_owned).unwrap_or_else(|| {
                Err(BuildError::Adapter {
                    runtime: runtime_name.clone(),
                    reason: format!("{id_owned} has no portable form"),
                })
            })?;
            let check_id = id_owned.clone();
            let check: Checker = Box::new(move |case, out| {
                cases::check(&check_id, case, out).map_err(|w| (w.field, w.expected, w.actual))
            });
            if isolate {
                // a fresh process: nothing an earlier scenario left
                // resident counts against this one's peak
                pool.borrow_mut().stop();
            }
            let w = AdapterWorkload::prepare(
                pool,
                &id_owned,
                &imp,
                cases,
                &check,
                jit_warmup_ns(quick),
                cases::limits(&id_owned),
            )?;
            Ok(Box::new(w) as Box<dyn dyno_workload::Workload>)
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impl_selection() {
        let none = Selection::parse(None);
        assert!(none.wants("rust", "k256") && !none.wants("go", "geth"));
        let list = ["go".to_string(), "k256".into(), "Noble".into()];
        let s = Selection::parse(Some(&list));
        assert!(s.wants("go", "geth") && s.wants("rust", "k256") && s.wants("node", "noble"));
        assert!(!s.wants("rust", "sha2") && !s.wants("java", "web3j"));
        let all = Selection::parse(Some(&["all".to_string()]));
        assert!(all.wants("python", "coincurve") && all.wants("rust", "sha2"));
    }
}
