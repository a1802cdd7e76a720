//! The node's CPU and memory, read from `/proc/PID` while it runs.

use std::time::Instant;

use dyno_format::load::Resources;

/// Samples of one process.
#[derive(Debug)]
pub struct ProcSampler {
    pid: u32,
    ticks_per_s: f64,
    start: Instant,
    last: Option<(f64, u64)>,
    series: Vec<[f64; 3]>,
}

/// utime + stime in clock ticks, from `/proc/PID/stat`.
fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces; fields after the closing paren.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // rest starts at field 3 (state); utime is field 14, stime 15.
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

/// Resident set size in bytes, from `/proc/PID/status`.
fn rss_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

impl ProcSampler {
    /// Start sampling `pid` (times are relative to `start`).
    pub fn new(pid: u32, start: Instant) -> Self {
        let ticks = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
            .ok()
            .flatten()
            .unwrap_or(100) as f64;
        Self {
            pid,
            ticks_per_s: ticks,
            start,
            last: None,
            series: Vec::new(),
        }
    }

    /// Take one sample; false once the process is gone.
    pub fn sample(&mut self) -> bool {
        let t = self.start.elapsed().as_secs_f64();
        let (Some(ticks), Some(rss)) = (cpu_ticks(self.pid), rss_bytes(self.pid)) else {
            return false;
        };
        if let Some((t0, ticks0)) = self.last {
            let dt = t - t0;
            if dt > 0.0 {
                let cpu = (ticks.saturating_sub(ticks0)) as f64 / self.ticks_per_s / dt * 100.0;
                self.series.push([t, cpu, rss as f64]);
            }
        }
        self.last = Some((t, ticks));
        true
    }

    /// The summary, or `None` with fewer than one interval sampled.
    pub fn finish(&self) -> Option<Resources> {
        if self.series.is_empty() {
            return None;
        }
        let cpu: Vec<f64> = self.series.iter().map(|s| s[1]).collect();
        Some(Resources {
            samples: self.series.len() as u64,
            cpu_mean_pct: dyno_stats::mean(&cpu).unwrap_or(0.0),
            cpu_max_pct: cpu.iter().copied().fold(0.0, f64::max),
            rss_max_bytes: self.series.iter().map(|s| s[2] as u64).max().unwrap_or(0),
            rss_end_bytes: self.series.last().map_or(0, |s| s[2] as u64),
            series: self.series.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_this_process() {
        let pid = std::process::id();
        let mut s = ProcSampler::new(pid, Instant::now());
        assert!(s.sample());
        // Burn a little CPU so the interval has some.
        let mut x = 0u64;
        for i in 0..5_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(s.sample());
        let r = s.finish().unwrap();
        assert_eq!(r.samples, 1);
        assert!(r.rss_max_bytes > 1_000_000);
        assert!(r.cpu_mean_pct >= 0.0);
    }

    #[test]
    fn a_missing_process_ends_sampling() {
        let mut s = ProcSampler::new(u32::MAX - 1, Instant::now());
        assert!(!s.sample());
        assert!(s.finish().is_none());
    }
}
