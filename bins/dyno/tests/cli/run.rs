//! End-to-end tests of the `dyno` binary: exit codes, output streams, the
//! written JSON against its schema, and clear errors for bad input.

use std::path::Path;
use std::process::{Command, Output};

use crate::helpers::{assert_schema_valid, bin, repo, text};

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

#[test]
fn gas_prices_a_run_against_ecrecover_and_the_schedule() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run.json");
    let o = quick(
        tmp.path(),
        "precompile/ecrecover/ValidKey,precompile/sha256/32B,precompile-bytecode/sha256/32B,\
         precompile-bytecode/noop/*,opcode/arith-add/*",
        &out,
        &["--impl", "libsecp256k1,sha2,revm"],
    );
    assert_eq!(o.status.code(), Some(0), "stderr: {}", text(&o.stderr));
    let json = dyno(
        &[
            "gas",
            "--from",
            out.to_str().unwrap(),
            "--anchor",
            "arith",
            "--format",
            "json",
        ],
        tmp.path(),
    );
    assert_eq!(
        json.status.code(),
        Some(0),
        "stderr: {}",
        text(&json.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let rows = v["rows"].as_array().unwrap();
    let row = |name: &str| rows.iter().find(|r| r["name"] == name).unwrap();
    assert_eq!(row("ecrecover")["calculated_gas"]["value"], 3000.0);
    assert_eq!(row("ecrecover")["nominal_gas"], 3000);
    // sha256 of 32 bytes: 60 + 12 per word at Osaka.
    assert_eq!(row("sha256")["nominal_gas"], 72);
    assert!(row("sha256")["bytecode_ns"]["value"].as_f64().is_some());
    // The opcode sequence is priced with revm's gas: DUP3 DUP3 ADD POP.
    assert_eq!(row("arith-add")["nominal_gas"], 11);
    assert!(row("arith-add")["second"]["value"].as_f64().unwrap() > 0.0);

    let table = dyno(&["gas", "--from", out.to_str().unwrap()], tmp.path());
    let stdout = text(&table.stdout);
    assert!(
        stdout.contains("ecrecover (0x1)") && stdout.contains("MGas/s"),
        "{stdout}"
    );

    // The same run has no state access to price: a usage error, with what
    // to run.
    let state = dyno(
        &["gas", "--state", "--from", out.to_str().unwrap()],
        tmp.path(),
    );
    assert_eq!(state.status.code(), Some(2));
    assert!(
        text(&state.stderr).contains("dyno run state"),
        "{}",
        text(&state.stderr)
    );
}

/// `dyno gas --state` on a run of two accesses at 10⁴ accounts: every
/// schedule's price beside calculated gas, in JSON.
#[cfg(feature = "db-engines")]
#[test]
fn gas_prices_state_access_against_every_schedule() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run.json");
    let run = Command::new(bin())
        .env("DYNO_NO_STORE", "1")
        .env("DYNO_STATE_DIR", tmp.path().join("state"))
        .env("DYNO_SPECS", repo().join("specs"))
        .env("DYNO_VECTORS", repo().join("vectors"))
        .current_dir(tmp.path())
        .args([
            "run",
            "state/sload-cold/1000?,state/balance-cold/1000?",
            "--quick",
            "-q",
        ])
        .args(["--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let json = dyno(
        &[
            "gas",
            "--state",
            "--from",
            out.to_str().unwrap(),
            "--format",
            "json",
        ],
        tmp.path(),
    );
    assert_eq!(json.status.code(), Some(0), "{}", text(&json.stderr));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    let sload = rows.iter().find(|r| r["access"] == "sload-cold").unwrap();
    assert_eq!(sload["accounts"], 10_000);
    assert_eq!(sload["cache"], "warm");
    assert_eq!(sload["loop_gas"], 2164);
    let prices: Vec<(&str, u64)> = sload["nominal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["schedule"].as_str().unwrap(), n["gas"].as_u64().unwrap()))
        .collect();
    assert_eq!(prices[..2], [("osaka", 2100), ("eip-8038", 2100)]);
    assert!(sload["calculated_gas"]["value"].as_f64().unwrap() > 0.0);
    assert_eq!(v["throughput_mgas"], 60.0);
}

#[test]
fn gas_refuses_bad_flags_with_advice() {
    let tmp = tempfile::tempdir().unwrap();
    let fork = dyno(&["gas", "--fork", "osaka2", "--quick"], tmp.path());
    assert_eq!(fork.status.code(), Some(2));
    let err = text(&fork.stderr);
    assert!(err.contains("osaka2") && err.contains("prague"), "{err}");
    let factor = dyno(&["gas", "--factor", "0.5"], tmp.path());
    assert_eq!(factor.status.code(), Some(2));
    assert!(text(&factor.stderr).contains("above 1"));
    let anchor = dyno(&["gas", "--anchor", "fast"], tmp.path());
    assert_eq!(anchor.status.code(), Some(2));
    assert!(text(&anchor.stderr).contains("60mgas"));
    // --state prices against a throughput, refused before any measuring.
    let anchor = dyno(&["gas", "--state", "--anchor", "arith"], tmp.path());
    assert_eq!(anchor.status.code(), Some(2));
    assert!(text(&anchor.stderr).contains("--state prices against a throughput"));
}

/// `dyno gas --blocks` in revm alone (no client to install): each series
/// fitted on its blocks' operation counts, less its control, priced beside
/// today's, EIP-7904's and EIP-8038's prices (a compute op has no state
/// price, a state access no compute one); the saved run prices alone with
/// --from.
#[test]
fn gas_blocks_fits_each_series_and_prices_the_saved_run() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("blocks.json");
    let args = [
        "gas",
        "--blocks",
        "--quick",
        "--client",
        "revm",
        "--only",
        "div,ecrecover,sload/cold",
        "-q",
        "--format",
        "json",
        "-o",
        out.to_str().unwrap(),
    ];
    let measured = dyno(&args, tmp.path());
    assert_eq!(
        measured.status.code(),
        Some(0),
        "{}",
        text(&measured.stderr)
    );
    let priced: serde_json::Value = serde_json::from_slice(&measured.stdout).unwrap();
    assert_eq!(priced["anchor_mgas"], 100.0);
    let rows = priced["rows"].as_array().unwrap();
    // One row per op series (controls are not rows); revm has only dyno's
    // own time, no client log.
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "reprice/div/256-by-128",
            "reprice/ecrecover/valid",
            "reprice/sload/cold"
        ]
    );
    assert!(
        rows.iter()
            .all(|r| r["time"] == "new_payload" && r["net"] == true)
    );
    let schedules: Vec<&str> = priced["schedules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        schedules,
        ["osaka", "eip-7904", "eip-8038", "eip-8038-11802"]
    );
    assert_eq!(rows[0]["prices"], serde_json::json!([5, 2, null, null]));
    assert_eq!(
        rows[1]["prices"],
        serde_json::json!([3000, 841, null, null])
    );
    // A cold SLOAD: 2 100 today and in EIP-8038, 3 000 in its first version.
    assert_eq!(
        rows[2]["prices"],
        serde_json::json!([2100, null, 2100, 3000])
    );

    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_schema_valid(&v);
    let results = v["results"].as_array().unwrap();
    let ids: Vec<&str> = results.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "reprice/div/256-by-128",
            "reprice/ecrecover/valid",
            "reprice/sload/cold",
            "reprice/control/arith-binary",
            "reprice/control/precompile",
            "reprice/control/state-read"
        ]
    );
    for r in results {
        // One sample per block: its operation count and its time.
        let samples = r["samples"].as_array().unwrap();
        assert_eq!(samples.len(), 5, "{}", r["id"]);
        assert_eq!(r["blocks"].as_array().unwrap().len(), 5);
        assert!(samples.iter().all(|s| s["iters"].as_u64().unwrap() > 0));
        assert_eq!(r["mode"], "linear-fit");
        assert_eq!(
            r["parameters"]["counted_by"],
            "revm inspector, before the replay"
        );
        assert_eq!(r["reprice"]["fits"][0]["n"], 5);
    }
    assert_eq!(
        results[1]["reprice"]["control"],
        "reprice/control/precompile"
    );

    let again = dyno(
        &[
            "gas",
            "--blocks",
            "--from",
            out.to_str().unwrap(),
            "--format",
            "csv",
        ],
        tmp.path(),
    );
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    let csv = text(&again.stdout);
    assert!(
        csv.starts_with("series,level,implementation,time,n,ns,"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 4, "{csv}");
    assert!(
        csv.contains("reprice/ecrecover/valid,block,revm,new_payload,5,"),
        "{csv}"
    );

    // With a run of the library and the bytecode loop: the same operation
    // at those levels beside the client's, each block row over the
    // library's time.
    let levels = tmp.path().join("levels.json");
    let run = quick(
        tmp.path(),
        "precompile/ecrecover/ValidKey,precompile-bytecode/ecrecover/ValidKey,precompile-bytecode/noop/identity-empty",
        &levels,
        &[],
    );
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let joined = dyno(
        &[
            "gas",
            "--blocks",
            "--from",
            out.to_str().unwrap(),
            "--with",
            levels.to_str().unwrap(),
            "--format",
            "json",
        ],
        tmp.path(),
    );
    assert_eq!(joined.status.code(), Some(0), "{}", text(&joined.stderr));
    let v: serde_json::Value = serde_json::from_slice(&joined.stdout).unwrap();
    let ecrecover: Vec<&serde_json::Value> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["id"] == "reprice/ecrecover/valid")
        .collect();
    let levels: Vec<(&str, &str)> = ecrecover
        .iter()
        .map(|r| (r["level"].as_str().unwrap(), r["client"].as_str().unwrap()))
        .collect();
    assert_eq!(
        levels,
        [
            ("library", "libsecp256k1"),
            ("library", "k256"),
            ("bytecode", "revm"),
            ("block", "revm")
        ]
    );
    // Each level over the baseline library's time (libsecp256k1's).
    let lib = ecrecover[0]["ns"]["value"].as_f64().unwrap();
    let block = ecrecover[3]["ns"]["value"].as_f64().unwrap();
    let ratio = ecrecover[3]["vs_library"].as_f64().unwrap();
    assert!(
        (ratio - block / lib).abs() < 1e-9 * ratio.abs().max(1.0),
        "{ratio}"
    );
    // A peer's per-client table beside it, within each client.
    let peer = tmp.path().join("peer.csv");
    std::fs::write(
        &peer,
        "operation,parameter,client,gas\necrecover,,besu,1000\ndiv,256-by-128,besu,2\n",
    )
    .unwrap();
    let compared = dyno(
        &[
            "gas",
            "--blocks",
            "--from",
            out.to_str().unwrap(),
            "--compare",
            peer.to_str().unwrap(),
            "--format",
            "json",
        ],
        tmp.path(),
    );
    assert_eq!(
        compared.status.code(),
        Some(0),
        "{}",
        text(&compared.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&compared.stdout).unwrap();
    let div = &v["compared"][1];
    assert_eq!(div["id"], "reprice/div/256-by-128");
    assert_eq!(div["peer_ratio"], 0.002);
    assert_eq!(div["ours"][0][0], "revm");
    let bad = dyno(&["gas", "--blocks", "--compare", "nosuch.csv"], tmp.path());
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("--compare nosuch.csv"),
        "{}",
        text(&bad.stderr)
    );
    // A --with file that is not a run is refused before anything runs.
    let bad = dyno(&["gas", "--blocks", "--with", "nosuch.json"], tmp.path());
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("--with nosuch.json"),
        "{}",
        text(&bad.stderr)
    );
}

#[test]
fn gas_blocks_refuses_bad_flags_before_making_any_block() {
    let tmp = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 5] = [
        (
            &["--anchor", "arith"],
            "--blocks prices against a throughput",
        ),
        (
            &["--client", "revm", "--only", "nosuch"],
            "reprice/ecrecover/valid",
        ),
        (
            &["--client", "nethermind"],
            "the clients dyno installs are ethereumjs, ethrex, geth",
        ),
        (&["-o", "-"], "prints its table on stdout"),
        (&["--samples", "20"], "one sample per block"),
    ];
    for (extra, says) in cases {
        let mut args = vec!["gas", "--blocks", "--quick"];
        args.extend_from_slice(extra);
        let o = dyno(&args, tmp.path());
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", text(&o.stderr));
        let err = text(&o.stderr);
        assert!(err.contains(says), "{extra:?}: {err}");
        assert!(
            !err.contains("making"),
            "{extra:?} was refused only after work began: {err}"
        );
    }
    // --client needs --blocks.
    let o = dyno(&["gas", "--client", "geth"], tmp.path());
    assert_eq!(o.status.code(), Some(2));
}

/// The regression of 8c7ba3a, end to end: `dyno gas --quick` measured no
/// bytecode loop at all. Every precompile input it calls directly must
/// also be measured through bytecode, and priced with both columns.
#[test]
fn gas_quick_measures_every_direct_input_through_bytecode_too() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("gas.json");
    let o = dyno(
        &[
            "gas",
            "--quick",
            "-q",
            "--format",
            "json",
            "-o",
            out.to_str().unwrap(),
        ],
        tmp.path(),
    );
    assert_eq!(o.status.code(), Some(0), "stderr: {}", text(&o.stderr));
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let timed: std::collections::HashSet<&str> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["stats"].is_object())
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    let direct: Vec<&str> = timed
        .iter()
        .copied()
        .filter(|id| id.starts_with("precompile/"))
        .collect();
    assert!(direct.len() > 20, "{} direct inputs", direct.len());
    for id in &direct {
        let twin = id.replacen("precompile/", "precompile-bytecode/", 1);
        assert!(timed.contains(twin.as_str()), "{id} has no bytecode result");
    }
    let table: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for row in table["rows"].as_array().unwrap() {
        if row["kind"] == "opcode" {
            continue;
        }
        assert!(
            row["bytecode_ns"]["value"].as_f64().is_some(),
            "no bytecode time in {row}"
        );
    }
}

/// `dyno report` reads results only: a gas run measured before results
/// recorded their nominal gas gets no gas chart and one line saying how to
/// price it (`dyno gas --from` still does, from the vectors).
#[test]
fn report_prices_only_from_recorded_gas_and_says_how_for_an_old_run() {
    let dir = tempfile::tempdir().unwrap();
    let old = repo().join("crates/report/tests/data/gas.json");
    let page = dir.path().join("r.html");
    let o = dyno(
        &[
            "report",
            old.to_str().unwrap(),
            "-o",
            page.to_str().unwrap(),
        ],
        dir.path(),
    );
    let stderr = text(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains("no gas chart") && stderr.contains("dyno gas --from"),
        "{stderr}"
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        !html.contains("id=\"gas\""),
        "a gas section without recorded gas"
    );
    let o = dyno(
        &["gas", "--from", old.to_str().unwrap(), "--format", "csv"],
        dir.path(),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).lines().count() > 20,
        "dyno gas --from priced nothing"
    );
}

/// `dyno list` with a cache of its own: every adapter runtime's and every
/// client's implementations, each marked; `--impl` and `--installed`
/// filter. An install is faked by a `run` script (without the digest
/// `dyno setup` records, so it reads as out of date, which still runs).
#[test]
fn list_shows_every_runtime_and_client_marked_installed_or_not() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let list = |args: &[&str]| {
        let o = Command::new(bin())
            .env("DYNO_NO_STORE", "1")
            .env("DYNO_CACHE", &cache)
            .env("DYNO_SPECS", repo().join("specs"))
            .env("DYNO_VECTORS", repo().join("vectors"))
            .env_remove("DYNO_ADAPTERS")
            .current_dir(tmp.path())
            .args(["list"])
            .args(args)
            .output()
            .expect("dyno runs");
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        (text(&o.stdout), text(&o.stderr))
    };
    let (all, err) = list(&[]);
    let row = |out: &str, id: &str, imp: &str| -> Option<String> {
        out.lines()
            .find(|l| {
                let mut w = l.split_whitespace();
                w.next() == Some(id) && w.next() == Some(imp)
            })
            .map(String::from)
    };
    // Each adapter runtime beside Rust's, from its offers.json.
    let recover = "crypto/secp256k1-recover/valid";
    for (id, imp, runtime) in [
        (recover, "geth", "go"),
        ("pow/hashimoto-light/epoch0", "core-geth", "go-etc"),
        (recover, "web3j", "java"),
        (recover, "noble", "node"),
        (recover, "coincurve", "python"),
    ] {
        let r = row(&all, id, imp).unwrap_or_else(|| panic!("no {imp} row in:\n{all}"));
        assert!(r.contains(&format!(" {runtime} ")), "{r}");
        assert!(
            r.ends_with(&format!("not installed: dyno setup {runtime}")),
            "{r}"
        );
    }
    let r = row(&all, "crypto/secp256k1-recover/valid", "libsecp256k1").unwrap();
    assert!(r.ends_with("built in"), "{r}");
    // Each client, after the ids.
    for name in [
        "geth",
        "ethereumjs",
        "ethrex",
        "revm",
        "anvil",
        "hardhat",
        "mosquitto",
    ] {
        let line = all
            .lines()
            .skip_while(|l| !l.starts_with("client "))
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no client {name} in:\n{all}"));
        let want = if name == "revm" {
            "built in".to_string()
        } else {
            format!("not installed: dyno setup {name}")
        };
        assert!(line.ends_with(&want), "{line}");
    }
    assert!(
        err.contains("runtime(s) (go, go-etc, java, node, python, rust)"),
        "{err}"
    );

    // --impl go: the Go adapter's rows only, and no client.
    let (go, _) = list(&["--impl", "go"]);
    assert!(
        row(&go, "crypto/secp256k1-recover/valid", "geth").is_some(),
        "{go}"
    );
    assert!(row(&go, "crypto/secp256k1-recover/valid", "libsecp256k1").is_none());
    assert!(!go.contains("client "), "{go}");
    assert!(go.lines().skip(1).all(|l| l.contains(" go ")), "{go}");

    // A faked install of python and of mosquitto: --installed keeps them
    // and what is built in, and drops the rest.
    for home in ["adapters/python", "nodes/mosquitto"] {
        std::fs::create_dir_all(cache.join(home)).unwrap();
        std::fs::write(cache.join(home).join("run"), "#!/bin/sh\nexit 1\n").unwrap();
    }
    let (now, _) = list(&["--installed"]);
    let r = row(&now, "crypto/secp256k1-recover/valid", "coincurve").unwrap();
    assert!(r.ends_with("out of date: dyno setup python"), "{r}");
    assert!(row(&now, "crypto/secp256k1-recover/valid", "libsecp256k1").is_some());
    assert!(
        row(&now, "crypto/secp256k1-recover/valid", "geth").is_none(),
        "{now}"
    );
    assert!(!now.contains("not installed"), "{now}");
    let clients: Vec<&str> = now
        .lines()
        .skip_while(|l| !l.starts_with("client "))
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(clients, ["revm", "mosquitto"], "{now}");

    // A filter lists ids only.
    let (hash, _) = list(&["hash/keccak256/32B"]);
    assert!(!hash.contains("client "), "{hash}");
    assert!(hash.contains("tiny-keccak *"), "{hash}");
}

/// `dyno setup` runs the repository's set-up scripts, never those of the
/// folder it runs in: a planted `nodes/geth/setup` (and `adapters/go/setup`)
/// in the current folder is not run. The repository's geth set-up finds no
/// Go on this PATH and is skipped, so the test builds nothing.
#[test]
fn setup_never_runs_the_current_folders_scripts() {
    use std::os::unix::fs::PermissionsExt as _;
    let tmp = tempfile::tempdir().unwrap();
    let marker = tmp.path().join("planted-ran");
    for script in ["nodes/geth/setup", "adapters/go/setup"] {
        let path = tmp.path().join(script);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            &path,
            format!("#!/bin/sh\necho ran >> {}\n", marker.display()),
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    // A PATH with a shell and nothing to build with.
    let bin_dir = tmp.path().join("bin");
    std::fs::create_dir(&bin_dir).unwrap();
    for tool in ["bash", "env", "dirname", "sh"] {
        let found = ["/usr/bin", "/bin"]
            .iter()
            .map(|d| Path::new(d).join(tool))
            .find(|p| p.exists())
            .unwrap_or_else(|| panic!("no {tool} in /usr/bin or /bin"));
        std::os::unix::fs::symlink(found, bin_dir.join(tool)).unwrap();
    }
    let o = Command::new(bin())
        .args(["setup", "geth"])
        .current_dir(tmp.path())
        .env("PATH", &bin_dir)
        .env("DYNO_CACHE", tmp.path().join("cache"))
        .env_remove("DYNO_NODES")
        .env_remove("DYNO_ADAPTER_ROOT")
        .output()
        .unwrap();
    let stderr = text(&o.stderr);
    assert!(
        !marker.exists(),
        "the current folder's script ran:\n{stderr}"
    );
    assert!(stderr.contains("geth: skipped: go not found"), "{stderr}");
    assert_eq!(o.status.code(), Some(0), "{stderr}");
}
