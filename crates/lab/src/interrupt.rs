//! The process's interrupt flag. Ctrl-C, SIGTERM and SIGHUP (ctrlc's
//! `termination` feature: CI timeouts, `timeout`, `docker stop` and systemd
//! send SIGTERM, a closed terminal SIGHUP) set it; every measurement stops
//! at its next sample boundary and saves what it has. A second interrupt
//! stops the dev nodes dyno started and exits at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

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
        if stop.swap(true, Ordering::SeqCst) {
            eprintln!("\ndyno: second interrupt, exiting now; results so far are saved");
            dyno_node::kill_all();
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
