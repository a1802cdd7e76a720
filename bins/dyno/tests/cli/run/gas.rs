//! dyno gas end to end: the direct table, --state, --blocks and a report's gas chart, each priced from a real run.

use super::*;

#[test]
pub(crate) fn gas_prices_a_run_against_ecrecover_and_the_schedule() {
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
pub(crate) fn gas_prices_state_access_against_every_schedule() {
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
pub(crate) fn gas_refuses_bad_flags_with_advice() {
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
pub(crate) fn gas_blocks_fits_each_series_and_prices_the_saved_run() {
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
pub(crate) fn gas_blocks_refuses_bad_flags_before_making_any_block() {
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
pub(crate) fn gas_quick_measures_every_direct_input_through_bytecode_too() {
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
pub(crate) fn report_prices_only_from_recorded_gas_and_says_how_for_an_old_run() {
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
