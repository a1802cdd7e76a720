//! The lab session, between the specs and the runner: where dyno's data
//! lives ([`paths`]), the built-in suites ([`suites`]), which benchmarks
//! and implementations a run selects and the adapters it starts for the
//! other runtimes ([`adapters`], [`cases`]), measuring and saving a run
//! ([`session`]), re-measuring against a baseline ([`check`]), the gas
//! plan ([`gas`]), instruction counts ([`callgrind`]), the load campaign
//! ([`campaign`]), the history and baselines ([`history`], [`baseline`]),
//! and installing adapters ([`setup`]).
//!
//! The `dyno` binary parses arguments, calls these, renders what they
//! return on stdout and picks the exit code. The lab writes progress and
//! warnings on stderr, never on stdout.

pub mod ab;
pub mod adapters;
pub mod baseline;
pub mod callgrind;
pub mod campaign;
pub mod cases;
pub mod check;
pub mod choices;
pub mod client;
pub mod conformance;
mod error;
pub mod fleet;
pub mod gas;
pub mod history;
pub mod interrupt;
pub mod inventory;
pub mod operation;
pub mod paths;
mod progress;
pub mod replay;
pub mod report;
pub mod reprice;
pub mod revision;
pub mod scaffold;
pub mod session;
pub mod setup;
pub mod suites;
pub mod worker;

pub use error::{Context, Error, Result};
pub use paths::{Build, Lab, Paths};

/// How a command ended, for the exit code (an error is the third way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Ok,
    /// A wrong result, or a missed target that was asked to fail the run.
    Failed,
}
