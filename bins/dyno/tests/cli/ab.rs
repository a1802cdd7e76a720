//! `dyno ab` end to end where the outcome does not depend on timing: a
//! base side whose output is wrong is reported WRONG and never timed (exit
//! 1), a base that is not a worker is said plainly (exit 2), `--passes`
//! sets the number of passes, and the result JSON holds what the schema
//! says. The timing itself (an A/A finds
//! nothing; a 25% slowdown is flagged) is CI's paired A/A step
//! (scripts/test.sh), and the statistics are tested on simulated sides
//! (dyno_runner::rounds, dyno_stats::paired).

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::helpers::{assert_schema_valid, bin, read_json, repo, text};

/// A base "dyno" that speaks the protocol but gets keccak256 wrong: it
/// offers `hash/keccak256/1KiB` on tiny-keccak and answers `prepare` with
/// a mismatch, as a build with a broken hash would.
const WRONG_WORKER: &str = r#"#!/usr/bin/env python3
import json, sys
assert sys.argv[1:] == ["worker"], sys.argv
for line in sys.stdin:
    req = json.loads(line)
    if req["type"] == "hello":
        out = {"type": "hello", "protocol": 1,
               "runtime": {"name": "rust", "version": "fake"},
               "adapter": {"name": "dyno", "version": "broken"},
               "clock": {"source": "fake"},
               "benchmarks": [{"id": "hash/keccak256/1KiB", "implementation": "tiny-keccak"}]}
    elif req["type"] == "prepare":
        out = {"type": "mismatch", "case": 2, "field": "digest",
               "expected": "0xabc", "actual": "0xdef"}
    else:
        out = {"type": "error", "message": "not prepared", "fatal": False}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"#;

fn dyno(dir: &Path) -> Command {
    let mut c = Command::new(bin());
    c.current_dir(repo())
        .env("DYNO_NO_STORE", "1")
        .env("TMPDIR", dir)
        .env_remove("DYNO_TEST_SLOWDOWN")
        .env_remove("DYNO_STORE");
    c
}

fn executable(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_base_with_a_wrong_result_is_never_timed_and_fails_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let fake = tmp.path().join("broken-dyno");
    executable(&fake, WRONG_WORKER);
    let out = tmp.path().join("ab.json");
    let o = dyno(tmp.path())
        .args([
            "ab",
            "hash/keccak256/1KiB",
            "--quick",
            "--format",
            "json",
            "-q",
        ])
        .arg("--base")
        .arg(&fake)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "stderr:\n{}", text(&o.stderr));
    // -q silences progress, never the line that says where the run went.
    assert!(
        text(&o.stderr).contains(&format!("dyno: wrote {}", out.display())),
        "stderr:\n{}",
        text(&o.stderr)
    );
    let run: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(run, read_json(&out), "stdout = the file");
    assert_schema_valid(&run);
    let paired = run["paired"].as_array().unwrap();
    assert_eq!(paired.len(), 1, "only what both sides offer: {paired:?}");
    let p = &paired[0];
    assert_eq!(p["verdict"], "not compared");
    let note = p["note"].as_str().unwrap();
    assert!(
        note.contains("WRONG on base") && note.contains("expected 0xabc, got 0xdef"),
        "{note}"
    );
    assert!(p["passes"].as_array().unwrap().is_empty(), "nothing timed");
    assert!(run["noise"]["seconds"].as_f64().unwrap() > 0.0);
    // Nothing left of the copied binaries.
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("dyno-ab-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_base_that_is_not_a_worker_is_said_plainly() {
    let tmp = tempfile::tempdir().unwrap();
    let fake = tmp.path().join("not-dyno");
    executable(
        &fake,
        "#!/bin/sh\necho 'usage: something else' >&2\nexit 3\n",
    );
    let o = dyno(tmp.path())
        .args(["ab", "hash/keccak256/1KiB", "--quick", "-q", "--no-store"])
        .arg("--base")
        .arg(&fake)
        .output()
        .unwrap();
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "stderr:\n{stderr}");
    assert!(
        stderr.contains("starting the base:") && stderr.contains("worker"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_base_revision_is_taken_from_its_cache_by_commit_and_an_unknown_one_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let head = Command::new("git")
        .arg("-C")
        .arg(repo())
        .args(["rev-parse", "HEAD"])
        .output()
        .unwrap();
    assert!(head.status.success(), "dyno's tests run in its git clone");
    let commit = text(&head.stdout).trim().to_string();
    // What a build of HEAD left in the cache: here a base with a wrong
    // result, so the run is quick and says which base it used.
    let built = cache.join("ab").join(&commit).join("dyno");
    std::fs::create_dir_all(built.parent().unwrap()).unwrap();
    executable(&built, WRONG_WORKER);
    let o = dyno(tmp.path())
        .env("DYNO_CACHE", &cache)
        .args([
            "ab",
            "hash/keccak256/1KiB",
            "--base-rev",
            "HEAD",
            "--quick",
            "--format",
            "json",
            "--no-store",
        ])
        .output()
        .unwrap();
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "stderr:\n{stderr}");
    assert!(stderr.contains("--base-rev HEAD: the build of"), "{stderr}");
    let run: Value = serde_json::from_slice(&o.stdout).unwrap();
    let p = &run["paired"][0];
    assert_eq!(p["base"], format!("base: dyno at HEAD ({})", &commit[..12]));
    assert!(
        p["note"]
            .as_str()
            .unwrap()
            .contains("WRONG on base: dyno at HEAD")
    );

    let o = dyno(tmp.path())
        .env("DYNO_CACHE", &cache)
        .args([
            "ab",
            "hash",
            "--base-rev",
            "no-such-rev-zz9",
            "--quick",
            "--no-store",
        ])
        .output()
        .unwrap();
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "stderr:\n{stderr}");
    assert!(
        stderr.contains("--base-rev no-such-rev-zz9: no such commit in"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// A revision without `dyno worker` started a release build of many
/// minutes before failing; it is refused at once, and nothing is left.
#[test]
fn a_base_revision_without_dyno_worker_is_refused_before_any_build() {
    let tmp = tempfile::tempdir().unwrap();
    let old = tmp.path().join("old");
    std::fs::create_dir_all(old.join("bins/dyno/src")).unwrap();
    std::fs::write(
        old.join("bins/dyno/src/cli.rs"),
        "enum Command {\n    Run,\n}\n",
    )
    .unwrap();
    let git = |args: &[&str]| {
        let o = Command::new("git")
            .arg("-C")
            .arg(&old)
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "git {args:?}: {}", text(&o.stderr));
    };
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-q",
        "-m",
        "old",
    ]);
    let cache = tmp.path().join("cache");
    let o = dyno(tmp.path())
        .current_dir(&old)
        .env("DYNO_CACHE", &cache)
        .env("DYNO_SPECS", repo().join("specs"))
        .env("DYNO_VECTORS", repo().join("vectors"))
        .args([
            "ab",
            "hash/keccak256/1KiB",
            "--base-rev",
            "HEAD",
            "--quick",
            "--no-store",
        ])
        .output()
        .unwrap();
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "stderr:\n{stderr}");
    assert!(stderr.contains("has no `dyno worker`"), "{stderr}");
    assert!(
        !cache.join("ab").exists(),
        "a worktree or build was started"
    );
}

#[test]
fn passes_sets_how_many_values_the_interval_has_and_an_impossible_count_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    for bad in ["1", "65"] {
        let o = dyno(tmp.path())
            .args(["ab", "hash/keccak256/1B", "--quick", "-q", "--passes", bad])
            .arg("--base")
            .arg(bin())
            .output()
            .unwrap();
        let stderr = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "--passes {bad}: {stderr}");
        assert!(
            stderr.contains(&format!("--passes {bad}: give 2 to 64")),
            "{stderr}"
        );
    }
    let o = dyno(tmp.path())
        .args([
            "ab",
            "hash/keccak256/1B",
            "--quick",
            "--passes",
            "3",
            "--format",
            "json",
            "-q",
        ])
        .arg("--base")
        .arg(bin())
        .output()
        .unwrap();
    let stderr = text(&o.stderr);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{stderr}");
    let run: Value = serde_json::from_slice(&o.stdout).unwrap();
    let paired = run["paired"].as_array().unwrap();
    assert!(!paired.is_empty());
    for p in paired {
        assert_eq!(p["passes"].as_array().unwrap().len(), 3, "{p}");
    }
}

#[test]
fn a_worker_refuses_a_run_beyond_the_protocols_bounds_and_exits_on_a_line_not_json() {
    use std::io::{BufRead as _, Write as _};
    let tmp = tempfile::tempdir().unwrap();
    let mut child = dyno(tmp.path())
        .arg("worker")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut ask = |line: &str| -> Value {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        let mut reply = String::new();
        stdout.read_line(&mut reply).unwrap();
        serde_json::from_str(&reply).unwrap_or_else(|e| panic!("{reply:?}: {e}"))
    };
    assert_eq!(ask(r#"{"type":"hello","protocol":1}"#)["type"], "hello");
    // Once a 34 GB allocation and an abort (exit 134).
    let r = ask(r#"{"type":"run","iterations":1,"samples":4294967295}"#);
    assert_eq!(r["type"], "error", "{r}");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("ask for 1 to 100000"),
        "{r}"
    );
    let r = ask(r#"{"type":"run","iterations":18446744073709551615,"samples":1}"#);
    assert!(r["message"].as_str().unwrap().contains("(2^40)"), "{r}");
    // Still serving: an ordinary request gets its ordinary answer.
    let r = ask(r#"{"type":"run","iterations":1,"samples":1}"#);
    assert_eq!(r["message"], "run before a successful prepare", "{r}");
    // JSON of a type it does not know: refused, and it serves on.
    let r = ask(r#"{"type":"dance"}"#);
    assert_eq!(r["fatal"], false, "{r}");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("not a request this worker knows"),
        "{r}"
    );
    // A line that is not JSON: a fatal error, and it exits (2), as the
    // protocol says.
    let r = ask("{not json");
    assert_eq!(
        (&r["type"], &r["fatal"]),
        (&Value::from("error"), &Value::from(true)),
        "{r}"
    );
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .starts_with("unparseable request"),
        "{r}"
    );
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(2), "{status}");
    drop(stdin);
}
