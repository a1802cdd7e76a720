//! One replay: a fresh client started from a set's genesis, every block
//! of the set sent in order (`engine_newPayloadV4`, then
//! `engine_forkchoiceUpdatedV3` making it the head), both calls timed from
//! dyno's side; the client stopped and its data removed, whatever
//! happened. A reply other than `VALID`, a client that exits or hangs,
//! stops the replay at that block with the reason: the blocks timed before
//! it are kept.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use std::collections::BTreeMap;

use serde_json::Value;

use crate::blocks::BlockSet;
use crate::client::ClientSpec;
use crate::engine::EngineError;
use crate::process::{self, Reading};
use crate::slowlog::SlowLog;
use dyno_node::metrics;

/// How to drive a client.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// How long the client may take to answer on its Engine API after it
    /// starts.
    pub ready: Duration,
    /// How long one Engine-API call may take (a client that hangs).
    pub call: Duration,
    /// How long to wait for the client's log lines after the last block.
    pub log_wait: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            ready: Duration::from_secs(60),
            call: Duration::from_secs(60),
            log_wait: Duration::from_secs(3),
        }
    }
}

/// One block as the client took it.
#[derive(Debug, Clone)]
pub struct Timed {
    /// Its index in the set.
    pub index: usize,
    pub new_payload: Duration,
    pub forkchoice: Duration,
    /// The client's slow-block entry for it, if it wrote one.
    pub client_log: Option<Value>,
}

/// What one replay of a set did.
#[derive(Debug)]
pub struct Replayed {
    /// The client's version and command line (empty if it never started).
    pub version: String,
    pub command: String,
    /// The blocks sent and accepted, in order.
    pub timed: Vec<Timed>,
    /// Kept log lines that did not parse, with why.
    pub unparsed: Vec<(String, String)>,
    /// Why the replay stopped early, if it did.
    pub failure: Option<Failure>,
    /// What the client process used, and its metrics that changed.
    pub usage: Option<Usage>,
}

/// The client process over a replay: from its first answer to the last
/// block.
#[derive(Debug, Clone)]
pub struct Usage {
    pub wall: Duration,
    /// `/proc` at the start and at the end (`None` once it is gone).
    pub before: Option<Reading>,
    pub after: Option<Reading>,
    /// Its Prometheus series that changed, or why there are none.
    pub metrics: Result<BTreeMap<String, [f64; 2]>, String>,
}

/// Why a replay stopped before its last block.
#[derive(Debug, Clone)]
pub struct Failure {
    /// The block (its index in the set) it stopped at; `None` if the
    /// client never started.
    pub index: Option<usize>,
    /// What happened, in the client's words where it gave any.
    pub reason: String,
    /// The client answered that the block is not valid (a wrong result,
    /// not a fault).
    pub invalid: bool,
}

impl Failure {
    /// Stopped by Ctrl-C or a termination signal before block `index`.
    fn interrupted(index: usize) -> Self {
        Self {
            index: Some(index),
            reason: "interrupted".into(),
            invalid: false,
        }
    }
}

/// Replay `set` into a fresh client of `spec`; `progress(done, total)`
/// after each block. Stops at the first failure, or when `stop` is set.
pub fn replay(
    spec: &ClientSpec,
    set: &BlockSet,
    limits: Limits,
    stop: &AtomicBool,
    mut progress: impl FnMut(usize, usize, &Replayed),
) -> Replayed {
    let mut out = Replayed {
        version: String::new(),
        command: String::new(),
        timed: Vec::new(),
        unparsed: Vec::new(),
        failure: None,
        usage: None,
    };
    if *spec == ClientSpec::Revm {
        in_process(set, stop, &mut progress, &mut out);
        return out;
    }
    let mut client = match spec.start(&set.genesis_json, limits.ready, limits.call) {
        Ok(c) => c,
        Err(e) => {
            out.failure = Some(Failure {
                index: None,
                reason: format!("starting the client: {e}"),
                invalid: false,
            });
            return out;
        }
    };
    out.version = client.version.clone();
    out.command = client.command.clone();
    let mut log = SlowLog::default();
    let total = set.blocks.len();
    let pid = client.node.pid();
    let metrics_url = client.node.metrics_url.clone();
    let scrape = |url: &Option<String>| match url {
        Some(u) => metrics::scrape(u, Duration::from_secs(10)),
        None => Err("the client serves no metrics dyno knows of".to_string()),
    };
    let started = Instant::now();
    let before = pid.and_then(process::read);
    let scraped_before = scrape(&metrics_url);
    for (index, planned) in set.blocks.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            out.failure = Some(Failure::interrupted(index));
            break;
        }
        let number = planned.payload.header.number;
        let sent = client
            .engine
            .new_payload(planned.payload.new_payload_params())
            .and_then(|np| {
                let fc = client
                    .engine
                    .forkchoice_updated(planned.payload.forkchoice_params())?;
                Ok((np, fc))
            });
        match sent {
            Ok((new_payload, forkchoice)) => out.timed.push(Timed {
                index,
                new_payload,
                forkchoice,
                client_log: None,
            }),
            Err(e) => {
                // Say that the client died, if it did, rather than only
                // that the connection broke.
                let (why, invalid) = match exited(&mut client.node, &e) {
                    Some(dead) => (dead, false),
                    None => (e.to_string(), matches!(e, EngineError::NotValid { .. })),
                };
                out.failure = Some(Failure {
                    index: Some(index),
                    reason: format!("block {number}: {why}"),
                    invalid,
                });
                break;
            }
        }
        log.add(client.node.tail.take_kept());
        progress(index + 1, total, &out);
    }
    let wall = started.elapsed();
    let after = pid.and_then(process::read);
    let scraped_after = scrape(&metrics_url);
    out.usage = Some(Usage {
        wall,
        before,
        after,
        metrics: scraped_before.and_then(|b| scraped_after.map(|a| metrics::changed(&b, &a))),
    });
    // The client writes its line before it answers; the line may still be
    // in the pipe.
    let deadline = Instant::now() + limits.log_wait;
    loop {
        log.add(client.node.tail.take_kept());
        let missing = out.timed.iter().any(|t| {
            let hash = set.blocks[t.index].payload.hash.to_string();
            !log.by_hash.contains_key(&hash)
        });
        if !missing || Instant::now() >= deadline || out.failure.is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    for t in &mut out.timed {
        t.client_log = log.take(&set.blocks[t.index].payload.hash.to_string());
    }
    out.unparsed = log.unparsed;
    client.stop();
    out
}

/// Whether the client died (a broken connection is often the first sign;
/// its exit shows a moment later): how it exited, with its last output.
fn exited(node: &mut dyno_node::LocalNode, e: &EngineError) -> Option<String> {
    let broken = matches!(e, EngineError::Io { .. } | EngineError::Protocol(..));
    let deadline = Instant::now() + Duration::from_secs(if broken { 2 } else { 0 });
    loop {
        if let Err(dead) = node.check_alive("during the replay") {
            return Some(dead.to_string());
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The set through dyno's own validator in this process, as a client
/// would take it: each block fully validated (header, body, senders,
/// execution in revm, receipts, state root) against the state the blocks
/// before it left, then committed. Its time is the block's sample; there
/// is no forkchoice call (0) and no client log.
fn in_process(
    set: &BlockSet,
    stop: &AtomicBool,
    progress: &mut impl FnMut(usize, usize, &Replayed),
    out: &mut Replayed,
) {
    out.version = dyno_evm::vm::REVM_VERSION.into();
    out.command = "in-process: dyno_evm::block::validator::validate, then World::commit".into();
    let Some(genesis) = &set.genesis else {
        out.failure = Some(Failure {
            index: None,
            reason: format!(
                "revm replays dyno's own block sets; {} is a chain folder, which needs an \
                 Engine-API client",
                set.name
            ),
            invalid: false,
        });
        return;
    };
    let mut world = genesis.world.clone();
    let mut parent = genesis.header.clone();
    let mut parent_hash = genesis.header.hash_slow();
    let total = set.blocks.len();
    let started = Instant::now();
    for (index, planned) in set.blocks.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            out.failure = Some(Failure::interrupted(index));
            break;
        }
        let Some(block) = &planned.block else {
            out.failure = Some(Failure {
                index: Some(index),
                reason: "a block read from a chain folder: revm replays dyno's own blocks".into(),
                invalid: false,
            });
            break;
        };
        let t0 = Instant::now();
        let checked =
            dyno_evm::block::validator::validate_after(&world, &parent, parent_hash, block);
        let hash = planned.payload.hash;
        match checked {
            Ok(v) => {
                world.commit(v.executed.changes, v.post, block.header.number, hash);
                out.timed.push(Timed {
                    index,
                    new_payload: t0.elapsed(),
                    forkchoice: Duration::ZERO,
                    client_log: None,
                });
            }
            Err(e) => {
                out.failure = Some(Failure {
                    index: Some(index),
                    reason: format!("block {}: {e}", block.header.number),
                    invalid: true,
                });
                break;
            }
        }
        parent = block.header.clone();
        parent_hash = hash;
        progress(index + 1, total, out);
    }
    out.usage = Some(Usage {
        wall: started.elapsed(),
        before: None,
        after: None,
        metrics: Err("revm runs inside dyno: no process or metrics of its own".into()),
    });
}
