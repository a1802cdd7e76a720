//! The tracker: follows the chain while the load runs, recording when
//! each block first appears and when the `safe` and `finalized` tags
//! advance. Matching transactions to blocks happens afterwards
//! ([`crate::summary::settle`]), so the hot loop only fetches blocks.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use alloy_primitives::B256;
use dyno_rpc::Client;
use serde::Deserialize;
use serde_json::json;

use crate::record::{BlockSeen, Mark};

/// What the tracker has seen so far.
#[derive(Debug, Default)]
pub struct Seen {
    /// Blocks after the start block, in order.
    pub blocks: Vec<BlockSeen>,
    /// Every transaction hash in them.
    pub hashes: HashSet<B256>,
    /// Head progress.
    pub head: Vec<Mark>,
    /// `safe` progress (empty if the node has no such tag).
    pub safe: Vec<Mark>,
    /// `finalized` progress (empty if the node has no such tag).
    pub finalized: Vec<Mark>,
    /// Tags the node refused, with its answer.
    pub unsupported: Vec<String>,
    /// Consecutive failed polls (the node may be gone).
    pub failures: u32,
    /// The last poll error.
    pub last_error: Option<String>,
}

/// A block as `eth_getBlockByNumber(n, false)` returns it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RpcBlock {
    /// Number (hex quantity).
    pub number: alloy_primitives::U64,
    /// Timestamp.
    pub timestamp: alloy_primitives::U64,
    /// Gas used.
    pub gas_used: alloy_primitives::U64,
    /// Gas limit.
    pub gas_limit: alloy_primitives::U64,
    /// Base fee.
    pub base_fee_per_gas: Option<alloy_primitives::U128>,
    /// Blob gas used (from Cancun).
    pub blob_gas_used: Option<alloy_primitives::U64>,
    /// Excess blob gas (from Cancun).
    pub excess_blob_gas: Option<alloy_primitives::U64>,
    /// Transaction hashes.
    pub transactions: Vec<B256>,
}

impl RpcBlock {
    fn seen(self, seen_ns: u64) -> BlockSeen {
        BlockSeen {
            number: self.number.to(),
            seen_ns,
            timestamp: self.timestamp.to(),
            gas_used: self.gas_used.to(),
            gas_limit: self.gas_limit.to(),
            base_fee: self.base_fee_per_gas.map(|b| b.to()),
            blob_gas_used: self.blob_gas_used.map(|b| b.to()),
            excess_blob_gas: self.excess_blob_gas.map(|b| b.to()),
            tx_count: self.transactions.len(),
            ours: 0,
            txs: self.transactions,
        }
    }
}

/// Fetch blocks `from..=to` in JSON-RPC batches of at most 100.
pub async fn fetch_blocks(client: &Client, from: u64, to: u64) -> Result<Vec<RpcBlock>, String> {
    let mut out = Vec::new();
    let mut n = from;
    while n <= to {
        let end = to.min(n + 99);
        let calls: Vec<(&str, serde_json::Value)> = (n..=end)
            .map(|k| ("eth_getBlockByNumber", json!([format!("{k:#x}"), false])))
            .collect();
        let replies = client.batch(&calls).await.map_err(|e| e.to_string())?;
        for (k, r) in (n..=end).zip(replies) {
            let v = r.map_err(|e| format!("block {k}: {e}"))?;
            if v.is_null() {
                return Err(format!("block {k} is not known to the node"));
            }
            out.push(serde_json::from_value(v).map_err(|e| format!("block {k}: {e}"))?);
        }
        n = end + 1;
    }
    Ok(out)
}

/// The number of the block a tag (`latest`, `safe`, `finalized`) names, or
/// `None` if the node has no such block yet.
pub async fn tag_number(client: &Client, tag: &str) -> Result<Option<u64>, dyno_rpc::RpcError> {
    #[derive(Deserialize)]
    struct N {
        number: alloy_primitives::U64,
    }
    let b: Option<N> = client
        .call("eth_getBlockByNumber", json!([tag, false]))
        .await?;
    Ok(b.map(|b| b.number.to()))
}

/// Follow the chain from `start_block` (exclusive) until `stop` is set,
/// polling every `poll`, tags every fifth poll.
pub async fn follow(
    client: Client,
    start_block: u64,
    t0: Instant,
    poll: Duration,
    seen: Arc<Mutex<Seen>>,
    stop: Arc<AtomicBool>,
) {
    let ns = move || t0.elapsed().as_nanos() as u64;
    let mut last = start_block;
    let mut tags: Vec<&str> = vec!["safe", "finalized"];
    let mut tick = 0u64;
    let mut ticker = tokio::time::interval(poll);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticker.tick().await;
        if stop.load(Ordering::Relaxed) {
            break;
        }
        tick += 1;
        let head = client
            .call::<alloy_primitives::U64>("eth_blockNumber", json!([]))
            .await;
        let head = match head {
            Ok(h) => h.to::<u64>(),
            Err(e) => {
                let mut s = seen.lock().unwrap_or_else(|p| p.into_inner());
                s.failures += 1;
                s.last_error = Some(e.to_string());
                continue;
            }
        };
        if head > last {
            match fetch_blocks(&client, last + 1, head).await {
                Ok(blocks) => {
                    let t = ns();
                    let mut s = seen.lock().unwrap_or_else(|p| p.into_inner());
                    s.failures = 0;
                    s.head.push(Mark {
                        t_ns: t,
                        number: head,
                    });
                    for b in blocks {
                        s.hashes.extend(b.transactions.iter().copied());
                        s.blocks.push(b.seen(t));
                    }
                    last = head;
                }
                Err(e) => {
                    let mut s = seen.lock().unwrap_or_else(|p| p.into_inner());
                    s.failures += 1;
                    s.last_error = Some(e);
                    continue;
                }
            }
        }
        if tick % 5 == 1 {
            let mut keep = Vec::new();
            for tag in tags {
                match tag_number(&client, tag).await {
                    Ok(Some(n)) => {
                        let t = ns();
                        let mut s = seen.lock().unwrap_or_else(|p| p.into_inner());
                        let marks = if tag == "safe" {
                            &mut s.safe
                        } else {
                            &mut s.finalized
                        };
                        if marks.last().is_none_or(|m| m.number < n) {
                            marks.push(Mark { t_ns: t, number: n });
                        }
                        keep.push(tag);
                    }
                    Ok(None) => keep.push(tag),
                    Err(e @ dyno_rpc::RpcError::Rpc { .. }) => {
                        let mut s = seen.lock().unwrap_or_else(|p| p.into_inner());
                        s.unsupported.push(format!(
                            "the node does not support the `{tag}` block tag ({e})"
                        ));
                    }
                    Err(_) => keep.push(tag),
                }
            }
            tags = keep;
        }
    }
}
