//! End-to-end tests of the `dyno` binary: exit codes, output streams, the
//! written JSON against its schema, and clear errors for bad input.

use std::path::Path;
use std::process::{Command, Output};

use crate::helpers::{assert_schema_valid, bin, repo, text};

mod gas;
mod inventory;

fn dyno(args: &[&str], dir: &Path) -> Output {
    Command::new(bin())
        .env("DYNO_NO_STORE", "1")
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env("DYNO_SPECS", repo().join("specs"))
        .env("DYNO_VECTORS", repo().join("vectors"))
        .output()
        .expect("dyno runs")
}

/// `dyno run FILTER --quick -q --out OUT EXTRA...` in `dir`.
fn quick(dir: &Path, filter: &str, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        filter,
        "--quick",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    dyno(&args, dir)
}

#[test]
fn a_tiny_suite_runs_and_writes_json_that_validates() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run.json");
    let o = dyno(
        &[
            "run",
            "hash/keccak256/32B,hash/sha256/1B",
            "--quick",
            "--out",
            out.to_str().unwrap(),
            "-q",
        ],
        tmp.path(),
    );
    assert_eq!(o.status.code(), Some(0), "stderr: {}", text(&o.stderr));
    let stdout = text(&o.stdout);
    assert!(
        stdout.contains("hash/keccak256/32B") && stdout.contains("tiny-keccak *"),
        "{stdout}"
    );
    assert!(
        !stdout.contains('\x1b'),
        "no colour when stdout is not a terminal"
    );

    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_schema_valid(&json);
    assert_eq!(json["schema_version"], 1);
    assert_eq!(json["run"]["complete"], true);
    let results = json["results"].as_array().unwrap();
    assert_eq!(
        results.len(),
        6,
        "3 keccak backends + 2 sha256 + the reference every run records"
    );
    let reference = &results[5];
    assert_eq!(reference["id"], dyno_gate::DEFAULT_REFERENCE);
    assert_eq!(reference["parameters"]["reference"], true);
    for r in results {
        assert_eq!(r["verification"]["status"], "passed");
        assert!(r["samples"].as_array().unwrap().len() >= 5);
        assert!(r["stats"]["p50"].as_f64().unwrap() > 0.0);
    }
    assert!(json["harness"]["empty_iteration_ns"].as_f64().unwrap() > 0.0);
    assert!(
        json["environment"]["clock"]["read_cost_ns"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    let md = std::fs::read_to_string(out.with_extension("md")).unwrap();
    assert!(md.contains("| `hash/keccak256/32B` |"), "{md}");
}

#[test]
fn every_stdout_format_is_parseable() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r.json");
    let run = |format: &str| {
        let o = quick(tmp.path(), "hash/sha256/1B", &out, &["--format", format]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        text(&o.stdout)
    };
    let json: serde_json::Value = serde_json::from_str(&run("json")).unwrap();
    assert_schema_valid(&json);
    let csv = run("csv");
    let mut lines = csv.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("id,implementation,version,baseline")
    );
    // One benchmark, and the reference every run records.
    assert_eq!(lines.count(), 2 + 1);
    assert!(run("markdown").contains("## hash"));
}

#[test]
fn a_wrong_result_fails_verification_and_exits_1() {
    let tmp = tempfile::tempdir().unwrap();
    let vectors = tmp.path().join("vectors");
    std::fs::create_dir(&vectors).unwrap();
    for f in std::fs::read_dir(repo().join("vectors")).unwrap() {
        let f = f.unwrap().path();
        if f.extension().is_some_and(|e| e == "json") {
            std::fs::copy(&f, vectors.join(f.file_name().unwrap())).unwrap();
        }
    }
    // Corrupt the first keccak256 32-byte digest.
    let path = vectors.join("hash.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let case = doc["cases"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|c| c["algorithm"] == "keccak256" && c["len"] == 32)
        .unwrap();
    let good = case["digest"].as_str().unwrap().to_string();
    let bad = format!(
        "0x{}{}",
        if &good[2..3] == "0" { "1" } else { "0" },
        &good[3..]
    );
    case["digest"] = serde_json::json!(bad);
    std::fs::write(&path, serde_json::to_string(&doc).unwrap()).unwrap();

    let out = tmp.path().join("run.json");
    let o = Command::new(bin())
        .env("DYNO_NO_STORE", "1")
        .args([
            "run",
            "hash/keccak256/32B",
            "--impl",
            "tiny-keccak",
            "--quick",
            "-q",
            "--out",
        ])
        .arg(&out)
        .arg("--vectors")
        .arg(&vectors)
        .env("DYNO_SPECS", repo().join("specs"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "stderr: {}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(
        err.contains("hash/keccak256/32B") && err.contains("tiny-keccak"),
        "{err}"
    );
    assert!(
        err.contains(&format!("expected {}", &bad[..10])),
        "names the expected value: {err}"
    );
    assert!(
        err.contains(&format!("got {}", &good[..10])),
        "names the actual value: {err}"
    );
    assert!(
        text(&o.stdout).contains("WRONG RESULT"),
        "{}",
        text(&o.stdout)
    );

    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_schema_valid(&json);
    let r = &json["results"][0];
    assert_eq!(r["verification"]["status"], "failed");
    assert!(
        r["samples"].as_array().unwrap().is_empty(),
        "a wrong result is never timed"
    );
    assert!(r["stats"].is_null());
}

#[test]
fn a_bad_spec_names_file_line_and_key() {
    let tmp = tempfile::tempdir().unwrap();
    let specs = tmp.path().join("specs");
    std::fs::create_dir(&specs).unwrap();
    let text_in = std::fs::read_to_string(repo().join("specs/hash.toml")).unwrap();
    std::fs::write(
        specs.join("hash.toml"),
        text_in.replacen("inputs =", "inptus =", 1),
    )
    .unwrap();
    let o = Command::new(bin())
        .env("DYNO_NO_STORE", "1")
        .args(["list", "--specs"])
        .arg(&specs)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("hash.toml:")
            && err.contains("inptus")
            && err.contains("did you mean \"inputs\""),
        "{err}"
    );
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{err}"
    );
}

#[test]
fn usage_errors_exit_2_with_advice() {
    let tmp = tempfile::tempdir().unwrap();
    let o = dyno(&["run", "--samples", "3"], tmp.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--samples"), "{}", text(&o.stderr));
    // Past a million, a mistake, not a wish (and no panic: issue 16).
    let o = dyno(&["gas", "--samples", "4294967295"], tmp.path());
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("--samples") && err.contains("1000000"),
        "{err}"
    );

    let o = dyno(&["run", "hash", "--impl", "tiny-keccack"], tmp.path());
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("unknown implementation \"tiny-keccack\"") && err.contains("tiny-keccak"),
        "{err}"
    );

    let o = dyno(&["run", "no-such-benchmark"], tmp.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("\"no-such-benchmark\" matches no benchmark id"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn missing_vectors_are_named_and_the_run_is_saved_incomplete() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run.json");
    let o = Command::new(bin())
        .env("DYNO_NO_STORE", "1")
        .args([
            "run",
            "hash/sha256/1B",
            "--quick",
            "-q",
            "--vectors",
            "/nonexistent/vectors",
            "--out",
        ])
        .arg(&out)
        .env("DYNO_SPECS", repo().join("specs"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("/nonexistent/vectors/hash.json") && err.contains("--vectors"),
        "{err}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_schema_valid(&json);
    assert_eq!(json["run"]["complete"], false);
}

#[test]
fn list_shows_ids_baselines_and_targets() {
    let tmp = tempfile::tempdir().unwrap();
    let o = dyno(&["list", "crypto/secp256k1-recover"], tmp.path());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("crypto/secp256k1-recover/valid"), "{out}");
    assert!(out.contains("libsecp256k1 *"), "{out}");
    assert!(out.contains("p50 ≤ 1.00 ms"), "{out}");
    let all = text(&dyno(&["list"], tmp.path()).stdout);
    for group in ["crypto/", "hash/", "rlp/", "trie/"] {
        assert!(all.contains(group), "{group} missing from dyno list");
    }
    // a mem scenario shows the version of the workload it borrows
    let mem = text(&dyno(&["list", "mem/secp256k1-recover"], tmp.path()).stdout);
    let row = mem
        .lines()
        .find(|l| l.contains("libsecp256k1"))
        .unwrap_or_else(|| panic!("no mem row in {mem}"));
    assert!(!row.contains(" ? "), "{row}");
    // a group's name is that group: `hash` lists no pow/ or net/ ids
    let hash = text(&dyno(&["list", "hash"], tmp.path()).stdout);
    assert!(hash.contains("hash/keccak256/32B"), "{hash}");
    assert!(!hash.contains("pow/") && !hash.contains("net/"), "{hash}");
}

#[test]
fn colour_follows_the_flag() {
    // NO_COLOR and TERM=dumb only matter on a terminal; they are unit-tested
    // in main.rs (`colour_only_on_a_terminal_without_no_color_or_dumb_term`).
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r.json");
    let o = quick(tmp.path(), "hash/sha256/1B", &out, &["--color", "always"]);
    assert!(text(&o.stdout).contains('\x1b'), "--color always colours");
    let o = quick(tmp.path(), "hash/sha256/1B", &out, &[]);
    assert!(
        !text(&o.stdout).contains('\x1b'),
        "auto does not colour a pipe"
    );
}
