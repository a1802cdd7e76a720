//! A benchmark measured by a worker in another runtime.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use dyno_protocol::{Case, Reply, Request};
use dyno_workload::{BuildError, Mismatch, Param, Workload};
use serde_json::{Map, Value};

use crate::pool::Pool;

/// dyno's own check of one output: `Err((field, expected, actual))`.
pub type Checker = Box<dyn Fn(&Case, &Map<String, Value>) -> Result<(), (String, String, String)>>;

/// Longest wait for a `prepare` unless the id asks for more ([`Limits`]):
/// parsing and checking every case once (a pure-Python pairing takes
/// seconds).
pub const PREPARE_LIMIT: Duration = Duration::from_secs(600);

/// What one id may take on a worker beyond the defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The longest wait for its `prepare` (a state id's worker may write
    /// the whole state first).
    pub prepare: Duration,
    /// The most iterations one run may take: its cases hold only so many
    /// fresh keys (a state-access loop's).
    pub max_iters: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            prepare: PREPARE_LIMIT,
            max_iters: None,
        }
    }
}

/// Longest wait for one sample: batches are sized to a few milliseconds,
/// but the slowest operations (seconds each) are fitted over batches of
/// one to three.
pub const RUN_LIMIT: Duration = Duration::from_secs(300);

/// A benchmark prepared on a worker: verified there and here, then timed
/// by the worker's own clock, one `run` request per sample.
pub struct AdapterWorkload {
    pool: Rc<RefCell<Pool>>,
    runtime: String,
    runtime_version: String,
    cases: usize,
    verdict: Result<(), Mismatch>,
    min_warmup_ns: u64,
    iters: u64,
    timed_ns: u64,
    gc_count: Option<u64>,
    gc_ns: Option<u64>,
    heap_peak: Option<u64>,
    alloc_bytes: Option<u64>,
    alloc_count: Option<u64>,
    max_iters: Option<u64>,
}

impl std::fmt::Debug for AdapterWorkload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdapterWorkload")
            .field("runtime", &self.runtime)
            .field("cases", &self.cases)
            .finish_non_exhaustive()
    }
}

fn adapter_error(runtime: &str, reason: impl std::fmt::Display) -> BuildError {
    BuildError::Adapter {
        runtime: runtime.into(),
        reason: reason.to_string(),
    }
}

fn show(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl AdapterWorkload {
    /// Send `prepare` for `(id, implementation)` with `cases` on the pool's
    /// worker, and check every output it returns with `check`. A worker
    /// that is missing, dies or refuses the id gives a [`BuildError`]; a
    /// wrong output is kept as the workload's verification verdict (the
    /// engine then records it as a failed verification, never a timing).
    /// A JIT runtime's worker is warmed up for at least `jit_warmup_ns`;
    /// `limits` bound the prepare's wait and every run's iterations.
    pub fn prepare(
        pool: Rc<RefCell<Pool>>,
        id: &str,
        implementation: &str,
        cases: Vec<Case>,
        check: &Checker,
        jit_warmup_ns: u64,
        limits: Limits,
    ) -> Result<Self, BuildError> {
        let runtime = pool.borrow().adapter().runtime.clone();
        let (reply, hello) = {
            let mut p = pool.borrow_mut();
            let w = p
                .worker_for(id)
                .map_err(|e| adapter_error(&runtime, strip(&runtime, e)))?;
            let hello = w.hello().clone();
            let req = Request::Prepare {
                id: id.into(),
                implementation: implementation.into(),
                cases: cases.clone(),
            };
            let reply = w
                .request(&req, limits.prepare)
                .map_err(|e| adapter_error(&runtime, strip(&runtime, e)))?;
            (reply, hello)
        };
        let verdict = match reply {
            Reply::Prepared { id: got, .. } if got != id => {
                pool.borrow_mut().stop();
                return Err(adapter_error(
                    &runtime,
                    format!("protocol error: asked to prepare {id}, it answered for {got}"),
                ));
            }
            Reply::Prepared { outputs, .. } if outputs.len() != cases.len() => Err(Mismatch {
                case: "all".into(),
                expected: format!("{} outputs", cases.len()),
                actual: format!("{} outputs", outputs.len()),
            }),
            Reply::Prepared { outputs, .. } => cases
                .iter()
                .zip(&outputs)
                .enumerate()
                .find_map(|(k, (case, out))| {
                    check(case, out)
                        .err()
                        .map(|(field, expected, actual)| Mismatch {
                            case: format!("{k} ({field}, checked by dyno)"),
                            expected,
                            actual,
                        })
                })
                .map_or(Ok(()), Err),
            Reply::Mismatch {
                case,
                field,
                expected,
                actual,
            } => Err(Mismatch {
                case: match field {
                    Some(f) => format!("{case} ({f})"),
                    None => case.to_string(),
                },
                expected: show(&expected),
                actual: show(&actual),
            }),
            // A worker may decline an input of a family it offers by
            // pattern: that is an absence. An `error` for a pair it lists
            // in `benchmarks` is a failure (a read-only or full state
            // folder, a damaged store), never "does not run it".
            Reply::Error { message, .. } => {
                let listed = hello
                    .benchmarks
                    .iter()
                    .any(|o| o.id == id && o.implementation == implementation);
                return Err(if listed {
                    adapter_error(
                        &runtime,
                        format!(
                            "it failed to prepare {id} ({implementation}), which it offers: {message}"
                        ),
                    )
                } else {
                    BuildError::Unsupported {
                        runtime,
                        reason: message,
                    }
                });
            }
            other => {
                pool.borrow_mut().stop();
                return Err(adapter_error(
                    &runtime,
                    format!("protocol error: expected prepared, got {other:?}"),
                ));
            }
        };
        Ok(Self {
            pool,
            runtime,
            runtime_version: hello.runtime.version.clone(),
            cases: cases.len(),
            verdict,
            min_warmup_ns: if hello.jit { jit_warmup_ns } else { 0 },
            iters: 0,
            timed_ns: 0,
            gc_count: None,
            gc_ns: None,
            heap_peak: None,
            alloc_bytes: None,
            alloc_count: None,
            max_iters: limits.max_iters,
        })
    }

    fn sample(&mut self, iters: u64) -> Result<u64, String> {
        let mut pool = self.pool.borrow_mut();
        let Some(w) = pool.current() else {
            return Err(format!("the {} worker is gone", self.runtime));
        };
        let req = Request::Run {
            iterations: iters.max(1),
            samples: 1,
        };
        let sent = std::time::Instant::now();
        let reply = w
            .request(&req, RUN_LIMIT)
            .map_err(|e| strip(&self.runtime, e))?;
        let wall_ns = u64::try_from(sent.elapsed().as_nanos()).unwrap_or(u64::MAX);
        match reply {
            Reply::Samples { ns, .. } if ns.len() == 1 && ns[0] == 0 => Err(format!(
                "the {} worker timed {} iteration(s) as 0 ns: its clock did not advance, so the \
                 sample says nothing (a worker times with a clock of nanoseconds: \
                 docs/adapter-protocol.md)",
                self.runtime,
                iters.max(1)
            )),
            // The sample cannot be longer than the whole exchange that
            // carried it (1 ms of slack for clocks read at other points).
            Reply::Samples { ns, .. }
                if ns.len() == 1 && ns[0] > wall_ns.saturating_add(1_000_000) =>
            {
                Err(format!(
                    "the {} worker timed {} ns, longer than the {wall_ns} ns the whole request \
                     took: not a timing",
                    self.runtime, ns[0]
                ))
            }
            Reply::Samples { ns, gc, alloc } if ns.len() == 1 => {
                self.iters += iters;
                self.timed_ns += ns[0];
                let add = |acc: &mut Option<u64>, v: Option<u64>| {
                    if let Some(v) = v {
                        *acc = Some(acc.unwrap_or(0) + v);
                    }
                };
                if let Some(g) = gc {
                    add(&mut self.gc_count, g.count);
                    add(&mut self.gc_ns, g.time_ns);
                    if let Some(h) = g.heap_peak_bytes {
                        self.heap_peak = Some(self.heap_peak.unwrap_or(0).max(h));
                    }
                }
                if let Some(a) = alloc {
                    add(&mut self.alloc_bytes, a.bytes);
                    add(&mut self.alloc_count, a.count);
                }
                Ok(ns[0])
            }
            Reply::Samples { ns, .. } => Err(format!(
                "protocol error: asked for 1 sample, got {}",
                ns.len()
            )),
            Reply::Error { message, .. } => Err(format!("{} worker: {message}", self.runtime)),
            other => Err(format!("protocol error: expected samples, got {other:?}")),
        }
    }
}

/// A worker error's message without the runtime prefix (the caller adds it).
fn strip(runtime: &str, e: impl std::fmt::Display) -> String {
    let s = e.to_string();
    s.strip_prefix(&format!("{runtime}: "))
        .unwrap_or(&s)
        .to_string()
}

impl Workload for AdapterWorkload {
    fn verify(&mut self) -> Result<(), Mismatch> {
        self.verdict.clone()
    }

    fn run(&mut self, iters: u64) {
        // The engine times this workload through `time`; a plain run is
        // still a run on the worker.
        let _ = self.sample(iters);
    }

    fn cases(&self) -> usize {
        self.cases
    }

    fn fitted(&self) -> bool {
        true
    }

    fn time(&mut self, iters: u64) -> Option<Result<u64, String>> {
        Some(self.sample(iters))
    }

    fn min_warmup_ns(&self) -> u64 {
        self.min_warmup_ns
    }

    fn max_iters(&self) -> Option<u64> {
        self.max_iters
    }

    fn pid(&self) -> Option<u32> {
        self.pool.borrow_mut().current().map(|w| w.pid())
    }

    fn facts(&self) -> Vec<(&'static str, Param)> {
        let mut f = vec![("runtime_version", Param::Text(self.runtime_version.clone()))];
        let per_op = |v: u64| Param::Float(v as f64 / self.iters.max(1) as f64);
        if let Some(c) = self.gc_count {
            f.push(("gc_count", Param::Int(c)));
        }
        if let Some(ns) = self.gc_ns {
            f.push(("gc_time_ns", Param::Int(ns)));
            if self.timed_ns > 0 {
                f.push((
                    "gc_overhead_pct",
                    Param::Float(100.0 * ns as f64 / self.timed_ns as f64),
                ));
            }
        }
        if let Some(h) = self.heap_peak {
            f.push(("heap_peak_bytes", Param::Int(h)));
        }
        if let Some(b) = self.alloc_bytes {
            f.push(("alloc_bytes_per_op", per_op(b)));
        }
        if let Some(c) = self.alloc_count {
            f.push(("allocs_per_op", per_op(c)));
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapter::Launch;
    use std::path::PathBuf;

    const HELLO: &str = r#"{"type":"hello","protocol":1,"runtime":{"name":"sh","version":"5"},"adapter":{"name":"t","version":"0"},"clock":{"source":"date"},"jit":false,"benchmarks":[{"id":"hash/keccak256/32B","implementation":"toy"}],"patterns":[{"id":"precompile/*","implementation":"toy"}]}"#;

    /// A worker in shell that lists `hash/keccak256/32B` (toy) and offers
    /// `precompile/*` (toy) by pattern, and answers every prepare `error`.
    fn refusing_pool() -> Rc<RefCell<Pool>> {
        shell_pool(
            "while read -r l; do \
             echo '{\"type\":\"error\",\"message\":\"state folder is read-only\"}'; done",
        )
    }

    /// A worker in shell: hello, then `script`.
    fn shell_pool(script: &str) -> Rc<RefCell<Pool>> {
        let script = format!("read -r l; echo '{HELLO}'; {script}");
        let launch = Launch {
            program: PathBuf::from("/bin/sh"),
            args: vec!["-c".into(), script],
            env: Vec::new(),
            cwd: None,
            env_remove: Vec::new(),
        };
        Rc::new(RefCell::new(Pool::new(crate::Adapter::launching(
            "sh", launch,
        ))))
    }

    fn prepare(pool: Rc<RefCell<Pool>>, id: &str) -> BuildError {
        let check: Checker = Box::new(|_, _| Ok(()));
        let cases = dyno_protocol::noop_cases();
        AdapterWorkload::prepare(pool, id, "toy", cases, &check, 0, Limits::default())
            .expect_err("the worker refuses")
    }

    /// An `error` for a listed pair was "the sh adapter does not run it",
    /// a skip: the run exited 0, complete.
    #[test]
    fn an_error_for_a_listed_benchmark_is_a_failure_not_an_absence() {
        let e = prepare(refusing_pool(), "hash/keccak256/32B");
        assert!(!e.is_skip(), "{e}");
        assert!(
            e.to_string()
                .contains("failed to prepare hash/keccak256/32B")
                && e.to_string().contains("read-only"),
            "{e}"
        );
    }

    /// A worker that prepares, then times every run as `ns`.
    fn timing(ns: &str) -> AdapterWorkload {
        let prepared = r#"{"type":"prepared","id":"hash/keccak256/32B","cases":4}"#;
        let pool = shell_pool(&format!(
            "read -r l; echo '{prepared}'; while read -r l; do \
             echo '{{\"type\":\"samples\",\"ns\":[{ns}]}}'; done"
        ));
        let check: Checker = Box::new(|_, _| Ok(()));
        AdapterWorkload::prepare(
            pool,
            "hash/keccak256/32B",
            "toy",
            dyno_protocol::noop_cases(),
            &check,
            0,
            Limits::default(),
        )
        .unwrap()
    }

    /// 0 ns and u64::MAX ns were taken as timings.
    #[test]
    fn impossible_timings_are_refused() {
        let e = timing("0").time(10).unwrap().unwrap_err();
        assert!(e.contains("as 0 ns: its clock did not advance"), "{e}");
        let e = timing("18446744073709551615")
            .time(10)
            .unwrap()
            .unwrap_err();
        assert!(e.contains("longer than the"), "{e}");
        assert_eq!(timing("1234").time(10).unwrap().unwrap(), 1234);
    }

    #[test]
    fn an_error_for_a_pattern_input_is_a_declined_input() {
        let e = prepare(refusing_pool(), "precompile/x");
        assert!(e.is_skip(), "{e}");
    }
}
