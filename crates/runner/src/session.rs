//! A run from start to finish: the header, one job after another, partial
//! results handed out after every job so nothing measured is ever lost.

use std::collections::BTreeMap;
use std::time::{SystemTime, UNIX_EPOCH};

use dyno_format::{
    BenchResult, Environment, Implementation, Run, RunInfo, SCHEMA_VERSION, Settings, Stat, Target,
    VerificationStatus,
};
use dyno_workload::{BuildError, Workload};

use crate::engine::{Engine, Measurement};
pub use dyno_format::time::{compact_utc, now_rfc3339, rfc3339};

/// Builds a job's workload when its turn comes (not before, so a long plan
/// holds one large input set at a time).
pub type Builder = Box<dyn FnOnce() -> Result<Box<dyn Workload>, BuildError>>;

/// One benchmark to run, with everything the result must record.
pub struct Job {
    /// `group/op/input`.
    pub id: String,
    /// The implementation.
    pub implementation: Implementation,
    /// Compared with by the other implementations of this id.
    pub baseline: bool,
    /// Recorded parameters.
    pub parameters: BTreeMap<String, serde_json::Value>,
    /// Regression threshold from the spec.
    pub threshold: f64,
    /// Target from the spec: (statistic, limit in ns).
    pub target: Option<(Stat, f64)>,
    /// Builds the workload.
    pub build: Builder,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("id", &self.id)
            .field("implementation", &self.implementation.name)
            .finish_non_exhaustive()
    }
}

/// What happened, for progress display and saving.
#[derive(Debug)]
pub enum Progress<'a> {
    /// Job `index` (0-based) of `total` starts.
    Start {
        /// 0-based position.
        index: usize,
        /// Jobs in the run.
        total: usize,
        /// The job.
        id: &'a str,
        /// Its implementation.
        implementation: &'a str,
    },
    /// A job finished; the run now includes its result.
    Done {
        /// 0-based position.
        index: usize,
        /// Jobs in the run.
        total: usize,
        /// The run so far (incomplete until the last job).
        run: &'a Run,
        /// Set if the workload could not be built.
        build_error: Option<&'a BuildError>,
    },
}

/// Everything a run header records besides the environment and settings.
#[derive(Debug, Clone)]
pub struct Invocation {
    /// argv.
    pub command_line: Vec<String>,
    /// dyno's version.
    pub dyno_version: String,
    /// The commit dyno was built from.
    pub git_commit: Option<String>,
}

/// A fresh, incomplete run with no results yet.
pub fn new_run(invocation: Invocation, settings: Settings, environment: Environment) -> Run {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    Run {
        schema_version: SCHEMA_VERSION,
        run: RunInfo {
            id: format!(
                "{}-{:06x}",
                compact_utc(now.as_secs()),
                now.subsec_nanos() >> 8 & 0xff_ffff
            ),
            started_at: rfc3339(now.as_secs()),
            finished_at: None,
            complete: false,
            incomplete_reason: Some("in progress".into()),
            command_line: invocation.command_line,
            dyno_version: invocation.dyno_version,
            git_commit: invocation.git_commit,
            settings,
        },
        environment,
        harness: None,
        results: Vec::new(),
        load: Vec::new(),
        logs: Vec::new(),
        reads: Vec::new(),
        comparisons: Vec::new(),
        clients: Vec::new(),
        paired: Vec::new(),
        noise: None,
        adapters: Vec::new(),
    }
}

/// Run every job in order, appending results to `run` and reporting after
/// each. Returns the build errors (the jobs they belong to are recorded as
/// not run). Marks the run complete unless the engine was stopped.
pub fn execute(
    engine: &Engine,
    run: &mut Run,
    jobs: Vec<Job>,
    mut observe: impl FnMut(Progress<'_>),
) -> Vec<(String, BuildError)> {
    let total = jobs.len();
    // Checked by the binary before measuring starts; unreadable here means unset.
    let slowdown = crate::slowdown::Slowdown::from_env().unwrap_or_default();
    let mut errors = Vec::new();
    let mut skipped = 0;
    for (index, job) in jobs.into_iter().enumerate() {
        if engine.stopped() {
            break;
        }
        observe(Progress::Start {
            index,
            total,
            id: &job.id,
            implementation: &job.implementation.name,
        });
        let Job {
            id,
            implementation,
            baseline,
            parameters,
            threshold,
            target,
            build,
        } = job;
        let mut parameters = parameters;
        // Peak RSS (docs/methodology.md): dyno's own from before the build,
        // so that loading inputs counts; another runtime's worker's from
        // when it has been prepared (it has no pid before).
        let me = std::process::id();
        let own_reset = crate::memory::reset_peak(me);
        let own_start = own_reset.then(|| crate::memory::rss(me)).flatten();
        let built = build().map(|w| match slowdown.factor(&id) {
            Some(f) => Box::new(crate::slowdown::Slowed::new(w, f)) as Box<dyn Workload>,
            None => w,
        });
        let (measurement, build_error) = match built {
            Ok(mut w) => {
                let (pid, reset, start) = match w.pid() {
                    Some(pid) if pid != me => {
                        let reset = crate::memory::reset_peak(pid);
                        (pid, reset, reset.then(|| crate::memory::rss(pid)).flatten())
                    }
                    _ => (me, own_reset, own_start),
                };
                let m = engine.measure(w.as_mut());
                let peak = reset.then(|| crate::memory::peak_rss(pid)).flatten();
                for (k, v) in w.facts() {
                    parameters.insert(k.to_string(), v.to_json());
                }
                if let Some(bytes) = peak {
                    parameters.insert("rss_peak_bytes".into(), bytes.into());
                }
                if let (Some(bytes), Some(_)) = (start, peak) {
                    parameters.insert("rss_start_bytes".into(), bytes.into());
                }
                (m, None)
            }
            Err(e) => (not_built(&e), Some(e)),
        };
        // The implicit reference (not asked for) that cannot be built is
        // said, never a failure of the run.
        let build_error = build_error.map(|e| {
            let implicit = parameters.get("reference") == Some(&serde_json::Value::Bool(true));
            if implicit && !e.is_skip() {
                BuildError::Reference {
                    reason: e.to_string(),
                }
            } else {
                e
            }
        });
        if build_error.as_ref().is_some_and(BuildError::is_skip) {
            skipped += 1;
            errors.extend(build_error.map(|e| (format!("{id} on {}", implementation.name), e)));
            continue;
        }
        run.results.push(result(
            id.clone(),
            implementation.clone(),
            baseline,
            parameters,
            threshold,
            target,
            measurement,
        ));
        observe(Progress::Done {
            index,
            total,
            run,
            build_error: build_error.as_ref(),
        });
        if let Some(e) = build_error {
            errors.push((format!("{id} on {}", implementation.name), e));
        }
    }
    finish(engine, run, total - skipped);
    errors
}

fn not_built(e: &BuildError) -> Measurement {
    Measurement {
        incomplete_reason: Some(format!("could not be built: {e}")),
        ..Measurement::untimed(VerificationStatus::NotRun, 0)
    }
}

fn finish(engine: &Engine, run: &mut Run, total: usize) {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs();
    let interrupted = engine.stopped()
        || run.results.len() < total
        || run.results.iter().any(|r| r.incomplete_reason.is_some());
    run.run.complete = !interrupted;
    let word = if engine.stopped() {
        "interrupted"
    } else {
        "incomplete"
    };
    run.run.incomplete_reason = interrupted.then(|| {
        format!(
            "{word}: {} of {total} benchmarks finished",
            run.results
                .iter()
                .filter(|r| r.incomplete_reason.is_none())
                .count()
        )
    });
    run.run.finished_at = (!interrupted).then(|| rfc3339(now));
}

/// Assemble a result from a job's description and its measurement.
fn result(
    id: String,
    implementation: Implementation,
    baseline: bool,
    parameters: BTreeMap<String, serde_json::Value>,
    threshold: f64,
    target: Option<(Stat, f64)>,
    m: Measurement,
) -> BenchResult {
    let ops_per_sec = m.ops_per_sec();
    let target = target.map(|(stat, limit_ns)| {
        let value = m.stats.as_ref().map(|s| stat.of(s));
        Target {
            met: value.map(|v| v <= limit_ns),
            stat,
            limit_ns,
        }
    });
    BenchResult {
        id,
        implementation,
        baseline,
        parameters,
        unit: "ns".into(),
        mode: m.mode,
        verification: m.verification,
        warmup_iters: m.warmup_iters,
        samples: m.samples,
        stats: m.stats,
        ops_per_sec,
        fit: m.fit,
        allocations: m.allocations,
        target,
        regression_threshold: threshold,
        incomplete_reason: m.incomplete_reason,
        instructions: None,
        reprice: None,
        blocks: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use dyno_workload::Cases;

    use super::*;

    fn env() -> Environment {
        crate::env::capture(crate::clock::calibrate(), "rustc test")
    }

    fn job(id: &str, expected: u32, target_ns: f64) -> Job {
        Job {
            id: id.into(),
            implementation: Implementation {
                name: "double".into(),
                version: "1".into(),
                runtime: "rust".into(),
            },
            baseline: true,
            parameters: BTreeMap::new(),
            threshold: 0.2,
            target: Some((Stat::P50, target_ns)),
            build: Box::new(move || {
                Ok(Box::new(Cases::expect(vec![(2u32, expected)], |x| x * 2)) as Box<dyn Workload>)
            }),
        }
    }

    /// A quick engine and an empty run of its settings.
    fn quick() -> (Engine, Run) {
        let clock = crate::clock::calibrate();
        let mut s = crate::settings(true, None, &clock);
        s.warmup_min_ns = 1_000_000;
        s.measurement_ns = 5_000_000;
        let engine = Engine::new(s.clone());
        let inv = Invocation {
            command_line: vec!["dyno".into()],
            dyno_version: "0".into(),
            git_commit: None,
        };
        (engine, new_run(inv, s, env()))
    }

    #[test]
    fn a_run_records_results_targets_and_completion() {
        let _serial = crate::engine::tests::timing();
        let (engine, mut run) = quick();
        let failing = Job {
            build: Box::new(|| {
                Err(BuildError::vectors(
                    &PathBuf::from("vectors/x.json"),
                    "missing",
                ))
            }),
            ..job("t/missing/x", 4, 1.0)
        };
        let jobs = vec![
            job("t/ok/x", 4, 1e9),
            job("t/wrong/x", 5, 1e9),
            job("t/slow/x", 4, 1e-3),
            failing,
        ];
        let mut saved = 0;
        let errors = execute(&engine, &mut run, jobs, |p| {
            if let Progress::Done { run, .. } = p {
                saved += 1;
                assert!(!run.run.complete, "partial saves are marked incomplete");
            }
        });
        assert_eq!(saved, 4);
        assert_eq!(errors.len(), 1);
        assert!(errors[0].1.to_string().contains("vectors/x.json"));
        let r = &run.results;
        assert_eq!(r[0].verification.status, VerificationStatus::Passed);
        assert_eq!(r[0].target.as_ref().unwrap().met, Some(true));
        assert_eq!(r[1].verification.status, VerificationStatus::Failed);
        assert!(r[1].samples.is_empty());
        assert_eq!(r[2].target.as_ref().unwrap().met, Some(false));
        assert!(
            r[3].incomplete_reason
                .as_ref()
                .unwrap()
                .contains("could not be built")
        );
        assert!(
            !run.run.complete,
            "a job that could not be built leaves the run incomplete"
        );
    }

    /// The implicit reference that cannot be built (no go-ethereum module
    /// cache for its vectors) made the whole run exit 2 before; it is now
    /// a skip, said, and what was asked keeps its result.
    #[test]
    fn an_unbuildable_reference_is_said_not_fatal() {
        let _serial = crate::engine::tests::timing();
        let (engine, mut run) = quick();
        let mut reference = Job {
            build: Box::new(|| {
                Err(BuildError::vectors(
                    &PathBuf::from("go/pkg/mod/precompiles.json"),
                    "missing",
                ))
            }),
            ..job("precompile/ecrecover/x", 4, 1e9)
        };
        reference
            .parameters
            .insert("reference".into(), serde_json::Value::Bool(true));
        let errors = execute(
            &engine,
            &mut run,
            vec![job("t/ok/x", 4, 1e9), reference],
            |_| {},
        );
        assert_eq!(errors.len(), 1);
        assert!(errors[0].1.is_skip(), "{}", errors[0].1);
        assert!(
            errors[0]
                .1
                .to_string()
                .contains("cross-machine reference could not be measured"),
            "{}",
            errors[0].1
        );
        assert_eq!(run.results.len(), 1, "no result for the reference");
        assert!(run.run.complete, "everything asked for was measured");
    }
}
