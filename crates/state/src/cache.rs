//! The OS page cache: warm (the state's pages read before, as a node that
//! has run a while has them) or dropped before every sample
//! (`/proc/sys/vm/drop_caches`, which needs root), and the major page
//! faults that show which one a sample saw.

use std::path::Path;

/// The page-cache state a benchmark runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cache {
    /// The pages stay cached between samples.
    Warm,
    /// Written back and dropped before every sample, the store closed and
    /// reopened around the drop (pages a process maps are not dropped).
    Dropped,
}

impl Cache {
    /// The suffix its ids' input carries: `""` or `"-dropped"`.
    pub fn suffix(self) -> &'static str {
        match self {
            Self::Warm => "",
            Self::Dropped => "-dropped",
        }
    }

    /// In words, for results.
    pub fn about(self) -> &'static str {
        match self {
            Self::Warm => "OS page cache warm (the state's pages read before every sample)",
            Self::Dropped => {
                "OS page cache dropped before every sample (sync, then 3 > /proc/sys/vm/drop_caches; the store reopened)"
            }
        }
    }
}

/// Where the kernel takes the request.
pub const DROP_CACHES: &str = "/proc/sys/vm/drop_caches";

/// Why the page cache cannot be dropped here, if it cannot: not root, or
/// the file is not writable (a container's read-only /proc/sys).
pub fn cannot_drop() -> Option<String> {
    cannot_drop_at(Path::new(DROP_CACHES))
}

fn cannot_drop_at(path: &Path) -> Option<String> {
    if !rustix::process::geteuid().is_root() {
        return Some(format!(
            "dropping the page cache needs root ({} is root-only); run dyno as root for the -dropped ids",
            path.display()
        ));
    }
    match std::fs::OpenOptions::new().write(true).open(path) {
        Ok(_) => None,
        Err(e) => Some(format!(
            "cannot write {} ({e}): this system does not let dyno drop the page cache",
            path.display()
        )),
    }
}

/// Write dirty pages back and drop the clean ones.
pub fn drop_now() -> Result<(), String> {
    rustix::fs::sync();
    std::fs::write(DROP_CACHES, "3\n").map_err(|e| format!("{DROP_CACHES}: {e}"))
}

/// This process's major page faults so far (pages read from disk), from
/// `/proc/self/stat`; `None` where there is no such file.
pub fn major_faults() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces), from field 3.
    let rest = &stat[stat.rfind(')')? + 2..];
    rest.split(' ').nth(9)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_control_file_is_a_reason_not_a_panic() {
        let reason = cannot_drop_at(Path::new("/nonexistent/drop_caches"));
        assert!(reason.is_some());
    }

    #[test]
    fn major_faults_are_read_from_proc() {
        if Path::new("/proc/self/stat").exists() {
            assert!(major_faults().is_some());
        }
    }
}
