//! The processes dyno starts — adapter workers and their `setup`, dev
//! nodes, Engine-API clients, the state generator — treated as hostile:
//!
//! - each runs in a process group of its own ([`group::spawn`]), so a
//!   wrapper script's children are stopped with it ([`group::stop`]), and
//!   a Ctrl-C at the terminal reaches dyno alone, which then stops them in
//!   order;
//! - each is a child subreaper, so a daemon that leaves its group and its
//!   parent (`setsid`, a double fork) stays below it, is found
//!   ([`tree::descendants`]) and is killed with it;
//! - every group and every temporary folder they write into is registered
//!   until stopped, so a process that must exit at once (a second
//!   interrupt) kills the groups and removes the folders
//!   ([`group::kill_all`]);
//! - every line read from them is bounded ([`lines`]): a process that
//!   never ends a line costs a fixed amount of memory, never all of it;
//! - what a tree listens on, whether any of it outlives its leader, and
//!   which new listeners no visible process holds, can be read
//!   ([`sockets`]).

pub mod group;
pub mod lines;
pub mod sockets;
pub mod tree;

/// The registry of groups is the process's, and one test kills every group
/// in it: tests that start processes take turns.
#[cfg(test)]
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[cfg(test)]
fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}
