//! `dyno load --fleet`: gather the workers on the broker, compare their
//! clocks, hand each its plan, measure their ceilings side by side, start
//! them together, take their records as they come, and say what became of
//! each.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use alloy_primitives::B256;
use dyno_format::load::{ClockOffset, FleetInfo, WorkerInfo};
use dyno_load::record::TxRecord;
use dyno_load::send::Progress;

use crate::broker::{Broker, Incoming, Link};
use crate::clock::{self, Exchange, wall_ns};
use crate::merge;
use crate::seal::{Key, SealError, Session};
use crate::wire::{self, Command, Hello, Report, State};
use crate::{FleetError, PROTOCOL};

mod gather;
mod run;

/// How the orchestrator gathers its fleet.
#[derive(Debug, Clone)]
pub struct FleetOptions {
    /// The broker and the fleet's name.
    pub broker: Broker,
    /// The fleet's key: every message is sealed and opened with it.
    pub key: Key,
    /// Workers to wait for.
    pub workers: usize,
    /// How long to wait for them.
    pub join_timeout: Duration,
    /// This dyno's version; every worker must run the same.
    pub version: String,
    /// Set by Ctrl-C: the wait for workers ends within 200 ms.
    pub interrupt: Arc<AtomicBool>,
}

/// How a worker's part ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// Not started, or still sending.
    Running,
    /// Said it was done.
    Done {
        /// It stopped early.
        stopped: bool,
    },
    /// Its connection to the broker ended (its last will, or a goodbye
    /// before it was done).
    Lost,
    /// Said nothing in time.
    Silent,
}

impl End {
    fn as_str(self) -> &'static str {
        match self {
            End::Running => "running",
            End::Done { stopped: false } => "done",
            End::Done { stopped: true } => "stopped",
            End::Lost => "lost",
            End::Silent => "silent",
        }
    }
}

/// One worker in the run.
#[derive(Debug)]
pub struct Member {
    /// Who it is.
    pub hello: Hello,
    /// Its first account and how many.
    pub accounts: (usize, usize),
    /// The node it was told to send to.
    pub target: String,
    /// Clock before and after.
    pub clock_before: Option<ClockOffset>,
    /// After the end.
    pub clock_after: Option<ClockOffset>,
    /// Its null-sink ceiling.
    pub self_test_rate: Option<f64>,
    /// Its raw records, as received.
    pub records: Vec<wire::Sent>,
    /// Its session: every message from it must be sealed by it.
    session: Session,
    /// The places in the schedule of its share, each with the hash of the
    /// transaction planned there (signed by the orchestrator as the worker
    /// signs it).
    share: HashMap<u64, B256>,
    /// The places it reported.
    seen: HashSet<u64>,
    /// Each batch taken, by number: its records' digest.
    batches: BTreeMap<u64, u64>,
    /// How it ended.
    pub end: End,
    /// What it said at the end, or why it was lost.
    pub detail: Option<String>,
    /// What it reported that the plan does not allow: each makes the run
    /// incomplete.
    pub faults: Vec<String>,
}

impl Member {
    /// Take one batch: every record in this worker's share, at most once;
    /// a batch number again is a repeat only with the same records.
    fn take(&mut self, seq: u64, items: &[wire::Sent]) -> Result<(), String> {
        let digest = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            serde_json::to_string(items)
                .unwrap_or_default()
                .hash(&mut h);
            h.finish()
        };
        if let Some(&before) = self.batches.get(&seq) {
            return if before == digest {
                Ok(())
            } else {
                Err(format!("batch {seq} came twice with different records"))
            };
        }
        let mut fresh = HashSet::new();
        for s in items {
            let Some(planned) = self.share.get(&s.index) else {
                return Err(format!(
                    "batch {seq} reports transaction {}, which is not in its share",
                    s.index
                ));
            };
            if let Some(hash) = s.hash
                && hash != *planned
            {
                return Err(format!(
                    "batch {seq} reports transaction {} as {hash}, not the transaction planned \
                     there ({planned})",
                    s.index
                ));
            }
            if self.seen.contains(&s.index) || !fresh.insert(s.index) {
                return Err(format!(
                    "batch {seq} reports transaction {} a second time",
                    s.index
                ));
            }
        }
        self.batches.insert(seq, digest);
        self.seen.extend(fresh);
        self.records.extend(items.iter().cloned());
        Ok(())
    }

    /// Check a worker's `done` against what arrived.
    fn done(&mut self, records: u64, batches: u64, stopped: bool) {
        if records != self.records.len() as u64 || batches != self.batches.len() as u64 {
            self.faults.push(format!(
                "it said it was done after {records} records in {batches} batches, but {} records in {} batches arrived",
                self.records.len(),
                self.batches.len()
            ));
        }
        let unsent = self.share.len() - self.seen.len();
        if unsent > 0 && !stopped {
            self.faults.push(format!(
                "it said it was done with {unsent} of its {} transactions not reported",
                self.share.len()
            ));
        }
    }
}

/// A gathered fleet.
pub struct Fleet {
    link: Link,
    /// The workers, in name order.
    pub members: Vec<Member>,
    /// Every report as it came: `{"worker", "received_wall_ns", "report"}`
    /// per line, the raw data of the merge.
    pub raw: Vec<String>,
    started: bool,
    /// Messages refused (not sealed with the key, not for this session, a
    /// replay, or from another session than the worker's).
    pub refused: u64,
    say: Box<dyn Fn(&str) + Send + Sync>,
}

impl std::fmt::Debug for Fleet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fleet")
            .field("members", &self.members)
            .finish_non_exhaustive()
    }
}

/// What came from the broker, by worker (and the session it came from).
enum Event {
    State(String, State, Session),
    Report(String, Report),
}

fn json<T: serde::Serialize>(v: &T) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_default()
}

impl Fleet {
    /// The workers' names, in order.
    pub fn names(&self) -> Vec<String> {
        self.members.iter().map(|m| m.hello.name.clone()).collect()
    }

    fn member(&self, name: &str) -> Option<usize> {
        self.members.iter().position(|m| m.hello.name == name)
    }

    async fn tell(&self, i: usize, c: &Command) -> Result<(), FleetError> {
        let topic = self.link.broker.commands(&self.members[i].hello.name);
        self.link
            .publish(&topic, false, Some(self.members[i].session), &json(c))
            .await
    }

    /// A message opened (see [`Link::open`]), or `None`: a repeat or a
    /// replay dropped, anything else refused as `what`.
    fn open(
        &mut self,
        topic: &str,
        payload: &[u8],
        anyone: bool,
        what: &str,
    ) -> Option<crate::seal::Opened> {
        match self.link.open(topic, payload, anyone) {
            Ok(m) => Some(m),
            // A repeat (MQTT delivers at least once) or a replay: dropped.
            Err(SealError::Replayed { .. }) => None,
            Err(e) => {
                self.refuse(format!("{what}: {e}"));
                None
            }
        }
    }

    /// Count and say a refused message (the first few, then every 100th).
    fn refuse(&mut self, why: String) {
        self.refused += 1;
        if self.refused <= 3 || self.refused.is_multiple_of(100) {
            (self.say)(&format!(
                "refused a message ({} so far): {why}",
                self.refused
            ));
        }
    }

    /// The next event before `deadline` (`None` at it). Reports and losses
    /// of members are also kept here; a worker that comes online after the
    /// start is told it is too late.
    async fn next(&mut self, deadline: Instant) -> Result<Option<Event>, FleetError> {
        loop {
            let msg = match tokio::time::timeout_at(deadline.into(), self.link.rx.recv()).await {
                Err(_) => return Ok(None),
                Ok(None) => {
                    return Err(FleetError::BrokerLost {
                        url: self.link.broker.to_string(),
                        reason: "the connection ended".into(),
                    });
                }
                Ok(Some(Incoming::Lost(reason))) => {
                    return Err(FleetError::BrokerLost {
                        url: self.link.broker.to_string(),
                        reason,
                    });
                }
                Ok(Some(Incoming::Message { topic, payload })) => (topic, payload),
            };
            let (topic, payload) = msg;
            let Some(name) = Broker::worker_of(&topic).map(str::to_string) else {
                continue;
            };
            if topic.ends_with("/state") {
                if payload.is_empty() {
                    continue;
                }
                let Some(opened) =
                    self.open(&topic, &payload, true, &format!("worker {name}'s state"))
                else {
                    continue;
                };
                let Ok(state) = serde_json::from_slice::<State>(&opened.body) else {
                    self.refuse(format!("worker {name}'s state is not the fleet protocol's"));
                    continue;
                };
                if let Some(i) = self.member(&name)
                    && self.members[i].session != opened.from
                {
                    self.refuse(format!(
                        "a state for worker {name} from session {}, not its own",
                        opened.from
                    ));
                    continue;
                }
                if let Some(i) = self.member(&name) {
                    if !matches!(state, State::Online { .. })
                        && matches!(self.members[i].end, End::Running)
                        && self.started
                    {
                        self.members[i].end = End::Lost;
                        self.members[i].detail = Some(match state {
                            State::Lost => {
                                "its connection to the broker ended (MQTT last will)".into()
                            }
                            _ => "it left before it was done".into(),
                        });
                        (self.say)(&format!(
                            "worker {name} is lost: {}; its records up to then are kept, the others go on",
                            self.members[i].detail.as_deref().unwrap_or("")
                        ));
                    }
                } else if !self.members.is_empty()
                    && matches!(state, State::Online { busy: false, .. })
                {
                    let reason = if self.started {
                        "it joined after the run started; it can take part in the next run"
                    } else {
                        "this run has its workers already; it can take part in the next run"
                    }
                    .to_string();
                    (self.say)(&format!("worker {name}: {reason}"));
                    let _ = self
                        .link
                        .publish(
                            &self.link.broker.commands(&name),
                            false,
                            Some(opened.from),
                            &json(&Command::Refuse { reason }),
                        )
                        .await;
                    continue;
                }
                return Ok(Some(Event::State(name, state, opened.from)));
            }
            let Some(opened) = self.open(
                &topic,
                &payload,
                false,
                &format!("a report on worker {name}'s topic"),
            ) else {
                continue;
            };
            let Some(i) = self.member(&name) else {
                continue;
            };
            if self.members[i].session != opened.from {
                self.refuse(format!(
                    "a report for worker {name} from session {}, not its own",
                    opened.from
                ));
                continue;
            }
            let payload = opened.body;
            let Ok(report) = serde_json::from_slice::<Report>(&payload) else {
                self.refuse(format!(
                    "a report from worker {name} that is not the fleet protocol's"
                ));
                continue;
            };
            let mut line = serde_json::Map::new();
            line.insert("worker".into(), name.clone().into());
            line.insert("received_wall_ns".into(), (wall_ns() as u64).into());
            line.insert(
                "report".into(),
                serde_json::from_slice(&payload).unwrap_or_default(),
            );
            self.raw.push(serde_json::Value::Object(line).to_string());
            let m = &mut self.members[i];
            match &report {
                Report::Records { seq, items } => {
                    if let Err(fault) = m.take(*seq, items) {
                        let say = format!("worker {name}: {fault}; the run will be incomplete");
                        m.faults.push(fault);
                        (self.say)(&say);
                    }
                }
                Report::Done {
                    records,
                    batches,
                    stopped,
                    detail,
                } if m.end == End::Running => {
                    m.end = End::Done { stopped: *stopped };
                    m.detail = detail.clone();
                    m.done(*records, *batches, *stopped);
                }
                _ => {}
            }
            return Ok(Some(Event::Report(name, report)));
        }
    }

    fn live(&self) -> Vec<usize> {
        (0..self.members.len())
            .filter(|&i| !matches!(self.members[i].end, End::Lost | End::Silent))
            .collect()
    }
}

/// An offset estimate in ns (0 when unknown).
fn offset_ns(c: Option<&ClockOffset>) -> i64 {
    c.map_or(0, |c| (c.offset_ms * 1e6).round() as i64)
}

/// Split `accounts` among `workers` as evenly as can be: worker `k` gets a
/// contiguous range. `None` if some worker would get none.
pub fn split_accounts(accounts: usize, workers: usize) -> Option<Vec<(usize, usize)>> {
    if workers == 0 || accounts < workers {
        return None;
    }
    Some(
        (0..workers)
            .map(|k| {
                let a = accounts * k / workers;
                let b = accounts * (k + 1) / workers;
                (a, b - a)
            })
            .collect(),
    )
}

/// The worker each planned transaction belongs to: the one holding its
/// sender.
pub fn owners(senders: &[usize], split: &[(usize, usize)]) -> Vec<Option<usize>> {
    senders
        .iter()
        .map(|s| split.iter().position(|&(a, n)| (a..a + n).contains(s)))
        .collect()
}

#[cfg(test)]
mod tests;
