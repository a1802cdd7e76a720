//! `dyno worker --broker`: wait on the broker for an orchestrator, check
//! and pre-sign the share it plans for this worker, answer its clock
//! pings, measure the generator's ceiling when told, send on the common
//! schedule when told, and report every request as it completes.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use alloy_primitives::{Bytes, hex};
use dyno_eth::signer::Signer;
use dyno_load::schedule::Schedule;
use dyno_load::send::{self, Outgoing, Pace, Progress};
use dyno_load::txs::{self, Kind, Planned, Targets};
use dyno_rpc::{Client, ClientOptions, Endpoint};
use tokio::sync::mpsc;

use crate::broker::{Broker, Incoming, Link};
use crate::clock::wall_ns;
use crate::wire::{self, Command, Hello, Report, State};
use crate::{FleetError, PROTOCOL};

/// How a worker runs.
#[derive(Debug, Clone)]
pub struct WorkerOptions {
    /// The broker and the fleet's name.
    pub broker: Broker,
    /// This worker's name on the broker (unique in the fleet).
    pub name: String,
    /// The node to send to, instead of the one the plan names.
    pub rpc: Option<String>,
    /// Serve one run, then exit.
    pub once: bool,
    /// Added to this machine's wall clock (tests plant an offset with it).
    pub skew_ns: i64,
    /// The dyno version it says it is.
    pub version: String,
}

/// How often records go to the orchestrator while sending.
pub const REPORT_EVERY: Duration = Duration::from_millis(200);

/// Records in one report message at most.
pub const REPORT_BATCH: usize = 5_000;

fn json<T: serde::Serialize>(v: &T) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_default()
}

/// This machine as the orchestrator is told of it.
pub fn hello(name: &str, version: &str) -> Hello {
    Hello {
        name: name.into(),
        host: host_name(),
        version: version.into(),
        protocol: PROTOCOL,
        runtime: format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH),
        cores: std::thread::available_parallelism().map_or(1, |n| n.get() as u64),
    }
}

/// The host's name (`/proc/sys/kernel/hostname`, else `HOSTNAME`).
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".into())
}

/// A share checked against its node and pre-signed.
struct Job {
    client: Client,
    out: Vec<Outgoing>,
    positions: Arc<Vec<u64>>,
    schedule: Schedule,
    cap: usize,
}

/// What the worker is doing.
enum Phase {
    Idle,
    Planned(Job),
    Sending {
        stop: Arc<AtomicBool>,
        reporter: tokio::task::JoinHandle<()>,
    },
    Finished,
}

/// Serve the fleet until the orchestrator releases this worker (`once`),
/// the broker is lost, or `interrupt` is set.
pub async fn serve(
    o: &WorkerOptions,
    interrupt: Arc<AtomicBool>,
    say: &(dyn Fn(&str) + Sync),
) -> Result<(), FleetError> {
    let state_topic = o.broker.state(&o.name);
    let mut link = Link::connect(
        &o.broker,
        &o.name,
        Some((state_topic.clone(), json(&State::Lost))),
        Duration::from_secs(5),
    )
    .await?;
    link.subscribe(&o.broker.commands(&o.name)).await?;
    let me = hello(&o.name, &o.version);
    let online = |busy| {
        json(&State::Online {
            hello: me.clone(),
            busy,
        })
    };
    link.publish(&state_topic, true, online(false)).await?;
    say(&format!(
        "worker {} on {}: waiting for an orchestrator (dyno load --fleet {})",
        o.name, o.broker, o.broker
    ));
    let reports = o.broker.reports(&o.name);
    let mut phase = Phase::Idle;
    let clock = |skew: i64| wall_ns() + skew;
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    let result = loop {
        let msg = tokio::select! {
            m = link.rx.recv() => m,
            _ = tick.tick() => {
                if interrupt.load(Ordering::Relaxed) {
                    if let Phase::Sending { stop, reporter } = &mut phase {
                        stop.store(true, Ordering::SeqCst);
                        let _ = reporter.await;
                    }
                    break Err(FleetError::Interrupted);
                }
                if let Phase::Sending { reporter, .. } = &phase
                    && reporter.is_finished()
                {
                    say("sent the share and reported every record; waiting for the orchestrator");
                    phase = Phase::Finished;
                }
                continue;
            }
        };
        let payload = match msg {
            None => {
                break Err(FleetError::BrokerLost {
                    url: o.broker.to_string(),
                    reason: "the connection ended".into(),
                });
            }
            Some(Incoming::Lost(reason)) => {
                break Err(FleetError::BrokerLost {
                    url: o.broker.to_string(),
                    reason,
                });
            }
            Some(Incoming::Message { payload, .. }) => payload,
        };
        let cmd: Command = match serde_json::from_slice(&payload) {
            Ok(c) => c,
            Err(e) => {
                say(&format!(
                    "ignored a command that is not the fleet protocol's: {e}"
                ));
                continue;
            }
        };
        match cmd {
            Command::Ping { seq } => {
                let r = Report::Pong {
                    seq,
                    wall_ns: clock(o.skew_ns),
                };
                link.publish_once(&reports, json(&r)).await?;
            }
            Command::Plan(plan) => {
                link.publish(&state_topic, true, online(true)).await?;
                say(&format!(
                    "planned: {} transactions from accounts {}..{} to {}",
                    plan.items.len(),
                    plan.first_account,
                    plan.first_account + plan.accounts,
                    o.rpc.as_deref().unwrap_or(&plan.node_url)
                ));
                match prepare(&plan, o.rpc.as_deref()).await {
                    Ok((job, signing)) => {
                        say(&format!(
                            "pre-signed {} transactions at {:.0} tx/s",
                            job.out.len(),
                            signing.parallel_tx_per_s
                        ));
                        let target = o.rpc.clone().unwrap_or_else(|| plan.node_url.clone());
                        phase = Phase::Planned(job);
                        let ready = Report::Ready { signing, target };
                        link.publish(&reports, false, json(&ready)).await?;
                    }
                    Err(reason) => {
                        say(&format!("cannot keep the plan: {reason}"));
                        link.publish(&reports, false, json(&Report::Refused { reason }))
                            .await?;
                        phase = Phase::Idle;
                    }
                }
            }
            Command::SelfTest {
                at_wall_ns,
                requests,
                connections,
            } => {
                let bodies = match &phase {
                    Phase::Planned(job) => job
                        .out
                        .iter()
                        .map(|o| Outgoing {
                            body: o.body.clone(),
                            expect: None,
                        })
                        .collect(),
                    _ => dyno_load::lab::self_test_bodies(2000, "dyno-fleet"),
                };
                wait_until(at_wall_ns, o.skew_ns).await;
                let rate = dyno_load::lab::self_test(&bodies, requests.max(1), connections.max(1))
                    .await
                    .unwrap_or(0.0);
                say(&format!(
                    "generator ceiling (null sink): {rate:.0} requests/s"
                ));
                link.publish(&reports, false, json(&Report::SelfTest { rate }))
                    .await?;
            }
            Command::Start { at_wall_ns } => {
                let Phase::Planned(job) = std::mem::replace(&mut phase, Phase::Idle) else {
                    let r = Report::Refused {
                        reason: "told to start without a plan".into(),
                    };
                    link.publish(&reports, false, json(&r)).await?;
                    continue;
                };
                let ahead = at_wall_ns - clock(o.skew_ns);
                let t0 = Instant::now() + Duration::from_nanos(ahead.max(0) as u64);
                say(&format!("starting in {:.3} s", ahead.max(0) as f64 / 1e9));
                let stop = Arc::new(AtomicBool::new(false));
                let reporter = tokio::spawn(send_and_report(
                    job,
                    t0,
                    stop.clone(),
                    link.client.clone(),
                    reports.clone(),
                ));
                phase = Phase::Sending { stop, reporter };
            }
            Command::Stop { reason } => {
                if let Phase::Sending { stop, .. } = &phase {
                    say(&format!("told to stop: {reason}"));
                    stop.store(true, Ordering::SeqCst);
                }
            }
            Command::Release => {
                if let Phase::Sending { stop, reporter } = &mut phase {
                    stop.store(true, Ordering::SeqCst);
                    let _ = reporter.await;
                }
                phase = Phase::Idle;
                if o.once {
                    break Ok(());
                }
                say("released; waiting for the next run");
                link.publish(&state_topic, true, online(false)).await?;
            }
            Command::Refuse { reason } => {
                if o.once {
                    break Err(FleetError::Refused {
                        worker: o.name.clone(),
                        reason,
                    });
                }
                say(&format!(
                    "refused for this run: {reason}; waiting for the next"
                ));
            }
        }
    };
    if !matches!(result, Err(FleetError::BrokerLost { .. })) {
        let _ = link
            .publish(&state_topic, true, json(&State::Offline))
            .await;
        link.close().await;
    }
    result
}

/// Sleep until `at` on this machine's (skewed) wall clock.
async fn wait_until(at: i64, skew: i64) {
    let ahead = at - (wall_ns() + skew);
    if ahead > 0 {
        tokio::time::sleep(Duration::from_nanos(ahead as u64)).await;
    }
}

/// Check the plan can be kept on its node and pre-sign it.
async fn prepare(
    plan: &wire::Plan,
    rpc: Option<&str>,
) -> Result<(Job, dyno_format::load::SigningInfo), String> {
    if plan.accounts == 0 || plan.items.is_empty() {
        return Err("the plan gives this worker no accounts or no transactions".into());
    }
    let range = plan.first_account..plan.first_account + plan.accounts;
    if let Some(i) = plan.items.iter().find(|i| !range.contains(&i.sender)) {
        return Err(format!(
            "transaction {} is from account {}, outside this worker's accounts {}..{}",
            i.index, i.sender, range.start, range.end
        ));
    }
    if range.end > plan.accounts_total {
        return Err(format!(
            "its accounts {}..{} run past the {} derived",
            range.start, range.end, plan.accounts_total
        ));
    }
    if plan.items.iter().any(|i| i.kind == Kind::Blob) {
        return Err("blob transactions are not sent by fleet workers".into());
    }
    let schedule: Schedule = plan.schedule.parse().map_err(|e| format!("{e}"))?;
    let url = rpc.unwrap_or(&plan.node_url);
    let endpoint = Endpoint::parse(url).map_err(|e| format!("the node URL {url}: {e}"))?;
    let client = Client::connect(
        &endpoint,
        ClientOptions {
            connections: plan.connections.max(1),
            request_timeout: Some(Duration::from_millis(plan.request_timeout_ms.max(1))),
            ..ClientOptions::default()
        },
    )
    .await
    .map_err(|e| format!("cannot reach the node at {url}: {e}"))?;
    let chain_id = dyno_load::chain::chain_id(&client)
        .await
        .map_err(|e| format!("the node at {url} did not answer eth_chainId: {e}"))?;
    if chain_id != plan.chain_id {
        return Err(format!(
            "the node at {url} is on chain {chain_id}, the plan's transactions are signed for chain {}",
            plan.chain_id
        ));
    }
    let senders = Signer::derive_many(plan.seed.as_bytes(), plan.accounts_total as u64);
    let mine: Vec<usize> = range.clone().collect();
    let addresses: Vec<_> = mine.iter().map(|&i| senders[i].address).collect();
    let nonces = dyno_load::chain::nonces(&client, &addresses)
        .await
        .map_err(|e| format!("reading its accounts' nonces at {url}: {e}"))?;
    for (k, &i) in mine.iter().enumerate() {
        if let Some(first) = plan
            .items
            .iter()
            .filter(|t| t.sender == i)
            .map(|t| t.nonce)
            .min()
            && first != nonces[k]
        {
            return Err(format!(
                "account {i} ({:#x}) has nonce {} at {url}, but the plan starts it at {first}",
                senders[i].address, nonces[k]
            ));
        }
    }
    let targets = Targets {
        token: plan.token,
        store: plan.store,
        store_code: Bytes::from(
            hex::decode(&plan.store_code).map_err(|e| format!("the plan's store code: {e}"))?,
        ),
        blobs: None,
        authority_seed: plan.seed.as_bytes().to_vec(),
    };
    let planned: Vec<Planned> = plan
        .items
        .iter()
        .map(|i| Planned {
            sender: i.sender,
            nonce: i.nonce,
            kind: i.kind,
            nth: i.nth,
        })
        .collect();
    let threads = if plan.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        plan.threads
    };
    let (fees, gas) = (plan.fees, plan.gas.clone());
    let first_id = plan.items[0].index + 1;
    let (signed, report) = tokio::task::spawn_blocking(move || {
        txs::presign(&planned, &senders, &fees, &gas, &targets, threads, first_id)
    })
    .await
    .map_err(|e| format!("signing: {e}"))?;
    let out = signed
        .into_iter()
        .map(|s| Outgoing {
            body: s.body,
            expect: Some(s.hash),
        })
        .collect();
    let positions = Arc::new(plan.items.iter().map(|i| i.index).collect());
    Ok((
        Job {
            client,
            out,
            positions,
            schedule,
            cap: plan.open_loop_cap.max(1),
        },
        dyno_load::lab::signing_info(&report),
    ))
}

/// Send the share from `t0`, publishing records in batches as they
/// complete, then `Done`.
async fn send_and_report(
    job: Job,
    t0: Instant,
    stop: Arc<AtomicBool>,
    mqtt: rumqttc::AsyncClient,
    topic: String,
) {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let positions = job.positions.clone();
    let sender = {
        let stop = stop.clone();
        tokio::spawn(async move {
            tokio::time::sleep_until(t0.into()).await;
            send::send_share(
                &job.client,
                &job.out,
                &job.schedule,
                &Pace {
                    cap: job.cap,
                    t0,
                    check_hashes: true,
                },
                &stop,
                &Arc::new(Progress::default()),
                send::Share {
                    positions: Some(job.positions.clone()),
                    stream: Some(tx),
                },
            )
            .await
        })
    };
    let mut batch: Vec<wire::Sent> = Vec::new();
    let (mut seq, mut records) = (0u64, 0u64);
    let mut tick = tokio::time::interval(REPORT_EVERY);
    let publish = |seq: u64, items: Vec<wire::Sent>| {
        let mqtt = mqtt.clone();
        let topic = topic.clone();
        async move {
            let r = Report::Records { seq, items };
            let _ = mqtt
                .publish(topic, rumqttc::QoS::AtLeastOnce, false, json(&r))
                .await;
        }
    };
    loop {
        tokio::select! {
            m = rx.recv() => match m {
                Some((i, s)) => {
                    batch.push(to_wire(positions[i], &s));
                    if batch.len() >= REPORT_BATCH {
                        records += batch.len() as u64;
                        publish(seq, std::mem::take(&mut batch)).await;
                        seq += 1;
                    }
                }
                None => break,
            },
            _ = tick.tick() => {
                if !batch.is_empty() {
                    records += batch.len() as u64;
                    publish(seq, std::mem::take(&mut batch)).await;
                    seq += 1;
                }
            }
        }
    }
    if !batch.is_empty() {
        records += batch.len() as u64;
        publish(seq, std::mem::take(&mut batch)).await;
        seq += 1;
    }
    let detail = match sender.await {
        Ok(_) => None,
        Err(e) => Some(format!("the sender failed: {e}")),
    };
    let done = Report::Done {
        records,
        batches: seq,
        stopped: stop.load(Ordering::Relaxed),
        detail,
    };
    let _ = mqtt
        .publish(topic, rumqttc::QoS::AtLeastOnce, false, json(&done))
        .await;
}

fn to_wire(index: u64, s: &send::Sent) -> wire::Sent {
    let (hash, error_class, error) = match &s.result {
        Ok(h) => (Some(*h), None, None),
        Err((c, m)) => (None, Some(c.clone()), Some(m.clone())),
    };
    wire::Sent {
        index,
        intended_ns: s.intended_ns,
        sent_ns: s.sent_ns,
        replied_ns: s.replied_ns,
        hash,
        error_class,
        error,
    }
}
