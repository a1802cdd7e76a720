//! Interleaved rounds of two builds of one benchmark (`dyno ab`): A and B
//! alternate in short rounds, A B | B A | A B | B A ..., each round
//! `iterations` operations timed by the side itself (a worker's own
//! clock). Each pair of adjacent rounds gives one ratio, so a slow spell of
//! the host that lasts longer than two rounds slows both sides of a pair
//! alike, and the ABBA order puts each side first equally often (a drift
//! within a pair cancels over two pairs).
//!
//! - Warm-up: both sides, alternately, from one operation a round up,
//!   doubling, until a round lasts [`Plan::warm_round_ns`] and warm-up has
//!   run [`Plan::warmup_ns`]; its last rounds say what one operation costs
//!   (the slower side's, so neither side's round is shorter than asked).
//! - Rounds of `iterations` = round target / cost, at least 1, both sides
//!   alike, until their time adds up to the budget and at least
//!   [`Plan::min_pairs`] pairs are done (or [`Plan::max_pairs`]).
//!
//! The budget counts the time the sides report, not the wall clock, so the
//! plan is the same whatever the host does between rounds, and the tests
//! drive it exactly with simulated sides.

use dyno_workload::Workload;

/// How long rounds last and how many to run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    /// Warm-up's total, both sides.
    pub warmup_ns: u64,
    /// Warm-up doubles a round's operations until a round lasts this.
    pub warm_round_ns: u64,
    /// A round's target length.
    pub round_ns: u64,
    /// Both sides' measured time, added up, after which rounds stop.
    pub budget_ns: u64,
    pub min_pairs: usize,
    pub max_pairs: usize,
}

impl Plan {
    /// The plan of `dyno ab`, or `dyno ab --quick`.
    pub fn new(quick: bool) -> Self {
        const MS: u64 = 1_000_000;
        Self {
            warmup_ns: if quick { 100 * MS } else { 300 * MS },
            warm_round_ns: 2 * MS,
            round_ns: 10 * MS,
            budget_ns: if quick { 1_000 * MS } else { 4_000 * MS },
            min_pairs: 10,
            max_pairs: 2_000,
        }
    }
}

/// What the rounds measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// Operations in every round.
    pub iterations: u64,
    /// Each round's time per operation, in the order run: A's and B's.
    pub a_ns: Vec<f64>,
    pub b_ns: Vec<f64>,
    /// Per pair: ln(B's time / A's time).
    pub log_ratios: Vec<f64>,
    /// The order the rounds ran in (`ABBAAB...`).
    pub order: String,
}

/// Which side a round belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    A,
    B,
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if *self == Side::A { "A" } else { "B" })
    }
}

/// Why the rounds stopped without a result.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Stopped {
    /// `stop` said so before 3 pairs were done.
    #[error("interrupted")]
    Interrupted,
    /// A side could not time a round (the caller asks that side's worker
    /// whether it lives on).
    #[error("side {side}: {message}")]
    Failed { side: Side, message: String },
}

/// One round on `w` of `iters` operations: its time, as the side reports it.
fn round(w: &mut dyn Workload, side: Side, iters: u64) -> Result<u64, Stopped> {
    let failed = |message: String| Stopped::Failed { side, message };
    match w.time(iters) {
        Some(Ok(ns)) if ns > 0 => Ok(ns),
        Some(Ok(_)) => Err(failed("reported a round of 0 ns".into())),
        Some(Err(e)) => Err(failed(e)),
        None => Err(failed(
            "does not time itself (every side of an A/B is a worker)".into(),
        )),
    }
}

/// Warm both sides up and run the rounds. `stop` ends early (what is done
/// so far is returned if at least 3 pairs are).
pub fn run(
    a: &mut dyn Workload,
    b: &mut dyn Workload,
    plan: &Plan,
    stop: &dyn Fn() -> bool,
) -> Result<Measured, Stopped> {
    // Warm-up, A and B alternately, doubling until a round is long enough.
    let mut iters = 1u64;
    let mut warmed = 0u64;
    let per_op = loop {
        let ta = round(a, Side::A, iters)?;
        let tb = round(b, Side::B, iters)?;
        warmed += ta + tb;
        let slower = ta.max(tb);
        if slower >= plan.warm_round_ns && warmed >= plan.warmup_ns {
            break slower as f64 / iters as f64;
        }
        if slower < plan.warm_round_ns {
            iters = iters.saturating_mul(2);
        }
    };
    let iterations = ((plan.round_ns as f64 / per_op).floor() as u64).max(1);
    let mut m = Measured {
        iterations,
        a_ns: Vec::new(),
        b_ns: Vec::new(),
        log_ratios: Vec::new(),
        order: String::new(),
    };
    let mut spent = 0u64;
    let n = iterations as f64;
    while m.log_ratios.len() < plan.max_pairs
        && (spent < plan.budget_ns || m.log_ratios.len() < plan.min_pairs)
    {
        if stop() {
            if m.log_ratios.len() >= 3 {
                break;
            }
            return Err(Stopped::Interrupted);
        }
        let a_first = m.log_ratios.len().is_multiple_of(2);
        let (ta, tb) = if a_first {
            let ta = round(a, Side::A, iterations)?;
            (ta, round(b, Side::B, iterations)?)
        } else {
            let tb = round(b, Side::B, iterations)?;
            (round(a, Side::A, iterations)?, tb)
        };
        m.order.push_str(if a_first { "AB" } else { "BA" });
        spent += ta + tb;
        m.a_ns.push(ta as f64 / n);
        m.b_ns.push(tb as f64 / n);
        m.log_ratios.push((tb as f64 / ta as f64).ln());
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dyno_workload::Mismatch;
    use std::cell::Cell;
    use std::rc::Rc;

    /// A simulated side: `ns_per_op` per operation, times the host's speed
    /// at the moment (shared by both sides), which `clock` advances.
    struct Fake {
        ns_per_op: f64,
        speed: Rc<dyn Fn(u64) -> f64>,
        clock: Rc<Cell<u64>>,
        rounds: Rc<Cell<u32>>,
    }

    impl Workload for Fake {
        fn verify(&mut self) -> Result<(), Mismatch> {
            Ok(())
        }
        fn run(&mut self, _: u64) {}
        fn cases(&self) -> usize {
            1
        }
        fn time(&mut self, iters: u64) -> Option<Result<u64, String>> {
            let now = self.clock.get();
            let ns = (self.ns_per_op * iters as f64 * (self.speed)(now)) as u64;
            self.clock.set(now + ns);
            self.rounds.set(self.rounds.get() + 1);
            Some(Ok(ns.max(1)))
        }
    }

    fn pair(a: f64, b: f64, speed: Rc<dyn Fn(u64) -> f64>) -> (Fake, Fake, Rc<Cell<u32>>) {
        let clock = Rc::new(Cell::new(0));
        let rounds = Rc::new(Cell::new(0));
        let side = |ns| Fake {
            ns_per_op: ns,
            speed: speed.clone(),
            clock: clock.clone(),
            rounds: rounds.clone(),
        };
        (side(a), side(b), rounds)
    }

    #[test]
    fn rounds_are_sized_from_warm_up_and_alternate_abba() {
        let (mut a, mut b, _) = pair(1_000.0, 1_250.0, Rc::new(|_| 1.0));
        let plan = Plan::new(true);
        let m = run(&mut a, &mut b, &plan, &|| false).unwrap();
        // The slower side's 1 250 ns an operation: 8 000 per 10 ms round.
        assert_eq!(m.iterations, 8_000);
        assert!(m.order.starts_with("ABBAABBA"), "{}", m.order);
        // A budget of 1 s of both sides' time: 1 s / 18 ms a pair.
        assert_eq!(m.log_ratios.len(), 56);
        assert!(m.log_ratios.iter().all(|r| (r - 1.25f64.ln()).abs() < 1e-3));
        assert_eq!(m.a_ns.len(), m.b_ns.len());
    }

    #[test]
    fn a_host_that_halves_its_speed_for_seconds_cancels_within_pairs() {
        // Every other 200 ms the host runs at half speed: an unpaired
        // comparison of medians could land anywhere; the paired ratios
        // stay at B's true 10%, except for the few pairs that straddle
        // a change of speed.
        let speed: Rc<dyn Fn(u64) -> f64> =
            Rc::new(|t| if (t / 200_000_000) % 2 == 0 { 1.0 } else { 2.0 });
        let (mut a, mut b, _) = pair(5_000.0, 5_500.0, speed);
        let m = run(&mut a, &mut b, &Plan::new(false), &|| false).unwrap();
        let true_ratio = 1.1f64.ln();
        let near = m
            .log_ratios
            .iter()
            .filter(|r| (*r - true_ratio).abs() < 1e-3)
            .count();
        assert!(
            near * 10 >= m.log_ratios.len() * 9,
            "{near} of {}",
            m.log_ratios.len()
        );
        let median = dyno_stats::median(&m.log_ratios).unwrap();
        assert!((median - true_ratio).abs() < 1e-3, "{median}");
        // Side A's own rounds span the two speeds.
        let spread = dyno_stats::percentile(
            &{
                let mut s = m.a_ns.clone();
                s.sort_by(f64::total_cmp);
                s
            },
            90.0,
        )
        .unwrap()
            / m.a_ns.iter().copied().reduce(f64::min).unwrap();
        assert!(spread > 1.8, "{spread}");
    }

    #[test]
    fn a_slow_operation_still_gets_its_minimum_pairs() {
        // 300 ms an operation: one per round, 10 pairs however long.
        let (mut a, mut b, rounds) = pair(3e8, 3e8, Rc::new(|_| 1.0));
        let m = run(&mut a, &mut b, &Plan::new(true), &|| false).unwrap();
        assert_eq!(m.iterations, 1);
        assert_eq!(m.log_ratios.len(), 10);
        assert_eq!(
            rounds.get(),
            2 + 20,
            "one warm-up round each, then 10 pairs"
        );
        let stop_now = run(&mut a, &mut b, &Plan::new(true), &|| true);
        assert_eq!(stop_now, Err(Stopped::Interrupted));
    }

    /// A side whose worker fails at its `n`-th round.
    struct Failing(u32);

    impl Workload for Failing {
        fn verify(&mut self) -> Result<(), Mismatch> {
            Ok(())
        }
        fn run(&mut self, _: u64) {}
        fn cases(&self) -> usize {
            1
        }
        fn time(&mut self, _: u64) -> Option<Result<u64, String>> {
            self.0 = self.0.saturating_sub(1);
            Some(if self.0 == 0 {
                Err("the worker died".into())
            } else {
                Ok(3_000_000)
            })
        }
    }

    #[test]
    fn a_failing_side_is_named() {
        let (mut a, _, _) = pair(1_000.0, 1_000.0, Rc::new(|_| 1.0));
        let got = run(&mut a, &mut Failing(40), &Plan::new(true), &|| false);
        assert_eq!(
            got,
            Err(Stopped::Failed {
                side: Side::B,
                message: "the worker died".into()
            })
        );
        assert_eq!(got.unwrap_err().to_string(), "side B: the worker died");
    }
}
