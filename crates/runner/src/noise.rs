//! The noise probe: a thread that reads `/proc/stat` once a second while a
//! run measures (CPU steal per window) and times a fixed reference workload
//! for 2 ms (the machine's own speed, which steal does not show: a busy
//! sibling hardware thread, the frequency), plus the load average, the
//! frequency governor and the timer's jitter read at the end. It costs one
//! wake-up and 2 ms of one core a second; it times nothing of the run's.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use dyno_format::noise::Noise;

/// The CPU counters of `/proc/stat`'s first line, in ticks: (steal, total).
fn cpu_ticks(stat: &str) -> Option<(u64, u64)> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let ticks: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|t| t.parse().ok())
        .collect::<Option<_>>()?;
    // user nice system idle iowait irq softirq steal [guest guest_nice]:
    // guest time is counted in user already.
    let total: u64 = ticks.iter().take(8).sum();
    Some((*ticks.get(7)?, total))
}

fn read_ticks() -> Option<(u64, u64)> {
    cpu_ticks(&std::fs::read_to_string("/proc/stat").ok()?)
}

/// Steal in percent between two readings.
fn steal_pct(before: (u64, u64), after: (u64, u64)) -> Option<f64> {
    let total = after.1.checked_sub(before.1)?;
    (total > 0).then(|| 100.0 * after.0.saturating_sub(before.0) as f64 / total as f64)
}

/// A running probe; [`Probe::finish`] stops it and says what it saw.
#[derive(Debug)]
pub struct Probe {
    started: Instant,
    first: Option<(u64, u64)>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<(Vec<f64>, Vec<f64>)>>,
}

/// How long the reference workload is timed in each one-second window:
/// 0.2% of one core.
const REFERENCE_WINDOW: Duration = Duration::from_millis(2);

/// A dependent chain of multiplies: no memory, no branches to predict, so
/// its time follows the core's speed alone.
fn reference_unit() -> u64 {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in 0..20_000u64 {
        x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i));
    }
    x
}

/// The reference workload's best time (ns) over repeats for `window`: the
/// best, so that a preemption within the window does not count, while a
/// slower core (a busy sibling thread, a lower frequency) does.
pub fn reference(window: Duration) -> f64 {
    let w = Instant::now();
    let mut best = f64::INFINITY;
    loop {
        let t = Instant::now();
        std::hint::black_box(reference_unit());
        best = best.min(t.elapsed().as_nanos() as f64);
        if w.elapsed() >= window {
            return best;
        }
    }
}

impl Probe {
    /// Start watching.
    pub fn start() -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let first = read_ticks();
        let thread = std::thread::Builder::new()
            .name("dyno-noise".into())
            .spawn(move || {
                let mut windows = Vec::new();
                let mut speeds = vec![reference(REFERENCE_WINDOW)];
                let mut last = read_ticks();
                let mut next = Instant::now() + Duration::from_secs(1);
                loop {
                    // Asleep until the next window or until stopped (one
                    // wake-up a second, nothing between).
                    let now = Instant::now();
                    if now < next {
                        std::thread::park_timeout(next - now);
                    }
                    if flag.load(Ordering::Relaxed) {
                        break;
                    }
                    if Instant::now() < next {
                        continue;
                    }
                    next += Duration::from_secs(1);
                    let now = read_ticks();
                    if let (Some(b), Some(a)) = (last, now)
                        && let Some(s) = steal_pct(b, a)
                    {
                        windows.push(s);
                    }
                    last = now;
                    speeds.push(reference(REFERENCE_WINDOW));
                }
                (windows, speeds)
            })
            .ok();
        Self {
            started: Instant::now(),
            first,
            stop,
            thread,
        }
    }

    /// Stop, then read the load, the governor and the timer's jitter.
    pub fn finish(mut self) -> Noise {
        self.stop.store(true, Ordering::Relaxed);
        let (windows, speeds) = self
            .thread
            .take()
            .and_then(|t| {
                t.thread().unpark();
                t.join().ok()
            })
            .unwrap_or_default();
        // The end of the run is a window too.
        let mut speeds = speeds;
        speeds.push(reference(REFERENCE_WINDOW));
        let seconds = self.started.elapsed().as_secs_f64();
        let steal = self
            .first
            .zip(read_ticks())
            .and_then(|(b, a)| steal_pct(b, a));
        let mut noise = Noise {
            seconds,
            steal_pct: steal,
            steal_max_pct: windows.iter().copied().reduce(f64::max),
            steal_sd_pct: dyno_stats::stddev(&windows),
            windows: windows.len() as u32,
            loadavg: loadavg(),
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
            governor: governor(),
            timer_late_us_p50: None,
            timer_late_us_p99: None,
            speed: dyno_format::noise::Speed::of(&speeds),
        };
        let mut late = timer_lateness(50);
        late.sort_by(f64::total_cmp);
        noise.timer_late_us_p50 = dyno_stats::percentile(&late, 50.0);
        noise.timer_late_us_p99 = dyno_stats::percentile(&late, 99.0);
        noise
    }
}

/// Whether the run's noise is worth a warning: the host took more than 5%
/// of the CPU over the run, or more than 20% in some second.
pub fn noisy(n: &Noise) -> bool {
    n.steal_pct.is_some_and(|s| s > 5.0) || n.steal_max_pct.is_some_and(|s| s > 20.0)
}

/// The machine's speed, window by window: how long a fixed piece of
/// register-only work takes (ns) in each of the windows of `window` over
/// `total`. Its spread is how much the host changes the speed of this
/// machine's cores from moment to moment (`dyno doctor --noise`).
pub fn speed(total: Duration, window: Duration) -> Vec<f64> {
    let start = Instant::now();
    let mut out = Vec::new();
    while start.elapsed() < total {
        out.push(reference(window));
    }
    out
}

/// The 1-minute load average.
fn loadavg() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// CPU 0's frequency governor, where the kernel exposes one.
fn governor() -> Option<String> {
    std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
        .ok()
        .map(|g| g.trim().to_string())
        .filter(|g| !g.is_empty())
}

/// How late each of `n` 1 ms sleeps woke, in microseconds.
fn timer_lateness(n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| {
            let t = Instant::now();
            std::thread::sleep(Duration::from_millis(1));
            (t.elapsed().as_secs_f64() * 1e6 - 1000.0).max(0.0)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_takes_its_window_and_is_timed() {
        let t = Instant::now();
        let ns = reference(Duration::from_millis(2));
        assert!(t.elapsed() >= Duration::from_millis(2));
        // 20 000 dependent multiply-adds: far above a clock read, far
        // below the window.
        assert!(ns > 1_000.0 && ns < 2e6, "{ns}");
        // A probe records the speed at its start, whatever its length.
        let n = Probe::start().finish();
        let s = n.speed.expect("a start and an end window");
        assert!(s.windows >= 2 && s.reference_ns > 1_000.0, "{s:?}");
    }

    #[test]
    fn steal_is_read_from_the_cpu_line() {
        let stat = "cpu  100 0 50 800 10 0 0 40 5 0\ncpu0 50 0 25 400 5 0 0 20 0 0\n";
        assert_eq!(cpu_ticks(stat), Some((40, 1000)));
        let later = "cpu  200 0 100 1500 20 0 0 180 9 0\n";
        // 140 of the 1000 ticks between them were stolen.
        assert_eq!(
            steal_pct(cpu_ticks(stat).unwrap(), cpu_ticks(later).unwrap()),
            Some(14.0)
        );
        assert_eq!(cpu_ticks("intr 1 2 3\n"), None);
        assert_eq!(cpu_ticks("cpu  1 2 x\n"), None);
        assert_eq!(steal_pct((1, 10), (1, 10)), None, "no time passed");
    }
}
