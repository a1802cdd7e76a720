//! Gathering a fleet: every worker that answers the call, each checked before it joins.

use super::*;

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
            "waiting up to {} s for {} worker(s) on {} (start `dyno join --broker {}` on each machine)",
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
                    "only {} of {} workers joined {} within {} s{}{}; start `dyno join --broker {}` on more machines, or ask for fewer with --workers",
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
}
