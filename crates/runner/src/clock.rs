//! The timer: what a read costs, how fine it is, and where it comes from.
//!
//! Measured once at start. A clock read that costs more than a microsecond
//! (a virtual machine falling back to a trapping clocksource, say) makes
//! every batch and every fit meaningless, so the engine refuses to run.

use std::hint::black_box;
use std::time::{Duration, Instant};

use dyno_format::Clock;

/// The most a clock read may cost before dyno refuses to measure.
pub const MAX_READ_COST_NS: f64 = 1_000.0;

/// The clock is unusable for benchmarking.
#[derive(Debug, thiserror::Error)]
#[error(
    "a clock read costs {read_cost_ns:.0} ns (clocksource {clocksource}); dyno needs under {MAX_READ_COST_NS:.0} ns \
     to time anything. Switch the kernel to a faster clocksource (e.g. `tsc`, see \
     /sys/devices/system/clocksource/clocksource0/available_clocksource) or run on another machine"
)]
pub struct ClockTooSlow {
    /// Measured cost of one read.
    pub read_cost_ns: f64,
    /// The clocksource in use.
    pub clocksource: String,
}

/// Measure the monotonic clock's read cost and resolution.
pub fn calibrate() -> Clock {
    Clock {
        source: clocksource(),
        read_cost_ns: read_cost_ns(),
        resolution_ns: resolution_ns(),
    }
}

/// Refuse a clock whose reads cost more than [`MAX_READ_COST_NS`].
pub fn check(clock: &Clock) -> Result<(), ClockTooSlow> {
    check_cost(clock, MAX_READ_COST_NS)
}

fn check_cost(clock: &Clock, max_ns: f64) -> Result<(), ClockTooSlow> {
    if clock.read_cost_ns > max_ns {
        return Err(ClockTooSlow {
            read_cost_ns: clock.read_cost_ns,
            clocksource: clock.source.clone(),
        });
    }
    Ok(())
}

/// The kernel's current clocksource, or `unknown` off Linux.
pub fn clocksource() -> String {
    std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}

/// Mean cost of `Instant::now()`, the best of several rounds.
fn read_cost_ns() -> f64 {
    const READS: u32 = 20_000;
    (0..5)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..READS {
                black_box(Instant::now());
            }
            start.elapsed().as_nanos() as f64 / f64::from(READS)
        })
        .fold(f64::INFINITY, f64::min)
}

/// The smallest non-zero step between consecutive reads.
fn resolution_ns() -> f64 {
    let mut best = Duration::MAX;
    let deadline = Instant::now() + Duration::from_millis(20);
    for _ in 0..10_000 {
        let a = Instant::now();
        let mut b = Instant::now();
        while b == a {
            b = Instant::now();
        }
        best = best.min(b - a);
        if b > deadline {
            break;
        }
    }
    best.as_nanos().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibration_gives_plausible_figures() {
        let c = calibrate();
        assert!(c.read_cost_ns > 0.0 && c.read_cost_ns < 100_000.0, "{c:?}");
        assert!(c.resolution_ns >= 1.0, "{c:?}");
        assert!(!c.source.is_empty());
    }

    #[test]
    fn a_slow_clock_is_refused_with_advice() {
        let slow = Clock {
            source: "hpet".into(),
            read_cost_ns: 1_500.0,
            resolution_ns: 100.0,
        };
        let err = check(&slow).unwrap_err().to_string();
        assert!(
            err.contains("1500 ns") && err.contains("hpet") && err.contains("tsc"),
            "{err}"
        );
        let fast = Clock {
            read_cost_ns: 25.0,
            ..slow
        };
        assert!(check(&fast).is_ok());
        assert!(check_cost(&fast, 10.0).is_err());
    }
}
