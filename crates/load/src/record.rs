//! What happened to each transaction, and to the chain, during a run.
//!
//! Every time is nanoseconds since the run's start (`t0`, the first
//! intended send), from one monotonic clock.

use alloy_primitives::B256;
use serde::{Deserialize, Serialize};

use crate::txs::Kind;

/// How a transaction ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Never sent: the run stopped first.
    NotSent,
    /// The node refused it (the class says why).
    Rejected,
    /// Accepted, but not in a block when the run ended, and still known to
    /// the node (in its pool).
    Pending,
    /// Accepted, then gone: not in a block and unknown to the node.
    Dropped,
    /// In a block.
    Included,
    /// In a block at or below the node's `safe` block.
    Safe,
    /// In a block at or below the node's `finalized` block.
    Finalized,
}

impl Status {
    /// The name in CSV and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::NotSent => "not_sent",
            Status::Rejected => "rejected",
            Status::Pending => "pending",
            Status::Dropped => "dropped",
            Status::Included => "included",
            Status::Safe => "safe",
            Status::Finalized => "finalized",
        }
    }
}

/// One transaction's lifecycle.
#[derive(Debug, Clone, PartialEq)]
pub struct TxRecord {
    /// Position in the schedule.
    pub index: u64,
    /// What it does.
    pub kind: Kind,
    /// Sender index (client-signed) or `None` (node-signed).
    pub sender: Option<usize>,
    /// Nonce, when dyno chose it.
    pub nonce: Option<u64>,
    /// The hash dyno computed (client-signed) or the node returned.
    pub hash: Option<B256>,
    /// Intended send time (the schedule's), or the send time under `max`.
    pub intended_ns: u64,
    /// When the request was written.
    pub sent_ns: Option<u64>,
    /// When the node's reply arrived (accepted or rejected).
    pub replied_ns: Option<u64>,
    /// Error class of a rejection (`nonce_too_low`, `timeout`, ...).
    pub error_class: Option<String>,
    /// The node's error message, verbatim.
    pub error: Option<String>,
    /// The block it was included in.
    pub block: Option<u64>,
    /// When dyno first saw that block as the head.
    pub included_ns: Option<u64>,
    /// When dyno first saw the `safe` tag reach that block.
    pub safe_ns: Option<u64>,
    /// When dyno first saw the `finalized` tag reach that block.
    pub finalized_ns: Option<u64>,
    /// Where it ended.
    pub status: Status,
}

impl TxRecord {
    /// A transaction not yet sent.
    pub fn planned(index: u64, kind: Kind, sender: Option<usize>, nonce: Option<u64>) -> Self {
        Self {
            index,
            kind,
            sender,
            nonce,
            hash: None,
            intended_ns: 0,
            sent_ns: None,
            replied_ns: None,
            error_class: None,
            error: None,
            block: None,
            included_ns: None,
            safe_ns: None,
            finalized_ns: None,
            status: Status::NotSent,
        }
    }

    /// Accepted by the node (it replied with a hash).
    pub fn accepted(&self) -> bool {
        self.replied_ns.is_some() && self.error_class.is_none() && self.hash.is_some()
    }

    /// The CSV header matching [`TxRecord::csv_row`].
    pub const CSV_HEADER: &'static str = "index,kind,sender,nonce,hash,status,intended_ms,sent_ms,\
        replied_ms,block,included_ms,safe_ms,finalized_ms,error_class,error";

    /// One CSV row; times in milliseconds since the start, 3 decimals.
    pub fn csv_row(&self) -> String {
        fn ms(t: Option<u64>) -> String {
            t.map(|ns| format!("{:.3}", ns as f64 / 1e6))
                .unwrap_or_default()
        }
        fn opt<T: ToString>(v: Option<T>) -> String {
            v.map(|x| x.to_string()).unwrap_or_default()
        }
        // A node's message is hostile text: never a spreadsheet formula.
        let quote = dyno_format::escape::csv_field;
        [
            self.index.to_string(),
            self.kind.as_str().to_string(),
            opt(self.sender),
            opt(self.nonce),
            self.hash.map(|h| format!("{h:#x}")).unwrap_or_default(),
            self.status.as_str().to_string(),
            ms(Some(self.intended_ns)),
            ms(self.sent_ns),
            ms(self.replied_ns),
            opt(self.block),
            ms(self.included_ns),
            ms(self.safe_ns),
            ms(self.finalized_ns),
            quote(self.error_class.as_deref().unwrap_or("")),
            quote(self.error.as_deref().unwrap_or("")),
        ]
        .join(",")
    }
}

/// A block as dyno saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlockSeen {
    /// Block number.
    pub number: u64,
    /// When dyno first saw it (as head or while catching up).
    pub seen_ns: u64,
    /// The block's own timestamp, seconds.
    pub timestamp: u64,
    /// Gas used.
    pub gas_used: u64,
    /// Gas limit.
    pub gas_limit: u64,
    /// Base fee, wei.
    pub base_fee: Option<u128>,
    /// Blob gas used (from Cancun).
    pub blob_gas_used: Option<u64>,
    /// Excess blob gas (from Cancun).
    pub excess_blob_gas: Option<u64>,
    /// Transaction hashes, in block order.
    #[serde(skip)]
    pub txs: Vec<B256>,
    /// Transactions in the block.
    pub tx_count: usize,
    /// Of which this run's.
    pub ours: usize,
}

/// When a block tag (head, safe, finalized) first reached a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    /// When dyno saw it.
    pub t_ns: u64,
    /// The tag's block number then.
    pub number: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_rows_match_the_header_and_quote_messages() {
        let mut r = TxRecord::planned(3, Kind::Erc20, Some(1), Some(7));
        r.intended_ns = 1_500_000;
        r.sent_ns = Some(1_600_000);
        r.replied_ns = Some(2_000_000);
        r.error_class = Some("nonce_too_low".into());
        r.error = Some("nonce too low: next nonce 9, tx nonce 7, \"x\"".into());
        r.status = Status::Rejected;
        let row = r.csv_row();
        assert!(row.starts_with("3,erc20,1,7,,rejected,1.500,1.600,2.000,,,,,nonce_too_low,\""));
        assert!(row.ends_with("\"\"x\"\"\""));
        let header_cols = TxRecord::CSV_HEADER.split(',').count();
        assert_eq!(header_cols, 15);
        assert!(!r.accepted());
    }
}
