//! End to end: runs saved to the history, baselines with versions, export
//! and import, `dyno check` catching a real (knob-made) slowdown and
//! staying quiet on identical data, `dyno compare`, and a history that
//! cannot be written never losing the run. Against SQLite always, and
//! against the PostgreSQL server `scripts/postgres.sh` starts when
//! `DYNO_TEST_POSTGRES` is set.

use std::path::Path;
use std::process::{Command, Output};

use crate::helpers::{bin, repo, text};

/// `dyno ARGS` with the given history store.
fn dyno(store: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(bin());
    c.args(args)
        .current_dir(repo())
        .env("DYNO_STORE", store)
        .env_remove("DYNO_NO_STORE")
        .env_remove("DYNO_TEST_SLOWDOWN")
        .env("NO_COLOR", "1")
        .env("DYNO_SPECS", repo().join("specs"))
        .env("DYNO_VECTORS", repo().join("vectors"));
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("dyno runs")
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        text(&o.stdout),
        text(&o.stderr)
    );
    text(&o.stdout)
}

const ID: &str = "hash/keccak256/32B";

/// A quick run of one benchmark on one implementation.
fn run(store: &str, out: &Path, env: &[(&str, &str)]) -> Output {
    dyno(
        store,
        &[
            "run",
            ID,
            "--impl",
            "tiny-keccak",
            "--quick",
            "-q",
            "--samples",
            "30",
            "--out",
            out.to_str().unwrap(),
        ],
        env,
    )
}

fn workflow(store: &str, dir: &Path) {
    let a = dir.join("a.json");
    let o = run(store, &a, &[]);
    ok(&o);
    let listed = ok(&dyno(store, &["history"], &[]));
    assert!(listed.contains("tiny-keccak") || listed.contains(ID) || listed.contains("run "));
    let run_id = dyno_format::Run::read(&a).unwrap().run.id;
    assert!(listed.contains(&run_id), "{listed}");
    let trend = ok(&dyno(store, &["history", ID], &[]));
    assert!(
        trend.contains(&run_id) && trend.contains("tiny-keccak"),
        "{trend}"
    );

    // A baseline, two versions, with reasons and a change log.
    ok(&dyno(
        store,
        &["baseline", "save", "main", "--reason", "first cut"],
        &[],
    ));
    let b = dir.join("b.json");
    ok(&run(store, &b, &[]));
    let o = dyno(
        store,
        &[
            "baseline",
            "save",
            "main",
            "--from",
            b.to_str().unwrap(),
            "--reason",
            "new machine image",
        ],
        &[],
    );
    ok(&o);
    assert!(text(&o.stderr).contains("version 2"), "{}", text(&o.stderr));
    let list = ok(&dyno(store, &["baseline", "list"], &[]));
    assert!(
        list.contains("main") && list.contains("new machine image"),
        "{list}"
    );
    let show = ok(&dyno(store, &["baseline", "show", "main"], &[]));
    assert!(
        show.contains("version 1") && show.contains("first cut"),
        "{show}"
    );
    assert!(
        show.contains("version 2") && show.contains("first version"),
        "{show}"
    );

    // Export, import under another name, and use the file directly.
    let file = dir.join("main.json");
    ok(&dyno(
        store,
        &["baseline", "export", "main", "-o", file.to_str().unwrap()],
        &[],
    ));
    ok(&dyno(
        store,
        &[
            "baseline",
            "import",
            file.to_str().unwrap(),
            "--name",
            "copy",
        ],
        &[],
    ));
    let list = ok(&dyno(store, &["baseline", "list"], &[]));
    assert!(list.contains("copy"), "{list}");

    // The same data against itself: nothing moves, exit 0.
    let same = dyno(
        store,
        &[
            "check",
            "--baseline",
            b.to_str().unwrap(),
            b.to_str().unwrap(),
        ],
        &[],
    );
    let out = ok(&same);
    assert!(!out.contains("REGRESSED"), "{out}");
    assert!(out.contains("geomean") && out.contains("+0.0%"), "{out}");

    // A real slowdown (50x, far beyond any noise of a busy machine), present in the re-measure
    // too: flagged, confirmed, exit 1. Checked against a 200% threshold (a ratio above 3): beside
    // CI's jobs an untouched ecrecover came out 44% slower than its baseline in one rehearsal,
    // which the default 20% flags, and a baseline measured in a busy spell (tiny-keccak 4x its
    // quiet time) left a 10x slowdown at +195%, under 200%; 50x clears 3x with room for both.
    let slow = [("DYNO_TEST_SLOWDOWN", "hash/keccak256/32B=50")];
    let c = dir.join("c.json");
    ok(&run(store, &c, &slow));
    let o = dyno(
        store,
        &[
            "check",
            "--baseline",
            file.to_str().unwrap(),
            c.to_str().unwrap(),
            "--threshold",
            "2",
            "--remeasure-gap",
            "0",
        ],
        &slow,
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}\n{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    let out = text(&o.stdout);
    assert!(out.contains("REGRESSED"), "{out}");
    assert!(
        out.contains("confirmed") && out.contains("DYNO_TEST_SLOWDOWN"),
        "{out}"
    );
    // Seen in the first pass and in each of the three re-measures. Counted
    // by rounds, not by "measuring it again": a busy machine may flag
    // another benchmark in a round too ("2 flagged; measuring them again",
    // ecrecover beside it in a fresh CI rehearsal), which the re-measures
    // then clear; the 10x slowdown is confirmed either way (above).
    let rounds = text(&o.stderr)
        .lines()
        .filter(|l| l.contains(" again (") && l.contains(" of at most 3)"))
        .count();
    assert_eq!(rounds, 3, "{}", text(&o.stderr));

    // Markdown for a PR comment, JSON for machines.
    let md = dyno(
        store,
        &[
            "check",
            "--baseline",
            "main",
            c.to_str().unwrap(),
            "--threshold",
            "2",
            "--format",
            "markdown",
            "--no-remeasure",
        ],
        &[],
    );
    assert_eq!(md.status.code(), Some(1));
    // The slowed benchmark is flagged, and the header counts the rows the table flags. Not a
    // fixed count: with no re-measure a busy machine may flag an untouched benchmark too (CI,
    // 2026-12-02: ecrecover's baseline at 38 µs ± 134%, the new run at 145 µs, so 2 flagged).
    let md = text(&md.stdout);
    let flagged = md
        .split("<details>")
        .next()
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains("**REGRESSED**"))
        .collect::<Vec<_>>();
    assert!(
        flagged.iter().any(|l| l.contains(ID)),
        "the slowed benchmark is not flagged:\n{md}"
    );
    let header = format!(":x: dyno: {} regression", flagged.len());
    assert!(md.contains(&header), "no `{header}` header:\n{md}");
    let js = dyno(
        store,
        &[
            "compare",
            a.to_str().unwrap(),
            c.to_str().unwrap(),
            "--format",
            "json",
        ],
        &[],
    );
    let v: serde_json::Value = serde_json::from_str(&ok(&js)).unwrap();
    assert_eq!(v["rows"][0]["verdict"], "regressed", "{v:#}");
    assert!(v["rows"][0]["ratio"].as_f64().unwrap() > 2.0, "{v:#}");
    // `latest~N` names runs in the history.
    let cmp = ok(&dyno(store, &["compare", "latest~2", "latest"], &[]));
    assert!(cmp.contains("slower"), "{cmp}");
}

#[test]
fn history_baselines_check_and_compare_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("h/history.sqlite");
    workflow(store.to_str().unwrap(), dir.path());
}

#[test]
fn history_baselines_check_and_compare_on_postgres() {
    let Ok(url) = std::env::var("DYNO_TEST_POSTGRES") else {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "CI must run this against PostgreSQL: set DYNO_TEST_POSTGRES (scripts/postgres.sh start DIR)"
        );
        eprintln!(
            "SKIPPED: set DYNO_TEST_POSTGRES (scripts/postgres.sh start DIR) to test PostgreSQL"
        );
        return;
    };
    // A schema of its own, so reruns and parallel tests do not collide.
    let schema = format!("dyno_gate_{}", std::process::id());
    let mut client = postgres_client(&url);
    client
        .batch_execute(&format!("CREATE SCHEMA IF NOT EXISTS {schema}"))
        .unwrap();
    let sep = if url.contains('?') { '&' } else { '?' };
    let scoped = format!("{url}{sep}options=-c%20search_path%3D{schema}");
    let dir = tempfile::tempdir().unwrap();
    workflow(&scoped, dir.path());
    client
        .batch_execute(&format!("DROP SCHEMA {schema} CASCADE"))
        .unwrap();
}

fn postgres_client(url: &str) -> postgres::Client {
    postgres::Client::connect(url, postgres::NoTls).expect("connect to DYNO_TEST_POSTGRES")
}

#[test]
fn a_history_that_cannot_be_written_never_loses_the_run() {
    let dir = tempfile::tempdir().unwrap();
    // A file where the store's folder should be: it cannot be created.
    let blocker = dir.path().join("blocker");
    std::fs::write(&blocker, b"not a folder").unwrap();
    let store = blocker.join("history.sqlite");
    let out = dir.path().join("run.json");
    let o = run(store.to_str().unwrap(), &out, &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(err.contains("not saved to the history"), "{err}");
    assert!(err.contains("dyno history --import"), "{err}");
    let saved = dyno_format::Run::read(&out).expect("the JSON was written first");
    // The benchmark asked for, and the reference every run records.
    assert_eq!(saved.results.len(), 2);
    assert_eq!(saved.results[1].id, dyno_gate::DEFAULT_REFERENCE);
}

#[test]
fn unknown_runs_and_baselines_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("history.sqlite");
    let store = store.to_str().unwrap();
    // A read command does not create the store it is pointed at.
    let o = dyno(store, &["check", "--baseline", "nope", "latest"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("no run history there"),
        "{}",
        text(&o.stderr)
    );
    assert!(!dir.path().join("history.sqlite").exists());
    // With a store, an unknown baseline is named.
    let o = run(store, &dir.path().join("run.json"), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let o = dyno(store, &["check", "--baseline", "nope", "latest"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("no baseline \"nope\""),
        "{}",
        text(&o.stderr)
    );
    let o = dyno(store, &["compare", "missing.json", "latest"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("missing.json: no such file"),
        "{}",
        text(&o.stderr)
    );
    let o = dyno(
        store,
        &["baseline", "save", "bad name", "--reason", "x"],
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("use letters, digits"),
        "{}",
        text(&o.stderr)
    );
}

/// gate.md: "`dyno check` without a run file always measures the
/// reference too", so that a baseline from another machine can be checked
/// here. A run of one hash records the reference (every run does); its
/// baseline, moved to "another machine" (another CPU model), is checked
/// by measuring now: the times are normalised by the reference, and no
/// side lacks it. (Before, a run recorded the reference only when its
/// filter chose it, and this check failed: "the baseline run has no
/// verified timing of it".)
#[test]
fn a_baseline_from_another_machine_is_checked_through_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("history.sqlite");
    let store = store.to_str().unwrap();
    let out = dir.path().join("base.json");
    ok(&run(store, &out, &[]));
    let mut base: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let ids: Vec<&str> = base["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [ID, dyno_gate::DEFAULT_REFERENCE]);
    base["environment"]["cpu_model"] = "Another CPU".into();
    let moved = dir.path().join("moved.json");
    std::fs::write(&moved, base.to_string()).unwrap();
    let o = dyno(
        store,
        &[
            "check",
            "--baseline",
            moved.to_str().unwrap(),
            "--no-remeasure",
        ],
        &[],
    );
    let stderr = text(&o.stderr);
    assert!(
        matches!(o.status.code(), Some(0) | Some(1)),
        "exit {:?}: {stderr}",
        o.status.code()
    );
    assert!(!stderr.contains("has no verified timing"), "{stderr}");
    // Every time shown as a multiple of the reference's.
    let all = format!("{}{stderr}", text(&o.stdout));
    assert!(all.contains("×ref"), "{all}");
    assert!(all.contains("precompile/ecrecover/ValidKey"), "{all}");
}
