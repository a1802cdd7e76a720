//! The read paths against a real go-ethereum dev node (installed by `dyno
//! setup geth`). Without geth these tests are skipped with a message,
//! except under `CI=true`, where a missing geth is a failure.
//!
//! * `logs_study_and_read_load_on_geth`: a small eth_getLogs study (100 and
//!   1 000 logs, 3 calls each) and a short read load (200 requests at
//!   200/s) on one node.
//! * `logs_study_full` (ignored): the full study, 100 to 20 000 logs,
//!   printed as a table. Run it with
//!   `cargo test --release -p dyno-load --test read -- --ignored --nocapture`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use dyno_load::drive::{self, Options, Target};
use dyno_load::read::{self, LogsOptions, ReadLoadOptions, ReadMethod};
use dyno_load::txs::{self, Mix};
use dyno_node::Kind;

/// The installed geth's home, or `None` (skip) outside CI.
fn geth_home() -> Option<PathBuf> {
    dyno_node::installed_for_tests(dyno_node::Kind::Geth)
}

fn options() -> Options {
    Options {
        txs: 1,
        accounts: 1,
        schedule: "200".parse().unwrap(),
        schedule_text: "200".into(),
        mix: Mix::only(txs::Kind::Transfer),
        workload_name: "read".into(),
        block_time: 1,
        seed: "dyno-read-test".into(),
        tip_wei: 1_000_000_000,
        max_fee_wei: None,
        connections: 8,
        open_loop_cap: 1_000,
        lag_threshold: Duration::from_millis(10),
        inclusion_timeout: Duration::from_secs(60),
        finality_timeout: Duration::ZERO,
        poll: Duration::from_millis(100),
        request_timeout: Duration::from_secs(30),
        contracts: Path::new(env!("CARGO_MANIFEST_DIR")).join("../../contracts/build"),
        funder_key: None,
        threads: 1,
        self_test_requests: 0,
        metrics_url: None,
        metrics_interval: std::time::Duration::from_secs(1),
        genesis: None,
    }
}

fn say(m: &str) {
    eprintln!("  {m}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_study_and_read_load_on_geth() {
    let Some(home) = geth_home() else { return };
    let opts = options();
    let c = drive::connect(&Target::Start(Kind::Geth, home), &opts, &say)
        .await
        .expect("geth starts");

    let lo = LogsOptions {
        sizes: vec![100, 1_000],
        repeats: 3,
        ..LogsOptions::default()
    };
    let study = read::logs_study(&c, &opts, &lo, &say)
        .await
        .expect("the study runs");
    assert_eq!(study.sizes.len(), 2);
    let (small, big) = (&study.sizes[0], &study.sizes[1]);
    assert!(study.sizes.iter().all(|s| s.verified));
    assert_eq!((small.logs, big.logs), (100, 1_000));
    assert_eq!(small.latency.n, 3);
    assert!(
        big.response_bytes > 5 * small.response_bytes,
        "{} vs {}",
        big.response_bytes,
        small.response_bytes
    );
    assert!(
        !small.over_limit,
        "100 logs: {} bytes",
        small.response_bytes
    );
    assert!(big.over_limit, "1000 logs: {} bytes", big.response_bytes);
    assert!(
        study.notes.iter().any(|n| n.contains("1000 logs")),
        "{:?}",
        study.notes
    );
    // Disjoint, ordered block ranges.
    assert!(small.blocks[0] <= small.blocks[1] && small.blocks[1] < big.blocks[0]);
    assert!(small.parse_raw_ns > 0.0 && big.parse_typed_ns > 0.0);

    let ro = ReadLoadOptions {
        schedule: "200".parse().unwrap(),
        requests: 200,
        ..ReadLoadOptions::default()
    };
    let load = read::read_load(&c, &opts, &ro, &say)
        .await
        .expect("the read load runs");
    assert_eq!(load.sent, 200);
    assert_eq!(load.errors, 0, "{:#?}", load.per_method);
    assert_eq!(load.per_method.len(), 4);
    for m in ReadMethod::ALL {
        let s = &load.per_method[m.as_str()];
        assert_eq!((s.n, s.errors), (50, 0), "{}: {s:?}", m.as_str());
        assert_eq!(s.latency.n, 50);
    }
    assert!(
        (load.intended_rate.unwrap() - 200.0).abs() < 1e-6,
        "{load:?}"
    );
    assert!(load.achieved_rate > 150.0, "{load:?}");
    // The results serialize under their strict schema.
    let text = serde_json::to_string(&study).unwrap();
    let back: dyno_format::read::LogsStudy = serde_json::from_str(&text).unwrap();
    assert_eq!(back, study);
    let text = serde_json::to_string(&load).unwrap();
    let back: dyno_format::read::ReadLoad = serde_json::from_str(&text).unwrap();
    assert_eq!(back, load);
    c.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "the full study takes about a minute; run with --release -- --ignored --nocapture"]
async fn logs_study_full() {
    let Some(home) = geth_home() else { return };
    let opts = options();
    let c = drive::connect(&Target::Start(Kind::Geth, home), &opts, &say)
        .await
        .expect("geth starts");
    let study = read::logs_study(&c, &opts, &LogsOptions::default(), &say)
        .await
        .expect("the study runs");
    println!("node: {}", study.node.version);
    println!(
        "| logs | blocks | txs | response bytes | B/log | > 64 KiB | first call ms | getLogs P50 ms | P90 ms | max ms | parse raw ms | parse typed ms | typed/raw |"
    );
    println!("|---:|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    for s in &study.sizes {
        println!(
            "| {} | {}..={} | {} | {} | {:.0} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.3} | {:.3} | {:.2} |",
            s.logs,
            s.blocks[0],
            s.blocks[1],
            s.txs,
            s.response_bytes,
            s.bytes_per_log,
            if s.over_limit { "yes" } else { "no" },
            s.first_call_ms,
            s.latency.p50,
            s.latency.p90,
            s.latency.max,
            s.parse_raw_ns / 1e6,
            s.parse_typed_ns / 1e6,
            s.typed_over_raw
        );
    }
    for n in &study.notes {
        println!("note: {n}");
    }
    println!("{}", serde_json::to_string_pretty(&study).unwrap());
    c.stop();
}
