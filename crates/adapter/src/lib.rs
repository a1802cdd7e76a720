//! Other runtimes' implementations, measured in their own processes.
//!
//! - [`Adapter`]: one runtime's adapter folder (`adapters/<runtime>/`) and
//!   its installed worker (`<cache>/adapters/<runtime>/run`): set-up,
//!   staleness, start.
//! - [`Worker`]: a running worker and the request/reply exchange of the
//!   adapter protocol, with time limits and the last lines of its stderr
//!   for error messages.
//! - [`Offers`]: what a worker offers, kept in its folder's `offers.json`
//!   so it can be listed before it is installed.
//! - [`Pool`]: the worker a runtime's benchmarks share, restarted for
//!   every benchmark family when the runtime compiles as it runs (JIT), and
//!   after a crash.
//! - [`AdapterWorkload`]: a benchmark run by a worker, as a
//!   [`dyno_workload::Workload`] the engine measures like any other, on the
//!   worker's own clock.

mod adapter;
mod offers;
mod pool;
mod worker;
mod workload;

pub use adapter::{
    Adapter, AdapterError, Launch, RUNTIME_MISSING, SETUP_LIMIT, SETUP_LIMIT_VAR, SetupError,
    discover, discover_into, source_files,
};
pub use offers::{OFFERS_FILE, Offers, OffersError};
pub use pool::Pool;
pub use worker::{HELLO_LIMIT, TEST_REPLY_LIMIT, Worker, WorkerError};
pub use workload::{AdapterWorkload, Checker, Limits, PREPARE_LIMIT, RUN_LIMIT};
