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
pub(crate) fn reset_peak(pid: u32) -> bool {
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").is_ok()
}

/// `pid`'s peak RSS in bytes since the last reset.
pub(crate) fn peak_rss(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    parse_hwm(&status)
}

/// The `VmHWM:` line of a `/proc/<pid>/status` text, in bytes.
fn parse_hwm(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb = line
        .trim_start_matches("VmHWM:")
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
        assert_eq!(parse_hwm(status), Some(1234 * 1024));
        assert_eq!(parse_hwm("VmRSS: 5 kB\n"), None);
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
