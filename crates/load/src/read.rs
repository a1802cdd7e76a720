//! Read paths: how a node answers the calls wallets, indexers and dapps
//! make, rather than the transactions they send.
//!
//! * [`logs_study`]: `eth_getLogs` responses of 100 to 20 000 ERC-20
//!   `Transfer` logs from the `Logs` contract: response size against a
//!   client's body limit (64 KiB by default, the Java SDK study's Netty
//!   limit), the node's latency, and the cost of parsing the body into a
//!   generic JSON tree against typed records. Every response is checked
//!   log by log before it counts.
//! * [`read_load`]: an open-loop load of `eth_call`, `eth_getBalance`,
//!   `eth_getBlockByNumber` and `eth_getLogs` on a [`Schedule`], latency
//!   measured from each request's intended send time (as [`crate::send`]
//!   does), every reply checked against what the request must return.
//!
//! Both deploy their own contracts from a deterministic key derived from
//! the run's seed (index `u64::MAX - 1`; the lab's deployer is
//! `u64::MAX`), funded from the node's unlocked account or the funder key.

use std::collections::BTreeMap;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use alloy_consensus::TxEip1559;
use alloy_primitives::{Address, B256, Bytes, TxKind, U64, U256, keccak256};
use alloy_rpc_types_eth::Log;
use dyno_eth::signer::Signer;
use dyno_format::read::{LogsSize, LogsStudy, ReadLoad, ReadMethodStats};
use dyno_rpc::{Client, ClientOptions, RawResponse, RpcError};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::json;

use crate::chain::{self, ChainError, SetupTx};
use crate::drive::{Connected, LoadError, Options};
use crate::schedule::Schedule;
use crate::summary;
use crate::txs::Fees;

mod load;
mod logs;
pub use load::*;
pub use logs::*;

#[cfg(test)]
mod tests;
