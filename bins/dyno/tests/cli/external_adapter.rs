//! Adapters that live outside dyno's repository (`--adapter DIR`,
//! `DYNO_ADAPTERS`): set up, checked by `dyno adapter check`, run beside
//! the others and recorded with their provenance; and every way such a
//! folder can be wrong, refused in one line or reported as that
//! implementation's failure alone. The adapters are toys in Python 3 that
//! really compute SHA-256 (`hashlib`) and time it; a file `mode` beside
//! the worker makes one misbehave.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::adapter_failure::TOY_SETUP;
use crate::helpers::{bin, repo, text};

/// The toy worker. Its implementation is its folder's name (or the
/// contents of a file `impl`); `mode` is one of `junk` (a debug line on
/// stdout after each `prepared`), `wrong-id` (answers prepare for another
/// id), `short` (a digest one byte short), `silent` (never answers a
/// prepare of SHA-256), `v9` (speaks protocol 9), `micro` (reports its clock
/// in microseconds, not nanoseconds).
const WORKER: &str = r#"import hashlib, json, os, sys, time

here = os.path.dirname(os.path.abspath(__file__))
def read(name, default):
    try:
        with open(os.path.join(here, name)) as f:
            return f.read().strip()
    except FileNotFoundError:
        return default
name = read("impl", os.path.basename(here))
mode = read("mode", "good")
SHA = "hash/sha256/32B"
NOOP, SLEEP = "harness/noop/empty", "harness/sleep/1ms"
hello = {
    "type": "hello", "protocol": 9 if mode == "v9" else 1,
    "runtime": {"name": "toy", "version": sys.version.split()[0]},
    "adapter": {"name": "toy-adapter", "version": "0.0.1"},
    "clock": {"source": "time.perf_counter_ns"},
    "benchmarks": [
        {"id": SHA, "implementation": name, "library": "hashlib"},
        {"id": NOOP, "implementation": name + "-noop", "library": "-"},
        {"id": SLEEP, "implementation": name + "-sleep", "library": "-"},
    ],
}
OPS = {
    SHA: (lambda d: hashlib.sha256(d).digest(), "data", "digest"),
    NOOP: (lambda v: v, "value", "value"),
    SLEEP: (lambda v: time.sleep(0.001) or v, "value", "value"),
}

def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()

def error(message, fatal=False):
    send({"type": "error", "message": message, "fatal": fatal})

current = None
for line in sys.stdin:
    try:
        req = json.loads(line)
    except ValueError:
        error("not JSON", True)
        sys.exit(1)
    kind = req.get("type")
    if kind == "hello":
        send(hello)
    elif kind == "prepare":
        current = None
        if req["id"] not in OPS:
            error("unknown id " + req["id"])
            continue
        if mode == "silent" and req["id"] == SHA:
            time.sleep(3600)
        op, field, out = OPS[req["id"]]
        try:
            args = [bytes.fromhex(c["input"][field][2:]) for c in req["cases"]]
        except (KeyError, ValueError) as e:
            error("bad input: %r" % e)
            continue
        outputs = []
        for a in args:
            r = op(a)
            if mode == "short" and req["id"] == SHA:
                r = r[:-1]
            outputs.append({out: "0x" + r.hex()})
        current = (op, args, 0)
        got = "hash/sha256/1B" if mode == "wrong-id" and req["id"] == SHA else req["id"]
        send({"type": "prepared", "id": got, "cases": len(args), "outputs": outputs})
        if mode == "junk":
            print("debug: prepared", flush=True)
    elif kind == "run":
        if current is None:
            error("run before prepare")
            continue
        op, args, pos = current
        ns = []
        for _ in range(req["samples"]):
            t0 = time.perf_counter_ns()
            for _ in range(req["iterations"]):
                op(args[pos])
                pos = (pos + 1) % len(args)
            took = time.perf_counter_ns() - t0
            ns.append(took // 1000 if mode == "micro" else took)
        current = (op, args, pos)
        send({"type": "samples", "ns": ns})
    else:
        error("unknown request", True)
        sys.exit(1)
"#;

const SHA: &str = "hash/sha256/32B";

/// A toy adapter folder `dir`, misbehaving as `mode` says (`good`: not).
fn toy(dir: &Path, mode: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("setup"), TOY_SETUP).unwrap();
    std::fs::write(dir.join("worker.py"), WORKER).unwrap();
    std::fs::write(dir.join("mode"), mode).unwrap();
    dir.to_path_buf()
}

/// `dyno ARGS` in the repository, with the cache under `root` and dyno's
/// own adapters out of the way (an empty folder).
fn dyno(root: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let none = root.join("no-builtin-adapters");
    std::fs::create_dir_all(&none).unwrap();
    let mut c = Command::new(bin());
    c.args(args)
        .current_dir(repo())
        .env("DYNO_NO_STORE", "1")
        .env("DYNO_ADAPTER_ROOT", &none)
        .env("DYNO_CACHE", root.join("cache"))
        .env_remove("DYNO_ADAPTERS")
        .env_remove("DYNO_SPECS")
        .env_remove("DYNO_VECTORS")
        .env_remove("RUST_BACKTRACE");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("dyno runs")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn no_panic(o: &Output) -> String {
    let stderr = text(&o.stderr);
    assert!(
        !stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"),
        "dyno panicked: {stderr}"
    );
    stderr
}

/// `dyno run hash/sha256/32B --quick` with `--adapter` for each of `dirs`
/// and `--impl impls`: the output and the JSON it wrote.
fn run(root: &Path, dirs: &[&Path], impls: &str, env: &[(&str, &str)]) -> (Output, Value) {
    let out = root.join("out.json");
    let _ = std::fs::remove_file(&out);
    let mut args = vec!["run", SHA, "--quick", "-q", "--impl", impls, "-o", s(&out)];
    for d in dirs {
        args.extend(["--adapter", s(d)]);
    }
    let o = dyno(root, &args, env);
    let stderr = no_panic(&o);
    let json = std::fs::read_to_string(&out)
        .unwrap_or_else(|e| panic!("{} not written ({e}); stderr: {stderr}", out.display()));
    (o, serde_json::from_str(&json).unwrap())
}

fn result<'a>(run: &'a Value, id: &str, implementation: &str) -> Option<&'a Value> {
    run["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id && r["implementation"]["name"] == implementation)
}

fn passed(run: &Value, implementation: &str) -> bool {
    result(run, SHA, implementation).is_some_and(|r| {
        r["verification"]["status"] == "passed" && r["incomplete_reason"].is_null()
    })
}

#[test]
fn an_external_adapter_is_set_up_checked_and_run_beside_the_others() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let dir = toy(&root.join("elsewhere/good-toy"), "good");

    // not installed yet: a run says how to install it
    let o = dyno(
        root,
        &[
            "run",
            SHA,
            "--quick",
            "--adapter",
            s(&dir),
            "--impl",
            "good-toy,sha2",
        ],
        &[],
    );
    let stderr = no_panic(&o);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "dyno: skipping good-toy: not installed: run `dyno setup --adapter {}`",
            std::fs::canonicalize(&dir).unwrap().display()
        )),
        "{stderr}"
    );

    let o = dyno(root, &["setup", "--adapter", s(&dir)], &[]);
    let stderr = no_panic(&o);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("good-toy: ready"), "{stderr}");
    let homes: Vec<_> = std::fs::read_dir(root.join("cache/adapters/external"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(homes.len(), 1, "{homes:?}");
    assert!(homes[0].join("run").is_file());

    let o = dyno(root, &["adapter", "check", s(&dir)], &[]);
    let stdout = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{stdout}{}", text(&o.stderr));
    assert!(stdout.contains("checks passed"), "{stdout}");
    assert!(stdout.contains("pass  clock"), "{stdout}");

    // through DYNO_ADAPTERS, beside Rust's own SHA-256
    let (o, json) = run(root, &[], "good-toy,sha2", &[("DYNO_ADAPTERS", s(&dir))]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        passed(&json, "good-toy") && passed(&json, "sha2"),
        "{json:#}"
    );
    let rec = &json["adapters"][0];
    assert_eq!(rec["name"], "good-toy");
    assert_eq!(rec["external"], true);
    assert_eq!(
        rec["dir"],
        std::fs::canonicalize(&dir).unwrap().to_str().unwrap()
    );
    assert_eq!(rec["adapter"], "toy-adapter 0.0.1");
    assert_eq!(rec["source_digest"].as_str().map(str::len), Some(64));
    assert_eq!(rec["stale"], false);
    assert_eq!(
        json["environment"]["runtimes"]["good-toy"]
            .as_str()
            .map(|v| v.starts_with("toy ")),
        Some(true)
    );

    // doctor lists it, marked external
    let o = dyno(root, &["doctor", "--adapter", s(&dir)], &[]);
    let stdout = text(&o.stdout);
    assert!(stdout.contains("good-toy (external: "), "{stdout}");
}

#[test]
fn a_folder_that_is_not_an_adapter_is_refused_in_one_line_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    // no setup
    let bare = root.join("bare");
    std::fs::create_dir_all(&bare).unwrap();
    let o = dyno(
        root,
        &["run", SHA, "--adapter", s(&bare), "--impl", "sha2"],
        &[],
    );
    let stderr = no_panic(&o);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(s(&bare)) && stderr.contains("no `setup` script"),
        "{stderr}"
    );

    // a run that is not executable
    let plain = root.join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    std::fs::write(
        plain.join("setup"),
        "mkdir -p \"$1\"\necho '#!/bin/sh' > \"$1/run\"\n",
    )
    .unwrap();
    let o = dyno(root, &["setup", "--adapter", s(&plain)], &[]);
    let stderr = no_panic(&o);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr
            .lines()
            .any(|l| l.contains(s(&std::fs::canonicalize(&plain).unwrap()))
                && l.contains("not executable")
                && l.contains("chmod +x")),
        "{stderr}"
    );

    // another protocol version: skipped in one line naming the folder,
    // and the rest of the run goes on
    let v9 = toy(&root.join("v9-toy"), "v9");
    assert_eq!(
        dyno(root, &["setup", "--adapter", s(&v9)], &[])
            .status
            .code(),
        Some(0)
    );
    let (o, json) = run(root, &[&v9], "all", &[]);
    let stderr = text(&o.stderr);
    let line = stderr
        .lines()
        .find(|l| l.starts_with("dyno: skipping v9-toy"))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        line.contains(s(&std::fs::canonicalize(&v9).unwrap()))
            && line.contains("protocol version 9")
            && line.contains("protocol library of version 1"),
        "{line}"
    );
    assert!(passed(&json, "sha2"), "{json:#}");
    let o = dyno(root, &["adapter", "check", s(&v9), "-q"], &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stdout).contains("protocol version 9"),
        "{}",
        text(&o.stdout)
    );
}

#[test]
fn two_adapters_of_one_name_or_one_implementation_are_refused_naming_both() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let a = toy(&root.join("a/twin"), "good");
    let b = toy(&root.join("b/twin"), "good");
    let o = dyno(
        root,
        &["doctor", "--adapter", s(&a), "--adapter", s(&b)],
        &[],
    );
    let stderr = no_panic(&o);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("two adapters are named \"twin\"")
            && stderr.contains(s(&std::fs::canonicalize(&a).unwrap()))
            && stderr.contains(s(&std::fs::canonicalize(&b).unwrap())),
        "{stderr}"
    );

    let one = toy(&root.join("toy-one"), "good");
    let two = toy(&root.join("toy-two"), "good");
    for d in [&one, &two] {
        std::fs::write(d.join("impl"), "same-sha").unwrap();
        assert_eq!(
            dyno(root, &["setup", "--adapter", s(d)], &[]).status.code(),
            Some(0)
        );
    }
    let o = dyno(
        root,
        &[
            "run",
            SHA,
            "--quick",
            "--impl",
            "same-sha",
            "--adapter",
            s(&one),
            "--adapter",
            s(&two),
        ],
        &[],
    );
    let stderr = no_panic(&o);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("two adapters offer the implementation \"same-sha\"")
            && stderr.contains(s(&std::fs::canonicalize(&one).unwrap()))
            && stderr.contains(s(&std::fs::canonicalize(&two).unwrap())),
        "{stderr}"
    );
}

/// A worker whose clock counts microseconds passes every output check; the
/// sleep against dyno's own clock catches it.
#[test]
fn a_clock_in_the_wrong_unit_fails_the_check() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let d = toy(&root.join("micro-toy"), "micro");
    let o = dyno(root, &["adapter", "check", s(&d), "-q"], &[]);
    let stdout = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{stdout}");
    let fails: Vec<&str> = stdout.lines().filter(|l| l.starts_with("FAIL")).collect();
    assert_eq!(fails.len(), 1, "{stdout}");
    assert!(
        fails[0].starts_with("FAIL  clock") && fails[0].contains("must be nanoseconds"),
        "{stdout}"
    );
    // Checked before the empty loop, which would grow its samples a
    // thousandfold to reach 1 ms by this clock: skipped, saying why.
    assert!(
        stdout.lines().any(|l| l.starts_with("skip  overhead")
            && l.contains("the worker's clock failed its check")),
        "{stdout}"
    );
}

#[test]
fn a_misbehaving_adapter_fails_alone_and_the_check_says_why() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    // Short for the silent worker, long enough for a Python worker's
    // hello on a machine busy with the other tests (4 s was not).
    let limit = [("DYNO_TEST_REPLY_LIMIT_SECS", "10")];
    let cases = [
        ("junk", "outside a reply: \"debug: prepared\""),
        ("wrong-id", "answered prepare for \"hash/sha256/1B\""),
        ("short", "WRONG output"),
        ("silent", "no reply within 10s"),
    ];
    let mut dirs = Vec::new();
    for (mode, _) in cases {
        let d = toy(&root.join(format!("{mode}-toy")), mode);
        assert_eq!(
            dyno(root, &["setup", "--adapter", s(&d)], &[])
                .status
                .code(),
            Some(0)
        );
        dirs.push(d);
    }
    for ((mode, why), d) in cases.iter().zip(&dirs) {
        let o = dyno(root, &["adapter", "check", s(d), "-q"], &limit);
        let stdout = text(&o.stdout);
        assert_eq!(o.status.code(), Some(1), "{mode}: {stdout}");
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with("FAIL") && l.contains(why)),
            "{mode}: no FAIL line saying {why:?}: {stdout}"
        );
    }
    let refs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
    let (o, json) = run(
        root,
        &refs,
        "junk-toy,wrong-id-toy,short-toy,silent-toy,sha2",
        &limit,
    );
    let stderr = text(&o.stderr);
    assert_ne!(o.status.code(), Some(0), "{stderr}");
    assert!(passed(&json, "sha2"), "the others are measured: {json:#}");
    for (mode, _) in cases {
        assert!(!passed(&json, &format!("{mode}-toy")), "{mode}: {json:#}");
    }
    let short = result(&json, SHA, "short-toy").expect("short-toy's result");
    assert_eq!(short["verification"]["status"], "failed", "{short:#}");
}
