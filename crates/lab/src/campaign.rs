//! The load campaign (`dyno load`): the options checked before any node
//! starts, then for each node in turn the read path, the pre-signed load
//! for each signer, the result file after every node (so nothing measured
//! is lost), its CSV and plots, and the history.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

use dyno_format::Run;
use dyno_format::destination::Destination;
use dyno_load::drive::{self, Options, Outcome, SignerMode, Target};
use dyno_load::read;
use dyno_load::schedule::Schedule;
use dyno_load::txs::{Kind, Mix};

use crate::error::Context as _;
use crate::paths::{Lab, Paths};
use crate::{Error, refuse};

/// What `dyno load` is asked: its flags, as given.
#[derive(Debug, Clone)]
pub struct Request {
    /// Dev nodes to start one after another: geth, anvil, hardhat.
    pub node: Vec<String>,
    /// A running node's HTTP JSON-RPC URL instead.
    pub rpc: Option<String>,
    /// Another client's shell command line (`{datadir}`, `{port}`).
    pub node_cmd: Option<String>,
    /// The RPC URL of a `node_cmd` client.
    pub node_url: String,
    pub txs: usize,
    /// The schedule (`500`, `ramp:...`, `steps:...`, `max`).
    pub rate: String,
    pub accounts: usize,
    /// A kind or a mix of specs/load/mixes.toml.
    pub workload: String,
    /// client, node or both.
    pub signer: String,
    pub block_time: u64,
    pub seed: String,
    pub tip_gwei: f64,
    pub max_fee_gwei: Option<f64>,
    pub connections: usize,
    pub max_in_flight: usize,
    pub lag_threshold_ms: f64,
    pub inclusion_timeout: u64,
    pub finality_timeout: u64,
    pub poll_ms: u64,
    /// The node's Prometheus URL (a started geth serves its own).
    pub metrics_url: Option<String>,
    /// Milliseconds between scrapes of the node's metrics.
    pub metrics_ms: u64,
    /// A funded key (hex) for targets without an unlocked account.
    pub funder_key: Option<String>,
    pub threads: usize,
    /// eth_getLogs study sizes.
    pub logs: Vec<usize>,
    pub body_limit: usize,
    /// Read-load requests, their schedule and methods.
    pub reads: usize,
    pub read_rate: String,
    pub read_methods: Vec<String>,
    /// Only measure the generator's ceiling.
    pub self_test: bool,
    pub self_test_requests: usize,
    /// The result file; default `dyno-results/<run id>-load.json`.
    pub out: Option<PathBuf>,
    /// A chain folder to save the node's blocks in after the run (geth
    /// only, started on a genesis dyno writes), for `dyno replay --set`.
    pub record: Option<PathBuf>,
    pub quiet: bool,
    /// `--fleet mqtt://HOST:PORT[/NAME]`: send from workers on a broker.
    pub fleet: Option<String>,
    /// `--fleet-key FILE`: the fleet's key.
    pub fleet_key: Option<PathBuf>,
    /// The broker's login file (`USERNAME:PASSWORD`, mode 0600).
    pub fleet_login: Option<PathBuf>,
    /// The CA certificates (PEM) of an `mqtts://` broker.
    pub fleet_ca: Option<PathBuf>,
    /// Workers a fleet run waits for.
    pub workers: usize,
    /// How long a fleet run waits for them, seconds.
    pub join_timeout: u64,
}

/// How a campaign ended.
#[derive(Debug)]
pub enum Finished {
    /// `self_test`: the generator's ceiling, one line.
    SelfTest(String),
    /// A campaign. `run` is the saved result when anything was measured;
    /// `failure` says why it stopped early (the run is then marked
    /// incomplete); `wrong` is a wrong result (a node returned another
    /// hash, or the chain scan disagreed with the tracker).
    Load {
        run: Option<Box<Run>>,
        failure: Option<Error>,
        wrong: bool,
    },
}

/// Connections of the null-sink self-test: with two cores, four keep-alive
/// connections gave the highest rate (crates/rpc/benches/null_sink.rs).
const SELF_TEST_CONNECTIONS: usize = 4;

pub(crate) fn gwei(x: f64, flag: &str) -> crate::Result<u128> {
    if !x.is_finite() || x < 0.0 {
        refuse!("{flag} {x}: give a non-negative number of gwei");
    }
    Ok((x * 1e9).round() as u128)
}

/// The mix `--workload` names: a single kind, or a `[mix.NAME]` of
/// specs/load/mixes.toml.
fn mix(paths: &Paths, name: &str) -> crate::Result<Mix> {
    if let Some(k) = Kind::parse(name) {
        return Ok(Mix::only(k));
    }
    let path = paths.specs.join("load").join("mixes.toml");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("--workload {name}: reading {}", path.display()))?;
    let mixes = dyno_load::txs::mixes_from_toml(&text, &path)?;
    mixes.get(name).cloned().ok_or_else(|| {
        let mut known: Vec<String> = Kind::ALL.iter().map(|k| k.as_str().to_string()).collect();
        known.extend(mixes.keys().cloned());
        Error::Refused(format!(
            "--workload {name:?}: no such kind or mix; choose one of {} (mixes are [mix.NAME] in {})",
            known.join(", "),
            path.display()
        ))
    })
}

pub(crate) fn targets(paths: &Paths, args: &Request) -> crate::Result<Vec<Target>> {
    if let Some(url) = &args.rpc {
        if let Err(e) = dyno_rpc::Endpoint::parse(url) {
            refuse!("--rpc: {e}");
        }
        return Ok(vec![Target::Rpc(url.clone())]);
    }
    if let Some(cmd) = &args.node_cmd {
        return Ok(vec![Target::Cmd {
            cmd: cmd.clone(),
            url: args.node_url.clone(),
        }]);
    }
    let nodes = crate::adapters::nodes(paths);
    args.node
        .iter()
        .map(|n| {
            let kind = dyno_node::Kind::parse(n).ok_or_else(|| {
                Error::Refused(format!("--node {n:?}: dyno starts geth, anvil or hardhat; use --rpc URL or --node-cmd CMD for others"))
            })?;
            let home = nodes
                .iter()
                .find(|a| a.runtime == n.as_str())
                .map(|a| a.home.clone())
                .unwrap_or_else(|| paths.cache.join("nodes").join(n));
            Ok(Target::Start(kind, home))
        })
        .collect()
}

/// The most transactions one `dyno load` run takes: each is signed and
/// kept in memory before the run starts, with its record through the run
/// (some hundreds of bytes each, a blob transaction's sidecar 128 KiB), so
/// a bound is checked before anything starts, never met by an allocation
/// that aborts with a node running. Five million is 40 minutes at 2 000
/// transactions a second.
pub const MAX_TXS: usize = 5_000_000;

pub(crate) fn options(paths: &Paths, args: &Request) -> crate::Result<Options> {
    let schedule: Schedule = args
        .rate
        .parse()
        .map_err(|e| Error::Refused(format!("--rate: {e}")))?;
    if args.txs > MAX_TXS {
        refuse!(
            "--txs {}: at most {MAX_TXS} in one run (every transaction is signed and held in \
             memory before the run starts); split the load into several runs",
            args.txs
        );
    }
    if args.txs == 0 && args.logs.is_empty() && args.reads == 0 {
        refuse!("--txs 0 with neither --logs nor --reads: nothing to do");
    }
    if args.accounts == 0 {
        refuse!("--accounts 0: give at least one sending account");
    }
    if args.connections == 0 {
        refuse!("--connections 0: give at least one connection");
    }
    if let Some(u) = &args.metrics_url
        && !u.starts_with("http://")
    {
        refuse!(
            "--metrics-url {u}: give an http:// URL of the node's Prometheus metrics, e.g. \
             http://127.0.0.1:6060/debug/metrics/prometheus"
        );
    }
    let funder_key = match &args.funder_key {
        None => None,
        Some(k) => Some(k.trim().parse::<alloy_primitives::B256>().map_err(|_| {
            Error::Refused(
                "--funder-key: expected 32 bytes of hex (0x followed by 64 hex digits)".into(),
            )
        })?),
    };
    Ok(Options {
        txs: args.txs,
        accounts: args.accounts.min(args.txs.max(1)),
        schedule,
        schedule_text: args.rate.clone(),
        mix: mix(paths, &args.workload)?,
        workload_name: args.workload.clone(),
        block_time: args.block_time,
        seed: args.seed.clone(),
        tip_wei: gwei(args.tip_gwei, "--tip-gwei")?,
        max_fee_wei: args
            .max_fee_gwei
            .map(|g| gwei(g, "--max-fee-gwei"))
            .transpose()?,
        connections: args.connections,
        open_loop_cap: args.max_in_flight.max(1),
        lag_threshold: Duration::from_secs_f64(args.lag_threshold_ms.max(0.0) / 1e3),
        inclusion_timeout: Duration::from_secs(args.inclusion_timeout),
        finality_timeout: Duration::from_secs(args.finality_timeout),
        poll: Duration::from_millis(args.poll_ms.max(10)),
        request_timeout: Duration::from_secs(30),
        contracts: paths.contracts.clone(),
        funder_key,
        threads: args.threads,
        self_test_requests: args.self_test_requests,
        metrics_url: args.metrics_url.clone(),
        metrics_interval: Duration::from_millis(args.metrics_ms.max(100)),
        genesis: None,
    })
}

/// Geth's blob pool holds at most this many blob transactions of one
/// account (`maxTxsPerAccount`, core/txpool/blobpool).
pub const BLOB_POOL_PER_ACCOUNT: usize = 16;

/// Refuse what the kinds of the mix cannot do: blob and set-code
/// transactions signed by the node, blob transactions beside others from
/// a single account, more blob transactions per account than a blob pool
/// holds.
pub(crate) fn check_kinds(opts: &Options, modes: &[SignerMode]) -> crate::Result<()> {
    let kinds: Vec<Kind> = opts.mix.kinds().collect();
    if modes.contains(&SignerMode::Node)
        && let Some(k) = kinds
            .iter()
            .find(|k| matches!(k, Kind::Blob | Kind::SetCode))
    {
        refuse!(
            "--signer node: {} transactions are signed by dyno only (their sidecar or \
             authorization is built here); use --signer client, or a workload without them",
            k.as_str()
        );
    }
    if !kinds.contains(&Kind::Blob) {
        return Ok(());
    }
    let mixed = kinds.iter().any(|k| *k != Kind::Blob);
    if mixed && opts.accounts < 2 {
        refuse!(
            "--accounts {}: a mix with blob transactions needs at least 2 accounts, since a \
             node keeps an account's blob transactions apart from its others (geth refuses an \
             account in both pools)",
            opts.accounts
        );
    }
    let blob_txs = opts
        .mix
        .sequence(opts.txs)
        .iter()
        .filter(|k| **k == Kind::Blob)
        .count();
    let lane = opts.accounts - dyno_load::txs::blob_lane(opts.accounts, &opts.mix);
    let each = blob_txs.div_ceil(lane.max(1));
    if each > BLOB_POOL_PER_ACCOUNT {
        let share = lane as f64 / opts.accounts as f64;
        let need = (blob_txs.div_ceil(BLOB_POOL_PER_ACCOUNT) as f64 / share).ceil() as usize;
        refuse!(
            "--accounts {}: {blob_txs} blob transactions over {lane} blob-sending accounts is \
             {each} each, more than geth's blob pool holds of one account \
             ({BLOB_POOL_PER_ACCOUNT}); give --accounts {need} or more",
            opts.accounts
        );
    }
    Ok(())
}

/// Why a dev node dyno starts cannot take a kind of the mix, if it cannot.
pub(crate) fn refused_kind(target: &Target, opts: &Options) -> Option<String> {
    let Target::Start(node, _) = target else {
        return None;
    };
    opts.mix.kinds().find_map(|k| {
        node.refuses_type(k.tx_type())
            .map(|why| format!("the workload has {} transactions: {why}", k.as_str()))
    })
}

pub(crate) fn signer_modes(s: &str) -> crate::Result<Vec<SignerMode>> {
    Ok(match s {
        "client" => vec![SignerMode::Client],
        "node" => vec![SignerMode::Node],
        "both" => vec![SignerMode::Client, SignerMode::Node],
        other => refuse!("--signer {other:?}: choose client, node or both"),
    })
}

/// Run a campaign: check every option, then each target in turn.
pub fn run(lab: &Lab, args: &Request) -> crate::Result<Finished> {
    if let Some(url) = &args.fleet {
        return crate::fleet::orchestrate(lab, args, url);
    }
    let opts = options(&lab.paths, args)?;
    let modes = signer_modes(&args.signer)?;
    check_kinds(&opts, &modes)?;
    let targets = if args.self_test {
        Vec::new()
    } else {
        targets(&lab.paths, args)?
    };
    if !targets.is_empty()
        && let Some(why) = targets
            .iter()
            .map(|t| refused_kind(t, &opts))
            .collect::<Option<Vec<String>>>()
    {
        refuse!(
            "--workload {}: no node asked for can take it: {}; use --node geth or anvil, or a \
             workload without blob transactions",
            args.workload,
            why.join("; ")
        );
    }
    if !args.self_test {
        crate::history::check_location(&lab.paths)?;
    }
    let mut opts = opts;
    if let Some(dir) = &args.record {
        check_record(dir, &targets, args)?;
        opts.genesis = Some(recording_genesis());
    }
    let quiet = args.quiet;
    let live = !quiet && std::io::stderr().is_terminal();
    let say = sayer(quiet);
    let interrupt = crate::interrupt::flag()?;
    let runtime = runtime()?;

    if args.self_test {
        let bodies = self_test_bodies(&opts);
        let n = opts.self_test_requests.max(1000);
        let rate = runtime.block_on(drive::self_test(&bodies, n, SELF_TEST_CONNECTIONS))?;
        return Ok(Finished::SelfTest(format!(
            "generator ceiling: {rate:.0} requests/s against the null sink ({n} requests, {SELF_TEST_CONNECTIONS} connections)\n"
        )));
    }

    // The result file, written after every node so nothing measured is lost.
    let ResultFile {
        mut run,
        out,
        dir,
        base,
    } = result_file(lab, args)?;

    let mut cache = None;
    let mut fixed: Option<(dyno_load::txs::Fees, dyno_load::txs::GasLimits)> = None;
    let mut self_test_rate = None;
    let mut failure: Option<Error> = None;
    let mut wrong = false;
    let mut recorded: Option<(Vec<alloy_primitives::Bytes>, String)> = None;
    let probe = dyno_runner::noise::Probe::start();
    for target in &targets {
        if interrupt.load(Ordering::Relaxed) {
            break;
        }
        if let Some(why) = refused_kind(target, &opts) {
            say(&format!("skipping {}: {why}", target.name()));
            continue;
        }
        let step = runtime.block_on(async {
            let c = drive::connect(target, &opts, &say).await?;
            let result = async {
                let reads = read_path(&c, &opts, args, &say).await?;
                if opts.txs == 0 {
                    return Ok((Vec::new(), None, reads));
                }
                let p =
                    drive::prepare(&c, &opts, fixed.as_ref().map(|(f, g)| (f, g)), &say).await?;
                let pre = modes
                    .contains(&SignerMode::Client)
                    .then(|| drive::presign(&p, &opts, &mut cache, &say));
                if self_test_rate.is_none() && opts.self_test_requests > 0 {
                    let bodies = match &pre {
                        Some(pre) => pre
                            .signed
                            .iter()
                            .map(|s| dyno_load::send::Outgoing {
                                body: s.body.clone(),
                                expect: None,
                            })
                            .collect(),
                        None => self_test_bodies(&opts),
                    };
                    let rate =
                        drive::self_test(&bodies, opts.self_test_requests, SELF_TEST_CONNECTIONS)
                            .await?;
                    say(&format!(
                        "generator ceiling (null sink on loopback): {rate:.0} requests/s"
                    ));
                    self_test_rate = Some(rate);
                }
                let mut outcomes = Vec::new();
                let recorded = &mut recorded;
                for mode in &modes {
                    if interrupt.load(Ordering::Relaxed) {
                        break;
                    }
                    say(&format!(
                        "{} · {}-signed: {} transactions at {} from {} accounts",
                        c.info.name,
                        mode.as_str(),
                        opts.txs,
                        opts.schedule_text,
                        if *mode == SignerMode::Client {
                            opts.accounts
                        } else {
                            1
                        }
                    ));
                    let session = drive::Session {
                        opts: &opts,
                        self_test_rate,
                        interrupt: &interrupt,
                        say: &say,
                        live,
                    };
                    let o = drive::run(&c, &p, pre.as_ref(), *mode, &session).await;
                    let cut = !o.result.complete;
                    outcomes.push(o);
                    if cut {
                        break;
                    }
                }
                if opts.genesis.is_some() {
                    let head = dyno_load::chain::head(&c.client).await?;
                    say(&format!("recording blocks 1 to {head} (debug_getRawBlock)"));
                    let raw = dyno_load::chain::raw_blocks(&c.client, head).await?;
                    *recorded = Some((raw, c.info.version.clone()));
                }
                Ok::<_, drive::LoadError>((outcomes, Some((p.fees, p.gas.clone())), reads))
            }
            .await;
            c.stop();
            result
        });
        match step {
            Ok((outcomes, prepared, (logs, reads))) => {
                if let Some(fg) = prepared {
                    fixed.get_or_insert(fg);
                }
                run.logs.extend(logs);
                run.reads.extend(reads);
                for mut o in outcomes {
                    let stem = format!("{base}-{}-{}", o.result.node.name, o.result.signer);
                    if let Err(e) = dyno_load::output::write_files(&mut o, &dir, &stem) {
                        eprintln!("dyno load: warning: {e}");
                    }
                    wrong |= is_wrong(&o);
                    let cut = o.result.incomplete_reason.clone();
                    run.load.push(o.result);
                    save(&mut run, &out)?;
                    if let Some(reason) = cut {
                        failure = Some(Error::Refused(format!(
                            "the load run was cut short: {reason}\n  the data up to then is saved in {} and marked incomplete",
                            out.display()
                        )));
                        break;
                    }
                }
            }
            Err(e) => {
                failure = Some(Error::Step {
                    what: format!("load against {}", target.name()),
                    source: Box::new(e),
                });
            }
        }
        if let (Some(dir), Some((raw, client))) = (&args.record, recorded.take()) {
            let genesis = opts.genesis.as_deref().unwrap_or_default();
            let made_by = run.run.command_line.join(" ");
            match write_recording(dir, genesis, &raw, &client, &made_by) {
                Ok(n) => say(&format!(
                    "recorded {n} blocks in {d}; replay them into a fresh client with `dyno replay --set {d}`",
                    d = dir.display()
                )),
                Err(e) => {
                    failure.get_or_insert(Error::Refused(format!("--record: {e}")));
                }
            }
        }
        if failure.is_some() {
            break;
        }
    }
    let interrupted = interrupt.load(Ordering::Relaxed);
    crate::session::keep_noise(&mut run, probe, quiet);
    conclude(lab, run, &out, failure, interrupted, quiet, wrong)
}

/// A campaign's new run and where it goes: `--out` (default
/// `dyno-results/<run id>-load.json`), checked; its folder, where the CSV
/// and plots go; and their names' stem.
pub(crate) struct ResultFile {
    pub(crate) run: Run,
    pub(crate) out: PathBuf,
    pub(crate) dir: PathBuf,
    pub(crate) base: String,
}

pub(crate) fn result_file(lab: &Lab, args: &Request) -> crate::Result<ResultFile> {
    let clock = dyno_runner::clock::calibrate();
    let settings = dyno_runner::settings(false, None, &clock);
    let environment = dyno_runner::env::capture(clock, lab.build.rustc);
    let run = dyno_runner::new_run(lab.build.invocation(), settings, environment);
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("dyno-results").join(format!("{}-load.json", run.run.id)));
    let out = load_destination(&out)?;
    let dir = out.parent().map(Path::to_path_buf).unwrap_or_default();
    let base = out
        .file_stem()
        .map_or_else(|| "load".into(), |s| s.to_string_lossy().into_owned());
    Ok(ResultFile {
        run,
        out,
        dir,
        base,
    })
}

/// Progress messages on stderr, prefixed `dyno load:`, unless `quiet`.
pub(crate) fn sayer(quiet: bool) -> impl Fn(&str) + Copy + Send + Sync + 'static {
    move |m: &str| {
        if !quiet {
            eprintln!("dyno load: {m}");
        }
    }
}

/// The multi-threaded runtime a campaign's network work runs on.
pub(crate) fn runtime() -> crate::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

/// Finish a campaign: mark the run complete or not, save its Result and
/// Markdown when anything was measured (or nothing failed), add it to the
/// history, and say how it ended.
pub(crate) fn conclude(
    lab: &Lab,
    mut run: Run,
    out: &Path,
    mut failure: Option<Error>,
    interrupted: bool,
    quiet: bool,
    wrong: bool,
) -> crate::Result<Finished> {
    run.run.complete = failure.is_none() && run.load.iter().all(|l| l.complete) && !interrupted;
    run.run.incomplete_reason = if run.run.complete {
        None
    } else if interrupted {
        Some("interrupted (Ctrl-C or a termination signal)".into())
    } else {
        failure.as_ref().map(|e| dyno_report::one_line(&e.chain()))
    };
    run.run.finished_at = Some(dyno_runner::now_rfc3339());
    let mut saved = None;
    if !run.load.is_empty() || !run.logs.is_empty() || !run.reads.is_empty() || failure.is_none() {
        save(&mut run, out)?;
        let md = out.with_extension("md");
        let text = dyno_report::load::markdown(&run);
        dyno_format::destination::write_new(&md, |w| std::io::Write::write_all(w, text.as_bytes()))
            .with_context(|| format!("writing {}", md.display()))?;
        if !quiet {
            eprintln!(
                "dyno load: wrote {} and {}{}",
                out.display(),
                md.display(),
                if run.load.is_empty() {
                    ""
                } else {
                    " (CSV and plots beside them)"
                }
            );
        }
        crate::history::save(&lab.paths, &run, Some(out), quiet);
        saved = Some(Box::new(run));
    }
    if failure.is_none() && interrupted {
        failure = Some(Error::Refused(format!(
            "interrupted; the data up to then is saved in {} and marked incomplete",
            out.display()
        )));
    }
    Ok(Finished::Load {
        run: saved,
        failure,
        wrong,
    })
}

/// The read path on one node: the eth_getLogs study (`--logs`), then the
/// read load (`--reads`), each only if asked for.
async fn read_path(
    c: &drive::Connected,
    opts: &Options,
    args: &Request,
    say: &(dyn Fn(&str) + Sync),
) -> Result<
    (
        Vec<dyno_format::read::LogsStudy>,
        Vec<dyno_format::read::ReadLoad>,
    ),
    drive::LoadError,
> {
    let mut logs = Vec::new();
    let mut reads = Vec::new();
    if !args.logs.is_empty() {
        let lo = read::LogsOptions {
            sizes: args.logs.clone(),
            body_limit: args.body_limit,
            ..read::LogsOptions::default()
        };
        logs.push(read::logs_study(c, opts, &lo, say).await?);
    }
    if args.reads > 0 {
        let mut ro = read::ReadLoadOptions {
            schedule: args
                .read_rate
                .parse()
                .map_err(|e| drive::LoadError::Other(format!("--read-rate: {e}")))?,
            requests: args.reads,
            ..read::ReadLoadOptions::default()
        };
        if !args.read_methods.is_empty() {
            let mut mix: Vec<(read::ReadMethod, u32)> = Vec::new();
            for name in &args.read_methods {
                let m: read::ReadMethod = name
                    .parse()
                    .map_err(|e| drive::LoadError::Other(format!("--read-methods: {e}")))?;
                match mix.iter_mut().find(|(x, _)| *x == m) {
                    Some((_, w)) => *w += 1,
                    None => mix.push((m, 1)),
                }
            }
            ro.mix = mix;
        }
        reads.push(read::read_load(c, opts, &ro, say).await?);
    }
    Ok((logs, reads))
}

/// `--record DIR` is for one geth that dyno starts, with transactions to
/// send, into a folder that is new or empty.
fn check_record(dir: &Path, targets: &[Target], args: &Request) -> crate::Result<()> {
    let flag = format!("--record {}", dir.display());
    if !matches!(targets, [Target::Start(dyno_node::Kind::Geth, _)]) {
        refuse!(
            "{flag}: records the blocks of one geth that dyno starts (--node geth, alone): it \
             starts geth on a genesis it writes, so the blocks replay from that genesis"
        );
    }
    if args.txs == 0 {
        refuse!("{flag}: --txs 0 sends nothing, so there would be no blocks worth replaying");
    }
    if dir.exists() {
        let empty = std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_none());
        if !dir.is_dir() || !empty {
            refuse!("{flag}: it exists and is not an empty folder; give a new one");
        }
    }
    // Writable, before the run: the recorded blocks are written after it,
    // and a folder that cannot take them would lose them.
    dyno_format::destination::Destination::check(&dir.join("genesis.json"))
        .map_err(|e| Error::Refused(format!("{flag}: {e}")))?;
    Ok(())
}

/// The genesis a recording dev geth starts on: dyno's (block 0 as its
/// block sets have it, the system contracts, Osaka from block 0) with
/// geth's dev account funded, which pays for the run's set-up.
fn recording_genesis() -> String {
    let dev: alloy_primitives::Address = dyno_node::GETH_DEV_ACCOUNT
        .parse()
        .expect("a valid address");
    // 10^9 ether: more than any run's set-up sends.
    let balance = alloy_primitives::U256::from(10u128.pow(27));
    let (world, header) =
        dyno_evm::block::genesis::funded(&[(dev, balance)], dyno_node::DEV_GAS_LIMIT);
    dyno_evm::block::export::genesis_json(&world, &header).to_string()
}

/// Check the recorded blocks as `dyno replay` will read them and write
/// the chain folder; how many blocks.
fn write_recording(
    dir: &Path,
    genesis_json: &str,
    raw: &[alloy_primitives::Bytes],
    client: &str,
    command_line: &str,
) -> Result<usize, dyno_replay::folder::FolderError> {
    use dyno_replay::folder::{self, Folder};
    let name = dir
        .file_name()
        .map_or_else(|| "recorded".into(), |n| n.to_string_lossy().into_owned());
    let mut f = Folder {
        genesis_json: genesis_json.into(),
        blocks_rlp: raw.iter().flat_map(|b| b.iter().copied()).collect(),
        manifest: None,
    };
    let mut set = f.parse(dir, &name)?;
    // Empty blocks apart: they take a client a millisecond where a loaded
    // one takes a hundred, and a median over both says little of either.
    for p in &mut set.blocks {
        p.class = if p.payload.transactions.is_empty() {
            "empty"
        } else {
            "load"
        }
        .into();
        p.id = Some(format!("client/newpayload/{name}-{}", p.class));
    }
    f.manifest = Some(folder::manifest(&set, command_line, Some(client.into())));
    f.write(dir, &set)?;
    Ok(set.blocks.len())
}

/// A node answered with a hash other than the signed one, the chain scan
/// disagrees with the tracker, or the chain does not show what a
/// transaction's kind must leave there: a wrong result.
pub(crate) fn is_wrong(o: &Outcome) -> bool {
    o.result
        .counts
        .rejected_by_class
        .contains_key("hash_mismatch")
        || o.result.chain_scan.as_ref().is_some_and(|s| !s.matches)
        || o.result.onchain.as_ref().is_some_and(|c| c.failures > 0)
}

/// The result file, checked before any node starts: a file (the CSV and
/// plots go beside it), writable, and not its own Markdown twin. A
/// symbolic link is followed.
pub(crate) fn load_destination(out: &Path) -> crate::Result<PathBuf> {
    let flag_o = |e| Error::Refused(format!("-o: {e}"));
    let dest = Destination::check(out).map_err(flag_o)?;
    dest.beside("md").map_err(flag_o)?;
    match dest {
        Destination::File(path) => Ok(path),
        Destination::Stdout => refuse!(
            "-o -: the load lab writes CSV and plots beside its result file, so -o names a \
             file; for the result JSON on stdout use --format json"
        ),
        Destination::Special(p) => refuse!(
            "-o {}: not a regular file; the load lab writes CSV and plots beside its result \
             file, so -o names a file (for the JSON on stdout use --format json)",
            p.display()
        ),
    }
}

pub(crate) fn save(run: &mut Run, out: &Path) -> crate::Result<()> {
    run.write(out)
        .with_context(|| format!("saving results to {}", out.display()))
}

/// Realistic `eth_sendRawTransaction` bodies for a self-test without a
/// node.
fn self_test_bodies(opts: &Options) -> Vec<dyno_load::send::Outgoing> {
    drive::self_test_bodies(opts.txs.clamp(1, 2000), &opts.seed)
}
