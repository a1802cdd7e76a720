//! How dyno measures: clock calibration, the timing engine, allocation
//! counting and environment capture. Statistics come from `dyno-stats`;
//! workloads implement `dyno_workload::Workload`.

pub mod alloc;
pub mod clock;
pub mod engine;
pub mod env;
mod memory;
pub mod noise;
pub mod rounds;

pub use alloc::CountingAlloc;
pub use engine::{Engine, Measurement, measure_harness, settings};
pub mod session;
pub mod slowdown;
pub use session::{Invocation, Job, Progress, execute, new_run, now_rfc3339};
