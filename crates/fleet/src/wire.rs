//! The messages on the broker, as JSON. Times are nanoseconds: `*_wall_ns`
//! on the sender's wall clock (since the Unix epoch), the rest since the
//! worker's start of sending, on its monotonic clock.

use alloy_primitives::{Address, B256};
use dyno_format::load::SigningInfo;
use dyno_load::txs::{Fees, GasLimits, Kind};
use serde::{Deserialize, Serialize};

/// A worker's retained state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum State {
    /// Connected; `busy` while it is in a run.
    Online {
        /// Who it is.
        hello: Hello,
        /// In a run already.
        busy: bool,
    },
    /// Gone, with a goodbye.
    Offline,
    /// Its connection ended without one (its last will).
    Lost,
}

/// Who a worker is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hello {
    /// Its name on the broker.
    pub name: String,
    /// Its host name.
    pub host: String,
    /// dyno's version.
    pub version: String,
    /// The fleet protocol's version ([`crate::PROTOCOL`]).
    pub protocol: u32,
    /// `linux-x86_64` and the like.
    pub runtime: String,
    /// Its cores.
    pub cores: u64,
}

/// One transaction of a worker's share.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Item {
    /// Its place in the whole schedule.
    pub index: u64,
    /// Its sender, an index into the accounts derived from the seed.
    pub sender: usize,
    /// Its nonce.
    pub nonce: u64,
    /// What it does.
    pub kind: Kind,
    /// How many of its kind come before it in the whole plan.
    pub nth: u64,
}

/// What one worker is to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// The node's JSON-RPC URL (a worker's `--rpc` overrides it).
    pub node_url: String,
    /// The chain the transactions are signed for.
    pub chain_id: u64,
    /// Fees every transaction carries.
    pub fees: Fees,
    /// Gas limits per kind.
    pub gas: GasLimits,
    /// The deployed ERC-20.
    pub token: Option<Address>,
    /// The deployed `Store`.
    pub store: Option<Address>,
    /// `Store`'s creation code, hex.
    pub store_code: String,
    /// The seed the accounts (and set-code authorities) derive from.
    pub seed: String,
    /// Accounts derived in all (this worker's are a range of them).
    pub accounts_total: usize,
    /// Its first account.
    pub first_account: usize,
    /// Its accounts, from `first_account` on.
    pub accounts: usize,
    /// Its share, in the schedule's order.
    pub items: Vec<Item>,
    /// The whole schedule (`500`, `ramp:...`, `max`).
    pub schedule: String,
    /// Most requests in flight under an open loop.
    pub open_loop_cap: usize,
    /// Connections to the node.
    pub connections: usize,
    /// One request's time limit, ms.
    pub request_timeout_ms: u64,
    /// Signing threads (0: all cores).
    pub threads: usize,
}

/// From the orchestrator to one worker: `{"ping": {"seq": 1}}` and so on.
/// Externally tagged, as [`Report`] is: an internally tagged enum is
/// buffered by serde, which cannot carry the fees' `u128`s.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Command {
    /// Answer at once with the time on your clock.
    Ping {
        /// Which exchange.
        seq: u64,
    },
    /// Your share: check it can be kept, pre-sign it, answer `Ready`.
    Plan(Box<Plan>),
    /// Measure the generator's ceiling against a null sink at this moment
    /// on your clock.
    SelfTest {
        /// When, on the worker's wall clock.
        at_wall_ns: i64,
        /// Requests.
        requests: usize,
        /// Connections.
        connections: usize,
    },
    /// Start sending at this moment on your clock.
    Start {
        /// The schedule's zero, on the worker's wall clock.
        at_wall_ns: i64,
    },
    /// Stop sending; report what you have.
    Stop {
        /// Why.
        reason: String,
    },
    /// The run is over (or was never yours); go back to waiting.
    Release,
    /// Not for this run, with the reason.
    Refuse {
        /// Why.
        reason: String,
    },
}

/// One request as a worker saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sent {
    /// Its place in the whole schedule.
    pub index: u64,
    /// Intended send time.
    pub intended_ns: u64,
    /// Actual send time.
    pub sent_ns: u64,
    /// When the reply came.
    pub replied_ns: u64,
    /// The hash the node answered (checked against the signed one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<B256>,
    /// The error's class, when the node refused it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_class: Option<String>,
    /// The node's message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// From one worker to the orchestrator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Report {
    /// The answer to a ping: the worker's wall clock when it came.
    Pong {
        /// Which exchange.
        seq: u64,
        /// The worker's wall clock.
        wall_ns: i64,
    },
    /// Pre-signed; waiting for the start.
    Ready {
        /// How fast it signed.
        signing: SigningInfo,
        /// The node it will send to: the plan's, or its own `--rpc`.
        target: String,
    },
    /// It cannot keep the plan.
    Refused {
        /// Why, in words.
        reason: String,
    },
    /// Its null-sink ceiling, requests/s.
    SelfTest {
        /// Requests/s.
        rate: f64,
    },
    /// Records completed since the last batch.
    Records {
        /// Batch number from 0, so a gap or a repeat shows.
        seq: u64,
        /// The records.
        items: Vec<Sent>,
    },
    /// It has sent everything it was going to.
    Done {
        /// Records reported in all.
        records: u64,
        /// Batches sent in all.
        batches: u64,
        /// Stopped early (asked to, or interrupted).
        stopped: bool,
        /// Anything worth saying.
        detail: Option<String>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_with_its_fees_reads_back_as_written() {
        let plan = Plan {
            node_url: "http://10.0.0.7:8545".into(),
            chain_id: 1337,
            fees: Fees {
                chain_id: 1337,
                max_fee_per_gas: u128::from(u64::MAX) * 3,
                max_priority_fee_per_gas: 1_000_000_000,
                max_fee_per_blob_gas: 7,
            },
            gas: GasLimits::default(),
            token: Some(Address::repeat_byte(1)),
            store: None,
            store_code: "6080".into(),
            seed: "s".into(),
            accounts_total: 6,
            first_account: 2,
            accounts: 2,
            items: vec![Item {
                index: 5,
                sender: 2,
                nonce: 9,
                kind: Kind::Erc20,
                nth: 1,
            }],
            schedule: "500".into(),
            open_loop_cap: 64,
            connections: 4,
            request_timeout_ms: 30_000,
            threads: 0,
        };
        for c in [
            Command::Plan(Box::new(plan)),
            Command::Ping { seq: 3 },
            Command::Start {
                at_wall_ns: 1_795_981_750_372_650_316,
            },
        ] {
            let text = serde_json::to_string(&c).unwrap();
            assert_eq!(serde_json::from_str::<Command>(&text).unwrap(), c, "{text}");
        }
        let pong: Report =
            serde_json::from_str(r#"{"pong":{"seq":1,"wall_ns":1795981750372650316}}"#).unwrap();
        assert_eq!(
            pong,
            Report::Pong {
                seq: 1,
                wall_ns: 1_795_981_750_372_650_316
            }
        );
    }
}
