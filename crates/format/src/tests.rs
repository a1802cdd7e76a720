use super::*;

/// A run with every optional part filled, for schema and round-trip tests.
pub(crate) fn example() -> Run {
    let interval = Interval {
        lower: 99.0,
        upper: 101.0,
        level: 0.95,
    };
    let fit = LinearFit {
        slope: 100.0,
        intercept: 40.0,
        slope_ci: interval,
        intercept_ci: Interval {
            lower: 10.0,
            upper: 70.0,
            level: 0.95,
        },
        r_squared: 0.999,
        n: 10,
    };
    let samples: Vec<Sample> = (1..=10)
        .map(|k| Sample {
            iters: 1000 * k,
            ns: 100_000 * k + 40,
        })
        .collect();
    let per_op: Vec<f64> = samples.iter().map(Sample::per_op).collect();
    let result = BenchResult {
        id: "hash/keccak256/32B".into(),
        implementation: Implementation {
            name: "tiny-keccak".into(),
            version: "2.0.2".into(),
            runtime: "rust".into(),
        },
        baseline: true,
        parameters: [
            ("bytes".to_string(), serde_json::json!(32)),
            (
                crate::operation::KEY.to_string(),
                crate::operation::Facts {
                    name: "keccak256".into(),
                    kind: "keccak".into(),
                    units: Some(1),
                    nominal_gas: [("osaka".to_string(), 36)].into(),
                }
                .to_value(),
            ),
        ]
        .into(),
        unit: "ns".into(),
        mode: Some(Mode::LinearFit),
        verification: Verification {
            status: VerificationStatus::Passed,
            cases: 8,
            mismatch: None,
        },
        warmup_iters: 5000,
        stats: dyno_stats::summarize(&per_op),
        samples,
        ops_per_sec: Some(1e7),
        fit: Some(fit.clone()),
        allocations: Some(Allocations {
            allocs_per_op: 0.0,
            bytes_per_op: 0.0,
            iters: 1000,
        }),
        target: Some(Target {
            stat: crate::Stat::P50,
            limit_ns: 10_000.0,
            met: Some(true),
        }),
        regression_threshold: 0.2,
        incomplete_reason: None,
        instructions: Some(Instructions {
            per_op: 812.0,
            iters: [1000, 2000],
            counts: [845_000, 1_657_000],
            tool: "callgrind (valgrind-3.19.0)".into(),
        }),
        blocks: vec![crate::replay::Block {
            run: 0,
            number: 7,
            hash: format!("0x{}", "ab".repeat(32)),
            gas_used: 29_990_000,
            transactions: 112,
            new_payload_ns: 61_000_000,
            forkchoice_ns: 900_000,
            round: None,
            client_log: Some(serde_json::json!({
                "timing": {"execution_ms": 40.5, "total_ms": 58.25}
            })),
        }],
        reprice: Some(crate::reprice::Isolation {
            op: "ecrecover".into(),
            param: "valid".into(),
            units: Some(1),
            control: Some("reprice/control/precompile".into()),
            anchor: None,
            fits: vec![crate::reprice::Fit {
                time: "new_payload".into(),
                n: 30,
                intercept_ns: crate::reprice::Coefficient {
                    value: 1.2e6,
                    lower: 0.9e6,
                    upper: 1.5e6,
                    p: 0.0001,
                },
                per_op_ns: crate::reprice::Coefficient {
                    value: 31_000.0,
                    lower: 30_100.0,
                    upper: 31_900.0,
                    p: 1e-20,
                },
                r_squared: 0.998,
                kept: true,
                robust_per_op_ns: crate::gas::Estimate {
                    value: 30_950.0,
                    lower: 30_500.0,
                    upper: 31_400.0,
                },
                net_per_op_ns: Some(crate::gas::Estimate {
                    value: 30_700.0,
                    lower: 29_800.0,
                    upper: 31_600.0,
                }),
                net_robust_per_op_ns: None,
            }],
        }),
    };
    let mut run = fixture::run("20261122T101500Z-1a2b3c", vec![result]);
    run.comparisons = vec![crate::replay::Comparison {
        id: "client/newpayload/30M-full".into(),
        a: "geth (A)".into(),
        b: "geth (B)".into(),
        order: "ABBAAB".into(),
        pair_log_ratios: vec![0.01, -0.02, 0.005],
        delta: -0.0017,
        delta_low: -0.04,
        delta_high: 0.037,
        level: 0.9958,
        floor: 0.01,
        verdict: "no difference".into(),
    }];
    run.clients = vec![crate::replay::ClientRun {
        implementation: "geth (A)".into(),
        set: "30M".into(),
        run: 0,
        version: "1.17.8-stable".into(),
        command: "<dyno cache>/nodes/geth/run --datadir {folder}/data".into(),
        blocks: 128,
        wall_s: 7.5,
        cpu_s: Some(9.1),
        rss_peak_bytes: Some(400_000_000),
        io_read_bytes: Some(0),
        io_write_bytes: Some(52_000_000),
        metrics: [("chain_inserts_count".to_string(), [0.0, 128.0])].into(),
        metrics_missing: None,
        fork: Some("osaka".into()),
    }];
    run.harness = Some(Harness {
        empty_iteration_ns: 0.9,
        fit: Some(fit),
    });
    run
}

fn schema() -> jsonschema::Validator {
    let text = include_str!("../../../docs/schema/result-v1.schema.json");
    let schema: serde_json::Value = serde_json::from_str(text).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

fn errors(v: &jsonschema::Validator, value: &serde_json::Value) -> Vec<String> {
    v.iter_errors(value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn a_full_run_validates_against_the_schema() {
    let value = serde_json::to_value(example()).unwrap();
    let errs = errors(&schema(), &value);
    assert!(errs.is_empty(), "{errs:#?}");
}

#[test]
fn a_failed_verification_with_nothing_timed_validates() {
    let mut run = example();
    let r = &mut run.results[0];
    r.verification = Verification {
        status: VerificationStatus::Failed,
        cases: 8,
        mismatch: Some(Mismatch {
            case: "3".into(),
            expected: "0xaa".into(),
            actual: "0xbb".into(),
        }),
    };
    r.samples.clear();
    r.stats = None;
    r.fit = None;
    r.mode = None;
    r.ops_per_sec = None;
    r.allocations = None;
    run.harness = None;
    run.run.complete = false;
    run.run.finished_at = None;
    run.run.incomplete_reason = Some("interrupted".into());
    let errs = errors(&schema(), &serde_json::to_value(run).unwrap());
    assert!(errs.is_empty(), "{errs:#?}");
}

#[test]
fn the_schema_rejects_what_the_format_would_not_write() {
    let v = schema();
    let good = serde_json::to_value(example()).unwrap();

    let mut unknown = good.clone();
    unknown["results"][0]["smaples"] = serde_json::json!([]);
    assert!(!errors(&v, &unknown).is_empty(), "unknown key accepted");

    let mut version = good.clone();
    version["schema_version"] = serde_json::json!(2);
    assert!(!errors(&v, &version).is_empty(), "wrong version accepted");

    let mut id = good.clone();
    id["results"][0]["id"] = serde_json::json!("no-slashes");
    assert!(!errors(&v, &id).is_empty(), "flat id accepted");

    let mut missing = good;
    missing["environment"]
        .as_object_mut()
        .unwrap()
        .remove("clock");
    assert!(!errors(&v, &missing).is_empty(), "missing clock accepted");
}

#[test]
fn runs_round_trip_through_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/run.json");
    let run = example();
    run.write(&path).unwrap();
    assert_eq!(Run::read(&path).unwrap(), run);
    assert!(!path.with_extension("json.partial").exists());
}

#[test]
fn a_gzipped_result_reads_as_it_is_and_binary_is_named() {
    use std::io::Write as _;
    let dir = tempfile::tempdir().unwrap();
    let run = example();
    // As the raw data in docs/ ships, and under a name that hides it.
    for name in ["run.json.gz", "run.json"] {
        let path = dir.path().join(name);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(run.to_json().as_bytes()).unwrap();
        std::fs::write(&path, gz.finish().unwrap()).unwrap();
        assert_eq!(Run::read(&path).unwrap(), run, "{name}");
    }
    let path = dir.path().join("bin.json");
    std::fs::write(&path, [b'{', 0xff, 0xfe]).unwrap();
    let e = Run::read(&path).unwrap_err().to_string();
    assert!(
        e.contains("bin.json") && e.contains("not UTF-8 text at byte 1"),
        "{e}"
    );
    // gzip that is cut short says so.
    let path = dir.path().join("cut.json.gz");
    std::fs::write(&path, [0x1f, 0x8b, 8, 0]).unwrap();
    let e = Run::read(&path).unwrap_err().to_string();
    assert!(e.contains("gzip, but it does not unpack"), "{e}");
}

#[test]
fn other_schema_versions_are_refused_by_name() {
    let text = example()
        .to_json()
        .replace("\"schema_version\": 1", "\"schema_version\": 7");
    let err = Run::parse(&text, Path::new("old.json")).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("old.json") && msg.contains("schema_version 7"),
        "{msg}"
    );
}

#[test]
fn parse_errors_name_the_file_and_line() {
    let err = Run::parse(
        "{\n  \"schema_version\": 1,\n  oops\n}",
        Path::new("r.json"),
    )
    .unwrap_err();
    let msg = err.to_string();
    assert!(msg.starts_with("r.json:3:"), "{msg}");
    let err = Run::parse("{\"hello\": 1}", Path::new("x.json")).unwrap_err();
    assert!(err.to_string().contains("not a dyno result file"));
    // A version written as a string is named as such, not as missing.
    let text = example()
        .to_json()
        .replace("\"schema_version\": 1", "\"schema_version\": \"1\"");
    let msg = Run::parse(&text, Path::new("s.json"))
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("schema_version is \"1\", a string; it must be the number 1"),
        "{msg}"
    );
    // A file that is not an object says what it is.
    let msg = Run::parse("[]", Path::new("a.json"))
        .unwrap_err()
        .to_string();
    assert!(msg.contains("a JSON array, not an object"), "{msg}");
}

#[test]
fn baselines_round_trip_and_refuse_other_formats() {
    use crate::baseline::{Baseline, BaselineVersion};
    let b = Baseline {
        dyno_baseline: crate::baseline::BASELINE_FORMAT,
        name: "main".into(),
        versions: vec![BaselineVersion {
            version: 1,
            created_at: "2026-11-22T10:00:00Z".into(),
            reason: "first".into(),
            changes: vec!["first version".into()],
            run: example(),
        }],
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("main.json");
    b.write(&path).unwrap();
    assert_eq!(Baseline::read(&path).unwrap(), b);

    let newer = b
        .to_json()
        .replace("\"dyno_baseline\": 1", "\"dyno_baseline\": 9");
    let msg = Baseline::parse(&newer, Path::new("b.json"))
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("b.json") && msg.contains("dyno_baseline 9"),
        "{msg}"
    );
    let run = example().to_json();
    let msg = Baseline::parse(&run, Path::new("r.json"))
        .unwrap_err()
        .to_string();
    assert!(msg.contains("not a dyno baseline file"), "{msg}");
    let empty = Baseline {
        versions: vec![],
        ..b
    };
    let msg = Baseline::parse(&empty.to_json(), Path::new("e.json"))
        .unwrap_err()
        .to_string();
    assert!(msg.contains("has no versions"), "{msg}");
}

#[test]
fn a_fleet_breakdown_validates_against_the_schema_and_a_wrong_one_does_not() {
    use crate::load::{ClockOffset, FleetInfo, LatencyStats, WorkerInfo};
    let text = include_str!("../../../docs/schema/result-v1.schema.json");
    let root: serde_json::Value = serde_json::from_str(text).unwrap();
    let schema = serde_json::json!({
        "$schema": root["$schema"],
        "$defs": root["$defs"],
        "$ref": "#/$defs/load/properties/fleet",
    });
    let v = jsonschema::validator_for(&schema).unwrap();
    let lag = LatencyStats {
        n: 3,
        p50: 1.0,
        p90: 2.0,
        p95: 2.0,
        p99: 3.0,
        p999: 3.0,
        max: 3.0,
        mean: 2.0,
        p50_ci: None,
    };
    let clock = ClockOffset {
        offset_ms: 25.0,
        uncertainty_ms: 0.2,
        samples: 8,
    };
    let worker = WorkerInfo {
        name: "w1".into(),
        host: "h".into(),
        version: "0.1.0 (abc)".into(),
        runtime: "linux-x86_64".into(),
        cores: 2,
        target: "http://10.0.0.7:8545".into(),
        first_account: 0,
        accounts: 4,
        planned: 3,
        sent: 3,
        accepted: 3,
        rejected: 0,
        included: 3,
        sent_rate: 100.0,
        included_rate: 90.0,
        lag,
        self_test_rate: Some(20_000.0),
        clock_before: Some(clock),
        clock_after: None,
        end: "lost".into(),
        detail: Some("its connection to the broker ended".into()),
    };
    let fleet = FleetInfo {
        broker: "mqtt://10.0.0.5:1883/lab".into(),
        resolution_ms: 100.0,
        self_test_total: None,
        workers: vec![worker],
    };
    let mut value = serde_json::to_value(&fleet).unwrap();
    let errs = errors(&v, &value);
    assert!(errs.is_empty(), "{errs:#?}");
    value["workers"][0]["end"] = serde_json::json!("vanished");
    assert!(
        !errors(&v, &value).is_empty(),
        "an unknown end state passed"
    );
}

/// The schema checks the recorded operation's shape: without its kind, or
/// with a gas that is no count, a result does not validate.
#[test]
fn a_malformed_operation_parameter_fails_the_schema() {
    let v = schema();
    for bad in [
        serde_json::json!({"name": "div"}),
        serde_json::json!({"name": "div", "kind": "arith", "nominal_gas": {"osaka": -5}}),
        serde_json::json!({"name": "div", "kind": "arith", "extra": 1}),
    ] {
        let mut run = serde_json::to_value(example()).unwrap();
        run["results"][0]["parameters"][crate::operation::KEY] = bad.clone();
        assert!(!errors(&v, &run).is_empty(), "{bad} validated");
    }
}
