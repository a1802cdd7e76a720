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
#[derive(Debug, Default)]
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
    let mut driver = Driver::start(spec, set, limits);
    driver.feed(0..set.blocks.len(), stop, &mut progress);
    driver.finish()
}

/// One client, started once from a set's genesis and fed the set's blocks
/// a slice at a time ([`Driver::feed`]), so that several clients can
/// take turns on the same chain (`dyno gas --blocks`' rounds); kept
/// running, or its state kept in this process for revm, until
/// [`Driver::finish`].
pub struct Driver<'a> {
    set: &'a BlockSet,
    limits: Limits,
    out: Replayed,
    at: At,
}

impl std::fmt::Debug for Driver<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driver")
            .field("set", &self.set.name)
            .field("timed", &self.out.timed.len())
            .field("failure", &self.out.failure)
            .finish_non_exhaustive()
    }
}

/// Where a driver's client is.
enum At {
    /// A started client, its log gathered and its process read from the
    /// start.
    Client {
        client: Box<crate::client::Running>,
        log: SlowLog,
        started: Instant,
        pid: Option<u32>,
        before: Option<Reading>,
        scraped_before: Result<metrics::Scrape, String>,
    },
    /// dyno's validator in this process, with the state the blocks fed so
    /// far left.
    InProcess {
        world: Box<dyno_evm::block::world::World>,
        parent: Box<alloy_consensus::Header>,
        parent_hash: alloy_primitives::B256,
        wall: Duration,
    },
    /// It failed or never started: nothing more is sent.
    Stopped,
}

impl<'a> Driver<'a> {
    /// Start a fresh client of `spec` on `set`'s genesis (revm: its
    /// genesis state in this process). A client that cannot start is a
    /// driver whose [`Replayed::failure`] says why and that takes no block.
    pub fn start(spec: &ClientSpec, set: &'a BlockSet, limits: Limits) -> Self {
        let mut out = Replayed::default();
        if *spec == ClientSpec::Revm {
            out.version = dyno_evm::vm::REVM_VERSION.into();
            out.command =
                "in-process: dyno_evm::block::validator::validate, then World::commit".into();
            let at = match &set.genesis {
                Some(genesis) => At::InProcess {
                    world: Box::new(genesis.world.clone()),
                    parent: Box::new(genesis.header.clone()),
                    parent_hash: genesis.header.hash_slow(),
                    wall: Duration::ZERO,
                },
                None => {
                    out.failure = Some(Failure {
                        index: None,
                        reason: format!(
                            "revm replays dyno's own block sets; {} is a chain folder, which \
                             needs an Engine-API client",
                            set.name
                        ),
                        invalid: false,
                    });
                    At::Stopped
                }
            };
            return Self {
                set,
                limits,
                out,
                at,
            };
        }
        let at = match spec.start(&set.genesis_json, limits.ready, limits.call) {
            Ok(client) => {
                out.version = client.version.clone();
                out.command = client.command.clone();
                let pid = client.node.pid();
                let scraped_before = scrape(&client.node.metrics_url);
                At::Client {
                    started: Instant::now(),
                    before: pid.and_then(process::read),
                    pid,
                    scraped_before,
                    log: SlowLog::default(),
                    client: Box::new(client),
                }
            }
            Err(e) => {
                out.failure = Some(Failure {
                    index: None,
                    reason: format!("starting the client: {e}"),
                    invalid: false,
                });
                At::Stopped
            }
        };
        Self {
            set,
            limits,
            out,
            at,
        }
    }

    /// What it has done so far.
    pub fn replayed(&self) -> &Replayed {
        &self.out
    }

    /// Send the blocks `range` of the set (the next ones of its chain), in
    /// order; `progress(done, total, so_far)` after each, `done` the index
    /// after the block in the set. Stops at the first failure, or when
    /// `stop` is set. Returns whether every block of `range` was taken.
    pub fn feed(
        &mut self,
        range: std::ops::Range<usize>,
        stop: &AtomicBool,
        progress: &mut impl FnMut(usize, usize, &Replayed),
    ) -> bool {
        let set = self.set;
        let total = set.blocks.len();
        let out = &mut self.out;
        match &mut self.at {
            At::Stopped => return false,
            At::Client { client, log, .. } => {
                for index in range {
                    if stop.load(Ordering::Relaxed) {
                        out.failure = Some(Failure::interrupted(index));
                        break;
                    }
                    let planned = &set.blocks[index];
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
                            // Say that the client died, if it did, rather
                            // than only that the connection broke.
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
                    progress(index + 1, total, out);
                }
            }
            At::InProcess {
                world,
                parent,
                parent_hash,
                wall,
            } => {
                let started = Instant::now();
                for index in range {
                    if stop.load(Ordering::Relaxed) {
                        out.failure = Some(Failure::interrupted(index));
                        break;
                    }
                    let planned = &set.blocks[index];
                    let Some(block) = &planned.block else {
                        out.failure = Some(Failure {
                            index: Some(index),
                            reason: "a block read from a chain folder: revm replays dyno's own \
                                     blocks"
                                .into(),
                            invalid: false,
                        });
                        break;
                    };
                    let t0 = Instant::now();
                    let checked = dyno_evm::block::validator::validate_after(
                        world,
                        parent,
                        *parent_hash,
                        block,
                    );
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
                    **parent = block.header.clone();
                    *parent_hash = hash;
                    progress(index + 1, total, out);
                }
                *wall += started.elapsed();
            }
        }
        if out.failure.is_some() {
            self.stop_early();
            return false;
        }
        true
    }

    /// After a failure: the client's use and log so far, and the client
    /// stopped, so no process outlives the failure.
    fn stop_early(&mut self) {
        let at = std::mem::replace(&mut self.at, At::Stopped);
        self.close(at);
    }

    /// Stop the client (its log lines for the blocks sent gathered first,
    /// its process's use and its metrics read) and say what it did.
    pub fn finish(mut self) -> Replayed {
        let at = std::mem::replace(&mut self.at, At::Stopped);
        self.close(at);
        std::mem::take(&mut self.out)
    }

    fn close(&mut self, at: At) {
        let set = self.set;
        let out = &mut self.out;
        match at {
            At::Stopped => {}
            At::InProcess { wall, .. } => {
                out.usage = Some(Usage {
                    wall,
                    before: None,
                    after: None,
                    metrics: Err("revm runs inside dyno: no process or metrics of its own".into()),
                });
            }
            At::Client {
                client,
                mut log,
                started,
                pid,
                before,
                scraped_before,
            } => {
                let wall = started.elapsed();
                let after = pid.and_then(process::read);
                let scraped_after = scrape(&client.node.metrics_url);
                out.usage = Some(Usage {
                    wall,
                    before,
                    after,
                    metrics: scraped_before
                        .and_then(|b| scraped_after.map(|a| metrics::changed(&b, &a))),
                });
                let client = *client;
                // The client writes its line before it answers; the line
                // may still be in the pipe.
                let deadline = Instant::now() + self.limits.log_wait;
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
                out.unparsed = std::mem::take(&mut log.unparsed);
                client.stop();
            }
        }
    }
}

impl Drop for Driver<'_> {
    /// A driver dropped before [`Driver::finish`] (a panic, an early
    /// return) still stops its client.
    fn drop(&mut self) {
        if let At::Client { client, .. } = std::mem::replace(&mut self.at, At::Stopped) {
            client.stop();
        }
    }
}

/// A client's Prometheus series, or why there are none.
fn scrape(url: &Option<String>) -> Result<metrics::Scrape, String> {
    match url {
        Some(u) => metrics::scrape(u, Duration::from_secs(10)),
        None => Err("the client serves no metrics dyno knows of".to_string()),
    }
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
