//! Load from several machines at once, the way Hyperledger Caliper runs
//! it: an orchestrator (`dyno load --fleet`) and workers (`dyno join
//! --broker`) that meet on an MQTT broker.
//!
//! The broker carries control only: who is there, the clocks, each
//! worker's plan (its accounts and its share of the one schedule), the
//! start, the stop, and each worker's raw send records as it goes. Each
//! worker pre-signs its own share from its own accounts and sends it to its
//! node on the common schedule; the orchestrator follows the chain, merges
//! every worker's raw records into one run and computes every figure from
//! the merged records (never from the workers' own summaries). Every
//! message is sealed under the fleet's key ([`seal`]): a broker client
//! without it can neither command a worker nor forge a record.

pub mod broker;
pub mod clock;
pub mod login;
pub mod merge;
pub mod orchestrator;
pub mod seal;
pub mod wire;
pub mod worker;

pub use broker::Broker;

/// The fleet protocol's version: a worker and an orchestrator must agree
/// on it (and on dyno's version). 2: every message sealed under the
/// fleet's key ([`seal`]).
pub const PROTOCOL: u32 = 2;

/// What went wrong in a fleet.
#[derive(Debug, thiserror::Error)]
pub enum FleetError {
    /// `mqtt://HOST:PORT[/NAME]` was not given.
    #[error(
        "{given:?}: {reason}; write mqtt://HOST:PORT or mqtt://HOST:PORT/NAME (mqtts:// for TLS; NAME keeps fleets on one broker apart; default `dyno`)"
    )]
    BadUrl {
        /// What was given.
        given: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No broker answered.
    #[error(
        "cannot reach the MQTT broker at {url}: {reason}\n  start one on this machine with `dyno setup mosquitto` (it listens on 127.0.0.1:1883), or pass the address of the broker your machines share"
    )]
    Unreachable {
        /// The broker.
        url: String,
        /// Why.
        reason: String,
    },
    /// The broker connection ended.
    #[error("lost the MQTT broker at {url}: {reason}")]
    BrokerLost {
        /// The broker.
        url: String,
        /// Why.
        reason: String,
    },
    /// A worker cannot be used, named.
    #[error("worker {worker}: {reason}")]
    Worker {
        /// Its name.
        worker: String,
        /// Why.
        reason: String,
    },
    /// Too few workers came.
    #[error("{0}")]
    Gather(String),
    /// The orchestrator refused this worker.
    #[error("the orchestrator refused this worker ({worker}): {reason}")]
    Refused {
        /// This worker's name.
        worker: String,
        /// What it said.
        reason: String,
    },
    /// Interrupted by a signal.
    #[error("interrupted")]
    Interrupted,
    /// Anything else, said plainly.
    #[error("{0}")]
    Other(String),
}
