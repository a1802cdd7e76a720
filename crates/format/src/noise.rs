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
}
