//! `kill -9` in the middle of a save leaves the SQLite store readable, with
//! every earlier run intact and the interrupted run whole or absent.
//!
//! The test saves a few runs, then starts this test binary again as a child
//! (`child_saves_runs`, selected with `--exact --ignored` and given the
//! store in an environment variable) that saves large runs in a loop,
//! printing `saving ID` before each save and `saved ID` after it. When the
//! child is into a save, the test kills it with SIGKILL
//! (`Child::kill`), reopens the store and checks it: SQLite's integrity
//! check passes, the earlier runs read back equal, every run the child
//! reported saved reads back equal with all its result rows, and the run it
//! was saving is either the same whole or absent. Four kills, at different
//! delays after a save began.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Spec, run};
use dyno_format::Run;
use dyno_store::{Location, Store};

const CHILD_ENV: &str = "DYNO_STORE_DURABILITY_CHILD";
const START_ENV: &str = "DYNO_STORE_DURABILITY_START";
const BENCHES: usize = 100;

/// The `i`-th run the child saves: 100 results of 300 samples each, about a
/// megabyte of JSON, so a save takes long enough to be killed in.
fn big_run(i: usize) -> Run {
    let names: Vec<String> = (0..BENCHES).map(|b| format!("group/op{b}/input")).collect();
    let specs: Vec<Spec<'_>> = names
        .iter()
        .enumerate()
        .map(|(b, name)| Spec {
            samples: 300,
            ..Spec::new(name, "impl", 100.0 + (b + i) as f64)
        })
        .collect();
    run(
        &format!("child-{i:05}"),
        &format!("2026-11-22T{:02}:{:02}:00Z", 10 + i / 60, i % 60),
        &specs,
    )
}

fn early_run(i: usize) -> Run {
    run(
        &format!("early-{i}"),
        &format!("2026-11-21T0{i}:00:00Z"),
        &[
            Spec::new("hash/keccak256/32B", "tiny-keccak", 300.0 + i as f64),
            Spec::new("hash/sha256/32B", "sha2", 200.0 + i as f64),
        ],
    )
}

/// The child: save big runs until killed (bounded, should the parent die).
#[test]
#[ignore = "run by `durability_under_kill` as its child process"]
fn child_saves_runs() {
    let Some(path) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let start: usize = std::env::var(START_ENV)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut store = Store::open(&Location::Sqlite(path.into())).expect("child: open");
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut out = std::io::stdout();
    for i in start..start + 1000 {
        if Instant::now() > deadline {
            break;
        }
        let r = big_run(i);
        writeln!(out, "saving {i}").unwrap();
        out.flush().unwrap();
        store.save_run(&r).expect("child: save");
        writeln!(out, "saved {i}").unwrap();
        out.flush().unwrap();
    }
}

#[derive(Debug, Default)]
struct Seen {
    saving: Vec<usize>,
    saved: Vec<usize>,
}

impl Seen {
    fn line(&mut self, line: &str) {
        if let Some(i) = line
            .strip_prefix("saving ")
            .and_then(|s| s.trim().parse().ok())
        {
            self.saving.push(i);
        } else if let Some(i) = line
            .strip_prefix("saved ")
            .and_then(|s| s.trim().parse().ok())
        {
            self.saved.push(i);
        }
    }

    /// Started but not reported done.
    fn in_flight(&self) -> Option<usize> {
        self.saving
            .last()
            .copied()
            .filter(|i| !self.saved.contains(i))
    }
}

fn integrity(path: &Path) -> String {
    let c = rusqlite::Connection::open(path).expect("open for the integrity check");
    c.query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .expect("integrity_check")
}

fn result_rows(path: &Path, id: &str) -> i64 {
    let c = rusqlite::Connection::open(path).expect("open to count results");
    c.query_row(
        "SELECT COUNT(*) FROM results WHERE run_id = ?1",
        [id],
        |r| r.get(0),
    )
    .expect("count results")
}

#[test]
fn durability_under_kill() {
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.sqlite");
    let loc = Location::Sqlite(path.clone());
    let early: Vec<Run> = (0..3).map(early_run).collect();
    {
        let mut store = Store::open(&loc).unwrap();
        for r in &early {
            store.save_run(r).unwrap();
        }
    }

    let exe = std::env::current_exe().unwrap();
    let mut next = 0;
    let mut saved_total = Vec::new();
    let mut interrupted = 0;
    // Kill after this many completed saves, this long after the next began.
    let plan = [(1, 0), (2, 3), (1, 8), (2, 15)];
    for (round, (after_saves, delay_ms)) in plan.into_iter().enumerate() {
        let mut child = Command::new(&exe)
            .args(["--exact", "child_saves_runs", "--ignored", "--nocapture"])
            .args(["--test-threads", "1"])
            .env(CHILD_ENV, &path)
            .env(START_ENV, next.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut seen = Seen::default();
        while seen.saved.len() < after_saves || seen.in_flight().is_none() {
            match lines.next() {
                Some(Ok(line)) => seen.line(&line),
                _ => panic!(
                    "round {round}: the child stopped before saving (status {:?})",
                    child.wait()
                ),
            }
        }
        std::thread::sleep(Duration::from_millis(delay_ms));
        child.kill().expect("SIGKILL the child");
        child.wait().unwrap();
        // What the child printed before it died: every "saved" line is a
        // committed save.
        for line in lines.map_while(Result::ok) {
            seen.line(&line);
        }
        let in_flight = seen.in_flight();
        interrupted += usize::from(in_flight.is_some());
        next = seen.saving.iter().max().map_or(next, |m| m + 1);

        // The store opens, is intact, and holds exactly what was committed.
        assert_eq!(integrity(&path), "ok", "round {round}");
        let mut store = Store::open(&loc).unwrap();
        for r in &early {
            assert_eq!(
                store.run(&r.run.id).unwrap().as_ref(),
                Some(r),
                "round {round}"
            );
        }
        saved_total.extend(seen.saved.iter().copied());
        for &i in &saved_total {
            let want = big_run(i);
            let id = &want.run.id;
            assert_eq!(
                store.run(id).unwrap().as_ref(),
                Some(&want),
                "round {round}: {id}"
            );
            assert_eq!(
                result_rows(&path, id),
                BENCHES as i64,
                "round {round}: {id}"
            );
        }
        let mut expected = early.len() + saved_total.len();
        if let Some(i) = in_flight {
            let want = big_run(i);
            let id = &want.run.id;
            match store.run(id).unwrap() {
                // Committed just before the kill, unreported.
                Some(got) => {
                    assert_eq!(got, want, "round {round}: {id}");
                    assert_eq!(
                        result_rows(&path, id),
                        BENCHES as i64,
                        "round {round}: {id}"
                    );
                    saved_total.push(i);
                    expected += 1;
                }
                None => assert_eq!(result_rows(&path, id), 0, "round {round}: {id}"),
            }
        }
        let rows = store.runs(usize::MAX).unwrap();
        assert_eq!(rows.len(), expected, "round {round}: no other runs");
        for r in &rows {
            let want = if r.id.starts_with("child") {
                BENCHES
            } else {
                2
            };
            assert_eq!(r.results, want, "round {round}: {}", r.id);
        }
    }
    let _ = writeln!(
        std::io::stderr(),
        "durability: 4 kills, {interrupted} in the middle of a save, {} child runs committed, {:.1} s",
        saved_total.len(),
        started.elapsed().as_secs_f64()
    );
}
