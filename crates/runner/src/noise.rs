//! The noise probe: a thread that reads `/proc/stat` once a second while a
//! run measures (CPU steal per window) and times a fixed reference workload
//! for 10 ms (the machine's own speed, which steal does not show: a busy
//! sibling hardware thread, the frequency), with how long the kernel kept
//! the probe's thread waiting for a CPU in that window (what other threads
//! of this machine take), plus the load average, the frequency governor
//! and the timer's jitter read at the end. It costs one wake-up and 10 ms
//! of one core a second; it times nothing of the run's.
//!
//! Each window's speed is the **median** of its ~28 µs repeats, and the
//! window is longer than a scheduler slice (a few ms): a window in which
//! the thread was taken off its CPU reads the core's speed in its other
//! repeats, and the time it was off shows as waiting, not as a slow core.
//! Before issue 53 a window was 2 ms and took its best repeat, so one
//! preemption that spanned a whole window made it read up to 100× slow and
//! set a short run's P95 (a spread of 675% in 10 s where 100 ms windows of
//! the same loop varied 1.43×).

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
    thread: Option<JoinHandle<(Vec<f64>, Vec<Window>)>>,
}

/// How long the reference workload is timed in each one-second window:
/// 1% of one core, and several scheduler slices (3 ms by default since
/// Linux 6.6), so that one preemption is a few of its repeats, not all.
pub const REFERENCE_WINDOW: Duration = Duration::from_millis(10);

/// A dependent chain of multiplies: no memory, no branches to predict, so
/// its time follows the core's speed alone.
fn reference_unit() -> u64 {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in 0..20_000u64 {
        x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i));
    }
    x
}

/// One window of the reference workload: its repeats' median time (the
/// core's speed) and the share of the window the thread spent waiting to
/// run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// The median repeat, in ns.
    pub reference_ns: f64,
    /// The share of the window's wall time the kernel kept this thread
    /// ready but off a CPU (0 to 1); `None` without schedstat.
    pub waited: Option<f64>,
}

/// This thread's run-queue wait so far, in ns: the second field of
/// `/proc/thread-self/schedstat` (time on a CPU, time waiting on a run
/// queue, slices run).
fn waited_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().nth(1)?.parse().ok()
}

/// Time the reference workload for `window` on this thread.
pub fn window(window: Duration) -> Window {
    let wait0 = waited_ns();
    let w = Instant::now();
    let mut times = Vec::with_capacity(512);
    loop {
        let t = Instant::now();
        std::hint::black_box(reference_unit());
        times.push(t.elapsed().as_nanos() as f64);
        if w.elapsed() >= window {
            break;
        }
    }
    let wall = w.elapsed().as_nanos() as f64;
    let waited = wait0
        .zip(waited_ns())
        .map(|(a, b)| (b.saturating_sub(a) as f64 / wall).min(1.0));
    times.sort_by(f64::total_cmp);
    Window {
        reference_ns: dyno_stats::percentile(&times, 50.0).unwrap_or(f64::NAN),
        waited,
    }
}

/// The reference workload's median time (ns) over its repeats for
/// `window`: the median, so that a preemption within the window does not
/// count, while a slower core (a busy sibling thread, a lower frequency)
/// does.
pub fn reference(d: Duration) -> f64 {
    window(d).reference_ns
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
                let mut speeds = vec![window(REFERENCE_WINDOW)];
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
                    speeds.push(window(REFERENCE_WINDOW));
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
        speeds.push(window(REFERENCE_WINDOW));
        let waits: Vec<f64> = speeds.iter().filter_map(|w| w.waited).collect();
        let (waited_pct, waited_max_pct) = if waits.len() == speeds.len() {
            (
                dyno_stats::mean(&waits).map(|m| 100.0 * m),
                waits.iter().copied().reduce(f64::max).map(|m| 100.0 * m),
            )
        } else {
            (None, None)
        };
        let times: Vec<f64> = speeds.iter().map(|w| w.reference_ns).collect();
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
            speed: dyno_format::noise::Speed::of(&times).map(|s| dyno_format::noise::Speed {
                window_ms: Some(REFERENCE_WINDOW.as_secs_f64() * 1e3),
                ..s
            }),
            waited_pct,
            waited_max_pct,
        };
        let mut late = timer_lateness(50);
        late.sort_by(f64::total_cmp);
        noise.timer_late_us_p50 = dyno_stats::percentile(&late, 50.0);
        noise.timer_late_us_p99 = dyno_stats::percentile(&late, 99.0);
        noise
    }
}

/// Whether the run's noise is worth a warning: the host took more than 5%
/// of the CPU over the run, or more than 20% in some second; or the
/// probe's thread waited for a CPU more than a quarter of its time (other
/// threads of this machine kept every core busy).
pub fn noisy(n: &Noise) -> bool {
    n.steal_pct.is_some_and(|s| s > 5.0)
        || n.steal_max_pct.is_some_and(|s| s > 20.0)
        || n.waited_pct.is_some_and(|w| w > WAITED_PCT)
}

/// The probe's wait, in percent of its time, above which a run is noisy.
pub const WAITED_PCT: f64 = 25.0;

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

    /// The probe on one CPU, alone and then beside three threads that
    /// keep that CPU busy, each for `secs`.
    fn calibrate(hogs: usize, secs: f64) -> Noise {
        use rustix::thread::{CpuSet, sched_getcpu, sched_setaffinity};
        let cpu = sched_getcpu();
        let pin = move || {
            let mut set = CpuSet::new();
            set.set(cpu);
            sched_setaffinity(None, &set).expect("pin to one CPU");
        };
        let stop = AtomicBool::new(false);
        let stop = &stop;
        std::thread::scope(|s| {
            let probing = s.spawn(move || {
                pin();
                std::thread::scope(|h| {
                    for _ in 0..hogs {
                        h.spawn(move || {
                            pin();
                            while !stop.load(Ordering::Relaxed) {
                                std::hint::black_box(reference_unit());
                            }
                        });
                    }
                    // Started after pinning: the probe's thread inherits
                    // this thread's CPU.
                    let probe = Probe::start();
                    std::thread::sleep(Duration::from_secs_f64(secs));
                    let n = probe.finish();
                    stop.store(true, Ordering::Relaxed);
                    n
                })
            });
            probing.join().unwrap()
        })
    }

    #[test]
    fn the_probe_tells_a_quiet_cpu_from_a_loaded_one() {
        let pressure = std::fs::read_to_string("/proc/pressure/cpu")
            .ok()
            .and_then(|p| {
                p.split_whitespace()
                    .find_map(|f| f.strip_prefix("avg10="))
                    .and_then(|v| v.parse::<f64>().ok())
            });
        let quiet = calibrate(0, 2.5);
        let loaded = calibrate(3, 2.5);
        let (Some(q), Some(l)) = (quiet.waited_pct, loaded.waited_pct) else {
            eprintln!("SKIPPED: this kernel keeps no /proc/thread-self/schedstat");
            return;
        };
        eprintln!(
            "quiet: waited {q:.1}%, {:?}\nloaded: waited {l:.1}%, {:?}",
            quiet.speed, loaded.speed
        );
        // Four threads on one CPU: the probe runs at most a quarter of the
        // time, whatever else the machine runs.
        assert!(l >= 50.0 && noisy(&loaded), "{loaded:?}");
        // The speed is the core's, not the wait: beside the three threads
        // its windows read within 2x of alone, and spread less than 100%
        // (the 2 ms best-of windows of before read up to 100x slow when a
        // preemption spanned one).
        let (qs, ls) = (quiet.speed.clone().unwrap(), loaded.speed.clone().unwrap());
        let ratio = ls.reference_ns / qs.reference_ns;
        assert!((0.5..2.0).contains(&ratio), "{qs:?} {ls:?}");
        assert!(ls.spread_pct < 100.0, "{ls:?}");
        assert_eq!(ls.window_ms, Some(10.0));
        // On a machine that is itself quiet (the kernel's CPU pressure
        // under 10% over the 10 s before), the quiet probe reads quiet, and
        // runs at least 1.5 times as much of its time as beside the three
        // threads. Not on a busy one: the fresh rehearsal of d2d8f47 (its
        // `cargo test` beside the chain job) read 61.6% waited alone and
        // 71.7% beside them, as the scheduler moved the other work off the
        // loaded CPU and onto the other one.
        if pressure.is_some_and(|p| p < 10.0) {
            assert!(q < WAITED_PCT, "{quiet:?}");
            assert!(
                100.0 - q >= 1.5 * (100.0 - l),
                "quiet {quiet:?}\nloaded {loaded:?}"
            );
        }
    }

    #[test]
    fn a_window_is_the_median_of_its_repeats() {
        let w = window(Duration::from_millis(10));
        assert!(w.reference_ns > 1_000.0 && w.reference_ns < 2e6, "{w:?}");
        if let Some(waited) = w.waited {
            assert!((0.0..=1.0).contains(&waited), "{w:?}");
        }
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
