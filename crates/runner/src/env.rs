//! The machine a run happened on, read from the OS (Linux first).

use std::collections::BTreeMap;

use dyno_format::{Clock, Environment};

/// Capture the environment. `rustc` is the compiler that built dyno (the
/// binary knows it at build time).
pub fn capture(clock: Clock, rustc: &str) -> Environment {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    Environment {
        cpu_model: field(&cpuinfo, "model name").unwrap_or_else(|| "unknown".into()),
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        memory_bytes: memory_bytes().unwrap_or(0),
        os: os_name(),
        kernel: read_trim("/proc/sys/kernel/osrelease").unwrap_or_else(|| "unknown".into()),
        arch: std::env::consts::ARCH.into(),
        clock,
        rustc: rustc.into(),
        runtimes: BTreeMap::new(),
    }
}

fn read_trim(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
}

/// The first `key : value` line of a `/proc`-style file.
fn field(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_string())
    })
}

fn memory_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb = field(&meminfo, "MemTotal")?;
    kb.trim_end_matches("kB")
        .trim()
        .parse::<u64>()
        .ok()
        .map(|k| k * 1024)
}

fn os_name() -> String {
    let release = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    release
        .lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|v| v.trim_matches('"').to_string())
        .unwrap_or_else(|| std::env::consts::OS.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_fields_are_parsed() {
        let text = "processor\t: 0\nmodel name\t: Test CPU @ 2GHz\nflags\t: a b\n";
        assert_eq!(
            field(text, "model name").as_deref(),
            Some("Test CPU @ 2GHz")
        );
        assert_eq!(field(text, "missing"), None);
    }

    #[test]
    fn capture_fills_every_field() {
        let clock = Clock {
            source: "tsc".into(),
            read_cost_ns: 20.0,
            resolution_ns: 1.0,
        };
        let env = capture(clock, "rustc 1.95.0");
        assert!(env.cores >= 1);
        assert!(!env.os.is_empty() && !env.arch.is_empty());
        if cfg!(target_os = "linux") {
            assert!(env.memory_bytes > 0);
            assert_ne!(env.kernel, "unknown");
        }
    }
}
