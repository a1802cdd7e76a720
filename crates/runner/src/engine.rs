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
pub(crate) mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use super::*;

    /// Tests that time something with the real clock hold this, so they
    /// never share the CPU with each other (the test harness runs tests in
    /// parallel threads).
    pub(crate) static TIMING: std::sync::Mutex<()> = std::sync::Mutex::new(());

    pub(crate) fn timing() -> std::sync::MutexGuard<'static, ()> {
        TIMING.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What one simulated clock read costs.
    const READ_NS: u64 = 25;

    /// A simulated clock: time moves only when it is read (by
    /// [`READ_NS`]) or when a simulated operation runs.
    #[derive(Debug, Clone, Default)]
    struct SimClock(Rc<Cell<u64>>);

    impl SimClock {
        fn advance(&self, ns: u64) {
            self.0.set(self.0.get() + ns);
        }
    }

    impl Timer for SimClock {
        fn now_ns(&self) -> u64 {
            self.advance(READ_NS);
            self.0.get()
        }
    }

    fn sim_settings(quick: bool) -> Settings {
        let clock = Clock {
            source: "simulated".into(),
            read_cost_ns: READ_NS as f64,
            resolution_ns: 1.0,
        };
        let mut s = settings(quick, None, &clock);
        s.warmup_min_ns = 20_000_000;
        s.measurement_ns = 150_000_000;
        s
    }

    /// An engine on a simulated clock, and an operation that costs exactly
    /// `cost(call_number, clock_now)` simulated nanoseconds.
    fn simulated(
        quick: bool,
        cost: impl Fn(u64, u64) -> u64 + 'static,
    ) -> (Engine<SimClock>, impl Workload) {
        let clock = SimClock::default();
        let engine = Engine::with_timer(sim_settings(quick), clock.clone());
        let mut calls = 0u64;
        let op = move |x: &u8| {
            calls += 1;
            clock.advance(cost(calls, clock.0.get()));
            *x
        };
        (engine, Cases::expect(vec![(1, 1), (2, 2)], op))
    }

    fn close(actual: f64, expected: f64) -> bool {
        (actual - expected).abs() <= expected * 1e-3
    }

    #[test]
    fn a_fast_operation_is_fitted_over_at_least_three_sizes() {
        let (engine, mut w) = simulated(false, |_, _| 2_000);
        let m = engine.measure(&mut w);
        assert_eq!(m.mode, Some(Mode::LinearFit));
        let fit = m.fit.as_ref().unwrap();
        // Each sample is one clock read plus iters x 2 µs: the slope is the
        // operation, the intercept the timer.
        assert!(close(fit.slope, 2_000.0), "slope {}", fit.slope);
        assert!(
            (fit.intercept - READ_NS as f64).abs() < 1.0,
            "intercept {}",
            fit.intercept
        );
        assert!(close(m.stats.as_ref().unwrap().p50, 2_000.0));
        let sizes: std::collections::BTreeSet<u64> = m.samples.iter().map(|s| s.iters).collect();
        assert_eq!(sizes.len(), 5, "fit over {sizes:?}");
        let min_ns = m.samples.iter().map(|s| s.ns).min().unwrap();
        assert!(min_ns >= 1_000_000, "a sample lasted only {min_ns} ns");
        assert!(m.samples.len() >= 10);
    }

    /// A workload limited to `max` iterations a run, recording the most it
    /// was asked for.
    struct Capped<W> {
        inner: W,
        max: u64,
        most: u64,
    }

    impl<W: Workload> Workload for Capped<W> {
        fn verify(&mut self) -> Result<(), dyno_workload::Mismatch> {
            self.inner.verify()
        }
        fn run(&mut self, iters: u64) {
            self.most = self.most.max(iters);
            self.inner.run(iters);
        }
        fn cases(&self) -> usize {
            self.inner.cases()
        }
        fn fitted(&self) -> bool {
            true
        }
        fn max_iters(&self) -> Option<u64> {
            Some(self.max)
        }
    }

    #[test]
    fn no_batch_exceeds_the_workloads_limit() {
        // 200 ns an iteration wants 5 000 a sample; the workload has 40.
        let (engine, w) = simulated(false, |_, _| 200);
        let mut capped = Capped {
            inner: w,
            max: 40,
            most: 0,
        };
        let m = engine.measure(&mut capped);
        assert_eq!(capped.most, 40, "warm-up, samples and the allocation run");
        let sizes: std::collections::BTreeSet<u64> = m.samples.iter().map(|s| s.iters).collect();
        assert_eq!(
            sizes,
            [8, 16, 24, 32, 40].into(),
            "five sizes up to the limit"
        );
        assert!(close(m.fit.unwrap().slope, 200.0));
        // A slow operation with a least batch: the sizes start there.
        let engine = Engine::with_timer(sim_settings(true), SimClock::default());
        let plan = engine.plan(Mode::LinearFit, 5_000_000.0, (Some(100), Some(512)));
        let sizes: std::collections::BTreeSet<u64> = plan.into_iter().collect();
        assert_eq!(sizes, [100, 200, 300].into());
        let plan = engine.plan(Mode::LinearFit, 5_000_000.0, (Some(400), Some(512)));
        assert_eq!(plan.iter().max(), Some(&510), "the most wins: {plan:?}");
    }

    #[test]
    fn a_medium_operation_is_batched_to_at_least_a_millisecond() {
        let (engine, mut w) = simulated(false, |_, _| 40_000);
        let m = engine.measure(&mut w);
        assert_eq!(m.mode, Some(Mode::Batched));
        assert!(close(m.stats.as_ref().unwrap().p50, 40_000.0));
        assert!(m.samples.iter().all(|s| s.iters >= 25 && s.ns >= 1_000_000));
        assert!(m.fit.is_none());
    }

    #[test]
    fn a_slow_operation_is_timed_one_at_a_time() {
        let (engine, mut w) = simulated(true, |_, _| 300_000);
        let m = engine.measure(&mut w);
        assert_eq!(m.mode, Some(Mode::Single));
        assert!(m.samples.iter().all(|s| s.iters == 1));
        assert!(m.samples.len() >= MIN_SAMPLES_FLOOR);
        assert!(close(m.stats.as_ref().unwrap().p50, 300_000.0));
    }

    #[test]
    fn one_interrupted_warm_up_batch_does_not_change_the_mode() {
        // A 40 µs operation; the first call after 15 ms of simulated time
        // is held up 20 ms, as a descheduled thread would be. That call
        // falls in the last warm-up batch (256 calls from 10.2 ms), which
        // then averages 118 µs per call: above the one-at-a-time threshold.
        let held = Cell::new(false);
        let (engine, mut w) = simulated(false, move |_, now| {
            if now > 15_000_000 && !held.replace(true) {
                20_040_000
            } else {
                40_000
            }
        });
        let m = engine.measure(&mut w);
        assert_eq!(m.mode, Some(Mode::Batched));
        assert!(close(m.stats.as_ref().unwrap().p50, 40_000.0));
    }

    #[test]
    fn warm_up_meets_both_the_count_and_the_time() {
        // Three calls of 15 ms reach the count but not the 20 ms minimum.
        let (engine, mut w) = simulated(false, |_, _| 15_000_000);
        let warm = engine.warm_up(&mut w).unwrap();
        assert_eq!(warm.iters, 3, "{warm:?}");
        assert!(close(warm.typical_ns, 15e6) && close(warm.fastest_ns, 15e6));
        // A 1 µs operation reaches the count at once, the time much later.
        let (engine, mut w) = simulated(false, |_, _| 1_000);
        let warm = engine.warm_up(&mut w).unwrap();
        assert!(warm.iters >= 20_000, "{warm:?}");
        assert!(close(warm.typical_ns, 1_000.0), "{warm:?}");
    }

    /// A workload that times itself, as an adapter does: each batch of n
    /// costs `per_op * n + overhead` on its own clock, and the engine's
    /// clock advances by `ipc` more (which must not be charged); after
    /// `die_after` batches it reports a dead worker.
    struct SelfTimed {
        clock: SimClock,
        per_op: u64,
        overhead: u64,
        ipc: u64,
        batches: u64,
        die_after: u64,
        warmup: u64,
    }

    impl Workload for SelfTimed {
        fn verify(&mut self) -> Result<(), dyno_workload::Mismatch> {
            Ok(())
        }
        fn run(&mut self, _: u64) {
            panic!("a self-timed workload is never timed by the engine");
        }
        fn cases(&self) -> usize {
            1
        }
        fn fitted(&self) -> bool {
            true
        }
        fn time(&mut self, iters: u64) -> Option<Result<u64, String>> {
            self.batches += 1;
            if self.batches > self.die_after {
                return Some(Err("worker died (killed by signal 9)".into()));
            }
            let own = self.per_op * iters + self.overhead;
            self.clock.advance(own + self.ipc);
            Some(Ok(own))
        }
        fn min_warmup_ns(&self) -> u64 {
            self.warmup
        }
    }

    fn self_timed(die_after: u64, warmup: u64) -> (Engine<SimClock>, SelfTimed) {
        let clock = SimClock::default();
        let engine = Engine::with_timer(sim_settings(true), clock.clone());
        let w = SelfTimed {
            clock,
            per_op: 300_000,
            overhead: 5_000,
            ipc: 80_000,
            batches: 0,
            die_after,
            warmup,
        };
        (engine, w)
    }

    #[test]
    fn a_self_timed_workload_is_fitted_on_its_own_clock() {
        let (engine, mut w) = self_timed(u64::MAX, 0);
        let m = engine.measure(&mut w);
        assert_eq!(m.mode, Some(Mode::LinearFit));
        let fit = m.fit.unwrap();
        // slope = the operation; intercept = the worker's own overhead; the
        // round trip (ipc) appears nowhere
        assert!(close(fit.slope, 300_000.0), "slope {}", fit.slope);
        assert!((fit.intercept - 5_000.0).abs() < 1.0, "{}", fit.intercept);
        let sizes: std::collections::BTreeSet<u64> = m.samples.iter().map(|s| s.iters).collect();
        assert!(sizes.len() >= 3, "{sizes:?}");
        assert!(m.allocations.is_none());
    }

    #[test]
    fn a_workload_asking_for_a_long_warm_up_gets_it() {
        let (engine, mut w) = self_timed(u64::MAX, 2_000_000_000);
        let start = w.clock.0.get();
        let warm = engine.warm_up(&mut w).unwrap();
        assert!(w.clock.0.get() - start >= 2_000_000_000);
        assert!(warm.self_timed);
        assert!(warm.iters > 3);
    }

    #[test]
    fn a_worker_that_dies_keeps_its_samples_and_says_why() {
        // warm-up takes some batches; die a few samples later
        let (engine, mut probe) = self_timed(u64::MAX, 0);
        engine.warm_up(&mut probe).unwrap();
        let warm_batches = probe.batches;
        let (engine, mut w) = self_timed(warm_batches + 4, 0);
        let m = engine.measure(&mut w);
        let why = m.incomplete_reason.unwrap();
        assert!(
            why.contains("after 4 of") && why.contains("signal 9"),
            "{why}"
        );
        assert_eq!(m.samples.len(), 4);
        assert!(m.stats.is_some());
        // dying in warm-up: nothing timed, the reason kept
        let (engine, mut w) = self_timed(1, 0);
        let m = engine.measure(&mut w);
        assert!(m.incomplete_reason.unwrap().contains("warm-up"));
        assert!(m.samples.is_empty());
    }

    #[test]
    fn a_wrong_output_is_never_timed() {
        let engine = Engine::with_timer(sim_settings(true), SimClock::default());
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
        let (engine, mut w) = simulated(true, |_, _| 1_000);
        engine.stop_flag().store(true, Ordering::Relaxed);
        let m = engine.measure(&mut w);
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

    /// `--samples 20000` panicked in `clamp` (floor above the 10 000
    /// ceiling): issue 16, defect 1.
    #[test]
    fn more_samples_than_the_ceiling_raise_it_instead_of_panicking() {
        let clock = Clock {
            source: "simulated".into(),
            read_cost_ns: READ_NS as f64,
            resolution_ns: 1.0,
        };
        let s = settings(false, Some(20_000), &clock);
        assert_eq!((s.min_samples, s.max_samples), (20_000, 20_000));
        assert_eq!(settings(false, None, &clock).max_samples, MAX_SAMPLES);
        for mode in [Mode::Single, Mode::Batched, Mode::LinearFit] {
            let engine = Engine::with_timer(s.clone(), SimClock::default());
            assert!(
                engine.plan(mode, 1_000_000.0, (None, None)).len() >= 20_000,
                "{mode:?}"
            );
            let mut by_hand = sim_settings(false);
            (by_hand.min_samples, by_hand.max_samples) = (12_000, 10_000);
            let engine = Engine::with_timer(by_hand, SimClock::default());
            assert!(
                engine.plan(mode, 1_000_000.0, (None, None)).len() >= 12_000,
                "{mode:?}"
            );
        }
    }

    #[test]
    fn fit_plans_interleave_at_least_three_sizes() {
        let engine = Engine::with_timer(sim_settings(true), SimClock::default());
        // 220 ns with the 10% margin sizes for 200 ns: b ≈ 1 ms / 200 ns.
        let plan = engine.plan(Mode::LinearFit, 220.0, (None, None));
        let b = plan[0];
        assert_eq!(&plan[..3], &[b, 2 * b, 3 * b]);
        assert!((5_000..=5_001).contains(&b), "{b}");
        assert_eq!(plan.len() % 3, 0);
        assert!(plan.len() >= MIN_SAMPLES_FLOOR);
    }

    #[test]
    fn the_harness_measures_an_empty_benchmark_on_the_real_clock() {
        let _serial = timing();
        let clock = crate::clock::calibrate();
        let mut s = settings(true, None, &clock);
        s.warmup_min_ns = 20_000_000;
        s.measurement_ns = 50_000_000;
        let (m, h) = measure_harness(&Engine::new(s));
        assert_eq!(m.verification.status, VerificationStatus::Passed);
        assert_eq!(m.mode, Some(Mode::LinearFit));
        let h = h.unwrap();
        // An identity function costs a few ns; 1 µs would mean the harness
        // itself is broken, whatever else the machine is doing.
        assert!(
            h.empty_iteration_ns > 0.0 && h.empty_iteration_ns < 1_000.0,
            "{h:?}"
        );
    }
}
