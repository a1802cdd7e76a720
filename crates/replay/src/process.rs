//! What the client process used over a replay, from `/proc/PID` read once
//! when its Engine API first answers and once after the last block: CPU
//! time (utime + stime), the resident-memory high-water mark (`VmHWM`, the
//! kernel's own peak, so nothing between two reads is missed), and the
//! bytes it made the storage layer read and write (`/proc/PID/io`).

/// One reading of a process.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    /// CPU time so far, seconds.
    pub cpu_s: f64,
    /// Peak resident memory so far, bytes.
    pub rss_peak_bytes: u64,
    /// Bytes read from and written to storage so far (`read_bytes`,
    /// `write_bytes`; absent where the kernel does not say).
    pub io: Option<(u64, u64)>,
}

/// Read `pid`; `None` if it is gone.
pub fn read(pid: u32) -> Option<Reading> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).ok();
    parse(&stat, &status, io.as_deref(), ticks_per_s())
}

fn ticks_per_s() -> f64 {
    nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .ok()
        .flatten()
        .unwrap_or(100) as f64
}

fn parse(stat: &str, status: &str, io: Option<&str>, ticks: f64) -> Option<Reading> {
    // The command name may hold spaces: fields after the closing paren,
    // starting at field 3 (state); utime is field 14, stime 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let cpu = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    let kb = |key: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(key))?;
        line.split_whitespace().nth(1)?.parse().ok()
    };
    let field = |text: &str, key: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(key))?;
        line.split_whitespace().nth(1)?.parse().ok()
    };
    Some(Reading {
        cpu_s: cpu as f64 / ticks,
        rss_peak_bytes: kb("VmHWM:")? * 1024,
        io: io.and_then(|t| Some((field(t, "read_bytes:")?, field(t, "write_bytes:")?))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reading_parses_what_the_kernel_writes() {
        let stat =
            "4242 (geth run) S 1 4242 4242 0 -1 4194560 9000 0 0 0 250 50 0 0 20 0 12 0 100 0 0";
        let status =
            "Name:\tgeth\nVmPeak:\t 2000000 kB\nVmHWM:\t  524288 kB\nVmRSS:\t  400000 kB\n";
        let io = "rchar: 10\nwchar: 20\nsyscr: 1\nsyscw: 2\nread_bytes: 4096\nwrite_bytes: 8192\ncancelled_write_bytes: 0\n";
        let r = parse(stat, status, Some(io), 100.0).unwrap();
        assert_eq!(r.cpu_s, 3.0, "250 + 50 ticks at 100 per second");
        assert_eq!(r.rss_peak_bytes, 512 * 1024 * 1024);
        assert_eq!(r.io, Some((4096, 8192)));
        assert_eq!(parse(stat, status, None, 100.0).unwrap().io, None);
        assert!(
            parse(stat, "Name:\tgeth\n", None, 100.0).is_none(),
            "no VmHWM"
        );
    }

    #[test]
    fn this_process_can_be_read() {
        let r = read(std::process::id()).unwrap();
        assert!(r.rss_peak_bytes > 1_000_000);
        assert!(read(u32::MAX - 1).is_none());
    }
}
