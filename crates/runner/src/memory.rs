//! Peak resident memory (RSS) per benchmark, read from Linux's `/proc`.
//!
//! Before a benchmark is measured, writing `5` to `/proc/<pid>/clear_refs`
//! resets the process's high-water mark (`VmHWM`) to its current RSS
//! (Linux 4.0 and later); afterwards `VmHWM` in `/proc/<pid>/status` is the
//! peak while the benchmark ran. The process is dyno's own for an
//! in-process benchmark and the worker's for another runtime's, so every
//! runtime is measured the same way, from outside. Elsewhere, or where the
//! reset is refused, nothing is recorded.

/// Reset `pid`'s peak RSS to its current RSS. `false` if that failed.
/// For dyno's own process, the allocator first hands freed memory back to
/// the kernel, so what earlier benchmarks freed is not counted as resident.
pub(crate) fn reset_peak(pid: u32) -> bool {
    if pid == std::process::id() {
        trim_heap();
    }
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").is_ok()
}

/// glibc's `malloc_trim(0)`: return free heap pages to the kernel.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn trim_heap() {
    unsafe extern "C" {
        fn malloc_trim(pad: usize) -> i32;
    }
    // SAFETY: malloc_trim takes a plain integer, touches only the
    // allocator's own state under its lock, and is safe to call at any time.
    unsafe {
        malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim_heap() {}

/// `pid`'s peak RSS in bytes since the last reset.
pub(crate) fn peak_rss(pid: u32) -> Option<u64> {
    status_kb(pid, "VmHWM:")
}

/// `pid`'s RSS in bytes now.
pub(crate) fn rss(pid: u32) -> Option<u64> {
    status_kb(pid, "VmRSS:")
}

fn status_kb(pid: u32, key: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    parse_kb(&status, key)
}

/// The `key` line (`VmHWM:`, `VmRSS:`) of a `/proc/<pid>/status` text, in bytes.
fn parse_kb(status: &str, key: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with(key))?;
    let kb = line
        .trim_start_matches(key)
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse::<u64>()
        .ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_high_water_mark_in_bytes() {
        let status = "Name:\tdyno\nVmPeak:\t  900 kB\nVmHWM:\t    1234 kB\nVmRSS:\t 1000 kB\n";
        assert_eq!(parse_kb(status, "VmHWM:"), Some(1234 * 1024));
        assert_eq!(parse_kb(status, "VmRSS:"), Some(1000 * 1024));
        assert_eq!(parse_kb("VmRSS: 5 kB\n", "VmHWM:"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_reset_lowers_the_peak_to_what_is_resident_now() {
        let me = std::process::id();
        // 64 MiB touched, then freed: the peak stays until the reset.
        let big = vec![1u8; 64 << 20];
        std::hint::black_box(&big);
        drop(big);
        let before = peak_rss(me).expect("VmHWM on Linux");
        if !reset_peak(me) {
            // CI's machine allows it: there a refusal is a failure, not a
            // reason to pass (a sandbox elsewhere may refuse it).
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "/proc/{me}/clear_refs refused under CI=true: the peak-memory reset cannot be tested"
            );
            eprintln!("skipping: clear_refs refused here");
            return;
        }
        let after = peak_rss(me).expect("VmHWM on Linux");
        assert!(
            after + (32 << 20) < before,
            "peak {before} before the reset, {after} after"
        );
    }
}
