//! Read-path results: the `eth_getLogs` response-size study ([`LogsStudy`])
//! and an open-loop load of read calls ([`ReadLoad`]).
//!
//! Latencies are in milliseconds (HDR histogram percentiles, as in
//! [`crate::load`]); parse times are nanoseconds per parse.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::load::{LatencyStats, NodeInfo};

/// `eth_getLogs` responses of growing size from one node: how big they
/// are, how long the node takes to answer, and how long parsing them takes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogsStudy {
    /// The node.
    pub node: NodeInfo,
    /// The `Logs` contract the logs came from (0x-hex address); every query
    /// filters on it.
    pub contract: String,
    /// The response-size limit the sizes are checked against, bytes (64 KiB
    /// by default: the Netty `HttpObjectAggregator` limit of the Java SDK
    /// study this reproduces).
    pub body_limit_bytes: u64,
    /// Timed `eth_getLogs` calls per size (after one untimed, verified call).
    pub repeats: u64,
    /// Most logs emitted by one transaction; each transaction waited for its
    /// receipt before the next was sent, so each landed in its own block.
    pub logs_per_tx: u64,
    /// One entry per log count, in the order measured.
    pub sizes: Vec<LogsSize>,
    /// Warnings: responses over the limit, and what was done to keep geth's
    /// log index fast.
    pub notes: Vec<String>,
}

/// One log count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogsSize {
    /// Logs the query returns (and the chain holds in `blocks` for the
    /// contract): exactly this many, checked.
    pub logs: u64,
    /// The queried block range, `[fromBlock, toBlock]`, inclusive.
    pub blocks: [u64; 2],
    /// Transactions that emitted the logs.
    pub txs: u64,
    /// Size of the response body, bytes.
    pub response_bytes: u64,
    /// `response_bytes / logs`.
    pub bytes_per_log: f64,
    /// Whether `response_bytes` exceeds `body_limit_bytes`.
    pub over_limit: bool,
    /// The first, untimed call (cold caches), ms.
    pub first_call_ms: f64,
    /// Latency of the `repeats` timed calls, request sent to last body byte
    /// received, one call at a time, ms.
    pub latency: LatencyStats,
    /// Median time to parse the body into a generic JSON tree
    /// (`serde_json::Value`), including dropping it, ns.
    pub parse_raw_ns: f64,
    /// Median time to parse the body into typed records (the JSON-RPC
    /// envelope with `result: Vec<alloy_rpc_types_eth::Log>`), including
    /// dropping them, ns.
    pub parse_typed_ns: f64,
    /// `parse_typed_ns / parse_raw_ns`.
    pub typed_over_raw: f64,
    /// Parses timed for each of the two medians.
    pub parse_reps: u64,
    /// Every response had exactly `logs` logs, each from the contract with
    /// the `Transfer` topic and the `from`, `to` and `value` its position
    /// implies. Always true in a written result: a wrong response stops the
    /// study with an error instead of being timed.
    pub verified: bool,
}

/// An open-loop load of read calls on a schedule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadLoad {
    /// The node.
    pub node: NodeInfo,
    /// The schedule (`fixed-500tps`, `max-256inflight`, ...).
    pub schedule: String,
    /// Requests planned.
    pub requests: u64,
    /// The methods and their weights.
    pub mix: BTreeMap<String, u32>,
    /// Connections to the node.
    pub connections: u64,
    /// Most requests in flight.
    pub max_in_flight: u64,
    /// The rate the schedule asked for on average, requests/s (absent
    /// under `max`).
    pub intended_rate: Option<f64>,
    /// Requests sent per second, first to last send.
    pub achieved_rate: f64,
    /// Successful replies per second, from the start to the last reply.
    pub completed_rate: f64,
    /// Send lag (actual − intended send time), ms.
    pub lag: LatencyStats,
    /// Requests sent.
    pub sent: u64,
    /// Requests that failed (any method).
    pub errors: u64,
    /// Per JSON-RPC method.
    pub per_method: BTreeMap<String, ReadMethodStats>,
    /// Wall time from the start to the last reply, s.
    pub duration_s: f64,
    /// Warnings (e.g. generator lag).
    pub notes: Vec<String>,
}

/// One JSON-RPC method under read load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadMethodStats {
    /// Requests sent.
    pub n: u64,
    /// Requests that failed: a transport failure, a JSON-RPC error, or a
    /// result that was not what the request must return.
    pub errors: u64,
    /// Failures by class (`timeout`, `invalid_response`, ...).
    pub errors_by_class: BTreeMap<String, u64>,
    /// One failure's message, for people.
    pub first_error: Option<String>,
    /// Latency of the successful requests, from the intended send time to
    /// the last byte of the reply, ms.
    pub latency: LatencyStats,
    /// Mean response size, bytes (successful requests).
    pub mean_response_bytes: f64,
}
