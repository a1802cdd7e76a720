//! The store's behaviour, written once and run on both backends: every test
//! here runs as `sqlite::NAME` and as `postgres::NAME`.

mod common;

use common::{Spec, TestStore, lit, raw, raw_i64, run, try_raw};
use dyno_format::Run;
use dyno_format::baseline::{BASELINE_FORMAT, Baseline, BaselineVersion};
use dyno_store::migrations::{MIGRATIONS, Migration};
use dyno_store::{Location, Store, StoreError};

macro_rules! suite {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[test]
                fn $name() {
                    super::$name(&crate::common::sqlite());
                }
            )*
        }
        mod postgres {
            $(
                #[test]
                fn $name() {
                    if let Some(t) = crate::common::postgres() {
                        super::$name(&t);
                    }
                }
            )*
        }
    };
}

suite!(
    round_trip,
    replace_on_same_id,
    latest_run,
    runs_ordering_and_limit,
    history_points,
    baseline_versions_are_numbered_by_the_store,
    import_baseline,
    schema_version_and_reopen,
    refuses_a_newer_schema,
    upgrades_an_older_store,
    failed_migration_rolls_back,
    refuses_duplicate_results,
    unreadable_rows_are_reported,
);

const KECCAK: &str = "hash/keccak256/32B";
const SHA256: &str = "hash/sha256/32B";

fn open(t: &TestStore) -> Store {
    Store::open(&t.loc).unwrap_or_else(|e| panic!("open {}: {e}", t.loc))
}

fn two_impls(id: &str, started_at: &str, scale: f64) -> Run {
    run(
        id,
        started_at,
        &[
            Spec::new(KECCAK, "tiny-keccak", 300.0 * scale),
            Spec::new(KECCAK, "sha3", 350.0 * scale),
            Spec::new(SHA256, "sha2", 200.0 * scale),
        ],
    )
}

fn version(n: u32, created_at: &str, reason: &str, run: Run) -> BaselineVersion {
    BaselineVersion {
        version: n,
        created_at: created_at.into(),
        reason: reason.into(),
        changes: vec!["first version".into(), format!("it's {reason}")],
        run,
    }
}

fn round_trip(t: &TestStore) {
    let mut store = open(t);
    assert_eq!(store.location(), &t.loc);
    let mut r = two_impls("20261122T101500Z-1a2b3c", "2026-11-22T10:15:00Z", 1.0);
    // A result that failed verification: no samples, no stats.
    r.results.push(
        run(
            "x",
            "x",
            &[Spec::new("evm/ecrecover", "revm", 1e4).failed()],
        )
        .results[0]
            .clone(),
    );
    r.run.command_line.push("it's \"quoted\"".into());
    store.save_run(&r).unwrap();
    assert_eq!(store.run(&r.run.id).unwrap(), Some(r.clone()));
    assert_eq!(store.run("nope").unwrap(), None);

    // A new connection reads the same.
    drop(store);
    let mut store = open(t);
    assert_eq!(store.run(&r.run.id).unwrap(), Some(r.clone()));
    let rows = store.runs(10).unwrap();
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(row.id, r.run.id);
    assert_eq!(row.started_at, "2026-11-22T10:15:00Z");
    assert!(row.complete);
    assert_eq!(row.git_commit.as_deref(), Some("e428027"));
    assert_eq!(row.cpu_model, "Test CPU @ 2.00GHz");
    assert_eq!(row.command, "dyno run hash --quick it's \"quoted\"");
    assert_eq!(row.results, 4);
    assert_eq!(row.load, 0);
    // The failed result is stored, without percentiles.
    assert_eq!(
        raw_i64(
            &t.loc,
            "SELECT CAST(COUNT(*) AS BIGINT) FROM results WHERE p50_ns IS NULL \
             AND verification = 'failed' AND n = 0"
        ),
        1
    );
    assert!(store.history("evm/ecrecover", None, 10).unwrap().is_empty());
}

fn replace_on_same_id(t: &TestStore) {
    let mut store = open(t);
    let id = "20261122T101500Z-1a2b3c";
    store
        .save_run(&two_impls(id, "2026-11-22T10:15:00Z", 1.0))
        .unwrap();
    let mut again = run(
        id,
        "2026-11-22T10:15:00Z",
        &[Spec::new(KECCAK, "tiny-keccak", 500.0)],
    );
    again.run.complete = false;
    again.run.incomplete_reason = Some("interrupted".into());
    again.run.git_commit = None;
    store.save_run(&again).unwrap();
    assert_eq!(store.run(id).unwrap(), Some(again.clone()));
    let rows = store.runs(10).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].results, 1);
    assert!(!rows[0].complete);
    assert_eq!(rows[0].git_commit, None);
    // The replaced run's other results are gone.
    assert!(store.history(SHA256, None, 10).unwrap().is_empty());
    let h = store.history(KECCAK, None, 10).unwrap();
    assert_eq!(h.len(), 1);
    assert_eq!(h[0].p50_ns, again.results[0].stats.as_ref().unwrap().p50);
    assert_eq!(
        raw_i64(&t.loc, "SELECT CAST(COUNT(*) AS BIGINT) FROM results"),
        1
    );
}

fn latest_run(t: &TestStore) {
    let mut store = open(t);
    assert_eq!(store.latest_run().unwrap(), None);
    let middle = two_impls("b", "2026-11-22T10:00:00Z", 1.0);
    let newest = two_impls("a", "2026-11-23T09:00:00Z", 1.0);
    let oldest = two_impls("c", "2026-11-21T10:00:00Z", 1.0);
    for r in [&middle, &newest, &oldest] {
        store.save_run(r).unwrap();
    }
    assert_eq!(store.latest_run().unwrap(), Some(newest.clone()));
    // Same start: the greater id wins, in byte order ('Z' < 'a').
    let tie_low = two_impls("Z", "2026-11-23T09:00:00Z", 2.0);
    let tie_high = two_impls("b2", "2026-11-23T09:00:00Z", 3.0);
    store.save_run(&tie_high).unwrap();
    store.save_run(&tie_low).unwrap();
    assert_eq!(store.latest_run().unwrap(), Some(tie_high));
}

fn runs_ordering_and_limit(t: &TestStore) {
    let mut store = open(t);
    assert!(store.runs(10).unwrap().is_empty());
    let starts = [
        ("r3", "2026-11-22T12:00:00Z"),
        ("r1", "2026-11-20T12:00:00Z"),
        ("r5", "2026-11-24T12:00:00Z"),
        ("r2", "2026-11-21T12:00:00Z"),
        ("r4", "2026-11-23T12:00:00Z"),
    ];
    for (id, at) in starts {
        let mut r = run(id, at, &[Spec::new(KECCAK, "tiny-keccak", 300.0)]);
        r.run.git_commit = (id != "r2").then(|| format!("commit-{id}"));
        store.save_run(&r).unwrap();
    }
    let ids = |rows: Vec<dyno_store::RunRow>| rows.into_iter().map(|r| r.id).collect::<Vec<_>>();
    assert_eq!(ids(store.runs(10).unwrap()), ["r5", "r4", "r3", "r2", "r1"]);
    assert_eq!(ids(store.runs(2).unwrap()), ["r5", "r4"]);
    assert!(store.runs(0).unwrap().is_empty());
    let all = store.runs(usize::MAX).unwrap();
    assert_eq!(all.len(), 5);
    assert_eq!(all[3].git_commit, None);
    assert_eq!(all[0].git_commit.as_deref(), Some("commit-r5"));
    assert!(all.iter().all(|r| r.results == 1 && r.load == 0));
}

fn history_points(t: &TestStore) {
    let mut store = open(t);
    let mut runs = Vec::new();
    for (i, day) in [(1, 21), (2, 24), (3, 22), (4, 23)] {
        let mut specs = vec![
            Spec::new(KECCAK, "tiny-keccak", 300.0 + f64::from(i)),
            Spec::new(KECCAK, "sha3", 350.0 + f64::from(i)),
        ];
        if i == 2 {
            // The newest run's sha3 failed verification: no point for it.
            specs[1] = specs[1].failed();
        }
        if i == 3 {
            specs.push(Spec {
                runtime: "go",
                ..Spec::new(KECCAK, "tiny-keccak", 400.0)
            });
        }
        let r = run(
            &format!("run{i}"),
            &format!("2026-11-{day}T08:00:00Z"),
            &specs,
        );
        store.save_run(&r).unwrap();
        runs.push(r);
    }
    // A run without the id at all.
    store
        .save_run(&run(
            "other",
            "2026-11-25T08:00:00Z",
            &[Spec::new(SHA256, "sha2", 1.0)],
        ))
        .unwrap();

    let h = store.history(KECCAK, None, 10).unwrap();
    let got: Vec<(&str, &str, &str)> = h
        .iter()
        .map(|p| {
            (
                p.run_id.as_str(),
                p.implementation.as_str(),
                p.runtime.as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("run1", "sha3", "rust"),
            ("run1", "tiny-keccak", "rust"),
            ("run3", "sha3", "rust"),
            ("run3", "tiny-keccak", "go"),
            ("run3", "tiny-keccak", "rust"),
            ("run4", "sha3", "rust"),
            ("run4", "tiny-keccak", "rust"),
            ("run2", "tiny-keccak", "rust"),
        ]
    );
    // Every field comes from the run's result.
    let p = &h[1];
    let stats = runs[0].results[0].stats.as_ref().unwrap();
    assert_eq!(p.started_at, "2026-11-21T08:00:00Z");
    assert_eq!(p.git_commit.as_deref(), Some("e428027"));
    assert_eq!(p.p50_ns, stats.p50);
    assert_eq!(p.p95_ns, stats.p95);
    assert_eq!(p.p99_ns, stats.p99);
    assert_eq!(p.ci_low_ns, stats.median_ci.lower);
    assert_eq!(p.ci_high_ns, stats.median_ci.upper);
    assert_eq!(p.n, stats.n);
    assert_eq!(p.n, 20);

    // The limit counts runs: the two newest that measured the id.
    let h = store.history(KECCAK, None, 2).unwrap();
    let runs_in: Vec<&str> = h.iter().map(|p| p.run_id.as_str()).collect();
    assert_eq!(runs_in, ["run4", "run4", "run2"]);

    // Filtered by implementation; the limit then counts runs with it.
    let h = store.history(KECCAK, Some("sha3"), 10).unwrap();
    let runs_in: Vec<&str> = h.iter().map(|p| p.run_id.as_str()).collect();
    assert_eq!(runs_in, ["run1", "run3", "run4"]);
    let h = store.history(KECCAK, Some("sha3"), 1).unwrap();
    assert_eq!(h.len(), 1);
    assert_eq!(h[0].run_id, "run4");
    assert_eq!(h[0].p50_ns, runs[3].results[1].stats.as_ref().unwrap().p50);
    let h = store.history(KECCAK, Some("tiny-keccak"), 2).unwrap();
    let got: Vec<(&str, &str)> = h
        .iter()
        .map(|p| (p.run_id.as_str(), p.runtime.as_str()))
        .collect();
    assert_eq!(got, [("run4", "rust"), ("run2", "rust")]);

    assert!(store.history(KECCAK, Some("nope"), 10).unwrap().is_empty());
    assert!(store.history("hash/none", None, 10).unwrap().is_empty());
    assert!(store.history(KECCAK, None, 0).unwrap().is_empty());
}

fn baseline_versions_are_numbered_by_the_store(t: &TestStore) {
    let mut store = open(t);
    assert_eq!(store.baseline("main").unwrap(), None);
    assert!(store.baselines().unwrap().is_empty());
    let r1 = two_impls("run1", "2026-11-21T08:00:00Z", 1.0);
    let r2 = two_impls("run2", "2026-11-22T08:00:00Z", 0.9);
    let v1 = version(42, "2026-11-21T09:00:00Z", "first", r1.clone());
    let v2 = version(7, "2026-11-22T09:00:00Z", "faster keccak", r2.clone());
    assert_eq!(store.save_baseline_version("main", &v1).unwrap(), 1);
    assert_eq!(store.save_baseline_version("main", &v2).unwrap(), 2);
    assert_eq!(
        store
            .save_baseline_version(
                "release-1.4",
                &version(1, "2026-11-20T00:00:00Z", "cut", r1.clone())
            )
            .unwrap(),
        1
    );
    let b = store.baseline("main").unwrap().unwrap();
    assert_eq!(b.dyno_baseline, BASELINE_FORMAT);
    assert_eq!(b.name, "main");
    assert_eq!(
        b.versions,
        [
            BaselineVersion { version: 1, ..v1 },
            BaselineVersion {
                version: 2,
                ..v2.clone()
            }
        ]
    );
    assert_eq!(b.latest().unwrap().run, r2);

    let rows = store.baselines().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].name, "main");
    assert_eq!(rows[0].versions, 2);
    assert_eq!(rows[0].updated_at, "2026-11-22T09:00:00Z");
    assert_eq!(rows[0].latest_reason, "faster keccak");
    assert_eq!(rows[0].run_id, "run2");
    assert_eq!(rows[1].name, "release-1.4");
    assert_eq!(rows[1].versions, 1);
    assert_eq!(rows[1].run_id, "run1");

    // Baselines are independent of the run history.
    assert!(store.runs(10).unwrap().is_empty());
    assert!(matches!(
        store.save_baseline_version("", &v2),
        Err(StoreError::Invalid { .. })
    ));
}

fn import_baseline(t: &TestStore) {
    let mut store = open(t);
    let r = |id: &str, scale| two_impls(id, "2026-11-21T08:00:00Z", scale);
    let imported = Baseline {
        dyno_baseline: BASELINE_FORMAT,
        name: "main".into(),
        versions: vec![
            version(1, "2026-11-01T00:00:00Z", "first", r("a", 1.0)),
            version(3, "2026-11-03T00:00:00Z", "third", r("c", 0.8)),
        ],
    };
    store
        .save_baseline_version(
            "main",
            &version(1, "2026-10-01T00:00:00Z", "old", r("old", 2.0)),
        )
        .unwrap();
    store.import_baseline(&imported).unwrap();
    assert_eq!(store.baseline("main").unwrap(), Some(imported.clone()));
    let rows = store.baselines().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0].versions, rows[0].run_id.as_str()), (2, "c"));

    // Numbering goes on from the newest imported version.
    assert_eq!(
        store
            .save_baseline_version(
                "main",
                &version(9, "2026-11-04T00:00:00Z", "next", r("d", 0.7))
            )
            .unwrap(),
        4
    );

    // Import again: replaced whole.
    let replacement = Baseline {
        versions: vec![version(1, "2026-12-01T00:00:00Z", "reset", r("e", 1.0))],
        ..imported.clone()
    };
    store.import_baseline(&replacement).unwrap();
    assert_eq!(store.baseline("main").unwrap(), Some(replacement.clone()));

    // Bad baselines are refused, and change nothing.
    for bad in [
        Baseline {
            versions: Vec::new(),
            ..imported.clone()
        },
        Baseline {
            versions: vec![imported.versions[0].clone(), imported.versions[0].clone()],
            ..imported.clone()
        },
        Baseline {
            versions: vec![version(0, "x", "zero", r("z", 1.0))],
            ..imported.clone()
        },
    ] {
        let e = store.import_baseline(&bad).unwrap_err();
        assert!(matches!(e, StoreError::Invalid { .. }), "{e}");
        assert!(e.to_string().starts_with("baseline main: "), "{e}");
    }
    assert_eq!(store.baseline("main").unwrap(), Some(replacement));
}

fn schema_version_and_reopen(t: &TestStore) {
    let mut store = open(t);
    let latest = MIGRATIONS.last().unwrap().version;
    assert_eq!(store.schema_version().unwrap(), latest);
    drop(store);
    // Reopening applies nothing twice.
    let mut store = open(t);
    assert_eq!(store.schema_version().unwrap(), latest);
    assert_eq!(
        raw_i64(
            &t.loc,
            "SELECT CAST(COUNT(*) AS BIGINT) FROM schema_migrations"
        ),
        i64::from(latest)
    );
    // Each migration recorded with its description.
    for m in MIGRATIONS {
        let sql = format!(
            "SELECT CAST(COUNT(*) AS BIGINT) FROM schema_migrations WHERE version = {} \
             AND description = {} AND applied_at LIKE '20%Z'",
            m.version,
            lit(m.description)
        );
        assert_eq!(raw_i64(&t.loc, &sql), 1, "{}", m.description);
    }
}

fn refuses_a_newer_schema(t: &TestStore) {
    let mut store = open(t);
    store
        .save_run(&two_impls("kept", "2026-11-22T10:15:00Z", 1.0))
        .unwrap();
    drop(store);
    raw(
        &t.loc,
        "INSERT INTO schema_migrations (version, description, applied_at) \
         VALUES (99, 'from the future', '2030-01-01T00:00:00Z')",
    );
    let known = MIGRATIONS.last().unwrap().version;
    let e = Store::open(&t.loc).unwrap_err();
    match &e {
        StoreError::Newer {
            found,
            known: k,
            location,
            ..
        } => {
            assert_eq!((*found, *k), (99, known));
            assert_eq!(location, &t.loc.to_string());
        }
        other => panic!("expected Newer, got {other:?}"),
    }
    let msg = e.to_string();
    assert!(
        msg.contains(&format!(
            "written by a newer dyno: schema 99, this dyno knows up to {known}"
        )),
        "{msg}"
    );
    assert!(msg.contains("dyno 0.1.0"), "names the writer: {msg}");
    // Nothing was changed.
    assert_eq!(
        raw_i64(
            &t.loc,
            "SELECT CAST(MAX(version) AS BIGINT) FROM schema_migrations"
        ),
        99
    );
}

fn upgrades_an_older_store(t: &TestStore) {
    let mut v1 = Store::open_with_migrations(&t.loc, &MIGRATIONS[..1]).unwrap();
    assert_eq!(v1.schema_version().unwrap(), 1);
    drop(v1);
    // Rows as a schema-1 dyno wrote them.
    let r = two_impls("old-run", "2026-11-01T00:00:00Z", 1.0);
    let json = serde_json::to_string(&r).unwrap();
    let mut sql = format!(
        "INSERT INTO runs (id, started_at, finished_at, complete, git_commit, dyno_version, \
         cpu_model, cores, machine, command, json) VALUES ('old-run', '2026-11-01T00:00:00Z', \
         NULL, 1, 'e428027', '0.1.0', 'Test CPU @ 2.00GHz', 2, 'm', 'dyno run', {});",
        lit(&json)
    );
    for res in &r.results {
        let s = res.stats.as_ref().unwrap();
        sql.push_str(&format!(
            "INSERT INTO results (run_id, bench_id, implementation, runtime, verification, n, \
             p50_ns, p95_ns, p99_ns, max_ns, ci_low_ns, ci_high_ns) VALUES ('old-run', {}, {}, \
             'rust', 'passed', {}, {:?}, {:?}, {:?}, {:?}, {:?}, {:?});",
            lit(&res.id),
            lit(&res.implementation.name),
            s.n,
            s.p50,
            s.p95,
            s.p99,
            s.max,
            s.median_ci.lower,
            s.median_ci.upper
        ));
    }
    let bv = version(1, "2026-11-02T00:00:00Z", "old", r.clone());
    sql.push_str(&format!(
        "INSERT INTO baselines (name, created_at) VALUES ('main', '2026-11-02T00:00:00Z');
         INSERT INTO baseline_versions (name, version, created_at, reason, changes, run_json) \
         VALUES ('main', 1, '2026-11-02T00:00:00Z', 'old', {}, {});",
        lit(&serde_json::to_string(&bv.changes).unwrap()),
        lit(&json)
    ));
    raw(&t.loc, &sql);

    let mut store = open(t);
    assert_eq!(
        store.schema_version().unwrap(),
        MIGRATIONS.last().unwrap().version
    );
    let rows = store.runs(10).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0].results, rows[0].load), (3, 0));
    // The migration filled the result count in.
    assert_eq!(
        raw_i64(
            &t.loc,
            "SELECT CAST(result_count AS BIGINT) FROM runs WHERE id = 'old-run'"
        ),
        3
    );
    assert_eq!(store.run("old-run").unwrap(), Some(r.clone()));
    assert_eq!(store.history(KECCAK, None, 10).unwrap().len(), 2);
    assert_eq!(store.baselines().unwrap()[0].run_id, "old-run");
    assert_eq!(
        store.baseline("main").unwrap().unwrap().versions,
        std::slice::from_ref(&bv)
    );
    // And new saves land beside the old.
    store
        .save_run(&two_impls("new-run", "2026-11-03T00:00:00Z", 1.0))
        .unwrap();
    assert_eq!(store.runs(10).unwrap().len(), 2);
    assert_eq!(store.save_baseline_version("main", &bv).unwrap(), 2);
}

fn failed_migration_rolls_back(t: &TestStore) {
    let broken = [
        MIGRATIONS[0],
        Migration {
            version: 2,
            description: "broken half way",
            sql: "CREATE TABLE half_done (a TEXT); INSERT INTO no_such_table VALUES (1);",
        },
    ];
    let e = Store::open_with_migrations(&t.loc, &broken).unwrap_err();
    match &e {
        StoreError::Migration {
            version,
            description,
            ..
        } => assert_eq!((*version, description.as_str()), (2, "broken half way")),
        other => panic!("expected Migration, got {other:?}"),
    }
    assert!(e.to_string().contains("no_such_table"), "{e}");
    // Schema 1 stayed, and none of migration 2 happened.
    let mut v1 = Store::open_with_migrations(&t.loc, &MIGRATIONS[..1]).unwrap();
    assert_eq!(v1.schema_version().unwrap(), 1);
    drop(v1);
    try_raw(&t.loc, "CREATE TABLE half_done (a TEXT)")
        .expect("half_done was rolled back with the failed migration");
    // The real migration 2 still applies.
    let mut store = open(t);
    assert_eq!(store.schema_version().unwrap(), 2);
}

fn refuses_duplicate_results(t: &TestStore) {
    let mut store = open(t);
    let r = run(
        "dup",
        "2026-11-22T10:15:00Z",
        &[
            Spec::new(KECCAK, "tiny-keccak", 300.0),
            Spec::new(KECCAK, "tiny-keccak", 310.0),
        ],
    );
    let e = store.save_run(&r).unwrap_err();
    assert!(matches!(e, StoreError::Invalid { .. }), "{e}");
    assert!(e.to_string().contains("run dup"), "{e}");
    assert_eq!(store.run("dup").unwrap(), None);
    assert!(store.runs(10).unwrap().is_empty());
}

fn unreadable_rows_are_reported(t: &TestStore) {
    let mut store = open(t);
    store
        .save_run(&two_impls("bad", "2026-11-22T10:15:00Z", 1.0))
        .unwrap();
    raw(
        &t.loc,
        "UPDATE runs SET json = '{\"schema_version\": 1, \"run\"' WHERE id = 'bad'",
    );
    for e in [
        store.run("bad").unwrap_err(),
        store.latest_run().unwrap_err(),
    ] {
        assert!(matches!(e, StoreError::Corrupt { .. }), "{e}");
        let msg = e.to_string();
        assert!(msg.contains("run bad cannot be read"), "{msg}");
        assert!(msg.starts_with(&t.loc.to_string()), "{msg}");
    }
    // Listing does not read the JSON, so it still works.
    assert_eq!(store.runs(10).unwrap().len(), 1);
}

#[test]
fn location_display_hides_the_password() {
    let loc = Location::parse("postgres://dyno:hunter2@127.0.0.1:5432/dyno_test").unwrap();
    assert_eq!(
        loc.to_string(),
        "postgres://dyno:***@127.0.0.1:5432/dyno_test"
    );
}
