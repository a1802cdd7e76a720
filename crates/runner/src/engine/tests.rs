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
