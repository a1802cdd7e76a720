//! Block replay into a real client (`dyno replay`): each block's own
//! record beside the result's samples, and the paired comparison of two
//! clients (A/B, or A/A as the method's check).
//!
//! A replay result is an ordinary [`crate::BenchResult`] (`client/newpayload/
//! <class>`, mode `single`, one sample per measured block, in `ns` of
//! `engine_newPayload` as dyno timed it); its `blocks` list says, in the
//! same order, which block each sample was, how long the forkchoice update
//! took, and what the client itself logged about the block.

use serde::{Deserialize, Serialize};

/// One measured block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Block {
    /// Which run of this implementation (0, 1, ... in the order run; an
    /// A/B pairs A's run k with B's run k).
    pub run: u32,
    /// The block's number.
    pub number: u64,
    /// Its hash, `0x`-hex.
    pub hash: String,
    /// Gas used.
    pub gas_used: u64,
    /// Transactions in it.
    pub transactions: u64,
    /// `engine_newPayload` from dyno's side: first byte written to last
    /// byte read (the block's sample).
    pub new_payload_ns: u64,
    /// `engine_forkchoiceUpdated` making it the head, from dyno's side.
    pub forkchoice_ns: u64,
    /// The client's own log entry for the block (geth and the other
    /// clients' cross-client "slow block" JSON, fields as the client names
    /// them: `timing.execution_ms`, `timing.state_read_ms`, ...), joined
    /// by hash; absent if the client logged none for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_log: Option<serde_json::Value>,
    /// The round of `dyno gas --blocks` it was sent in (1, 2, ...); absent
    /// for a warm-up block and outside `gas --blocks`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
}

impl Block {
    /// Million gas per second of `engine_newPayload`.
    pub fn mgas_per_s(&self) -> f64 {
        if self.new_payload_ns == 0 {
            return 0.0;
        }
        self.gas_used as f64 / self.new_payload_ns as f64 * 1e3
    }

    /// A number from the client's log, by its path (`timing.total_ms`).
    pub fn logged(&self, path: &str) -> Option<f64> {
        let mut v = self.client_log.as_ref()?;
        for key in path.split('.') {
            v = v.get(key)?;
        }
        v.as_f64()
    }
}

/// Two clients' replays of the same blocks, in interleaved runs, compared
/// block by block within each pair of runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Comparison {
    /// The benchmark id both sides' results carry.
    pub id: String,
    /// Side A's implementation name (its results' `implementation.name`).
    pub a: String,
    /// Side B's.
    pub b: String,
    /// The order the runs were made in, e.g. `ABBAAB`.
    pub order: String,
    /// Per pair of runs: the median over the class's blocks of
    /// ln(B's time / A's time), the pair's statistic.
    pub pair_log_ratios: Vec<f64>,
    /// B's time relative to A's (B / A - 1): the geometric mean over pairs.
    pub delta: f64,
    /// Its confidence interval (as `delta`).
    pub delta_low: f64,
    /// Upper end.
    pub delta_high: f64,
    /// The interval's confidence level (simultaneous over the compared ids).
    pub level: f64,
    /// A difference smaller than this (relative) is no difference.
    pub floor: f64,
    /// `faster`, `slower` (B against A) or `no difference`.
    pub verdict: String,
}

/// One start of a client, for one replay of a block set: how it ran and
/// what its process used (read from `/proc` when its Engine API first
/// answered and after the last block), and the Prometheus series of its
/// own metrics that changed over the replay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientRun {
    /// The implementation name its results carry.
    pub implementation: String,
    /// The block set.
    pub set: String,
    /// Which replay of this implementation (as `Block::run`).
    pub run: u32,
    /// The client's version.
    pub version: String,
    /// Its command line, as a template (`{folder}`, `<dyno cache>`).
    pub command: String,
    /// Blocks it accepted.
    pub blocks: u64,
    /// Wall time from its first answer to the last block, seconds.
    pub wall_s: f64,
    /// CPU time it used in that window, seconds (user + system).
    pub cpu_s: Option<f64>,
    /// Its peak resident memory (the kernel's high-water mark), bytes.
    pub rss_peak_bytes: Option<u64>,
    /// Bytes it made the storage layer read and write in the window.
    pub io_read_bytes: Option<u64>,
    /// Written.
    pub io_write_bytes: Option<u64>,
    /// Its Prometheus series that changed in the window: `[before, after]`.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub metrics: std::collections::BTreeMap<String, [f64; 2]>,
    /// Why the metrics are missing, if they are (a client without them, a
    /// scrape that failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics_missing: Option<String>,
    /// The fork the set's genesis turns on (`osaka`, `prague`): dyno's sets
    /// are made under the newest fork every client of the run has; absent
    /// for a chain folder whose genesis names none dyno knows, and in
    /// results from before it was recorded (Osaka).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fork: Option<String>,
}
