//! End-to-end tests of `dyno load` against a real go-ethereum dev node,
//! installed by `dyno setup geth` (the test script does that first).
//! Without geth these tests are skipped with a message, except under
//! `CI=true`, where a missing geth is a failure.
//!
//! 1. A small run accounts for every transaction: the tracker's included
//!    count equals what an independent scan of the chain's blocks finds.
//! 2. Killing the node mid-run saves the partial per-transaction data,
//!    marks the run incomplete and exits 2, without hanging.

use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::helpers::{bin, child_named, kill_and_wait, read_json, read_until};

fn dyno() -> Command {
    let mut c = Command::new(bin());
    c.current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."));
    c.env("DYNO_NO_STORE", "1");
    c
}

/// The installed geth's home, or `None` (skip) outside CI.
fn geth_home() -> Option<PathBuf> {
    dyno_node::installed_for_tests(dyno_node::Kind::Geth)
}

#[test]
fn every_accepted_transaction_is_accounted_for_and_matches_a_chain_scan() {
    if geth_home().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("small.json");
    let o = dyno()
        .args(["load", "--txs", "300", "--rate", "150", "--accounts", "10"])
        .args([
            "--finality-timeout",
            "0",
            "--self-test-requests",
            "2000",
            "-q",
            "--format",
            "json",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "stderr:\n{stderr}");
    let run = read_json(&out);
    let schema: Value = serde_json::from_str(include_str!(
        "../../../../docs/schema/result-v1.schema.json"
    ))
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&run)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "the load result does not match the schema: {errors:#?}"
    );
    let stdout: Value = serde_json::from_slice(&o.stdout).expect("--format json prints the result");
    assert_eq!(stdout["run"]["id"], run["run"]["id"]);
    assert_eq!(run["run"]["complete"], true);
    let l = &run["load"][0];
    let c = &l["counts"];
    assert_eq!(c["submitted"], 300);
    assert_eq!(c["accepted"], 300, "{c}");
    assert_eq!(c["included"], 300, "{c}");
    assert_eq!(c["reverted"], 0);
    let scan = &l["chain_scan"];
    assert_eq!(scan["found"], c["included"], "scan {scan} vs counts {c}");
    assert_eq!(scan["matches"], true);
    // The per-transaction CSV: a header and one row per transaction, each
    // included, with its block and times.
    let csv =
        std::fs::read_to_string(dir.path().join(l["files"]["csv"].as_str().unwrap())).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 300);
    assert!(
        rows.iter()
            .all(|r| r.contains(",included,") || r.contains(",safe,") || r.contains(",finalized,"))
    );
    // Latency stages and the plots.
    assert_eq!(l["latency"]["included"]["n"], 300);
    assert!(l["latency"]["included"]["p50"].as_f64().unwrap() > 0.0);
    for (_, f) in l["files"].as_object().unwrap() {
        assert!(dir.path().join(f.as_str().unwrap()).is_file(), "{f}");
    }
    assert!(dir.path().join("small-geth-client-latency.png").is_file());
    assert!(
        l["node"]["version"]
            .as_str()
            .unwrap()
            .contains("Geth/v1.17.8")
    );
    assert!(
        l["node"]["command"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a == "--dev")
    );
}

/// `--metrics-url` with a password, a `?password=` and a `token=` was
/// written in clear into the result's notes, its Markdown, stdout and the
/// HTML report. Metrics that never answer (nothing listens there) put
/// the URL in a note: masked everywhere.
#[test]
fn the_secrets_of_a_metrics_url_reach_no_output() {
    if geth_home().is_none() {
        return;
    }
    const PW: &str = "HUNTER2METRICS";
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.json");
    let port = dyno_node::free_port().unwrap();
    let url = format!(
        "http://dyno:{PW}@127.0.0.1:{port}/debug/metrics/prometheus?password={PW}&token={PW}"
    );
    let o = dyno()
        .args(["load", "--txs", "40", "--rate", "40", "--accounts", "4"])
        .args(["--finality-timeout", "0", "--metrics-url", &url])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(0), "stderr:\n{stderr}");
    let html = dir.path().join("m.html");
    let r = dyno()
        .arg("report")
        .arg(&out)
        .arg("-o")
        .arg(&html)
        .output()
        .unwrap();
    assert_eq!(
        r.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    let json = std::fs::read_to_string(&out).unwrap();
    assert!(
        json.contains("never answered"),
        "no note of the metrics: {json}"
    );
    assert!(json.contains("password=***"), "{json}");
    let mut texts = vec![
        ("stdout", String::from_utf8_lossy(&o.stdout).into_owned()),
        ("stderr", stderr),
        (
            "report stderr",
            String::from_utf8_lossy(&r.stderr).into_owned(),
        ),
    ];
    for e in std::fs::read_dir(dir.path()).unwrap() {
        let p = e.unwrap().path();
        if let Ok(t) = std::fs::read(&p) {
            texts.push(("a file", String::from_utf8_lossy(&t).into_owned()));
        }
    }
    for (what, t) in texts {
        assert!(!t.contains(PW), "the metrics URL's secret is in {what}");
    }
}

#[test]
fn killing_the_node_mid_run_saves_partial_data_and_exits_2() {
    if geth_home().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("killed.json");
    let mut child = dyno()
        .args([
            "load",
            "--txs",
            "3000",
            "--rate",
            "200",
            "--accounts",
            "10",
            "--self-test-requests",
            "0",
        ])
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut log = String::new();
    // Wait for the timed phase to begin, then let it run a little.
    read_until(&mut stderr, &mut log, "client-signed:");
    std::thread::sleep(Duration::from_secs(3));
    let geth = child_named(child.id(), "geth").expect("geth is dyno's child");
    let (status, rest) = kill_and_wait(geth, &mut child, stderr, Duration::from_secs(60));
    log.push_str(&rest);
    assert_eq!(status.code(), Some(2), "stderr:\n{log}");
    assert!(
        log.contains("cut short") && log.contains("geth exited"),
        "stderr:\n{log}"
    );

    let run = read_json(&out);
    assert_eq!(run["run"]["complete"], false);
    let l = &run["load"][0];
    assert_eq!(l["complete"], false);
    assert!(
        l["incomplete_reason"]
            .as_str()
            .unwrap()
            .contains("signal: 9"),
        "{}",
        l["incomplete_reason"]
    );
    let c = &l["counts"];
    let sent = c["submitted"].as_u64().unwrap();
    assert!(sent > 100 && sent < 3000, "{c}");
    assert!(c["not_sent"].as_u64().unwrap() > 0);
    assert_eq!(
        c["submitted"].as_u64().unwrap() + c["not_sent"].as_u64().unwrap(),
        3000
    );
    // The partial per-transaction data is on disk: every planned transaction has a row.
    let csv =
        std::fs::read_to_string(dir.path().join(l["files"]["csv"].as_str().unwrap())).unwrap();
    assert_eq!(csv.lines().count(), 3001);
    assert!(csv.contains(",not_sent,"));
    // In a block before the kill: included, or already safe (geth's dev
    // mode marks the head safe at once) or finalized.
    assert!(
        [",included,", ",safe,", ",finalized,"]
            .iter()
            .any(|s| csv.contains(s)),
        "some were in a block before the kill"
    );
}
