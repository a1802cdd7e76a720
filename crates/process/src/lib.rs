//! The processes dyno starts — adapter workers and their `setup`, dev
//! nodes, Engine-API clients, the state generator — treated as hostile:
//!
//! - each runs in a process group of its own ([`group::spawn`]), so a
//!   wrapper script's children are stopped with it ([`group::stop`]), and
//!   a Ctrl-C at the terminal reaches dyno alone, which then stops them in
//!   order;
//! - every group and every temporary folder they write into is registered
//!   until stopped, so a process that must exit at once (a second
//!   interrupt) kills the groups and removes the folders
//!   ([`group::kill_all`]);
//! - every line read from them is bounded ([`lines`]): a process that
//!   never ends a line costs a fixed amount of memory, never all of it;
//! - what a group listens on, and whether any of it outlives its leader,
//!   can be read ([`sockets`]).

pub mod group;
pub mod lines;
pub mod sockets;
