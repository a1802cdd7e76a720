//! The OS page cache: warm (the state's pages read before, as a node that
//! has run a while has them) or evicted before every sample, and the major
//! page faults that show which one a sample saw.
//!
//! Eviction is `posix_fadvise(DONTNEED)` on every file of the state's
//! store, after the store is closed (a page a process maps is never
//! evicted) and its writes are flushed: only the state leaves memory. The
//! system-wide `/proc/sys/vm/drop_caches` would also evict dyno's own code
//! and libraries, whose page faults would then be timed as if they were
//! the state's, and it needs root (docs/decisions.md, D21).

use std::path::Path;

/// The page-cache state a benchmark runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cache {
    /// The pages stay cached between samples.
    Warm,
    /// The state's pages evicted before every sample (the store closed,
    /// evicted and reopened).
    Dropped,
}

impl Cache {
    /// The suffix its ids' input carries: `""` or `"-dropped"`.
    pub fn suffix(self) -> &'static str {
        match self {
            Self::Warm => "",
            Self::Dropped => dyno_format::state::EVICTED_SUFFIX,
        }
    }

    /// In words, for results.
    pub fn about(self) -> &'static str {
        match self {
            Self::Warm => "OS page cache warm (the state's pages read in earlier samples)",
            Self::Dropped => {
                "the state's pages evicted from the OS page cache before every sample \
                 (store closed, posix_fadvise DONTNEED on its files, store reopened)"
            }
        }
    }
}

/// Evict every file under `dir` from the page cache (after writing back
/// what is dirty); the files must not be mapped by this process.
pub fn evict(dir: &Path) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if !path.is_file() {
            continue;
        }
        let file = std::fs::File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        file.sync_all()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        rustix::fs::fadvise(&file, 0, None, rustix::fs::Advice::DontNeed)
            .map_err(|e| format!("{}: posix_fadvise: {e}", path.display()))?;
    }
    Ok(())
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
    fn a_missing_folder_is_a_reason_not_a_panic() {
        let e = evict(Path::new("/nonexistent/state")).unwrap_err();
        assert!(e.contains("/nonexistent/state"), "{e}");
    }

    #[test]
    fn major_faults_are_read_from_proc() {
        if Path::new("/proc/self/stat").exists() {
            assert!(major_faults().is_some());
        }
    }
}
