//! The lab session between the specs and the runner: where dyno's data
//! lives ([`paths`]), which implementations a run selects and the adapters
//! it starts for the other runtimes ([`adapters`]), and the cases every
//! built-in suite hands those adapters ([`cases`]). The `dyno` binary parses
//! arguments and renders; what a run is lives here.

pub mod adapters;
pub mod cases;
pub mod paths;
