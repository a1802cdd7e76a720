//! Shared by the store's integration tests: realistic runs, and a fresh
//! store per test on either backend.
//!
//! PostgreSQL tests read the server's URL from `DYNO_TEST_POSTGRES`
//! (`scripts/postgres.sh start DIR` prints one). Each test gets a schema of
//! its own, dropped afterwards, so tests run in parallel and re-run. Without
//! the variable they are skipped, loudly; under `CI=true` they fail.

#![allow(dead_code, unreachable_pub)]

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use dyno_format::{BenchResult, Mode, Run, Sample, VerificationStatus, fixture};
use dyno_store::Location;

/// One result to put in a test run.
#[derive(Debug, Clone, Copy)]
pub struct Spec<'a> {
    pub bench: &'a str,
    pub implementation: &'a str,
    pub runtime: &'a str,
    /// Typical ns per operation; samples spread around it.
    pub ns: f64,
    /// False: verification failed, nothing timed, no stats.
    pub verified: bool,
    pub samples: usize,
}

impl<'a> Spec<'a> {
    pub fn new(bench: &'a str, implementation: &'a str, ns: f64) -> Self {
        Spec {
            bench,
            implementation,
            runtime: "rust",
            ns,
            verified: true,
            samples: 20,
        }
    }

    pub fn failed(mut self) -> Self {
        self.verified = false;
        self
    }
}

/// A run shaped like `dyno run` writes: settings, environment, and one
/// result per spec with raw samples and their statistics.
pub fn run(id: &str, started_at: &str, specs: &[Spec<'_>]) -> Run {
    let results = specs
        .iter()
        .enumerate()
        .map(|(k, s)| result(k, s))
        .collect();
    let mut run = fixture::run(id, results);
    run.run.started_at = started_at.into();
    run.run.finished_at = Some(started_at.replace('Z', ".9Z"));
    run.run.command_line = vec!["dyno".into(), "run".into(), "hash".into(), "--quick".into()];
    run.environment.cpu_model = "Test CPU @ 2.00GHz".into();
    run.environment
        .runtimes
        .insert("go".to_string(), "go1.25.1".to_string());
    run
}

fn result(k: usize, s: &Spec<'_>) -> BenchResult {
    let iters = 1000;
    let samples: Vec<Sample> = if s.verified {
        (0..s.samples)
            .map(|i| {
                // A deterministic spread of about ±5 % around `ns`.
                let wobble = ((i * 7 + k * 3) % 11) as f64 / 100.0 - 0.05;
                Sample {
                    iters,
                    ns: (s.ns * (1.0 + wobble) * iters as f64).round() as u64,
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    let per_op: Vec<f64> = samples.iter().map(Sample::per_op).collect();
    let stats = dyno_stats::summarize(&per_op);
    let mut r = fixture::result(s.bench, s.implementation, None);
    r.implementation.runtime = s.runtime.into();
    r.baseline = k == 0;
    r.parameters = BTreeMap::from([("bytes".to_string(), serde_json::json!(32))]);
    r.mode = s.verified.then_some(Mode::Batched);
    r.verification.status = if s.verified {
        VerificationStatus::Passed
    } else {
        VerificationStatus::Failed
    };
    r.warmup_iters = if s.verified { 3000 } else { 0 };
    r.ops_per_sec = stats.as_ref().map(|st| 1e9 / st.p50);
    r.stats = stats;
    r.samples = samples;
    r
}

/// A fresh, empty store location, removed when dropped.
pub struct TestStore {
    pub loc: Location,
    cleanup: Cleanup,
}

enum Cleanup {
    Dir(#[allow(dead_code)] tempfile::TempDir),
    Schema { url: String, schema: String },
}

impl Drop for TestStore {
    fn drop(&mut self) {
        if let Cleanup::Schema { url, schema } = &self.cleanup
            && let Ok(mut c) = postgres::Client::connect(url, postgres::NoTls)
        {
            let _ = c.batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"));
        }
    }
}

/// A store in a new SQLite file, in a folder that does not exist yet (the
/// store creates it).
pub fn sqlite() -> TestStore {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path: PathBuf = dir.path().join("nested/folder/history.sqlite");
    TestStore {
        loc: Location::Sqlite(path),
        cleanup: Cleanup::Dir(dir),
    }
}

/// A store in a new schema of the PostgreSQL database at
/// `$DYNO_TEST_POSTGRES`; `None` (said loudly) when it is unset, a failure
/// under `CI=true`.
pub fn postgres() -> Option<TestStore> {
    let url = match std::env::var("DYNO_TEST_POSTGRES") {
        Ok(u) if !u.is_empty() => u,
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "DYNO_TEST_POSTGRES is not set, and CI=true: the PostgreSQL tests must run \
                 in CI (scripts/postgres.sh start DIR prints the URL to set it to)"
            );
            static LOUD: Once = Once::new();
            LOUD.call_once(|| {
                // Straight to stderr, past the test harness's capture.
                let _ = writeln!(
                    std::io::stderr(),
                    "\n!!! PostgreSQL store tests skipped: set DYNO_TEST_POSTGRES \
                     (scripts/postgres.sh start DIR) !!!\n"
                );
            });
            return None;
        }
    };
    static N: AtomicUsize = AtomicUsize::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let schema = format!(
        "dyno_t_{}_{}_{nanos}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    );
    let mut admin = postgres::Client::connect(&url, postgres::NoTls)
        .unwrap_or_else(|e| panic!("DYNO_TEST_POSTGRES: cannot connect: {e:?}"));
    admin
        .batch_execute(&format!("CREATE SCHEMA {schema}"))
        .expect("create a schema for the test");
    let sep = if url.contains('?') { '&' } else { '?' };
    let loc = Location::Postgres(format!("{url}{sep}options=-c%20search_path%3D{schema}"));
    Some(TestStore {
        loc,
        cleanup: Cleanup::Schema { url, schema },
    })
}

/// Run SQL on the store's database directly, bypassing the store.
pub fn raw(loc: &Location, sql: &str) {
    match loc {
        Location::Sqlite(path) => rusqlite::Connection::open(path)
            .and_then(|c| c.execute_batch(sql))
            .unwrap_or_else(|e| panic!("{sql}: {e}")),
        Location::Postgres(url) => postgres::Client::connect(url, postgres::NoTls)
            .and_then(|mut c| c.batch_execute(sql))
            .unwrap_or_else(|e| panic!("{sql}: {e:?}")),
    }
}

/// Run SQL on the store's database directly; `Err` with the message if it
/// fails.
pub fn try_raw(loc: &Location, sql: &str) -> Result<(), String> {
    match loc {
        Location::Sqlite(path) => rusqlite::Connection::open(path)
            .and_then(|c| c.execute_batch(sql))
            .map_err(|e| e.to_string()),
        Location::Postgres(url) => postgres::Client::connect(url, postgres::NoTls)
            .and_then(|mut c| c.batch_execute(sql))
            .map_err(|e| format!("{e:?}")),
    }
}

/// One integer from a query run directly on the database.
pub fn raw_i64(loc: &Location, sql: &str) -> i64 {
    match loc {
        Location::Sqlite(path) => rusqlite::Connection::open(path)
            .and_then(|c| c.query_row(sql, [], |r| r.get(0)))
            .unwrap_or_else(|e| panic!("{sql}: {e}")),
        Location::Postgres(url) => postgres::Client::connect(url, postgres::NoTls)
            .and_then(|mut c| c.query_one(sql, &[]))
            .map(|r| r.get(0))
            .unwrap_or_else(|e| panic!("{sql}: {e:?}")),
    }
}

/// `s` as an SQL string literal.
pub fn lit(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}
