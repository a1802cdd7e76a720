//! The timing engine: verify, warm up, choose a sampling mode, sample, count
//! allocations, and summarise.
//!
//! - Warm-up lasts at least `warmup_min_iters` iterations *and* at least
//!   `warmup_min_ns`; its last batch estimates the cost of one operation.
//! - Operations of `single_threshold_ns` (100 µs) or more are timed one at a
//!   time, so P95 and P99 are real tails, not averages of batches.
//! - Faster operations are batched so each sample lasts at least
//!   `min_sample_ns` = max(1 ms, 100x timer resolution).
//! - Below `fit_threshold_ns` (10 µs) samples cycle through `fit_sizes`
//!   batch sizes (b, 2b, 3b, ...), interleaved so drift hits every size
//!   alike, and time is fitted against batch size: the slope is the cost per
//!   operation, the intercept the per-sample cost (timer reads, call).
//! - Nothing is timed unless the workload's outputs verified.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use dyno_format::{
    Allocations, Clock, Harness, Mismatch, Mode, Sample, Settings, Verification, VerificationStatus,
};
use dyno_stats::{LinearFit, Summary};
use dyno_workload::{Cases, Workload};

use crate::alloc::{AllocCount, counting_installed};

/// Confidence level for every interval the engine computes.
pub const LEVEL: f64 = 0.95;

/// The fewest samples any run may use, `--quick` included.
pub const MIN_SAMPLES_FLOOR: usize = 5;

/// Settings for a normal or a `--quick` run. `min_samples` overrides the
/// default sample floor (never below [`MIN_SAMPLES_FLOOR`]).
pub fn settings(quick: bool, min_samples: Option<usize>, clock: &Clock) -> Settings {
    const MS: u64 = 1_000_000;
    let min_sample_ns = MS.max((100.0 * clock.resolution_ns).ceil() as u64);
    let default_min = if quick { MIN_SAMPLES_FLOOR } else { 10 };
    Settings {
        quick,
        warmup_min_iters: 3,
        warmup_min_ns: if quick { 50 * MS } else { 200 * MS },
        min_samples: min_samples.unwrap_or(default_min).max(MIN_SAMPLES_FLOOR),
        max_samples: 10_000,
        measurement_ns: if quick { 100 * MS } else { 500 * MS },
        min_sample_ns,
        single_threshold_ns: 100_000,
        fit_threshold_ns: 10_000,
        fit_sizes: if quick { 3 } else { 5 },
    }
}

/// Everything measured for one workload.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// The verification outcome; nothing else is filled if it failed.
    pub verification: Verification,
    /// How the samples were taken.
    pub mode: Option<Mode>,
    /// Iterations run during warm-up.
    pub warmup_iters: u64,
    /// Raw samples in the order taken.
    pub samples: Vec<Sample>,
    /// Statistics of the per-operation time of each sample.
    pub stats: Option<Summary>,
    /// Time against batch size, in linear-fit mode.
    pub fit: Option<LinearFit>,
    /// Allocations per operation, if the counting allocator is installed.
    pub allocations: Option<Allocations>,
    /// Why sampling stopped early, if it did.
    pub incomplete_reason: Option<String>,
}

impl Measurement {
    /// Nothing timed yet: verification `status` over `cases` inputs.
    pub fn untimed(status: VerificationStatus, cases: usize) -> Self {
        Self {
            verification: Verification {
                status,
                cases,
                mismatch: None,
            },
            mode: None,
            warmup_iters: 0,
            samples: Vec::new(),
            stats: None,
            fit: None,
            allocations: None,
            incomplete_reason: None,
        }
    }

    /// 1e9 / P50.
    pub fn ops_per_sec(&self) -> Option<f64> {
        self.stats
            .as_ref()
            .filter(|s| s.p50 > 0.0)
            .map(|s| 1e9 / s.p50)
    }
}

/// What warm-up learned.
#[derive(Debug, Clone, Copy)]
struct Warmup {
    iters: u64,
    typical_ns: f64,
    fastest_ns: f64,
}

/// Runs workloads under fixed settings. Cloning shares the stop flag.
#[derive(Debug, Clone)]
pub struct Engine {
    settings: Settings,
    stop: Arc<AtomicBool>,
}

impl Engine {
    /// An engine with these settings.
    pub fn new(settings: Settings) -> Self {
        Self {
            settings,
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The settings in force.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// A flag that, once set (by a Ctrl-C handler), stops sampling at the
    /// next sample boundary; samples already taken are kept.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// True once the stop flag is set.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Verify, then time, one workload.
    pub fn measure(&self, w: &mut dyn Workload) -> Measurement {
        let mut m = Measurement::untimed(VerificationStatus::NotRun, w.cases());
        if self.stopped() {
            m.incomplete_reason = Some("interrupted before this benchmark started".into());
            return m;
        }
        if let Err(e) = w.verify() {
            m.verification.status = VerificationStatus::Failed;
            m.verification.mismatch = Some(Mismatch {
                case: e.case,
                expected: e.expected,
                actual: e.actual,
            });
            return m;
        }
        m.verification.status = VerificationStatus::Passed;

        let warm = self.warm_up(w);
        m.warmup_iters = warm.iters;
        let s = &self.settings;
        let mode = if warm.typical_ns >= s.single_threshold_ns as f64 {
            Mode::Single
        } else if warm.typical_ns < s.fit_threshold_ns as f64 {
            Mode::LinearFit
        } else {
            Mode::Batched
        };
        m.mode = Some(mode);

        let plan = self.plan(mode, warm.fastest_ns);
        for &iters in &plan {
            if self.stopped() {
                m.incomplete_reason = Some(format!(
                    "interrupted after {} of {} samples",
                    m.samples.len(),
                    plan.len()
                ));
                break;
            }
            let t0 = Instant::now();
            w.run(iters);
            let ns = t0.elapsed().as_nanos() as u64;
            m.samples.push(Sample { iters, ns });
        }

        let per_op: Vec<f64> = m.samples.iter().map(Sample::per_op).collect();
        m.stats = dyno_stats::summarize(&per_op);
        if mode == Mode::LinearFit {
            let x: Vec<f64> = m.samples.iter().map(|s| s.iters as f64).collect();
            let y: Vec<f64> = m.samples.iter().map(|s| s.ns as f64).collect();
            m.fit = dyno_stats::fit_line(&x, &y, LEVEL);
        }
        if !self.stopped() && counting_installed() {
            let iters = plan.first().copied().unwrap_or(1).clamp(1, 100_000);
            let before = AllocCount::now();
            w.run(iters);
            let d = AllocCount::now().since(before);
            m.allocations = Some(Allocations {
                allocs_per_op: d.allocs as f64 / iters as f64,
                bytes_per_op: d.bytes as f64 / iters as f64,
                iters,
            });
        }
        m
    }

    /// Run until both the iteration and the time minimum are met, doubling
    /// the batch while a batch is short. Returns the iterations run and two
    /// estimates of one operation's cost: the last batch's (typical, used to
    /// choose a mode) and the fastest batch's (a lower bound, used to size
    /// batches so every sample lasts at least `min_sample_ns`).
    fn warm_up(&self, w: &mut dyn Workload) -> Warmup {
        let s = &self.settings;
        let start = Instant::now();
        let mut warm = Warmup {
            iters: 0,
            typical_ns: f64::INFINITY,
            fastest_ns: f64::INFINITY,
        };
        let mut batch = 1u64;
        loop {
            let t0 = Instant::now();
            w.run(batch);
            let dt = t0.elapsed().as_nanos() as f64;
            warm.iters += batch;
            warm.typical_ns = dt / batch as f64;
            // Batches shorter than a tenth of a sample are dominated by the
            // timer; they do not bound the cost.
            if dt >= s.min_sample_ns as f64 / 10.0 || batch == 1 {
                warm.fastest_ns = warm.fastest_ns.min(warm.typical_ns);
            }
            let elapsed = start.elapsed().as_nanos() as u64;
            if (warm.iters >= s.warmup_min_iters && elapsed >= s.warmup_min_ns) || self.stopped() {
                return warm;
            }
            // Keep each warm-up batch well under the remaining warm-up time.
            if dt < (s.min_sample_ns as f64) * 10.0 {
                batch = batch.saturating_mul(2);
            }
        }
    }

    /// Batch sizes of every sample, in the order they will run, from a lower
    /// bound on one operation's cost. Batches get a 10% margin so that a
    /// sample lasts at least `min_sample_ns` even if the machine slows a
    /// little after warm-up.
    fn plan(&self, mode: Mode, fastest_ns: f64) -> Vec<u64> {
        let s = &self.settings;
        let est = (fastest_ns / 1.1).max(0.1);
        let budget = s.measurement_ns as f64;
        let count = |per_sample_ns: f64| -> usize {
            ((budget / per_sample_ns).ceil() as usize).clamp(s.min_samples, s.max_samples)
        };
        match mode {
            Mode::Single => vec![1; count(est)],
            Mode::Batched => {
                let b = (s.min_sample_ns as f64 / est).ceil().max(1.0) as u64;
                vec![b; count(b as f64 * est)]
            }
            Mode::LinearFit => {
                let k = s.fit_sizes.max(3) as u64;
                let b = (s.min_sample_ns as f64 / est).ceil().max(1.0) as u64;
                let mean_batch = b as f64 * (k + 1) as f64 / 2.0;
                let n = count(mean_batch * est).max(k as usize);
                let rounds = n.div_ceil(k as usize);
                (0..rounds)
                    .flat_map(|_| (1..=k).map(move |j| b * j))
                    .collect()
            }
        }
    }
}

/// Measure the harness itself with an empty benchmark: an identity
/// operation over the same input cycling and `black_box` every workload
/// pays.
pub fn measure_harness(engine: &Engine) -> (Measurement, Option<Harness>) {
    let inputs: Vec<(u64, u64)> = (0..16).map(|k| (k, k)).collect();
    let mut empty = Cases::expect(inputs, |x: &u64| *x);
    let m = engine.measure(&mut empty);
    let harness = m.stats.as_ref().map(|s| Harness {
        empty_iteration_ns: s.p50,
        fit: m.fit.clone(),
    });
    (m, harness)
}

#[cfg(test)]
pub(crate) mod tests {
    use std::time::Duration;

    use super::*;

    /// Tests that time something hold this, so they never share the CPU
    /// with each other (the test harness runs tests in parallel threads).
    pub(crate) static TIMING: std::sync::Mutex<()> = std::sync::Mutex::new(());

    pub(crate) fn timing() -> std::sync::MutexGuard<'static, ()> {
        TIMING.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn test_settings(quick: bool) -> Settings {
        let clock = crate::clock::calibrate();
        let mut s = settings(quick, None, &clock);
        s.warmup_min_ns = 20_000_000;
        s.measurement_ns = 150_000_000;
        s
    }

    /// An operation of known cost: spin until `d` has elapsed. It costs `d`
    /// plus about one clock read (the read that sees the deadline pass).
    fn spin(d: Duration) -> impl FnMut(&u8) -> u8 {
        move |x| {
            let t = Instant::now();
            while t.elapsed() < d {
                std::hint::spin_loop();
            }
            *x
        }
    }

    fn spin_workload(d: Duration) -> Cases<u8, u8, impl FnMut(&u8) -> u8> {
        Cases::expect(vec![(1, 1), (2, 2)], spin(d))
    }

    fn within(actual: f64, expected: f64, tolerance: f64) -> bool {
        (actual - expected).abs() <= expected * tolerance
    }

    #[test]
    fn calibration_fast_operation_fit_mode_is_within_10_percent() {
        let _serial = timing();
        let engine = Engine::new(test_settings(false));
        let m = engine.measure(&mut spin_workload(Duration::from_micros(2)));
        assert_eq!(m.mode, Some(Mode::LinearFit));
        let p50 = m.stats.as_ref().unwrap().p50;
        assert!(
            within(p50, 2_000.0, 0.10),
            "P50 {p50} ns for a 2 µs operation"
        );
        let fit = m.fit.as_ref().unwrap();
        assert!(within(fit.slope, 2_000.0, 0.10), "slope {} ns", fit.slope);
        let sizes: std::collections::BTreeSet<u64> = m.samples.iter().map(|s| s.iters).collect();
        assert!(sizes.len() >= 3, "fit over {sizes:?}");
        let min_ns = m.samples.iter().map(|s| s.ns).min().unwrap();
        assert!(min_ns >= 1_000_000, "a sample lasted only {min_ns} ns");
    }

    #[test]
    fn calibration_medium_operation_batched_is_within_10_percent() {
        let _serial = timing();
        let engine = Engine::new(test_settings(false));
        let m = engine.measure(&mut spin_workload(Duration::from_micros(40)));
        assert_eq!(m.mode, Some(Mode::Batched));
        let p50 = m.stats.as_ref().unwrap().p50;
        assert!(
            within(p50, 40_000.0, 0.10),
            "P50 {p50} ns for a 40 µs operation"
        );
        assert!(m.samples.iter().all(|s| s.iters >= 25));
    }

    #[test]
    fn calibration_slow_operation_is_timed_one_at_a_time() {
        let _serial = timing();
        let engine = Engine::new(test_settings(true));
        let m = engine.measure(&mut spin_workload(Duration::from_micros(300)));
        assert_eq!(m.mode, Some(Mode::Single));
        assert!(m.samples.iter().all(|s| s.iters == 1));
        assert!(m.samples.len() >= MIN_SAMPLES_FLOOR);
        let p50 = m.stats.as_ref().unwrap().p50;
        assert!(
            within(p50, 300_000.0, 0.10),
            "P50 {p50} ns for a 300 µs operation"
        );
    }

    #[test]
    fn warm_up_meets_both_the_count_and_the_time() {
        let _serial = timing();
        let engine = Engine::new(test_settings(false));
        let start = Instant::now();
        let warm = engine.warm_up(&mut spin_workload(Duration::from_millis(15)));
        assert!(warm.iters >= 3, "{warm:?}");
        assert!(start.elapsed() >= Duration::from_millis(20));
        assert!(
            warm.typical_ns >= 15e6 && warm.fastest_ns >= 15e6,
            "{warm:?}"
        );
    }

    #[test]
    fn a_wrong_output_is_never_timed() {
        let engine = Engine::new(test_settings(true));
        let mut w = Cases::expect(vec![(1u32, 2u32), (2, 5)], |x| x * 2);
        let m = engine.measure(&mut w);
        assert_eq!(m.verification.status, VerificationStatus::Failed);
        let mm = m.verification.mismatch.unwrap();
        assert_eq!(
            (mm.case.as_str(), mm.expected.as_str(), mm.actual.as_str()),
            ("1", "5", "4")
        );
        assert!(m.samples.is_empty() && m.stats.is_none() && m.mode.is_none());
    }

    #[test]
    fn a_stopped_engine_keeps_what_it_measured_and_says_why() {
        let engine = Engine::new(test_settings(true));
        engine.stop_flag().store(true, Ordering::Relaxed);
        let m = engine.measure(&mut spin_workload(Duration::from_micros(1)));
        assert!(m.incomplete_reason.unwrap().contains("interrupted"));
        assert!(m.samples.is_empty());
    }

    #[test]
    fn sample_floor_and_quick_settings() {
        let clock = Clock {
            source: "tsc".into(),
            read_cost_ns: 20.0,
            resolution_ns: 50_000.0,
        };
        let s = settings(true, Some(2), &clock);
        assert_eq!(s.min_samples, MIN_SAMPLES_FLOOR);
        assert_eq!(s.min_sample_ns, 5_000_000, "100x a 50 µs resolution");
        let normal = settings(false, None, &clock);
        assert_eq!(normal.min_samples, 10);
        assert_eq!(
            (normal.warmup_min_iters, normal.warmup_min_ns),
            (3, 200_000_000)
        );
    }

    #[test]
    fn fit_plans_interleave_at_least_three_sizes() {
        let engine = Engine::new(test_settings(true));
        // 220 ns with the 10% margin sizes for 200 ns: b ≈ 1 ms / 200 ns.
        let plan = engine.plan(Mode::LinearFit, 220.0);
        let b = plan[0];
        assert_eq!(&plan[..3], &[b, 2 * b, 3 * b]);
        assert!((5_000..=5_001).contains(&b), "{b}");
        assert_eq!(plan.len() % 3, 0);
        assert!(plan.len() >= MIN_SAMPLES_FLOOR);
    }

    #[test]
    fn the_harness_measures_an_empty_benchmark() {
        let _serial = timing();
        let engine = Engine::new(test_settings(true));
        let (m, h) = measure_harness(&engine);
        assert_eq!(m.verification.status, VerificationStatus::Passed);
        let h = h.unwrap();
        assert!(
            h.empty_iteration_ns > 0.0 && h.empty_iteration_ns < 100.0,
            "{h:?}"
        );
    }
}
