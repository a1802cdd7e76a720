//! One load run against one node: prepare (accounts, contracts, fees, gas),
//! pre-sign, measure the generator's ceiling, send on the schedule while
//! following the chain and the node's CPU and memory, wait for inclusion
//! and finality, check the count against a scan of the chain, summarise.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use alloy_primitives::{Address, B256, Bytes, TxKind, U256};
use dyno_eth::signer::Signer;
use dyno_format::load::{
    ChainScan, FeeInfo, GeneratorInfo, LoadResult, NodeInfo, OnChain, SigningInfo,
};
use dyno_rpc::{Client, ClientOptions, Endpoint};

use crate::chain::{self, ChainError, Funder, SetupTx};
use crate::onchain;
use crate::procstat::ProcSampler;
use crate::record::{Mark, TxRecord};
use crate::schedule::Schedule;
use crate::send::{self, Outgoing, Progress};
use crate::summary;
use crate::track::{self, Seen};
use crate::txs::{self, Fees, GasLimits, Kind, Mix, SignedTx, SigningReport, Targets};
use dyno_node::{self as node, LocalNode};

mod connect;
mod phase;
mod prepare;
mod presign;
mod self_test;
pub use connect::*;
pub use phase::*;
pub use prepare::*;
pub use presign::*;
pub use self_test::*;

/// Where the load goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// Start a dev node installed in `home` (by `dyno setup NAME`).
    Start(node::Kind, PathBuf),
    /// Start a client from a command line; its RPC answers at `url`.
    Cmd {
        /// Shell command line (`{datadir}` and `{port}` are filled in).
        cmd: String,
        /// RPC URL (`{port}` filled in).
        url: String,
    },
    /// A node already running.
    Rpc(String),
}

impl Target {
    /// The name in results.
    pub fn name(&self) -> String {
        match self {
            Target::Start(k, _) => k.as_str().into(),
            Target::Cmd { .. } => "cmd".into(),
            Target::Rpc(_) => "rpc".into(),
        }
    }
}

/// Who signs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignerMode {
    /// dyno pre-signs; `eth_sendRawTransaction`.
    Client,
    /// The node signs for its unlocked account; `eth_sendTransaction`.
    Node,
}

impl SignerMode {
    /// `client` or `node`.
    pub fn as_str(self) -> &'static str {
        match self {
            SignerMode::Client => "client",
            SignerMode::Node => "node",
        }
    }
}

/// Everything a load run needs to know.
#[derive(Debug, Clone)]
pub struct Options {
    /// Transactions per run.
    pub txs: usize,
    /// Sending accounts.
    pub accounts: usize,
    /// The schedule.
    pub schedule: Schedule,
    /// The schedule as given.
    pub schedule_text: String,
    /// Kinds and ratios.
    pub mix: Mix,
    /// A name for the workload in ids (`transfer`, `mix`, ...).
    pub workload_name: String,
    /// Seconds between blocks for started dev nodes.
    pub block_time: u64,
    /// Seed of the account keys.
    pub seed: String,
    /// maxPriorityFeePerGas, wei.
    pub tip_wei: u128,
    /// maxFeePerGas, wei; `None`: max(100 gwei, 10 × base fee) + tip.
    pub max_fee_wei: Option<u128>,
    /// Connections to the node.
    pub connections: usize,
    /// Most requests in flight under an open-loop schedule.
    pub open_loop_cap: usize,
    /// A send later than this is late.
    pub lag_threshold: Duration,
    /// How long to wait for inclusion after the last send, and after each
    /// new inclusion.
    pub inclusion_timeout: Duration,
    /// How long to wait for the `finalized` tag to pass the last inclusion
    /// (zero: do not wait).
    pub finality_timeout: Duration,
    /// Tracker poll interval.
    pub poll: Duration,
    /// One request's time limit.
    pub request_timeout: Duration,
    /// Where the compiled contracts are.
    pub contracts: PathBuf,
    /// A funded key for targets without an unlocked account.
    pub funder_key: Option<B256>,
    /// Signing threads (0: all cores).
    pub threads: usize,
    /// Requests for the null-sink self-test (0: skip it).
    pub self_test_requests: usize,
    /// The node's Prometheus endpoint, for a node dyno did not start (a
    /// started geth serves its own).
    pub metrics_url: Option<String>,
    /// Seconds between scrapes of the node's metrics.
    pub metrics_interval: Duration,
    /// A genesis JSON to start a dev geth on (`dyno load --record`),
    /// instead of geth's own dev genesis; it turns geth's `debug` API on.
    pub genesis: Option<String>,
}

/// Why a load run could not be done at all.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// Starting the node failed.
    #[error(transparent)]
    Node(#[from] node::NodeError),
    /// An RPC step outside the timed phase failed.
    #[error(transparent)]
    Chain(#[from] ChainError),
    /// The endpoint is not usable.
    #[error(transparent)]
    Rpc(#[from] dyno_rpc::RpcError),
    /// Something else, said plainly.
    #[error("{0}")]
    Other(String),
}

/// A finished (or cut short) run: its summary and raw data.
#[derive(Debug)]
pub struct Outcome {
    /// The summary for the result file.
    pub result: LoadResult,
    /// One record per planned transaction.
    pub records: Vec<TxRecord>,
    /// Head progress.
    pub head: Vec<Mark>,
    /// Safe progress.
    pub safe: Vec<Mark>,
    /// Finalized progress.
    pub finalized: Vec<Mark>,
    /// The node's metrics, every scrape, when it serves them.
    pub scraped: Option<crate::scrape::Scraped>,
}
