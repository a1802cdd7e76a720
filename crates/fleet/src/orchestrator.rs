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
    /// Connect to the broker and wait for `workers` idle workers of this
    /// dyno version. A worker of another version is an error naming it.
    pub async fn gather(
        o: &FleetOptions,
        say: Box<dyn Fn(&str) + Send + Sync>,
    ) -> Result<Fleet, FleetError> {
        let id = format!("dyno-orchestrator-{}", std::process::id());
        let link =
            Link::connect(&o.broker, &id, o.key.clone(), None, Duration::from_secs(5)).await?;
        link.subscribe(&o.broker.states()).await?;
        link.subscribe(&o.broker.all_reports()).await?;
        say(&format!(
            "waiting up to {} s for {} worker(s) on {} (start `dyno worker --broker {}` on each machine)",
            o.join_timeout.as_secs(),
            o.workers,
            o.broker,
            o.broker
        ));
        let mut fleet = Fleet {
            link,
            members: Vec::new(),
            raw: Vec::new(),
            started: false,
            refused: 0,
            say,
        };
        let deadline = Instant::now() + o.join_timeout;
        let mut idle: BTreeMap<String, (Hello, Session)> = BTreeMap::new();
        let mut busy: BTreeSet<String> = BTreeSet::new();
        while idle.len() < o.workers {
            if o.interrupt.load(Ordering::Relaxed) {
                fleet.link.close().await;
                return Err(FleetError::Interrupted);
            }
            let slice = (Instant::now() + Duration::from_millis(200)).min(deadline);
            let ev = fleet.next(slice).await?;
            if ev.is_none() && Instant::now() < deadline {
                continue;
            }
            let Some(ev) = ev else {
                let have: Vec<&str> = idle.keys().map(String::as_str).collect();
                return Err(FleetError::Gather(format!(
                    "only {} of {} workers joined {} within {} s{}{}; start `dyno worker --broker {}` on more machines, or ask for fewer with --workers",
                    idle.len(),
                    o.workers,
                    o.broker,
                    o.join_timeout.as_secs(),
                    if have.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", have.join(", "))
                    },
                    if busy.is_empty() {
                        String::new()
                    } else {
                        format!(
                            "; busy in another run: {}",
                            busy.iter().cloned().collect::<Vec<_>>().join(", ")
                        )
                    },
                    o.broker
                )));
            };
            match ev {
                Event::State(name, State::Online { hello, busy: b }, session) => {
                    if hello.version != o.version || hello.protocol != PROTOCOL {
                        let reason = format!(
                            "it runs dyno {} (fleet protocol {}), this orchestrator dyno {} (protocol {PROTOCOL}); install the same dyno on every machine",
                            hello.version, hello.protocol, o.version
                        );
                        let _ = fleet
                            .link
                            .publish(
                                &o.broker.commands(&name),
                                false,
                                Some(session),
                                &json(&Command::Refuse {
                                    reason: reason.clone(),
                                }),
                            )
                            .await;
                        // Closing flushes the refusal: a process that
                        // exits with it still queued leaves the worker
                        // waiting.
                        fleet.link.close().await;
                        return Err(FleetError::Worker {
                            worker: name,
                            reason,
                        });
                    }
                    if b {
                        busy.insert(name.clone());
                        idle.remove(&name);
                    } else {
                        busy.remove(&name);
                        idle.insert(name, (hello, session));
                    }
                }
                Event::State(name, ..) => {
                    idle.remove(&name);
                    busy.remove(&name);
                }
                Event::Report(..) => {}
            }
        }
        let extra: Vec<String> = idle.keys().skip(o.workers).cloned().collect();
        for name in extra {
            let Some((_, session)) = idle.remove(&name) else {
                continue;
            };
            let reason = format!(
                "this run has its {} workers already; it can take part in the next run",
                o.workers
            );
            let _ = fleet
                .link
                .publish(
                    &o.broker.commands(&name),
                    false,
                    Some(session),
                    &json(&Command::Refuse { reason }),
                )
                .await;
        }
        for (name, (hello, session)) in idle {
            fleet.members.push(Member {
                hello: Hello { name, ..hello },
                accounts: (0, 0),
                target: String::new(),
                clock_before: None,
                clock_after: None,
                self_test_rate: None,
                records: Vec::new(),
                session,
                share: HashMap::new(),
                seen: HashSet::new(),
                batches: BTreeMap::new(),
                end: End::Running,
                detail: None,
                faults: Vec::new(),
            });
        }
        let names: Vec<String> = fleet.names();
        (fleet.say)(&format!("workers: {}", names.join(", ")));
        Ok(fleet)
    }

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

    /// Compare every live worker's clock with this one's: `pings` rounds of
    /// one ping each, 2 s for each answer.
    pub async fn clocks(&mut self, pings: usize, after: bool) -> Result<(), FleetError> {
        let mut exchanges: HashMap<usize, Vec<Exchange>> = HashMap::new();
        let mut seq = 0u64;
        for _ in 0..pings.max(1) {
            let mut waiting: HashMap<u64, (usize, i64)> = HashMap::new();
            for i in self.live() {
                seq += 1;
                let topic = self.link.broker.commands(&self.members[i].hello.name);
                let t1 = wall_ns();
                self.link
                    .publish_once(
                        &topic,
                        Some(self.members[i].session),
                        &json(&Command::Ping { seq }),
                    )
                    .await?;
                waiting.insert(seq, (i, t1));
            }
            let deadline = Instant::now() + Duration::from_secs(2);
            while !waiting.is_empty() {
                match self.next(deadline).await? {
                    None => break,
                    Some(Event::Report(_, Report::Pong { seq, wall_ns: t2 })) => {
                        let t4 = wall_ns();
                        if let Some((i, t1)) = waiting.remove(&seq) {
                            exchanges
                                .entry(i)
                                .or_default()
                                .push(Exchange { t1, t2, t4 });
                        }
                    }
                    Some(_) => {}
                }
            }
        }
        for (i, ex) in exchanges {
            let est = clock::estimate(&ex);
            if after {
                self.members[i].clock_after = est;
            } else {
                self.members[i].clock_before = est;
            }
        }
        if !after && let Some(m) = self.members.iter().find(|m| m.clock_before.is_none()) {
            return Err(FleetError::Worker {
                worker: m.hello.name.clone(),
                reason: "it did not answer the clock pings within 2 s".into(),
            });
        }
        Ok(())
    }

    /// Hand each worker its plan and wait for every one to be ready: a
    /// worker that cannot keep its plan, goes, or says nothing within
    /// `timeout` is an error naming it.
    pub async fn plan(
        &mut self,
        plans: Vec<wire::Plan>,
        timeout: Duration,
    ) -> Result<(), FleetError> {
        for (i, p) in plans.into_iter().enumerate() {
            // Signed here too, off the runtime's threads, to know each
            // record's hash before any arrives.
            let (hashes, p) =
                tokio::task::spawn_blocking(move || (crate::worker::planned_hashes(&p), p))
                    .await
                    .map_err(|e| FleetError::Other(format!("signing the plans: {e}")))?;
            let hashes = hashes.map_err(|reason| FleetError::Worker {
                worker: self.members[i].hello.name.clone(),
                reason: format!("its plan cannot be signed: {reason}"),
            })?;
            self.members[i].accounts = (p.first_account, p.accounts);
            self.members[i].share = p.items.iter().map(|t| t.index).zip(hashes).collect();
            self.members[i].target = dyno_format::redact::url(&p.node_url);
            self.tell(i, &Command::Plan(Box::new(p))).await?;
        }
        let deadline = Instant::now() + timeout;
        let mut waiting: BTreeSet<String> = self.names().into_iter().collect();
        while !waiting.is_empty() {
            match self.next(deadline).await? {
                None => {
                    return Err(FleetError::Worker {
                        worker: waiting.into_iter().collect::<Vec<_>>().join(", "),
                        reason: format!("not ready within {} s of its plan", timeout.as_secs()),
                    });
                }
                Some(Event::Report(name, Report::Ready { target, .. })) => {
                    if let Some(i) = self.member(&name) {
                        // The node it will really send to (its `--rpc`).
                        self.members[i].target = dyno_format::redact::url(&target);
                    }
                    waiting.remove(&name);
                }
                Some(Event::Report(name, Report::Refused { reason })) => {
                    return Err(FleetError::Worker {
                        worker: name,
                        reason: format!("cannot keep its plan: {reason}"),
                    });
                }
                Some(Event::State(name, s, _)) if !matches!(s, State::Online { .. }) => {
                    if self.member(&name).is_some() {
                        return Err(FleetError::Worker {
                            worker: name,
                            reason: "left the broker while preparing".into(),
                        });
                    }
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// Every worker's generator ceiling, measured at the same moment (one
    /// second from now, on each worker's clock as estimated), each against
    /// its own null sink. Returns the sum.
    pub async fn self_test(
        &mut self,
        requests: usize,
        connections: usize,
    ) -> Result<f64, FleetError> {
        let at = wall_ns() + 1_000_000_000;
        for i in self.live() {
            let off = offset_ns(self.members[i].clock_before.as_ref());
            self.tell(
                i,
                &Command::SelfTest {
                    at_wall_ns: at + off,
                    requests,
                    connections,
                },
            )
            .await?;
        }
        let deadline = Instant::now() + Duration::from_secs(120);
        let mut waiting: BTreeSet<String> = self
            .live()
            .iter()
            .map(|&i| self.members[i].hello.name.clone())
            .collect();
        while !waiting.is_empty() {
            match self.next(deadline).await? {
                None => {
                    return Err(FleetError::Worker {
                        worker: waiting.into_iter().collect::<Vec<_>>().join(", "),
                        reason: "no generator ceiling within 120 s".into(),
                    });
                }
                Some(Event::Report(name, Report::SelfTest { rate })) => {
                    if let Some(i) = self.member(&name) {
                        self.members[i].self_test_rate = Some(rate);
                    }
                    waiting.remove(&name);
                }
                Some(_) => {}
            }
        }
        Ok(self.members.iter().filter_map(|m| m.self_test_rate).sum())
    }

    /// Start every worker at `t0` (each on its own clock, moved by its
    /// offset) and take their records until each is done or lost; on
    /// `stop`, tell them to stop and take what they have. Returns one
    /// entry per place in the schedule of `total`, and what did not fit.
    pub async fn run(
        &mut self,
        t0: Instant,
        total: usize,
        owner: &[Option<usize>],
        stop: Arc<AtomicBool>,
        progress: Arc<Progress>,
        limit: Duration,
    ) -> Result<merge::Merged, FleetError> {
        let t0_wall = wall_ns() + (t0.saturating_duration_since(Instant::now()).as_nanos() as i64);
        for i in 0..self.members.len() {
            let off = offset_ns(self.members[i].clock_before.as_ref());
            self.tell(
                i,
                &Command::Start {
                    at_wall_ns: t0_wall + off,
                },
            )
            .await?;
        }
        self.started = true;
        let give_up = t0 + limit;
        let mut stop_until: Option<Instant> = None;
        let mut counted: Vec<usize> = vec![0; self.members.len()];
        loop {
            if self.members.iter().all(|m| !matches!(m.end, End::Running)) {
                break;
            }
            if stop.load(Ordering::Relaxed) && stop_until.is_none() {
                for i in self.live() {
                    if self.members[i].end == End::Running {
                        let _ = self
                            .tell(
                                i,
                                &Command::Stop {
                                    reason: "the orchestrator is stopping the run".into(),
                                },
                            )
                            .await;
                    }
                }
                stop_until = Some(Instant::now() + Duration::from_secs(15));
            }
            let deadline = (Instant::now() + Duration::from_millis(100))
                .min(stop_until.unwrap_or(give_up))
                .min(give_up);
            // Losing the broker ends the run, not its records: what came
            // before is merged, and the workers still out are said.
            let ev = match self.next(deadline).await {
                Ok(ev) => ev,
                Err(e) => {
                    for m in &mut self.members {
                        if m.end == End::Running {
                            m.end = End::Silent;
                            m.detail = Some(format!("the orchestrator lost the broker: {e}"));
                        }
                    }
                    break;
                }
            };
            if ev.is_none() && Instant::now() >= stop_until.unwrap_or(give_up).min(give_up) {
                for m in &mut self.members {
                    if m.end == End::Running {
                        m.end = End::Silent;
                        m.detail = Some("no end state in time".into());
                    }
                }
                break;
            }
            for (i, m) in self.members.iter().enumerate() {
                for s in &m.records[counted[i]..] {
                    progress.sent.fetch_add(1, Ordering::Relaxed);
                    progress.replied.fetch_add(1, Ordering::Relaxed);
                    if s.error_class.is_some() {
                        progress.errors.fetch_add(1, Ordering::Relaxed);
                    }
                }
                counted[i] = m.records.len();
            }
        }
        let reports: Vec<(usize, &[wire::Sent])> = self
            .members
            .iter()
            .enumerate()
            .map(|(i, m)| (i, m.records.as_slice()))
            .collect();
        Ok(merge::merge(total, owner, &reports))
    }

    /// Tell every worker still there that the run is over, and leave.
    pub async fn release(self) {
        for i in 0..self.members.len() {
            if !matches!(self.members[i].end, End::Lost) {
                let _ = self.tell(i, &Command::Release).await;
            }
        }
        self.link.close().await;
    }

    /// Stop the workers of a run that cannot go on (before the start).
    pub async fn abandon(self, reason: &str) {
        for i in 0..self.members.len() {
            let _ = self
                .tell(
                    i,
                    &Command::Refuse {
                        reason: reason.into(),
                    },
                )
                .await;
            let _ = self.tell(i, &Command::Release).await;
        }
        self.link.close().await;
    }

    /// The breakdown for the Result, from the merged and settled records,
    /// with the notes a reader needs: workers lost, clocks beyond the
    /// resolution.
    pub fn info(
        &self,
        records: &[TxRecord],
        owner: &[Option<usize>],
        resolution_ms: f64,
        self_test_total: Option<f64>,
    ) -> (FleetInfo, Vec<String>) {
        let mut notes = Vec::new();
        if self.refused > 0 {
            notes.push(format!(
                "{} message(s) on the broker were refused: not sealed with the fleet's key, not for this run, or not from the worker's own session (each was said as it came); none of them is in the records",
                self.refused
            ));
        }
        let workers = self
            .members
            .iter()
            .enumerate()
            .map(|(i, m)| {
                notes.extend(clock::notes(
                    &m.hello.name,
                    m.clock_before.as_ref(),
                    m.clock_after.as_ref(),
                    resolution_ms,
                ));
                merge::share_of(records, owner, i).into_info(WorkerInfo {
                    name: m.hello.name.clone(),
                    host: m.hello.host.clone(),
                    version: m.hello.version.clone(),
                    runtime: m.hello.runtime.clone(),
                    cores: m.hello.cores,
                    target: m.target.clone(),
                    first_account: m.accounts.0 as u64,
                    accounts: m.accounts.1 as u64,
                    planned: 0,
                    sent: 0,
                    accepted: 0,
                    rejected: 0,
                    included: 0,
                    sent_rate: 0.0,
                    included_rate: 0.0,
                    lag: dyno_load::summary::latency(&[]),
                    self_test_rate: m.self_test_rate,
                    clock_before: m.clock_before,
                    clock_after: m.clock_after,
                    end: m.end.as_str().into(),
                    detail: m.detail.clone(),
                })
            })
            .collect();
        (
            FleetInfo {
                broker: self.link.broker.to_string(),
                resolution_ms,
                self_test_total,
                workers,
            },
            notes,
        )
    }

    /// Why the run is incomplete, if a worker did not finish its share
    /// or reported what its plan does not allow.
    pub fn incomplete(&self) -> Option<String> {
        let mut bad: Vec<String> = self
            .members
            .iter()
            .filter(|m| matches!(m.end, End::Lost | End::Silent | End::Running))
            .map(|m| {
                format!(
                    "worker {} {} ({}) after reporting {} of its records",
                    m.hello.name,
                    m.end.as_str(),
                    m.detail.as_deref().unwrap_or("no detail"),
                    m.records.len()
                )
            })
            .collect();
        for m in &self.members {
            bad.extend(
                m.faults
                    .iter()
                    .map(|f| format!("worker {}: {f}", m.hello.name)),
            );
        }
        (!bad.is_empty()).then(|| bad.join("; "))
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
