//! `dyno run --instructions`: callgrind instruction counts for in-process
//! Rust benchmarks, and the hidden `__count` command behind them.

use std::path::Path;
use std::process::{Command, Output};

use crate::helpers::{bin, repo, text};

fn dyno(args: &[&str], dir: &Path) -> Output {
    dyno_with(args, dir, &[])
}

fn dyno_with(args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(bin());
    cmd.env("DYNO_NO_STORE", "true")
        .args(args)
        .current_dir(dir)
        .env("DYNO_SPECS", repo().join("specs"))
        .env("DYNO_VECTORS", repo().join("vectors"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("dyno runs")
}

/// `dyno __count --id ID --impl IMPL --iters N...` in `dir`.
fn count(dir: &Path, id: &str, imp: &str, iters: &[&str]) -> Output {
    let mut args = vec!["__count", "--id", id, "--impl", imp];
    for n in iters {
        args.extend(["--iters", n]);
    }
    dyno(&args, dir)
}

/// True if valgrind runs. Missing on CI (`CI=true`) is a failure;
/// elsewhere a loud skip.
fn valgrind_present(test: &str) -> bool {
    let ok = Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "valgrind is required on CI for {test} (apt-get install valgrind)"
        );
        eprintln!(
            "\n!!!!!!!!\n!!! SKIPPED {test}: valgrind is not installed (apt-get install valgrind)\n!!!!!!!!\n"
        );
    }
    ok
}

/// `dyno run --quick -q --instructions FILTER --impl IMPLS -o OUT`: the
/// result JSON.
fn counted(dir: &Path, name: &str, filter: &str, impls: &str) -> (serde_json::Value, String) {
    counted_with(dir, name, filter, impls, &[])
}

/// [`counted`] with more environment variables.
fn counted_with(
    dir: &Path,
    name: &str,
    filter: &str,
    impls: &str,
    env: &[(&str, &str)],
) -> (serde_json::Value, String) {
    let out = dir.join(name);
    let o = dyno_with(
        &[
            "run",
            "--quick",
            "-q",
            "--instructions",
            filter,
            "--impl",
            impls,
            "-o",
            out.to_str().unwrap(),
        ],
        dir,
        env,
    );
    let stderr = text(&o.stderr);
    assert!(
        o.status.success(),
        "dyno run --instructions failed: {}\n{stderr}",
        o.status
    );
    let json = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    (json, stderr)
}

/// (implementation, per_op, iters, counts) of every result.
fn counts(json: &serde_json::Value) -> Vec<(String, f64, [u64; 2], [u64; 2])> {
    json["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let i = &r["instructions"];
            assert!(
                i.is_object(),
                "{} {} has no instruction count: {r:#}",
                r["id"],
                r["implementation"]["name"]
            );
            let pair = |v: &serde_json::Value| [v[0].as_u64().unwrap(), v[1].as_u64().unwrap()];
            (
                r["implementation"]["name"].as_str().unwrap().to_string(),
                i["per_op"].as_f64().unwrap(),
                pair(&i["iters"]),
                pair(&i["counts"]),
            )
        })
        .collect()
}

#[test]
fn counts_instructions_per_op_exactly_and_repeatably() {
    if !valgrind_present("counts_instructions_per_op_exactly_and_repeatably") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (a, stderr) = counted(dir.path(), "a.json", "hash/keccak256/32B", "tiny-keccak");
    assert!(
        stderr.contains("instruction counts for 2 result(s) (callgrind)")
            && stderr.contains("hash/keccak256/32B tiny-keccak"),
        "a summary on stderr: {stderr}"
    );
    assert!(
        !stderr.contains("counting instructions ["),
        "no progress under -q: {stderr}"
    );
    let first = counts(&a);
    // The benchmark, and the reference every run records.
    assert_eq!(first.len(), 2);
    assert_eq!(first[1].0, "libsecp256k1");
    let (name, per_op, iters, c) = &first[0];
    assert_eq!(name, "tiny-keccak");
    assert!(per_op.is_finite() && *per_op > 0.0, "per_op {per_op}");
    assert!(iters[0] >= 1 && iters[1] == 2 * iters[0], "iters {iters:?}");
    assert!(c[1] > c[0], "counts {c:?}");
    assert_eq!(
        *per_op,
        (c[1] - c[0]) as f64 / iters[0] as f64,
        "per_op is (I(2N) - I(N)) / N"
    );
    let tool = a["results"][0]["instructions"]["tool"].as_str().unwrap();
    assert!(tool.starts_with("callgrind (valgrind-"), "tool {tool:?}");
    let r = &a["results"][0];
    assert_eq!(r["implementation"]["runtime"], "rust");
    assert_eq!(r["verification"]["status"], "passed");

    // The point of the metric: another run, in other processes with other
    // timings, counts exactly the same. N comes from a calibration count,
    // not a time, so it repeats too.
    let (b, _) = counted(dir.path(), "b.json", "hash/keccak256/32B", "tiny-keccak");
    let second = counts(&b);
    assert_eq!(second, first, "instruction counts differ between two runs");
}

#[test]
fn check_counts_now_and_finds_the_same_instructions() {
    if !valgrind_present("check_counts_now_and_finds_the_same_instructions") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (_, _) = counted(dir.path(), "a.json", "hash/keccak256/32B", "tiny-keccak");
    let base = dir.path().join("a.json");
    let o = dyno(
        &[
            "check",
            "--baseline",
            base.to_str().unwrap(),
            "--metric",
            "instructions",
            "--format",
            "json",
            "-q",
        ],
        dir.path(),
    );
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let c: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(c["metric"], "instructions", "{c:#}");
    let row = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "hash/keccak256/32B" && r["implementation"] == "tiny-keccak")
        .unwrap_or_else(|| panic!("no row for the counted benchmark: {c:#}"));
    // The same binary on the same input counts the same: a ratio of exactly 1.
    assert_eq!(row["ratio"].as_f64(), Some(1.0), "{row:#}");
    assert_eq!(row["verdict"], "no-change", "{row:#}");
}

#[test]
fn the_slowdown_knob_adds_counted_work_and_check_flags_it() {
    if !valgrind_present("the_slowdown_knob_adds_counted_work_and_check_flags_it") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = counted(dir.path(), "a.json", "hash/keccak256/32B", "tiny-keccak");
    let slow = [("DYNO_TEST_SLOWDOWN", "hash/keccak256/32B=1.25")];
    let (b, _) = counted_with(
        dir.path(),
        "b.json",
        "hash/keccak256/32B",
        "tiny-keccak",
        &slow,
    );
    let out = dir.path().join("b.json");
    let (before, after) = (counts(&a)[0].1, counts(&b)[0].1);
    let ratio = after / before;
    assert!((ratio - 1.25).abs() < 0.01, "{after} / {before} = {ratio}");

    let o = dyno_with(
        &[
            "check",
            "--baseline",
            dir.path().join("a.json").to_str().unwrap(),
            out.to_str().unwrap(),
            "--metric",
            "instructions",
        ],
        dir.path(),
        &slow,
    );
    let stdout = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{stdout}\n{}", text(&o.stderr));
    assert!(
        stdout.contains("REGRESSED") && stdout.contains("+25.0%"),
        "{stdout}"
    );
    assert!(stdout.contains("not measured again"), "{stdout}");
}

#[test]
fn count_refuses_an_unknown_benchmark() {
    let dir = tempfile::tempdir().unwrap();
    let o = count(dir.path(), "hash/nope/32B", "tiny-keccak", &["10"]);
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("unknown benchmark id \"hash/nope/32B\""),
        "{stderr}"
    );

    let o = count(dir.path(), "hash/keccak256/32B", "nope", &["10"]);
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("no built-in Rust implementation \"nope\"")
            && stderr.contains("tiny-keccak"),
        "{stderr}"
    );
}

#[test]
fn count_runs_natively_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let o = count(dir.path(), "hash/keccak256/32B", "sha3", &["10", "20"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(o.stdout.is_empty(), "{}", text(&o.stdout));
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "__count saves nothing"
    );
}

/// `dyno __count --calibrate` for tiny-keccak on 32 bytes, in `dir`.
fn calibrating(dir: &Path) -> Command {
    let mut cmd = Command::new(bin());
    cmd.env("DYNO_NO_STORE", "true")
        .env("DYNO_VECTORS", repo().join("vectors"))
        .args([
            "__count",
            "--id",
            "hash/keccak256/32B",
            "--impl",
            "tiny-keccak",
            "--calibrate",
        ])
        .current_dir(dir);
    cmd
}

#[test]
fn count_calibrates_then_reads_n_from_stdin() {
    use std::io::{BufRead, BufReader, Write};
    let dir = tempfile::tempdir().unwrap();
    let mut child = calibrating(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let cases: u64 = line
        .strip_prefix("calibrated ")
        .and_then(|c| c.trim().parse().ok())
        .unwrap_or_else(|| panic!("a calibration line, not {line:?}"));
    assert!(cases >= 1);
    writeln!(child.stdin.take().unwrap(), "{}", 2 * cases).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));

    // No N on stdin: a clear error, exit 2.
    let o = calibrating(dir.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("expected N >= 1 on stdin"));
}

#[test]
fn count_is_hidden_from_help() {
    let o = dyno(&["--help"], &repo());
    assert!(o.status.success());
    assert!(!text(&o.stdout).contains("__count"), "{}", text(&o.stdout));
}

#[test]
fn a_missing_valgrind_exits_2_before_measuring() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty-path");
    std::fs::create_dir(&empty).unwrap();
    let out = dir.path().join("r.json");
    let o = dyno_with(
        &[
            "run",
            "--quick",
            "-q",
            "--instructions",
            "hash/keccak256/32B",
            "--impl",
            "tiny-keccak",
            "-o",
            out.to_str().unwrap(),
        ],
        dir.path(),
        &[("PATH", empty.to_str().unwrap())],
    );
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("install valgrind") && stderr.contains("apt-get install valgrind"),
        "{stderr}"
    );
    assert!(!out.exists(), "nothing measured");
}
