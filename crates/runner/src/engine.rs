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
//! - A workload that says it is `fitted` (a transaction per `run`, with N
//!   calls inside) is always fitted, however slow one call is.
//! - Nothing is timed unless the workload's outputs verified.
//!
//! The engine reads time through a [`Timer`]. Real runs use [`Monotonic`]
//! (`std::time::Instant`); the tests drive the engine with a simulated
//! clock, so they check its decisions exactly and never depend on how busy
//! the machine is. How accurately it measures real operations is checked
//! by a benchmark (`cargo bench -p dyno-runner --bench calibration`), not a
//! timed test.

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

/// The most samples a benchmark takes unless more are asked for.
pub const MAX_SAMPLES: usize = 10_000;

/// Settings for a normal or a `--quick` run. `min_samples` overrides the
/// default sample floor (never below [`MIN_SAMPLES_FLOOR`]); asking for more
/// than [`MAX_SAMPLES`] raises the ceiling with it.
pub fn settings(quick: bool, min_samples: Option<usize>, clock: &Clock) -> Settings {
    const MS: u64 = 1_000_000;
    let min_sample_ns = MS.max((100.0 * clock.resolution_ns).ceil() as u64);
    let default_min = if quick { MIN_SAMPLES_FLOOR } else { 10 };
    let min_samples = min_samples.unwrap_or(default_min).max(MIN_SAMPLES_FLOOR);
    Settings {
        quick,
        warmup_min_iters: 3,
        warmup_min_ns: if quick { 50 * MS } else { 200 * MS },
        min_samples,
        max_samples: MAX_SAMPLES.max(min_samples),
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

/// A monotonic source of nanoseconds for the engine.
pub trait Timer {
    /// Nanoseconds since an arbitrary fixed origin; never decreases.
    fn now_ns(&self) -> u64;
}

/// The real clock: `std::time::Instant`, read as nanoseconds since the
/// timer was made.
#[derive(Debug, Clone, Copy)]
pub struct Monotonic {
    origin: Instant,
}

impl Default for Monotonic {
    fn default() -> Self {
        Self {
            origin: Instant::now(),
        }
    }
}

impl Timer for Monotonic {
    #[inline]
    fn now_ns(&self) -> u64 {
        self.origin.elapsed().as_nanos() as u64
    }
}

/// What warm-up learned.
#[derive(Debug, Clone, Copy)]
struct Warmup {
    /// The workload timed itself.
    self_timed: bool,
    iters: u64,
    typical_ns: f64,
    fastest_ns: f64,
}

/// Runs workloads under fixed settings. Cloning shares the stop flag.
#[derive(Debug, Clone)]
pub struct Engine<T = Monotonic> {
    settings: Settings,
    stop: Arc<AtomicBool>,
    timer: T,
}

impl Engine {
    /// An engine with these settings, timing with the real clock.
    pub fn new(settings: Settings) -> Self {
        Self::with_timer(settings, Monotonic::default())
    }
}

impl<T: Timer> Engine<T> {
    /// An engine with these settings that reads time from `timer`.
    pub fn with_timer(settings: Settings, timer: T) -> Self {
        Self {
            settings,
            stop: Arc::new(AtomicBool::new(false)),
            timer,
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

    /// Stop on `flag` instead of a flag of its own: one process-wide
    /// interrupt for several engines in turn.
    pub fn with_stop(mut self, flag: Arc<AtomicBool>) -> Self {
        self.stop = flag;
        self
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

        let warm = match self.warm_up(w) {
            Ok(warm) => warm,
            Err(e) => {
                m.incomplete_reason = Some(format!("failed during warm-up: {e}"));
                return m;
            }
        };
        m.warmup_iters = warm.iters;
        let mode = if w.fitted() {
            Mode::LinearFit
        } else {
            self.mode_for(warm.typical_ns)
        };
        m.mode = Some(mode);

        let plan = self.plan(mode, warm.fastest_ns, (w.min_iters(), w.max_iters()));
        for &iters in &plan {
            if self.stopped() {
                m.incomplete_reason = Some(format!(
                    "interrupted after {} of {} samples",
                    m.samples.len(),
                    plan.len()
                ));
                break;
            }
            match self.timed(w, iters) {
                Ok((ns, _)) => m.samples.push(Sample { iters, ns }),
                Err(e) => {
                    m.incomplete_reason = Some(format!(
                        "failed after {} of {} samples: {e}",
                        m.samples.len(),
                        plan.len()
                    ));
                    break;
                }
            }
        }

        let per_op: Vec<f64> = m.samples.iter().map(Sample::per_op).collect();
        m.stats = dyno_stats::summarize(&per_op);
        if mode == Mode::LinearFit {
            let x: Vec<f64> = m.samples.iter().map(|s| s.iters as f64).collect();
            let y: Vec<f64> = m.samples.iter().map(|s| s.ns as f64).collect();
            m.fit = dyno_stats::fit_line(&x, &y, LEVEL);
        }
        // The counting allocator sees only this process: a workload that
        // times itself in another one reports its own allocations.
        if !self.stopped() && !warm.self_timed && counting_installed() {
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

    /// Nanoseconds for one batch of `iters`: the workload's own clock if it
    /// times itself, else ours around [`Workload::run`].
    /// The flag is true if the workload timed itself.
    fn timed(&self, w: &mut dyn Workload, iters: u64) -> Result<(u64, bool), String> {
        if let Some(own) = w.time(iters) {
            return own.map(|ns| (ns, true));
        }
        let t0 = self.timer.now_ns();
        w.run(iters);
        Ok((self.timer.now_ns().saturating_sub(t0), false))
    }

    /// The sampling mode for an operation that typically costs `typical_ns`.
    fn mode_for(&self, typical_ns: f64) -> Mode {
        let s = &self.settings;
        if typical_ns >= s.single_threshold_ns as f64 {
            Mode::Single
        } else if typical_ns < s.fit_threshold_ns as f64 {
            Mode::LinearFit
        } else {
            Mode::Batched
        }
    }

    /// Run until both the iteration and the time minimum are met, doubling
    /// the batch while a batch is short. Returns the iterations run and two
    /// estimates of one operation's cost:
    ///
    /// - typical: the median per-operation time over the warm-up batches
    ///   that lasted long enough to mean something (all of them if none
    ///   did), used to choose a mode. A median, so that one batch the
    ///   scheduler interrupted cannot push a 40 µs operation into
    ///   one-at-a-time mode.
    /// - fastest: the fastest such batch, a lower bound used to size
    ///   batches so that every sample lasts at least `min_sample_ns`.
    fn warm_up(&self, w: &mut dyn Workload) -> Result<Warmup, String> {
        let s = &self.settings;
        let min_ns = s.warmup_min_ns.max(w.min_warmup_ns());
        let start = self.timer.now_ns();
        let mut iters = 0u64;
        let mut all = Vec::new();
        let mut long = Vec::new();
        let mut batch = 1u64;
        let mut self_timed = false;
        loop {
            let (ns, own) = self.timed(w, batch)?;
            self_timed |= own;
            let dt = ns as f64;
            iters += batch;
            let per_op = dt / batch as f64;
            all.push(per_op);
            // Batches shorter than a tenth of a sample are dominated by the
            // timer; they do not bound the cost.
            if dt >= s.min_sample_ns as f64 / 10.0 {
                long.push(per_op);
            }
            let elapsed = self.timer.now_ns().saturating_sub(start);
            if (iters >= s.warmup_min_iters && elapsed >= min_ns) || self.stopped() {
                break;
            }
            // Keep each warm-up batch well under the remaining warm-up time.
            if dt < (s.min_sample_ns as f64) * 10.0 {
                batch = batch
                    .saturating_mul(2)
                    .min(w.max_iters().unwrap_or(u64::MAX));
            }
        }
        let basis = if long.is_empty() { &all } else { &long };
        let typical_ns = dyno_stats::median(basis).unwrap_or(f64::INFINITY);
        let fastest_ns = basis.iter().copied().fold(f64::INFINITY, f64::min);
        Ok(Warmup {
            self_timed,
            iters,
            typical_ns,
            fastest_ns,
        })
    }

    /// Batch sizes of every sample, in the order they will run, from a lower
    /// bound on one operation's cost. Batches get a 10% margin so that a
    /// sample lasts at least `min_sample_ns` even if the machine slows a
    /// little after warm-up. `limits` are the workload's least and most
    /// iterations a batch: no batch exceeds the most, and the least raises
    /// the smallest batch as far as the most allows.
    fn plan(&self, mode: Mode, fastest_ns: f64, limits: (Option<u64>, Option<u64>)) -> Vec<u64> {
        let max = limits.1.unwrap_or(u64::MAX).max(1);
        let min = limits.0.unwrap_or(1);
        let s = &self.settings;
        let est = (fastest_ns / 1.1).max(0.1);
        let budget = s.measurement_ns as f64;
        // A floor above the ceiling (settings made by hand) wins: never a
        // panicking clamp.
        let ceiling = s.max_samples.max(s.min_samples);
        let count = |per_sample_ns: f64| -> usize {
            ((budget / per_sample_ns).ceil() as usize).clamp(s.min_samples, ceiling)
        };
        match mode {
            Mode::Single => vec![1; count(est)],
            Mode::Batched => {
                let b = ((s.min_sample_ns as f64 / est).ceil().max(1.0) as u64)
                    .max(min)
                    .min(max);
                vec![b; count(b as f64 * est)]
            }
            Mode::LinearFit => {
                let k = s.fit_sizes.max(3) as u64;
                let b = ((s.min_sample_ns as f64 / est).ceil().max(1.0) as u64)
                    .max(min)
                    .min((max / k).max(1));
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
pub fn measure_harness<T: Timer>(engine: &Engine<T>) -> (Measurement, Option<Harness>) {
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
pub(crate) mod tests;
