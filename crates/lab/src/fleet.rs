//! `dyno load --fleet` and `dyno join --broker`: the load campaign sent
//! from workers on other machines (or network namespaces), met through an
//! MQTT broker; see `dyno_fleet`.
//!
//! The orchestrator prepares the node as a run from one machine does
//! (accounts, contracts, fees, gas), plans the whole schedule, gives each
//! worker the transactions of its own accounts, follows the chain while
//! they send, and computes every figure from their merged raw records.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dyno_fleet::orchestrator::{self, Fleet, FleetOptions};
use dyno_fleet::seal::Key;
use dyno_fleet::wire;
use dyno_fleet::{Broker, FleetError};
use dyno_load::drive::{self, Phase, SignerMode};
use dyno_load::record::TxRecord;
use dyno_load::txs::Kind;

use crate::campaign::{self, Finished, Request};
use crate::paths::Lab;
use crate::{Error, refuse};

/// Clock exchanges per worker, before the start and after the end.
const PINGS: usize = 8;

/// Connections of each worker's null-sink self-test (as a run from one
/// machine: crates/rpc/benches/null_sink.rs).
const SELF_TEST_CONNECTIONS: usize = 4;

/// This build, as workers must match it: the version and the commit.
pub fn version(lab: &Lab) -> String {
    match lab.build.git_commit {
        Some(c) => format!("{} ({c})", lab.build.version),
        None => lab.build.version.to_string(),
    }
}

fn fleet_error(e: FleetError) -> Error {
    Error::Refused(e.to_string())
}

/// Refuse what a fleet run does not do, before anything starts.
fn check(args: &Request, opts: &drive::Options) -> crate::Result<()> {
    if args.workers == 0 {
        refuse!("--workers 0: a fleet needs at least one worker");
    }
    if args.signer != "client" {
        refuse!(
            "--signer {}: fleet workers send transactions they signed themselves; use --signer client",
            args.signer
        );
    }
    if args.rpc.is_none() && args.node_cmd.is_none() && args.node.len() > 1 {
        refuse!(
            "--node {}: a fleet run loads one node; give one",
            args.node.join(",")
        );
    }
    if opts.mix.kinds().any(|k| k == Kind::Blob) {
        refuse!(
            "--workload {}: fleet workers do not send blob transactions (each would make and carry its own blobs); choose a workload without them",
            args.workload
        );
    }
    if !args.logs.is_empty() || args.reads > 0 {
        refuse!("--logs and --reads run from one machine; leave them out of a fleet run");
    }
    if args.record.is_some() {
        refuse!("--record runs from one machine; leave it out of a fleet run");
    }
    if !args.self_test && args.txs > 0 && args.accounts < args.workers {
        refuse!(
            "--accounts {} is fewer than --workers {}: each worker signs from accounts of its own; pass --accounts {} or more",
            args.accounts,
            args.workers,
            args.workers
        );
    }
    Ok(())
}

/// `dyno load --fleet URL`.
pub fn orchestrate(lab: &Lab, args: &Request, url: &str) -> crate::Result<Finished> {
    let broker = Broker::parse(url)
        .map_err(|e| Error::Refused(format!("--fleet {e}")))?
        .with_login(read_login(args.fleet_login.as_deref(), "--fleet-login")?)
        .with_ca(args.fleet_ca.clone());
    let opts = campaign::options(&lab.paths, args)?;
    check(args, &opts)?;
    let targets = if args.self_test {
        Vec::new()
    } else {
        campaign::targets(&lab.paths, args)?
    };
    if let Some(t) = targets.first()
        && let Some(why) = campaign::refused_kind(t, &opts)
    {
        refuse!("--workload {}: {why}", args.workload);
    }
    if !args.self_test {
        crate::history::check_location(&lab.paths)?;
    }
    let Some(key_path) = &args.fleet_key else {
        refuse!(
            "--fleet needs --fleet-key FILE, the key every worker seals its messages with (make one with `dyno join --new-key FILE` and copy it to each worker's machine)"
        );
    };
    let key = Key::read(key_path).map_err(|e| Error::Refused(format!("--fleet-key: {e}")))?;
    let quiet = args.quiet;
    let say = campaign::sayer(quiet);
    let interrupt = crate::interrupt::flag()?;
    let runtime = campaign::runtime()?;
    let fleet_opts = FleetOptions {
        broker: broker.clone(),
        key,
        workers: args.workers,
        join_timeout: Duration::from_secs(args.join_timeout),
        version: version(lab),
        interrupt: interrupt.clone(),
    };
    // The node, and who pays for its set-up, before any worker is waited
    // for: a node that cannot be reached, or a missing --funder-key, is
    // said at once, not after the join.
    let prepared = if args.self_test {
        None
    } else {
        let file = campaign::result_file(lab, args)?;
        let target = targets
            .first()
            .cloned()
            .ok_or_else(|| Error::Refused("no node to load".into()))?;
        let step = |e: drive::LoadError| Error::Step {
            what: format!("load against {}", target.name()),
            source: Box::new(e),
        };
        let c = runtime
            .block_on(drive::connect(&target, &opts, &say))
            .map_err(step)?;
        if let Err(e) = drive::funder(&c, &opts) {
            c.stop();
            return Err(step(e));
        }
        Some((file, target, c))
    };
    let stop_node = || {
        if let Some((_, _, c)) = &prepared {
            c.stop();
        }
    };
    let gathered = runtime.block_on(Fleet::gather(&fleet_opts, Box::new(say)));
    let mut fleet = match gathered {
        Ok(f) => f,
        Err(e) => {
            stop_node();
            return Err(match e {
                FleetError::Interrupted => Error::Refused(
                    "interrupted while waiting for the workers to join; nothing was sent".into(),
                ),
                e => fleet_error(e),
            });
        }
    };
    if let Err(e) = runtime.block_on(fleet.clocks(PINGS, false)) {
        runtime.block_on(fleet.abandon(&e.to_string()));
        stop_node();
        return Err(fleet_error(e));
    }
    for m in &fleet.members {
        if let Some(c) = &m.clock_before {
            say(&format!(
                "worker {} ({}, {} cores, dyno {}): clock {:+.3} ms ± {:.3}",
                m.hello.name,
                m.hello.host,
                m.hello.cores,
                m.hello.version,
                c.offset_ms,
                c.uncertainty_ms
            ));
        }
    }

    if args.self_test {
        let n = opts.self_test_requests.max(1000);
        let total = runtime.block_on(fleet.self_test(n, SELF_TEST_CONNECTIONS));
        let mut line = String::new();
        if let Ok(total) = &total {
            line.push_str(&format!(
                "generator ceiling: {total:.0} requests/s from {} worker(s) at once, each against its own null sink ({n} requests, {SELF_TEST_CONNECTIONS} connections each)\n",
                fleet.members.len()
            ));
            for m in &fleet.members {
                line.push_str(&format!(
                    "  {}: {:.0} requests/s ({} cores)\n",
                    m.hello.name,
                    m.self_test_rate.unwrap_or(0.0),
                    m.hello.cores
                ));
            }
        }
        runtime.block_on(fleet.release());
        return total.map(|_| Finished::SelfTest(line)).map_err(fleet_error);
    }

    // The result file, as a run from one machine writes it.
    let Some((
        campaign::ResultFile {
            mut run,
            out,
            dir,
            base,
        },
        _target,
        c,
    )) = prepared
    else {
        refuse!("no node to load");
    };

    let probe = dyno_runner::noise::Probe::start();
    let step = runtime.block_on(async {
        let result = measure(&c, &opts, args, &mut fleet, &interrupt, &say).await;
        c.stop();
        match result {
            Ok(o) => {
                fleet.release().await;
                Ok(o)
            }
            Err(e) => {
                fleet.abandon(&e.to_string()).await;
                Err(e)
            }
        }
    });
    let mut failure = None;
    let mut wrong = false;
    match step {
        Ok((mut o, raw)) => {
            let stem = format!("{base}-{}-fleet", o.result.node.name);
            if let Err(e) = dyno_load::output::write_files(&mut o, &dir, &stem) {
                eprintln!("dyno load: warning: {e}");
            }
            let raw_path = dir.join(format!("{stem}-workers.jsonl"));
            match std::fs::write(&raw_path, raw.join("\n") + "\n") {
                Ok(()) => {
                    o.result.files.insert(
                        "workers".into(),
                        raw_path
                            .file_name()
                            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
                    );
                }
                Err(e) => eprintln!("dyno load: warning: {}: {e}", raw_path.display()),
            }
            wrong |= campaign::is_wrong(&o);
            if let Some(reason) = o.result.incomplete_reason.clone() {
                failure = Some(Error::Refused(format!(
                    "the fleet run is incomplete: {reason}\n  the data up to then is saved in {} and marked incomplete",
                    out.display()
                )));
            }
            run.load.push(o.result);
        }
        Err(e) => failure = Some(e),
    }
    crate::session::keep_noise(&mut run, probe, quiet);
    let interrupted = interrupt.load(Ordering::Relaxed);
    campaign::conclude(lab, run, &out, failure, interrupted, quiet, wrong)
}

/// Prepare the node, plan, hand out the shares, and run the timed phase
/// with the fleet as its sender. Returns the outcome and the raw reports.
async fn measure(
    c: &drive::Connected,
    opts: &drive::Options,
    args: &Request,
    fleet: &mut Fleet,
    interrupt: &Arc<std::sync::atomic::AtomicBool>,
    say: &(dyn Fn(&str) + Sync),
) -> crate::Result<(drive::Outcome, Vec<String>)> {
    let step = |e: drive::LoadError| Error::Step {
        what: format!("load against {}", c.info.name),
        source: Box::new(e),
    };
    let p = drive::prepare(c, opts, None, say).await.map_err(step)?;
    let plan = dyno_load::txs::plan(opts.txs, &p.nonces, &opts.mix);
    let workers = fleet.members.len();
    let split = orchestrator::split_accounts(opts.accounts, workers).ok_or_else(|| {
        Error::Refused(format!(
            "--accounts {} is fewer than the {workers} workers",
            opts.accounts
        ))
    })?;
    let senders: Vec<usize> = plan.iter().map(|t| t.sender).collect();
    let owner = orchestrator::owners(&senders, &split);
    let mut plans = Vec::new();
    for (k, &(first, n)) in split.iter().enumerate() {
        let items: Vec<wire::Item> = plan
            .iter()
            .enumerate()
            .filter(|(i, _)| owner[*i] == Some(k))
            .map(|(i, t)| wire::Item {
                index: i as u64,
                sender: t.sender,
                nonce: t.nonce,
                kind: t.kind,
                nth: t.nth,
            })
            .collect();
        if items.is_empty() {
            refuse!(
                "worker {}: its accounts {first}..{} send none of the {} transactions; pass more --txs or fewer --workers",
                fleet.members[k].hello.name,
                first + n,
                opts.txs
            );
        }
        plans.push(wire::Plan {
            node_url: c.url.clone(),
            chain_id: p.fees.chain_id,
            fees: p.fees,
            gas: p.gas.clone(),
            token: p.targets.token,
            store: p.targets.store,
            store_code: alloy_primitives::hex::encode(&p.targets.store_code),
            seed: opts.seed.clone(),
            accounts_total: opts.accounts,
            first_account: first,
            accounts: n,
            items,
            schedule: args.rate.clone(),
            open_loop_cap: opts.open_loop_cap,
            connections: opts.connections,
            request_timeout_ms: opts.request_timeout.as_millis() as u64,
            threads: opts.threads,
        });
    }
    say(&format!(
        "planned {} transactions at {} over {workers} worker(s); waiting for each to pre-sign its share",
        opts.txs, opts.schedule_text
    ));
    fleet
        .plan(plans, Duration::from_secs(600))
        .await
        .map_err(fleet_error)?;
    let self_test_total = if opts.self_test_requests > 0 {
        let total = fleet
            .self_test(opts.self_test_requests, SELF_TEST_CONNECTIONS)
            .await
            .map_err(fleet_error)?;
        say(&format!(
            "generator ceiling, every worker at once against its own null sink: {total:.0} requests/s"
        ));
        Some(total)
    } else {
        None
    };
    let records: Vec<TxRecord> = plan
        .iter()
        .enumerate()
        .map(|(i, t)| TxRecord::planned(i as u64, t.kind, Some(t.sender), Some(t.nonce)))
        .collect();
    let total = records.len();
    // The workers report as replies come: all of them are in soon after
    // the last intended send, or the request time limit after it.
    let last = opts
        .schedule
        .offset(total.saturating_sub(1) as u64)
        .unwrap_or(Duration::from_secs(600));
    let limit = last + opts.request_timeout + Duration::from_secs(60);
    let session = drive::Session {
        opts,
        self_test_rate: self_test_total,
        interrupt,
        say,
        // The workers' records arrive in batches: no live line.
        live: false,
    };
    let phase = Phase {
        mode: SignerMode::Client,
        signing: None,
        lead: Duration::from_secs(2),
    };
    let merged: Arc<Mutex<Vec<String>>> = Arc::default();
    say(&format!(
        "{} · {workers} worker(s): {total} transactions at {} from {} accounts",
        c.info.name, opts.schedule_text, opts.accounts
    ));
    let mut outcome = {
        let fleet = &mut *fleet;
        let merged = merged.clone();
        let owner = &owner;
        drive::timed(
            c,
            &p,
            records,
            &phase,
            &session,
            move |t0, stop, progress| async move {
                match fleet.run(t0, total, owner, stop, progress, limit).await {
                    Ok(m) => {
                        merged
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .extend(m.problems);
                        m.sends
                    }
                    Err(e) => {
                        merged
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .push(format!("the fleet's records are incomplete: {e}"));
                        vec![None; total]
                    }
                }
            },
        )
        .await
    };
    let _ = fleet.clocks(PINGS, true).await;
    let resolution_ms = opts.poll.as_secs_f64() * 1e3;
    let (info, notes) = fleet.info(&outcome.records, &owner, resolution_ms, self_test_total);
    let r = &mut outcome.result;
    r.id = format!(
        "load/{}/{}/fleet-{workers}",
        opts.workload_name, opts.schedule
    );
    r.fleet = Some(info);
    r.notes.extend(notes);
    let problems = std::mem::take(&mut *merged.lock().unwrap_or_else(|p| p.into_inner()));
    r.notes.extend(problems.iter().cloned());
    // A lost worker may have sent for up to one report interval after its
    // last report: those are on chain but in no record. Say how many.
    let unreported: u64 = r.blocks.iter().map(|b| b.txs - b.ours.min(b.txs)).sum();
    if unreported > 0 {
        r.notes.push(format!(
            "{unreported} transaction(s) in the run's blocks are in no worker's records{}",
            if fleet.incomplete().is_some() {
                ": sent by a lost worker after its last report, or by another sender to this node"
            } else {
                ": sent by another sender to this node"
            }
        ));
    }
    if let Some(why) = fleet.incomplete().or_else(|| problems.first().cloned()) {
        r.complete = false;
        r.incomplete_reason = Some(match r.incomplete_reason.take() {
            Some(before) => format!("{before}; {why}"),
            None => why,
        });
    }
    Ok((outcome, fleet.raw.clone()))
}

/// `dyno join --broker URL`: serve fleet runs until released (`once`),
/// interrupted, or the broker is lost.
/// The broker's login from `path` (`flag` names it in a refusal).
fn read_login(
    path: Option<&std::path::Path>,
    flag: &str,
) -> crate::Result<Option<dyno_fleet::login::Login>> {
    path.map(|p| {
        dyno_fleet::login::Login::read(p).map_err(|e| Error::Refused(format!("{flag}: {e}")))
    })
    .transpose()
}

pub fn serve_worker(lab: &Lab, o: &WorkerRequest) -> crate::Result<()> {
    let broker = Broker::parse(&o.broker)
        .map_err(|e| Error::Refused(format!("--broker {e}")))?
        .with_login(read_login(o.login.as_deref(), "--broker-login")?)
        .with_ca(o.ca.clone());
    let name = o
        .name
        .clone()
        .unwrap_or_else(|| format!("{}-{}", dyno_fleet::worker::host_name(), std::process::id()));
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
    {
        refuse!("--name {name:?}: use letters, digits, '-', '_' and '.' only");
    }
    let key = Key::read(&o.key).map_err(|e| Error::Refused(format!("--key: {e}")))?;
    // The node is checked now, not when a plan comes.
    if let Some(rpc) = &o.rpc {
        dyno_rpc::Endpoint::parse(rpc).map_err(|e| Error::Refused(format!("--rpc: {e}")))?;
    }
    for a in &o.allow_nodes {
        if a.is_empty() || a.contains('/') {
            refuse!(
                "--allow-node {a:?}: give a host (10.0.0.5) or a host and port (10.0.0.5:8545), not a URL"
            );
        }
    }
    let quiet = o.quiet;
    let say = move |m: &str| {
        if !quiet {
            eprintln!("dyno join: {m}");
        }
    };
    let opts = dyno_fleet::worker::WorkerOptions {
        broker,
        key,
        name,
        rpc: o.rpc.clone(),
        allow_nodes: o.allow_nodes.clone(),
        once: o.once,
        skew_ns: (o.clock_skew_ms * 1e6).round() as i64,
        version: o.claim_version.clone().unwrap_or_else(|| version(lab)),
    };
    let interrupt = crate::interrupt::flag()?;
    let runtime = campaign::runtime()?;
    match runtime.block_on(dyno_fleet::worker::serve(&opts, interrupt, &say)) {
        Ok(()) => Ok(()),
        Err(FleetError::Interrupted) => {
            refuse!("interrupted; the orchestrator has this worker's records up to now")
        }
        Err(e) => Err(fleet_error(e)),
    }
}

/// `dyno join --new-key FILE`: a new fleet key, written to a new file
/// only its owner can read (an existing file is never replaced).
pub fn new_key(path: &std::path::Path) -> crate::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let key = Key::generate().map_err(|e| Error::Refused(format!("making a key: {e}")))?;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| {
            Error::Refused(if e.kind() == std::io::ErrorKind::AlreadyExists {
                format!(
                    "--new-key {}: the file exists; it is kept (remove it first to replace the fleet's key)",
                    path.display()
                )
            } else {
                format!("--new-key {}: {e}", path.display())
            })
        })?;
    f.write_all(key.to_file_text().as_bytes())
        .map_err(|e| Error::Refused(format!("--new-key {}: {e}", path.display())))?;
    Ok(())
}

/// What `dyno join --broker` is asked.
#[derive(Debug, Clone)]
pub struct WorkerRequest {
    /// `mqtt://HOST:PORT[/NAME]`.
    pub broker: String,
    /// The fleet's key file.
    pub key: std::path::PathBuf,
    /// The broker's login file (`USERNAME:PASSWORD`), if it asks for one.
    pub login: Option<std::path::PathBuf>,
    /// The CA certificates (PEM) of an `mqtts://` broker.
    pub ca: Option<std::path::PathBuf>,
    /// Its name on the broker (default: host name and process id).
    pub name: Option<String>,
    /// The node its operator names; a plan must name it.
    pub rpc: Option<String>,
    /// Or the hosts a plan's node may be on.
    pub allow_nodes: Vec<String>,
    /// Serve one run, then exit.
    pub once: bool,
    /// Planted clock offset, ms (tests).
    pub clock_skew_ms: f64,
    /// Claimed version (tests).
    pub claim_version: Option<String>,
    /// No progress messages.
    pub quiet: bool,
}
