//! Snapshot tests: every format rendered from one fixed run and compared with
//! a golden file in `snapshots/`. `DYNO_BLESS=1 cargo test -p dyno-report`
//! rewrites the golden files after an intended change; review the diff.

use std::collections::BTreeMap;
use std::path::PathBuf;

use dyno_format::*;

use super::*;

fn stats(p50: f64) -> Summary {
    Summary {
        n: 12,
        min: p50 * 0.97,
        p50,
        p95: p50 * 1.1,
        p99: p50 * 1.2,
        max: p50 * 1.3,
        mean: p50 * 1.02,
        stddev: p50 * 0.05,
        mad: p50 * 0.01,
        median_ci: Interval {
            lower: p50 * 0.99,
            upper: p50 * 1.01,
            level: 0.96,
        },
        outliers: Outliers::default(),
    }
}

fn result(id: &str, imp: &str, baseline: bool, p50: Option<f64>) -> BenchResult {
    BenchResult {
        id: id.into(),
        implementation: Implementation {
            name: imp.into(),
            version: "1.0.0".into(),
            runtime: "rust".into(),
        },
        baseline,
        parameters: BTreeMap::new(),
        unit: "ns".into(),
        mode: p50.map(|_| Mode::Batched),
        verification: Verification {
            status: if p50.is_some() {
                VerificationStatus::Passed
            } else {
                VerificationStatus::Failed
            },
            cases: 8,
            mismatch: p50.is_none().then(|| Mismatch {
                case: "2".into(),
                expected: "0xaa".into(),
                actual: "0xbb".into(),
            }),
        },
        warmup_iters: 10,
        samples: vec![],
        stats: p50.map(stats),
        ops_per_sec: p50.map(|p| 1e9 / p),
        fit: None,
        allocations: p50.map(|_| Allocations {
            allocs_per_op: 2.0,
            bytes_per_op: 1536.0,
            iters: 100,
        }),
        target: None,
        regression_threshold: 0.2,
        incomplete_reason: None,
        instructions: None,
    }
}

fn fixture() -> Run {
    let mut slow = result(
        "crypto/secp256k1-recover/valid",
        "k256",
        false,
        Some(52_000.0),
    );
    slow.target = Some(Target {
        stat: "p50".into(),
        limit_ns: 50_000.0,
        met: Some(false),
    });
    Run {
        schema_version: SCHEMA_VERSION,
        run: RunInfo {
            id: "20261122T101500Z-test".into(),
            started_at: "2026-11-22T10:15:00Z".into(),
            finished_at: Some("2026-11-22T10:16:00Z".into()),
            complete: true,
            incomplete_reason: None,
            command_line: vec!["dyno".into(), "run".into()],
            dyno_version: "0.1.0".into(),
            git_commit: Some("abc1234".into()),
            settings: Settings {
                quick: false,
                warmup_min_iters: 3,
                warmup_min_ns: 200_000_000,
                min_samples: 10,
                max_samples: 10_000,
                measurement_ns: 500_000_000,
                min_sample_ns: 1_000_000,
                single_threshold_ns: 100_000,
                fit_threshold_ns: 10_000,
                fit_sizes: 5,
            },
        },
        environment: Environment {
            cpu_model: "Test CPU".into(),
            cores: 2,
            memory_bytes: 1 << 30,
            os: "TestOS".into(),
            kernel: "1.0".into(),
            arch: "x86_64".into(),
            clock: Clock {
                source: "tsc".into(),
                read_cost_ns: 21.0,
                resolution_ns: 1.0,
            },
            rustc: "rustc 1.95.0".into(),
            runtimes: BTreeMap::new(),
        },
        harness: Some(Harness {
            empty_iteration_ns: 0.8,
            fit: None,
        }),
        results: vec![
            result("hash/keccak256/32B", "sha3", false, Some(250.0)),
            result("hash/keccak256/32B", "tiny-keccak", true, Some(200.0)),
            result("hash/keccak256/32B", "broken, \"quoted\"", false, None),
            result(
                "crypto/secp256k1-recover/valid",
                "libsecp256k1",
                true,
                Some(26_000.0),
            ),
            slow,
        ],
        load: Vec::new(),
        logs: Vec::new(),
        reads: Vec::new(),
    }
}

fn check(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("snapshots")
        .join(name);
    if std::env::var_os("DYNO_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} missing: run with DYNO_BLESS=1", path.display()));
    assert_eq!(
        actual, expected,
        "{name} differs from its snapshot (DYNO_BLESS=1 to accept)"
    );
}

#[test]
fn table_snapshot() {
    check("table.txt", &render(&fixture(), Format::Table, false));
}

#[test]
fn markdown_snapshot() {
    check("report.md", &render(&fixture(), Format::Markdown, false));
}

#[test]
fn csv_snapshot() {
    check("results.csv", &render(&fixture(), Format::Csv, false));
}

#[test]
fn json_is_the_result_document() {
    let run = fixture();
    let text = render(&run, Format::Json, false);
    assert_eq!(Run::parse(&text, std::path::Path::new("-")).unwrap(), run);
}

#[test]
fn the_baseline_comes_first_with_ratios_against_it() {
    let run = fixture();
    let blocks = rows::blocks(&run);
    assert_eq!(blocks.len(), 2);
    let k = &blocks[0];
    assert_eq!(k.rows[0].result.implementation.name, "tiny-keccak");
    assert_eq!(k.rows[0].ratio, Some(1.0));
    assert_eq!(k.rows[1].ratio, Some(1.25));
    assert_eq!(k.rows[2].ratio, None, "a wrong result has no ratio");
}

#[test]
fn colour_only_when_asked() {
    let plain = render(&fixture(), Format::Table, false);
    assert!(!plain.contains('\x1b'));
    let coloured = render(&fixture(), Format::Table, true);
    assert!(coloured.contains("\x1b[31m"), "wrong results are red");
}

#[test]
fn an_incomplete_run_says_so() {
    let mut run = fixture();
    run.run.complete = false;
    run.run.incomplete_reason = Some("interrupted (Ctrl-C)".into());
    assert!(render(&run, Format::Table, false).contains("INCOMPLETE RUN: interrupted (Ctrl-C)"));
    assert!(render(&run, Format::Markdown, false).contains("**INCOMPLETE**"));
}

#[test]
fn gas_per_op_shows_as_mgas_per_second() {
    let mut run = fixture();
    // 1 000 gas in the P50 of 2 µs is 500 MGas/s.
    let mut r = result("evm/tx/x", "revm", true, Some(2_000.0));
    r.parameters.insert("gas_per_op".into(), 1000.into());
    run.results.push(r);
    assert!(table::render(&run, false).contains("500 MGas/s (1000 gas/op)"));
    assert!(markdown::render(&run).contains("500 MGas/s (1000 gas/op)"));
    let csv = csv::render(&run);
    assert!(csv.lines().last().unwrap().ends_with(",1000,500"), "{csv}");
}
