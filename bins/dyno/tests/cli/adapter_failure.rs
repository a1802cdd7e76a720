//! End-to-end tests of `dyno setup` and `dyno run --impl all` with adapters
//! that fail: a worker killed mid-run, a worker that cannot start, and a
//! runtime that is not installed. The adapters are toys written in Python 3
//! (which every machine dyno supports has), built in a temporary folder and
//! found through `DYNO_ADAPTER_ROOT`; they echo the expected outputs (dyno checks
//! outputs itself) and report `iterations * 100 + 1000` ns per sample,
//! sleeping that long so that dyno's own warm-up clock sees the same time.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::helpers::{bin, repo, text};

/// The toy worker. Its implementation name is its adapter folder's name;
/// a file `die-after` beside it holds K: the worker kills itself with
/// SIGKILL on the K-th `run` request after preparing `hash/keccak256/32B`.
const WORKER: &str = r#"import json, os, signal, sys, time

here = os.path.dirname(os.path.abspath(__file__))
name = os.path.basename(here)
try:
    with open(os.path.join(here, "die-after")) as f:
        die_after = int(f.read().strip())
except FileNotFoundError:
    die_after = 0
KECCAK = "hash/keccak256/32B"
hello = {
    "type": "hello", "protocol": 1,
    "runtime": {"name": "toy", "version": sys.version.split()[0]},
    "adapter": {"name": "dyno-adapter-toy", "version": "0.0.1"},
    "libraries": {},
    "clock": {"source": "fake", "resolution_ns": 1},
    "jit": False,
    "benchmarks": [
        {"id": KECCAK, "implementation": name, "library": "-"},
        {"id": "harness/noop/empty", "implementation": name + "-noop", "library": "-"},
    ],
}


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


current, runs = None, 0
for line in sys.stdin:
    req = json.loads(line)
    kind = req.get("type")
    if kind == "hello":
        send(hello)
    elif kind == "prepare":
        current, runs = req["id"], 0
        send({"type": "prepared", "id": current, "cases": len(req["cases"]),
              "outputs": [c["expected"] for c in req["cases"]]})
    elif kind == "run":
        if current is None:
            send({"type": "error", "message": "run before prepare", "fatal": False})
            continue
        if current == KECCAK:
            runs += 1
            if die_after and runs >= die_after:
                sys.stderr.write("toy: about to be killed\n")
                sys.stderr.flush()
                os.kill(os.getpid(), signal.SIGKILL)
        ns = [req["iterations"] * 100 + 1000 for _ in range(req["samples"])]
        time.sleep(sum(ns) / 1e9)
        send({"type": "samples", "ns": ns})
    else:
        send({"type": "error", "message": "unknown request %s" % kind, "fatal": True})
        sys.exit(1)
"#;

/// A toy's `setup HOME`: writes `HOME/run`, which starts the worker
/// (`worker.py` beside it). The external adapters' toys use it too.
pub(crate) const TOY_SETUP: &str = r#"#!/usr/bin/env bash
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$1"
printf '#!/bin/sh\nexec python3 -u "%s/worker.py"\n' "$here" > "$1/run"
chmod +x "$1/run"
"#;

/// The run request on which the `dies` toy kills itself: past warm-up
/// (at most ~20 requests: batches double from 1 to 131072 iterations, then
/// 13 ms batches until 50 ms have passed) and before the 51 samples of the
/// `--quick` plan end.
const DIE_AFTER: u32 = 40;

const KECCAK: &str = "hash/keccak256/32B";
const RUST_IMPLS: [&str; 3] = ["tiny-keccak", "sha3", "keccak-asm"];

/// Write `adapters/NAME/setup` (and more files) under `root`.
fn adapter(root: &Path, name: &str, setup: &str, files: &[(&str, &str)]) {
    let dir = root.join("adapters").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("setup"), setup).unwrap();
    for (file, body) in files {
        std::fs::write(dir.join(file), body).unwrap();
    }
}

/// A toy adapter; it dies on its `die_after`-th keccak run request if set.
fn toy(root: &Path, name: &str, die_after: Option<u32>) {
    let k = die_after.map(|k| k.to_string());
    let mut files = vec![("worker.py", WORKER)];
    if let Some(k) = &k {
        files.push(("die-after", k.as_str()));
    }
    adapter(root, name, TOY_SETUP, &files);
}

/// `dyno ARGS` in the repository root, with the adapters and the cache
/// under `root`, and the default specs and vectors.
fn dyno(root: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .env("DYNO_NO_STORE", "1")
        .args(args)
        .current_dir(repo())
        .env("DYNO_ADAPTER_ROOT", root.join("adapters"))
        .env_remove("DYNO_ADAPTERS")
        .env("DYNO_CACHE", root.join("cache"))
        .env_remove("DYNO_SPECS")
        .env_remove("DYNO_VECTORS")
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("dyno runs")
}

/// `dyno setup NAMES`, which must succeed. Named, not every runtime: with
/// no names setup also builds the dev nodes (geth, anvil, Hardhat) into
/// this test's own cache, minutes of CI's CPU that test nothing here.
fn setup(root: &Path, names: &[&str]) -> String {
    let mut args = vec!["setup"];
    args.extend_from_slice(names);
    let o = dyno(root, &args);
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "dyno setup: {stderr}");
    stderr
}

/// `dyno run hash/keccak256/32B --impl all --quick -q -o OUT`: the output
/// and the JSON written.
fn run_all(root: &Path) -> (Output, Value) {
    let out = root.join("out.json");
    let o = dyno(
        root,
        &[
            "run",
            KECCAK,
            "--impl",
            "all",
            "--quick",
            "-q",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    let stderr = text(&o.stderr);
    let json = std::fs::read_to_string(&out)
        .unwrap_or_else(|e| panic!("{} not written ({e}); stderr: {stderr}", out.display()));
    let json = serde_json::from_str(&json).unwrap_or_else(|e| panic!("bad JSON ({e}): {json}"));
    (o, json)
}

/// The result of `id` on `implementation`.
fn result<'a>(run: &'a Value, id: &str, implementation: &str) -> &'a Value {
    run["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["id"] == id && r["implementation"]["name"] == implementation)
        .unwrap_or_else(|| panic!("no result for {id} on {implementation}: {run:#}"))
}

fn samples(r: &Value) -> usize {
    r["samples"].as_array().map_or(0, Vec::len)
}

/// A complete, verified result with samples, of `runtime`.
fn assert_complete(run: &Value, id: &str, implementation: &str, runtime: &str) {
    let r = result(run, id, implementation);
    assert_eq!(r["implementation"]["runtime"], runtime, "{r:#}");
    assert!(r["incomplete_reason"].is_null(), "{implementation}: {r:#}");
    assert_eq!(r["verification"]["status"], "passed", "{implementation}");
    assert!(samples(r) >= 5, "{implementation}: {} samples", samples(r));
    assert!(r["stats"]["p50"].as_f64().is_some(), "{implementation}");
}

fn assert_no_panic(stderr: &str) {
    assert!(
        !stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"),
        "dyno panicked: {stderr}"
    );
}

#[test]
fn a_worker_killed_mid_run_fails_its_benchmark_and_the_rest_is_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    toy(root, "dies", Some(DIE_AFTER));
    toy(root, "steady", None);
    adapter(
        root,
        "missing",
        "echo 'missing-runtime not found' >&2\nexit 3\n",
        &[],
    );

    let stderr = setup(root, &["dies", "steady", "missing"]);
    assert!(
        stderr
            .lines()
            .any(|l| l == "dyno setup: missing: skipped: missing-runtime not found"),
        "{stderr}"
    );
    for name in ["dies", "steady"] {
        assert!(
            stderr.contains(&format!("dyno setup: {name}: ready")),
            "{stderr}"
        );
        assert!(root.join("cache/adapters").join(name).join("run").is_file());
    }
    assert!(!root.join("cache/adapters/missing/run").exists());

    let (o, run) = run_all(root);
    let stderr = text(&o.stderr);
    assert_no_panic(&stderr);
    // An incomplete run is a runtime error: `report_problems` bails with
    // "run incomplete (...)", which `main` turns into exit code 2.
    assert_eq!(o.status.code(), Some(2), "stderr: {stderr}");
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("dyno: skipping missing:")),
        "the uninstalled adapter is skipped with a reason: {stderr}"
    );
    assert_eq!(run["run"]["complete"], false, "{:#}", run["run"]);

    // The killed worker's benchmark: failed, with why and its stderr, and
    // the samples taken before it died kept.
    let dies = result(&run, KECCAK, "dies");
    assert_eq!(dies["implementation"]["runtime"], "dies");
    let why = dies["incomplete_reason"].as_str().unwrap_or_default();
    assert!(
        why.contains("worker died") && why.contains("toy: about to be killed"),
        "incomplete_reason: {why:?}"
    );
    assert!(
        why.contains("failed after") && !why.contains("warm-up"),
        "the toy dies past warm-up: {why:?}"
    );
    assert!(samples(dies) > 0, "samples taken before the death are kept");

    // Everything else is measured in full.
    for imp in RUST_IMPLS {
        assert_complete(&run, KECCAK, imp, "rust");
    }
    assert_complete(&run, KECCAK, "steady", "steady");
    assert_complete(&run, "harness/noop/empty", "dies-noop", "dies");
    assert_complete(&run, "harness/noop/empty", "steady-noop", "steady");
    assert!(
        !run["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["implementation"]["runtime"] == "missing"),
        "nothing ran on the uninstalled adapter"
    );

    // stderr says which benchmark failed and why, on one line.
    assert!(
        stderr
            .lines()
            .any(|l| l.contains("dies") && l.contains("worker died")),
        "no stderr line names the failed implementation (dies) and its worker's death: {stderr}"
    );
}

#[test]
fn a_worker_that_cannot_start_is_skipped_and_the_run_completes() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    toy(root, "steady", None);
    adapter(
        root,
        "broken",
        "mkdir -p \"$1\"\nprintf '#!/bin/sh\\necho \"cannot load library libtoy.so\" >&2\\nexit 1\\n' > \"$1/run\"\nchmod +x \"$1/run\"\n",
        &[],
    );
    let stderr = setup(root, &["steady", "broken"]);
    assert!(stderr.contains("dyno setup: broken: ready"), "{stderr}");

    let (o, run) = run_all(root);
    let stderr = text(&o.stderr);
    assert_no_panic(&stderr);
    assert_eq!(o.status.code(), Some(0), "stderr: {stderr}");
    assert_eq!(run["run"]["complete"], true, "{:#}", run["run"]);
    for imp in RUST_IMPLS {
        assert_complete(&run, KECCAK, imp, "rust");
    }
    assert_complete(&run, KECCAK, "steady", "steady");
    assert!(
        !run["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["implementation"]["runtime"] == "broken"),
        "nothing ran on the broken adapter"
    );

    // The skip is one line that gives the worker's own reason.
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("dyno: skipping broken:") && l.contains("cannot load library")),
        "no one-line skip reason quoting the worker's stderr: {stderr}"
    );
}
