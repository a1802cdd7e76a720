//! Plausible runs for the tests of the crates that read runs (reports, the
//! history store, the gate), so that each test states only what it is
//! about. Built with the `fixture` feature, which only dev-dependencies
//! turn on; not part of the result format.

use std::collections::BTreeMap;

use crate::*;

/// When the fixture run started (and the minute after, when it finished).
pub const STARTED_AT: &str = "2026-11-22T10:15:00Z";

/// The settings of a `--quick` run.
pub fn settings() -> Settings {
    Settings {
        quick: true,
        warmup_min_iters: 3,
        warmup_min_ns: 200_000_000,
        min_samples: 10,
        max_samples: 1000,
        measurement_ns: 500_000_000,
        min_sample_ns: 1_000_000,
        single_threshold_ns: 100_000,
        fit_threshold_ns: 10_000,
        fit_sizes: 5,
    }
}

/// A 2-core x86_64 machine with a TSC clock and no other runtimes.
pub fn environment() -> Environment {
    Environment {
        cpu_model: "Test CPU".into(),
        cores: 2,
        memory_bytes: 24 << 30,
        os: "Debian GNU/Linux 12 (bookworm)".into(),
        kernel: "6.1.0".into(),
        arch: "x86_64".into(),
        clock: Clock {
            source: "tsc".into(),
            read_cost_ns: 20.5,
            resolution_ns: 1.0,
        },
        rustc: "rustc 1.95.0".into(),
        runtimes: BTreeMap::new(),
    }
}

/// A complete `dyno run --quick` started at [`STARTED_AT`], holding
/// `results` and no load, logs or reads.
pub fn run(id: &str, results: Vec<BenchResult>) -> Run {
    Run {
        schema_version: SCHEMA_VERSION,
        run: RunInfo {
            id: id.into(),
            started_at: STARTED_AT.into(),
            finished_at: Some("2026-11-22T10:16:00Z".into()),
            complete: true,
            incomplete_reason: None,
            command_line: vec!["dyno".into(), "run".into(), "--quick".into()],
            dyno_version: "0.1.0".into(),
            git_commit: Some("e428027".into()),
            settings: settings(),
        },
        environment: environment(),
        harness: None,
        results,
        load: Vec::new(),
        logs: Vec::new(),
        reads: Vec::new(),
        comparisons: Vec::new(),
        clients: Vec::new(),
        paired: Vec::new(),
        noise: None,
        adapters: Vec::new(),
    }
}

/// Statistics of `n` samples around a median of `p50`: a 3 % low tail, a
/// 30 % high one, and a 95 % CI of the median from -2 % to +3 %.
pub fn summary(p50: f64, n: usize) -> Summary {
    Summary {
        n,
        min: p50 * 0.97,
        p50,
        p95: p50 * 1.1,
        p99: p50 * 1.2,
        max: p50 * 1.3,
        mean: p50 * 1.02,
        stddev: p50 * 0.05,
        mad: p50 * 0.01,
        median_ci: Interval {
            lower: p50 * 0.98,
            upper: p50 * 1.03,
            level: 0.95,
        },
        outliers: Outliers::default(),
    }
}

/// A result of `implementation` 1.0.0 (Rust) for `id`: verified against 8
/// cases and measured in batches with a median of `p50` ns over 40 samples,
/// or, for `None`, not run (no statistics).
pub fn result(id: &str, implementation: &str, p50: Option<f64>) -> BenchResult {
    BenchResult {
        id: id.into(),
        implementation: Implementation {
            name: implementation.into(),
            version: "1.0.0".into(),
            runtime: "rust".into(),
        },
        baseline: false,
        parameters: BTreeMap::new(),
        unit: "ns".into(),
        mode: p50.map(|_| Mode::Batched),
        verification: Verification {
            status: if p50.is_some() {
                VerificationStatus::Passed
            } else {
                VerificationStatus::NotRun
            },
            cases: 8,
            mismatch: None,
        },
        warmup_iters: 10,
        samples: Vec::new(),
        stats: p50.map(|p| summary(p, 40)),
        ops_per_sec: p50.map(|p| 1e9 / p),
        fit: None,
        allocations: None,
        target: None,
        regression_threshold: 0.2,
        incomplete_reason: None,
        instructions: None,
        reprice: None,
        blocks: Vec::new(),
    }
}

/// A P50 target of `limit_ns` that was missed.
pub fn missed(limit_ns: f64) -> Target {
    Target {
        stat: crate::Stat::P50,
        limit_ns,
        met: Some(false),
    }
}

/// `r` with a wrong answer: case 2 gave `0xbb` where the vector says `0xaa`.
/// Any timings stay, so a test can show that a reader ignores them (the
/// runner itself never times a wrong result: pass `None` to `result` for
/// that shape).
pub fn wrong(mut r: BenchResult) -> BenchResult {
    r.verification.status = VerificationStatus::Failed;
    r.verification.mismatch = Some(Mismatch {
        case: "2".into(),
        expected: "0xaa".into(),
        actual: "0xbb".into(),
    });
    r
}

/// Samples recorded on dyno's 2-core VM: modexp in bytecode, 100, 200 and
/// 300 calls a sample, the first rounds interrupted by the scheduler (one
/// 100-call sample took 63.5 ms). Their OLS slope is -4.8 µs per call;
/// the samples say about 10 µs (decisions D9).
pub fn interrupted_fit_samples() -> Vec<Sample> {
    [
        (100, 1_073_966),
        (200, 9_135_677),
        (300, 18_224_848),
        (100, 63_511_924),
        (200, 2_202_198),
        (300, 5_164_182),
        (100, 1_170_901),
        (200, 2_181_188),
        (300, 3_113_570),
        (100, 1_072_883),
        (200, 2_134_225),
        (300, 3_215_012),
    ]
    .into_iter()
    .map(|(iters, ns)| Sample { iters, ns })
    .collect()
}
