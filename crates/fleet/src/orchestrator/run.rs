//! A fleet's run: its clocks aligned, the plan handed out, the self-tests, the timed phase, and the fleet released or abandoned.

use super::*;

impl Fleet {
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
