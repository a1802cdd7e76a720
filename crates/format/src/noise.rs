//! How noisy the machine was while a run measured: what the host took
//! (CPU steal), how that varied, the load, the frequency governor, and the
//! timer's jitter. Recorded beside the results, so that a reader (and the
//! A/B gate) can tell a quiet machine's numbers from a busy one's.

use serde::{Deserialize, Serialize};

/// The machine's noise over one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Noise {
    /// How long it was watched, in seconds.
    pub seconds: f64,
    /// CPU time the host took from this machine's CPUs (steal), as a
    /// percentage of all CPU time over the run; `None` where `/proc/stat`
    /// cannot be read.
    pub steal_pct: Option<f64>,
    /// The highest steal of any one-second window, in percent.
    pub steal_max_pct: Option<f64>,
    /// The standard deviation of steal over one-second windows, in
    /// percentage points: how much the host's share moved.
    pub steal_sd_pct: Option<f64>,
    /// One-second windows observed.
    pub windows: u32,
    /// The 1-minute load average at the end, and the CPUs the machine has.
    pub loadavg: Option<f64>,
    pub cpus: u32,
    /// The CPU frequency governor (`performance`, `powersave`, ...), where
    /// the kernel exposes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub governor: Option<String>,
    /// How late a 1 ms sleep wakes up, P50 and P99 over the probe's
    /// sleeps, in microseconds: the timer's and the scheduler's jitter.
    pub timer_late_us_p50: Option<f64>,
    pub timer_late_us_p99: Option<f64>,
    /// The machine's own speed through the run: a fixed register-only
    /// reference workload timed once a second (the median of its repeats
    /// in a 10 ms window, [`Speed::window_ms`]), which shows what steal
    /// does not (a busy sibling hardware thread, the frequency, the host's
    /// contention). How many windows, their median time (ns), their spread
    /// ((P95 - P5) / P50, percent) and their drift (the last quarter's
    /// median against the first quarter's, percent; positive: slower by
    /// the end). Absent in files before issue 33.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<Speed>,
    /// How much of its windows the probe's thread spent ready to run but
    /// waiting for a CPU (the kernel's run-queue time for it,
    /// `/proc/thread-self/schedstat`), in percent: the mean over the
    /// windows and the highest. What a benchmark's thread loses to other
    /// threads of this machine (the measured client's own among them),
    /// which neither steal nor the speed shows. Absent before issue 53
    /// and where the kernel keeps no schedstat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waited_pct: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waited_max_pct: Option<f64>,
}

/// The reference workload's time through a run ([`Noise::speed`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Speed {
    pub windows: u32,
    pub reference_ns: f64,
    pub spread_pct: f64,
    pub drift_pct: f64,
    /// How long each window timed the reference (ms), each window's time
    /// the median of its repeats, so that a window the thread was taken
    /// off the CPU in reads the core's speed and not the wait. Absent in
    /// files before issue 53, whose windows were 2 ms and took the best
    /// repeat: one preempted window set a short run's P95.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_ms: Option<f64>,
}

impl Speed {
    /// From the reference's time in each window, in order: `None` for
    /// fewer than 2 windows.
    pub fn of(windows: &[f64]) -> Option<Self> {
        if windows.len() < 2 || !windows.iter().all(|w| w.is_finite() && *w > 0.0) {
            return None;
        }
        let mut sorted = windows.to_vec();
        sorted.sort_by(f64::total_cmp);
        let at = |p: f64| dyno_stats::percentile(&sorted, p);
        let (p5, p50, p95) = (at(5.0)?, at(50.0)?, at(95.0)?);
        let quarter = windows.len().div_ceil(4);
        let first = dyno_stats::median(&windows[..quarter])?;
        let last = dyno_stats::median(&windows[windows.len() - quarter..])?;
        Some(Self {
            windows: windows.len() as u32,
            reference_ns: p50,
            spread_pct: 100.0 * (p95 - p5) / p50,
            drift_pct: 100.0 * (last / first - 1.0),
            window_ms: None,
        })
    }

    /// Why the machine's speed moved more than `threshold` (a fraction,
    /// the change a verdict is asked to find), or `None` if it held.
    pub fn swung(&self, threshold: f64) -> Option<String> {
        let limit = 100.0 * threshold;
        let (spread, drift) = (self.spread_pct, self.drift_pct);
        (spread > limit || drift.abs() > limit).then(|| {
            format!(
                "the machine's own speed moved more than the ±{limit:.0}% asked for: a fixed reference \
                 workload's time spread {spread:.1}% (P5 to P95 over {} windows, one a second) and drifted \
                 {drift:+.1}% from the first quarter of the run to the last; the host changed this machine's \
                 speed while it measured, and figures from it are less certain than their intervals say",
                self.windows
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_speed_summary_is_spread_and_drift() {
        // A steady machine: 100 ns every window.
        let steady = Speed::of(&[100.0; 20]).unwrap();
        assert_eq!((steady.spread_pct, steady.drift_pct), (0.0, 0.0));
        assert_eq!(steady.swung(0.05), None);
        // Slowing from 100 to 150 ns halfway: drift +50%, and a spread.
        let mut w = vec![100.0; 10];
        w.extend([150.0; 10]);
        let slowing = Speed::of(&w).unwrap();
        assert!((slowing.drift_pct - 50.0).abs() < 1e-9, "{slowing:?}");
        // (150 - 100) / 125, the median being halfway.
        assert!((slowing.spread_pct - 40.0).abs() < 1e-9, "{slowing:?}");
        let why = slowing.swung(0.05).unwrap();
        assert!(why.contains("±5%") && why.contains("+50.0%"), "{why}");
        // Within the threshold: nothing said.
        let mut w = vec![100.0; 10];
        w.extend([103.0; 10]);
        assert_eq!(Speed::of(&w).unwrap().swung(0.05), None);
        assert_eq!(Speed::of(&[100.0]), None);
        assert_eq!(Speed::of(&[100.0, f64::NAN]), None);
    }
}
