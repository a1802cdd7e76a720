//! `dyno join --broker`: wait on the broker for an orchestrator, check
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

use crate::broker::{Broker, Incoming, Link, Publisher};
use crate::clock::wall_ns;
use crate::seal::{Key, SealError, Session};
use crate::wire::{self, Command, Hello, Report, State};
use crate::{FleetError, PROTOCOL};

/// How a worker runs.
#[derive(Debug, Clone)]
pub struct WorkerOptions {
    /// The broker and the fleet's name.
    pub broker: Broker,
    /// The fleet's key: every message is sealed and opened with it.
    pub key: Key,
    /// This worker's name on the broker (unique in the fleet).
    pub name: String,
    /// The node its operator named: a plan must name this node.
    pub rpc: Option<String>,
    /// Or the hosts (`HOST` or `HOST:PORT`) a plan's node may be on, for a
    /// node the orchestrator starts on a port of its choosing.
    pub allow_nodes: Vec<String>,
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

/// The node this worker sends a plan's share to: its own `--rpc`, which
/// the plan must name (the same host and port), or the plan's node if its
/// host (and port, where given) is on the operator's `--allow-node` list.
/// A worker never sends to a node only a plan names.
pub fn node_for(plan_url: &str, rpc: Option<&str>, allow: &[String]) -> Result<String, String> {
    let planned = Endpoint::parse(plan_url).map_err(|e| format!("the plan's node: {e}"))?;
    if let Some(rpc) = rpc {
        let own = Endpoint::parse(rpc).map_err(|e| format!("--rpc: {e}"))?;
        if own.host().eq_ignore_ascii_case(planned.host()) && own.port() == planned.port() {
            return Ok(rpc.to_string());
        }
        return Err(format!(
            "the plan names the node {}, not this worker's own --rpc {}: a worker sends only to the node its operator names",
            planned.url(),
            own.url()
        ));
    }
    let allowed = allow.iter().any(|a| {
        let (host, port) = match a.rsplit_once(':') {
            Some((h, p)) if !h.contains(':') || h.ends_with(']') => (h, p.parse::<u16>().ok()),
            _ => (a.as_str(), None),
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        host.eq_ignore_ascii_case(planned.host()) && port.is_none_or(|p| p == planned.port())
    });
    if allowed {
        return Ok(plan_url.to_string());
    }
    Err(if allow.is_empty() {
        format!(
            "the plan names the node {}, and this worker sends only to a node its operator names: start it with --rpc URL, or --allow-node HOST for a node the orchestrator starts",
            planned.url()
        )
    } else {
        format!(
            "the plan names the node {}, on none of this worker's --allow-node hosts ({})",
            planned.url(),
            allow.join(", ")
        )
    })
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
        o.key.clone(),
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
    link.publish(&state_topic, true, None, &online(false))
        .await?;
    say(&format!(
        "worker {} on {}: waiting for an orchestrator (dyno load --fleet {})",
        o.name, o.broker, o.broker
    ));
    let reports = o.broker.reports(&o.name);
    let mut phase = Phase::Idle;
    // The orchestrator whose plan this worker keeps: only it may start,
    // stop or release it.
    let mut boss: Option<Session> = None;
    let mut refusals = 0u64;
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
        let (topic, payload) = match msg {
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
            Some(Incoming::Message { topic, payload }) => (topic, payload),
        };
        let mut refuse = |why: String| {
            refusals += 1;
            // A flood of forgeries is said, not echoed line by line.
            if refusals <= 3 || refusals.is_multiple_of(100) {
                say(&format!("refused a message ({refusals} so far): {why}"));
            }
        };
        let opened = match link.open(&topic, &payload, false) {
            Ok(m) => m,
            // A repeat (MQTT delivers at least once) or a replay: dropped.
            Err(SealError::Replayed { .. }) => continue,
            Err(e) => {
                refuse(format!("on {topic}: {e}"));
                continue;
            }
        };
        let from = opened.from;
        let cmd: Command = match serde_json::from_slice(&opened.body) {
            Ok(c) => c,
            Err(e) => {
                refuse(format!(
                    "a sealed command that is not the fleet protocol's: {e}"
                ));
                continue;
            }
        };
        // While it keeps a plan, only its orchestrator may tell it anything
        // but a ping.
        if let Some(b) = boss
            && b != from
            && !matches!(cmd, Command::Ping { .. })
        {
            refuse(format!(
                "{} from orchestrator session {from}, while this worker keeps the plan of session {b}",
                command_name(&cmd)
            ));
            continue;
        }
        match cmd {
            Command::Ping { seq } => {
                let r = Report::Pong {
                    seq,
                    wall_ns: clock(o.skew_ns),
                };
                link.publish_once(&reports, Some(from), &json(&r)).await?;
            }
            Command::Plan(plan) => {
                if !matches!(phase, Phase::Idle | Phase::Finished) {
                    refused(
                        &link,
                        &reports,
                        from,
                        "a second plan while this one is kept".into(),
                    )
                    .await?;
                    continue;
                }
                boss = Some(from);
                link.publish(&state_topic, true, None, &online(true))
                    .await?;
                let prepared = match node_for(&plan.node_url, o.rpc.as_deref(), &o.allow_nodes) {
                    Ok(node) => {
                        say(&format!(
                            "planned: {} transactions from accounts {}..{} to {}",
                            plan.items.len(),
                            plan.first_account,
                            plan.first_account + plan.accounts,
                            dyno_format::redact::url(&node)
                        ));
                        prepare(&plan, &node)
                            .await
                            .map(|(job, signing)| (job, signing, node))
                    }
                    Err(reason) => Err(reason),
                };
                match prepared {
                    Ok((job, signing, target)) => {
                        say(&format!(
                            "pre-signed {} transactions at {:.0} tx/s",
                            job.out.len(),
                            signing.parallel_tx_per_s
                        ));
                        phase = Phase::Planned(job);
                        let ready = Report::Ready { signing, target };
                        link.publish(&reports, false, Some(from), &json(&ready))
                            .await?;
                    }
                    Err(reason) => {
                        say(&format!("cannot keep the plan: {reason}"));
                        refused(&link, &reports, from, reason).await?;
                        boss = None;
                        phase = Phase::Idle;
                        link.publish(&state_topic, true, None, &online(false))
                            .await?;
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
                    _ => dyno_load::drive::self_test_bodies(2000, "dyno-fleet"),
                };
                wait_until(at_wall_ns, o.skew_ns).await;
                let rate =
                    dyno_load::drive::self_test(&bodies, requests.max(1), connections.max(1))
                        .await
                        .unwrap_or(0.0);
                say(&format!(
                    "generator ceiling (null sink): {rate:.0} requests/s"
                ));
                link.publish(
                    &reports,
                    false,
                    Some(from),
                    &json(&Report::SelfTest { rate }),
                )
                .await?;
            }
            Command::Start { at_wall_ns } => {
                let Phase::Planned(job) = std::mem::replace(&mut phase, Phase::Idle) else {
                    let r = Report::Refused {
                        reason: "told to start without a plan".into(),
                    };
                    link.publish(&reports, false, Some(from), &json(&r)).await?;
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
                    link.publisher(),
                    reports.clone(),
                    from,
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
                boss = None;
                if o.once {
                    break Ok(());
                }
                say("released; waiting for the next run");
                link.publish(&state_topic, true, None, &online(false))
                    .await?;
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
            .publish(&state_topic, true, None, &json(&State::Offline))
            .await;
        link.close().await;
    }
    result
}

/// Tell the orchestrator of session `to` that its plan is refused.
async fn refused(
    link: &Link,
    reports: &str,
    to: Session,
    reason: String,
) -> Result<(), FleetError> {
    link.publish(reports, false, Some(to), &json(&Report::Refused { reason }))
        .await
}

/// A command's name, for messages.
fn command_name(c: &Command) -> &'static str {
    match c {
        Command::Ping { .. } => "a ping",
        Command::Plan(_) => "a plan",
        Command::SelfTest { .. } => "a self-test",
        Command::Start { .. } => "a start",
        Command::Stop { .. } => "a stop",
        Command::Release => "a release",
        Command::Refuse { .. } => "a refusal",
    }
}

/// Sleep until `at` on this machine's (skewed) wall clock.
async fn wait_until(at: i64, skew: i64) {
    let ahead = at - (wall_ns() + skew);
    if ahead > 0 {
        tokio::time::sleep(Duration::from_nanos(ahead as u64)).await;
    }
}

/// What a plan's transactions are built from: each item as planned, and
/// the contracts and seed they use.
fn signing(plan: &wire::Plan) -> Result<(Vec<Planned>, Targets), String> {
    let targets = Targets {
        token: plan.token,
        store: plan.store,
        store_code: Bytes::from(
            hex::decode(&plan.store_code).map_err(|e| format!("the plan's store code: {e}"))?,
        ),
        blobs: None,
        authority_seed: plan.seed.as_bytes().to_vec(),
    };
    let planned = plan
        .items
        .iter()
        .map(|i| Planned {
            sender: i.sender,
            nonce: i.nonce,
            kind: i.kind,
            nth: i.nth,
        })
        .collect();
    Ok((planned, targets))
}

/// The hash of each transaction of `plan`, in its order, signed here as
/// its worker signs them (signatures are deterministic): what the
/// orchestrator checks each record's hash against.
pub fn planned_hashes(plan: &wire::Plan) -> Result<Vec<alloy_primitives::B256>, String> {
    if plan.items.is_empty() {
        return Ok(Vec::new());
    }
    let (planned, targets) = signing(plan)?;
    let senders = Signer::derive_many(plan.seed.as_bytes(), plan.accounts_total as u64);
    if let Some(i) = plan.items.iter().find(|i| i.sender >= senders.len()) {
        return Err(format!(
            "transaction {} is from account {}, beyond the {} derived",
            i.index,
            i.sender,
            senders.len()
        ));
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    Ok(txs::sign_all(
        &planned,
        &senders,
        &plan.fees,
        &plan.gas,
        &targets,
        threads,
        plan.items[0].index + 1,
    )
    .into_iter()
    .map(|s| s.hash)
    .collect())
}

/// Check the plan can be kept on its node and pre-sign it.
async fn prepare(
    plan: &wire::Plan,
    url: &str,
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
    let (planned, targets) = signing(plan)?;
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
        dyno_load::drive::signing_info(&report),
    ))
}

/// Send the share from `t0`, publishing records in batches as they
/// complete, then `Done`.
async fn send_and_report(
    job: Job,
    t0: Instant,
    stop: Arc<AtomicBool>,
    mqtt: Publisher,
    topic: String,
    to: Session,
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
            let _ = mqtt.publish(&topic, Some(to), &json(&r)).await;
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
    let _ = mqtt.publish(&topic, Some(to), &json(&done)).await;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worker_sends_only_to_the_node_its_operator_names() {
        let allow = |hosts: &[&str]| hosts.iter().map(|h| h.to_string()).collect::<Vec<_>>();
        // Its own --rpc: the plan must name the same node.
        let own = Some("http://10.0.0.7:8545");
        assert_eq!(
            node_for("http://10.0.0.7:8545", own, &[]).unwrap(),
            "http://10.0.0.7:8545"
        );
        let e = node_for("http://evil.example:8545", own, &[]).unwrap_err();
        assert!(
            e.contains("not this worker's own --rpc http://10.0.0.7:8545"),
            "{e}"
        );
        let e = node_for("http://10.0.0.7:9999", own, &[]).unwrap_err();
        assert!(e.contains("not this worker's own"), "{e}");
        // An allowed host, any port or the one given.
        let hosts = allow(&["10.0.0.5", "node.lab:8545"]);
        assert!(node_for("http://10.0.0.5:41234", None, &hosts).is_ok());
        assert!(node_for("http://NODE.lab:8545/", None, &hosts).is_ok());
        let e = node_for("http://node.lab:8546", None, &hosts).unwrap_err();
        assert!(
            e.contains("on none of this worker's --allow-node hosts"),
            "{e}"
        );
        // Neither: every plan is refused, saying how to name a node.
        let e = node_for("http://10.0.0.5:8545", None, &[]).unwrap_err();
        assert!(e.contains("--rpc URL, or --allow-node HOST"), "{e}");
        assert!(node_for("not a url", None, &hosts).is_err());
    }
}
