//! The process's interrupt flag. Ctrl-C, SIGTERM and SIGHUP (ctrlc's
//! `termination` feature: CI timeouts, `timeout`, `docker stop` and systemd
//! send SIGTERM, a closed terminal SIGHUP) set it; every measurement stops
//! at its next sample boundary and saves what it has. A second interrupt
//! kills every process dyno started (nodes, clients, workers), removes
//! their temporary folders and exits at once, saying where the last
//! checkpoint is, or that nothing was saved.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Set by [`exit_at_once`]: the first interrupt ends the process.
static AT_ONCE: AtomicBool = AtomicBool::new(false);

/// For a command that measures nothing to save (`dyno adapter check`,
/// `dyno setup`): the first interrupt (Ctrl-C, SIGTERM, SIGHUP) stops
/// every process dyno started, removes their temporary folders and exits
/// 130, so no worker or build is left running.
pub fn exit_at_once() -> crate::Result<()> {
    AT_ONCE.store(true, Ordering::SeqCst);
    flag().map(drop)
}

/// Set by the handler as it starts to end the process (the first
/// interrupt of an [`exit_at_once`] command, or any second interrupt).
static ENDING: AtomicBool = AtomicBool::new(false);

/// True once an interrupt is ending the process: the handler is stopping
/// every process dyno started and will exit 130. The command's own result
/// no longer counts (its setup or worker failed because dyno stopped it),
/// so the main thread must wait for that exit, not race it with its own
/// code (a busy machine let `dyno adapter check` exit 1 so).
pub fn ending() -> bool {
    ENDING.load(Ordering::SeqCst)
}

/// The file the last checkpoint went to, if any.
static SAVED: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Note that the results measured so far are in `path` (a checkpoint was
/// written): what a second interrupt says.
pub(crate) fn saved_at(path: &Path) {
    *SAVED.lock().unwrap_or_else(|p| p.into_inner()) = Some(path.to_path_buf());
}

/// What a second interrupt says of the results: true whenever printed.
pub(crate) fn second_interrupt_message() -> String {
    match &*SAVED.lock().unwrap_or_else(|p| p.into_inner()) {
        Some(p) if p.is_file() => format!(
            "dyno: second interrupt, exiting now; the results measured so far are in {} \
             (the last checkpoint, marked incomplete)",
            p.display()
        ),
        _ => "dyno: second interrupt, exiting now; nothing measured was saved \
              (interrupt once to let dyno save what it has)"
            .to_string(),
    }
}

use crate::error::Context as _;

/// The flag, its handler installed on first use: a command may measure
/// several times (`dyno check` re-measures), and a process can install
/// only one handler.
pub fn flag() -> crate::Result<Arc<AtomicBool>> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    if let Some(flag) = FLAG.get() {
        return Ok(flag.clone());
    }
    let flag = Arc::new(AtomicBool::new(false));
    let stop = flag.clone();
    ctrlc::set_handler(move || {
        if AT_ONCE.load(Ordering::SeqCst) {
            ENDING.store(true, Ordering::SeqCst);
            dyno_process::group::kill_all();
            eprintln!("\ndyno: interrupted; stopped everything dyno had started");
            std::process::exit(130);
        }
        if stop.swap(true, Ordering::SeqCst) {
            ENDING.store(true, Ordering::SeqCst);
            dyno_process::group::kill_all();
            eprintln!("\n{}", second_interrupt_message());
            std::process::exit(130);
        }
        eprintln!(
            "\ndyno: interrupted (Ctrl-C or a termination signal); finishing the current \
             step, saving what was measured and stopping any node dyno started \
             (interrupt again to quit now)"
        );
    })
    .context("installing the Ctrl-C handler")?;
    Ok(FLAG.get_or_init(|| flag).clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The old message said "results so far are saved" with no file.
    #[test]
    fn the_second_interrupt_says_saved_only_of_a_file_that_exists() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("run.json");
        assert!(second_interrupt_message().contains("nothing measured was saved"));
        saved_at(&file);
        assert!(
            second_interrupt_message().contains("nothing measured was saved"),
            "a checkpoint path that was never written"
        );
        std::fs::write(&file, "{}").unwrap();
        let m = second_interrupt_message();
        assert!(
            m.contains(&file.display().to_string()) && m.contains("marked incomplete"),
            "{m}"
        );
    }
}
