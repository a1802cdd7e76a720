//! Load-lab results: one [`LoadResult`] per node and signing mode in a run.
//!
//! The raw data is the per-transaction CSV beside the JSON (`csv` names it);
//! this is its summary. Latencies are measured from each transaction's
//! intended send time, in milliseconds.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A load run against one node, with one signing mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadResult {
    /// `load/<workload>/<schedule>`, e.g. `load/transfer/fixed-500tps`.
    pub id: String,
    /// The node.
    pub node: NodeInfo,
    /// `client` (eth_sendRawTransaction of pre-signed transactions) or
    /// `node` (eth_sendTransaction from the node's unlocked account).
    pub signer: String,
    /// The workload: kinds and their weights.
    pub workload: BTreeMap<String, u32>,
    /// The schedule as given (`500`, `ramp:100..2000/30s`, `max:256`).
    pub schedule: String,
    /// Transactions planned.
    pub planned: u64,
    /// Sending accounts.
    pub accounts: u64,
    /// The fee strategy, stated.
    pub fees: FeeInfo,
    /// Gas limit per kind.
    pub gas_limits: BTreeMap<String, u64>,
    /// Pre-signing throughput (client-signed only).
    pub signing: Option<SigningInfo>,
    /// How the generator kept up with its schedule.
    pub generator: GeneratorInfo,
    /// Where every transaction ended.
    pub counts: Counts,
    /// Transactions per second.
    pub throughput: Throughput,
    /// Latency from the intended send time to each stage.
    pub latency: BTreeMap<String, LatencyStats>,
    /// The independent check: transactions of this run found by scanning
    /// the chain's blocks afterwards, which must equal `counts.included`.
    pub chain_scan: Option<ChainScan>,
    /// Blocks produced during the run.
    pub blocks: Vec<BlockInfo>,
    /// Block summary.
    pub block_summary: Option<BlockSummary>,
    /// The node's CPU and memory, when it ran on this machine.
    pub resources: Option<Resources>,
    /// Files written beside the JSON: `csv`, `plots`.
    pub files: BTreeMap<String, String>,
    /// Wall time of the timed phase and the wait for inclusion/finality.
    pub duration_s: f64,
    /// False when the run was cut short; the data up to then is kept.
    pub complete: bool,
    /// Why it is incomplete.
    pub incomplete_reason: Option<String>,
    /// Warnings (e.g. a block tag the node does not support).
    pub notes: Vec<String>,
    /// What the chain shows of the included transactions, kind by kind
    /// (receipt types, blob gas, delegations); absent from results written
    /// before dyno checked it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub onchain: Option<OnChain>,
    /// The node's own metrics (Prometheus) scraped during the run, the raw
    /// series in a file beside the result (`files.metrics`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_metrics: Option<NodeMetrics>,
    /// A fleet run (`dyno load --fleet`): its workers, their clocks and
    /// their share; absent for a run from one machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fleet: Option<FleetInfo>,
}

/// The on-chain check of a run's included transactions: each receipt's
/// type is its kind's, a blob transaction's blob gas is its blobs', a
/// set-code transaction's authority holds the delegation and the slot
/// written through it, an access-list transaction's slot is written.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnChain {
    /// Included transactions checked.
    pub checked: u64,
    /// Receipts by EIP-2718 type (`0` legacy ... `4` set-code).
    pub by_type: BTreeMap<String, u64>,
    /// Blob transactions checked.
    pub blob_txs: u64,
    /// Blobs they carried.
    pub blobs: u64,
    /// Blob gas their receipts show, in all.
    pub blob_gas_used: u64,
    /// Set-code authorities whose code is the delegation (`0xef0100 ‖
    /// Store`) and whose slot holds what the call wrote.
    pub delegations: u64,
    /// Storage slots read back (access-list and set-code writes).
    pub slots: u64,
    /// Checks that failed.
    pub failures: u64,
    /// The first failures, said.
    pub problems: Vec<String>,
}

/// The node's metrics during a run: where they came from and the series
/// that explain a run (rates for counters, values for gauges).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeMetrics {
    /// The Prometheus URL scraped.
    pub url: String,
    /// Seconds between scrapes.
    pub interval_s: f64,
    /// Scrapes that answered.
    pub scrapes: u64,
    /// Scrapes that failed.
    pub failed: u64,
    /// Metric names in the raw file.
    pub metrics: u64,
    /// The chosen series by name: `[t_s, value]` points, `t_s` from the
    /// start of the timed phase.
    pub series: BTreeMap<String, Vec<[f64; 2]>>,
}

/// The node under load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeInfo {
    /// `geth`, `anvil`, `hardhat`, `cmd` or `rpc`.
    pub name: String,
    /// What the node says of itself (`web3_clientVersion`) or its binary.
    pub version: String,
    /// The command line dyno started it with (absent for `--rpc`).
    pub command: Vec<String>,
    /// The RPC URL.
    pub url: String,
    /// Chain id.
    pub chain_id: u64,
    /// Whether dyno started the node (and so can read its CPU and RSS).
    pub local: bool,
}

/// The fee every transaction offered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeeInfo {
    /// How the fees were chosen.
    pub strategy: String,
    /// Base fee of the latest block when the fees were fixed, wei.
    pub base_fee_at_start: u128,
    /// maxFeePerGas, wei.
    pub max_fee_per_gas: u128,
    /// maxPriorityFeePerGas, wei.
    pub max_priority_fee_per_gas: u128,
}

/// Pre-signing throughput, serial and parallel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SigningInfo {
    /// Transactions signed serially for the serial figure.
    pub serial_txs: u64,
    /// Serial tx/s.
    pub serial_tx_per_s: f64,
    /// Serial µs per transaction.
    pub serial_us_per_tx: f64,
    /// Threads in the parallel run.
    pub threads: u64,
    /// Transactions signed in parallel.
    pub parallel_txs: u64,
    /// Parallel tx/s.
    pub parallel_tx_per_s: f64,
    /// Parallel tx/s per thread.
    pub per_core_tx_per_s: f64,
    /// Bare libsecp256k1 recoverable signatures per second, one thread.
    pub libsecp256k1_sign_per_s: f64,
    /// serial_tx_per_s / libsecp256k1_sign_per_s, measured in interleaved
    /// rounds: the cost of building, hashing and encoding on top of the
    /// signature, on one core.
    pub fraction_of_libsecp256k1: f64,
}

/// The generator: its lag behind the schedule and its own ceiling.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeneratorInfo {
    /// The rate the schedule asked for on average, tx/s (absent under `max`).
    pub intended_rate: Option<f64>,
    /// The rate requests actually went out at, tx/s.
    pub achieved_send_rate: f64,
    /// Send lag (actual − intended send time), ms.
    pub lag: LatencyStats,
    /// Lag above which a send counts as late, ms.
    pub lag_threshold_ms: f64,
    /// Fraction of sends later than the threshold.
    pub late_fraction: f64,
    /// True when more than 1% of sends were late: the generator, not the
    /// node, limited the run, and its latencies understate nothing but its
    /// rate is not the schedule's.
    pub saturated: bool,
    /// Requests in flight at most.
    pub max_in_flight: u64,
    /// Connections to the node.
    pub connections: u64,
    /// The null-sink ceiling measured just before, requests/s.
    pub self_test_rate: Option<f64>,
}

/// Where every transaction ended.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counts {
    /// Requests written.
    pub submitted: u64,
    /// Replies with a transaction hash.
    pub accepted: u64,
    /// Replies with an error, or no reply.
    pub rejected: u64,
    /// Rejections by class (`nonce_too_low`, `timeout`, ...).
    pub rejected_by_class: BTreeMap<String, u64>,
    /// Accepted and found in a block.
    pub included: u64,
    /// Of the included, reached by the `safe` tag before the end.
    pub safe: u64,
    /// Of the included, reached by the `finalized` tag before the end.
    pub finalized: u64,
    /// Accepted, not included, still in the node's pool at the end.
    pub pending: u64,
    /// Accepted, not included, unknown to the node at the end.
    pub dropped: u64,
    /// Never sent (the run stopped first).
    pub not_sent: u64,
    /// Included transactions whose receipt says they reverted.
    pub reverted: u64,
}

/// Throughput of inclusions, tx/s.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Throughput {
    /// The best 1 s window of inclusions.
    pub peak_1s: f64,
    /// Included over the time from the first intended send to the last
    /// inclusion.
    pub average: f64,
    /// Included after the first block holding this run's transactions,
    /// over the time from that block to the last: the steady rate, free of
    /// the start-up gap before the first block.
    pub sustained: f64,
    /// Sent per second over the sending phase.
    pub sent_average: f64,
    /// Per 1 s window: `[start_s, sent, included]`.
    pub windows: Vec<[f64; 3]>,
}

/// Latency percentiles from an HDR histogram (3 significant digits), ms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LatencyStats {
    /// Values.
    pub n: u64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Largest.
    pub max: f64,
    /// Mean (for reference only).
    pub mean: f64,
    /// 95% distribution-free confidence interval of the median, ms.
    pub p50_ci: Option<crate::Interval>,
}

/// The independent count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainScan {
    /// First block scanned.
    pub from_block: u64,
    /// Last block scanned.
    pub to_block: u64,
    /// This run's transactions found in them.
    pub found: u64,
    /// Whether `found` equals `counts.included`.
    pub matches: bool,
}

/// One block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockInfo {
    /// Number.
    pub number: u64,
    /// When dyno first saw it, s since the start.
    pub seen_s: f64,
    /// Its timestamp.
    pub timestamp: u64,
    /// Transactions in it.
    pub txs: u64,
    /// Of which this run's.
    pub ours: u64,
    /// Gas used.
    pub gas_used: u64,
    /// Gas limit.
    pub gas_limit: u64,
    /// Base fee, wei.
    pub base_fee: Option<u128>,
    /// Blob gas used (from Cancun).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob_gas_used: Option<u64>,
    /// Excess blob gas (from Cancun).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excess_blob_gas: Option<u64>,
    /// Blob base fee, wei: from the excess and the fork's update fraction
    /// (`eth_config`), else from this run's blob receipts in the block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob_base_fee: Option<u128>,
}

/// Blocks at a glance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockSummary {
    /// Blocks produced during the run.
    pub blocks: u64,
    /// Mean gas used / gas limit over blocks with this run's transactions.
    pub mean_gas_fill: f64,
    /// Most transactions in one block.
    pub max_txs: u64,
    /// Mean transactions per block (blocks with this run's transactions).
    pub mean_txs: f64,
    /// Median interval between block timestamps, s.
    pub median_interval_s: f64,
}

/// The node process, sampled from /proc.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Resources {
    /// Samples taken.
    pub samples: u64,
    /// Mean CPU over the run, % of one core.
    pub cpu_mean_pct: f64,
    /// Highest CPU in one sampling interval, % of one core.
    pub cpu_max_pct: f64,
    /// Peak resident memory, bytes.
    pub rss_max_bytes: u64,
    /// Resident memory at the end, bytes.
    pub rss_end_bytes: u64,
    /// `[t_s, cpu_pct, rss_bytes]` per sample.
    pub series: Vec<[f64; 3]>,
}

/// A load run sent by several workers through a broker. The run's counts,
/// latencies and throughput above come from every worker's raw records,
/// merged; this is the breakdown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FleetInfo {
    /// The broker, without credentials (`mqtt://host:port/name`).
    pub broker: String,
    /// Latency resolution the clocks are held to, ms (the tracker's poll
    /// interval).
    pub resolution_ms: f64,
    /// The generator ceiling of all workers measured at the same moment,
    /// each against its own null sink: the sum of their rates, requests/s.
    pub self_test_total: Option<f64>,
    /// One entry per worker.
    pub workers: Vec<WorkerInfo>,
}

/// One worker of a fleet run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkerInfo {
    /// Its name on the broker.
    pub name: String,
    /// Its host name.
    pub host: String,
    /// dyno's version there.
    pub version: String,
    /// Its operating system and architecture.
    pub runtime: String,
    /// Its cores.
    pub cores: u64,
    /// The node it sent to (redacted).
    pub target: String,
    /// Its first sender's index.
    pub first_account: u64,
    /// Its senders, from `first_account` on.
    pub accounts: u64,
    /// Transactions in its share.
    pub planned: u64,
    /// Requests it reported sent.
    pub sent: u64,
    /// Of those, accepted by the node.
    pub accepted: u64,
    /// Of those, refused by the node.
    pub rejected: u64,
    /// Of those accepted, in a block, as the orchestrator's tracker saw.
    pub included: u64,
    /// Its send rate, tx/s.
    pub sent_rate: f64,
    /// Its included rate, tx/s (included over the run's included span).
    pub included_rate: f64,
    /// Its send lag (actual − intended send time), ms.
    pub lag: LatencyStats,
    /// Its null-sink ceiling, requests/s, measured beside the others'.
    pub self_test_rate: Option<f64>,
    /// Its clock against the orchestrator's before the start.
    pub clock_before: Option<ClockOffset>,
    /// And after the end (absent for a worker lost before it).
    pub clock_after: Option<ClockOffset>,
    /// `done`, `stopped` (asked to stop), `lost` (its connection to the
    /// broker ended: MQTT's last will) or `silent` (no end state in time).
    pub end: String,
    /// What it said at the end, or why it was lost.
    pub detail: Option<String>,
}

/// A clock offset estimated over the broker: the worker's clock minus the
/// orchestrator's, from the exchange with the shortest round trip.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockOffset {
    /// Worker − orchestrator, ms.
    pub offset_ms: f64,
    /// Half that round trip, ms: the true offset lies within ± this.
    pub uncertainty_ms: f64,
    /// Exchanges made.
    pub samples: u64,
}
