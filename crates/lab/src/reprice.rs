//! `dyno gas --blocks`: one operation's cost inside a client, the way
//! the 2026 repricing EIPs measure it. The op-isolation blocks of
//! [`dyno_evm::reprice`] (each block's operation count checked by revm's
//! inspector before anything is timed) are replayed into each client
//! through the replay lab (a fresh geth through the Engine API, or revm in
//! this process): only `VALID` counts, with dyno's state root. Each series
//! then gets its fits ([`dyno_price::fit::fit_results`]): block time on
//! operation count by non-negative least squares with the EIPs' rule, the
//! Theil-Sen slope beside it, on dyno's newPayload time and on the
//! client's own execution and total time, each less its control series'
//! per-operation time.
//!
//! Results are saved after each client, so a client that fails costs
//! nothing already timed (the run marked incomplete, exit 2).

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use dyno_evm::reprice::{self as iso, Made, Series};
use dyno_format::destination::Destination;
use dyno_format::reprice::Isolation;
use dyno_format::{BenchResult, Implementation};
use dyno_replay::blocks::{BlockSet, Planned};
use dyno_replay::client::ClientSpec;
use dyno_replay::drive::{Driver, Limits, Replayed};
use serde_json::json;

use crate::replay::Finished;
use crate::{Error, Lab, refuse};

/// What to measure, into which clients.
#[derive(Debug, Clone)]
pub struct Request {
    /// `geth`, `revm` (in this process), or another geth build installed by
    /// `dyno setup`.
    pub clients: Vec<String>,
    /// The fork whose precompile schedule prices `price = "fork"` series.
    pub fork: String,
    /// Only these series: an operation (`keccak256`), an operation and
    /// parameter (`keccak256/32`) or a whole id (empty: all).
    pub only: Vec<String>,
    pub quick: bool,
    /// The most rounds (`--rounds`; the list's `rounds` without it).
    pub rounds: Option<u64>,
    /// No round starts after this long (`--time-limit`).
    pub time_limit: Option<Duration>,
    pub call_timeout: Duration,
    pub out: Option<Destination>,
    pub quiet: bool,
}

/// The fewest rounds before the target may stop a run: an interval
/// across 2 rounds is too wide to trust.
pub const MIN_ROUNDS: usize = 3;

/// The clients measured when none are named: geth as it ships and with
/// its caches off ([`dyno_replay::client::Caches`]), and revm.
pub const DEFAULT_CLIENTS: [&str; 3] = ["geth", "geth:bare", "revm"];
/// Build the series, make the blocks, replay them into every client.
/// How often `gas --blocks` writes the blocks timed so far while it
/// replays into a client.
pub const CHECKPOINT_EVERY: Duration = Duration::from_secs(10);

pub fn run(lab: &Lab, req: &Request) -> crate::Result<Finished> {
    let clients: Vec<String> = if req.clients.is_empty() {
        DEFAULT_CLIENTS.map(String::from).to_vec()
    } else {
        req.clients.clone()
    };
    crate::choices::distinct("--client", &clients)?;
    crate::choices::distinct("--only", &req.only)?;
    let specs: Vec<_> = clients
        .iter()
        .map(|c| crate::client::named(lab, c, "--client"))
        .collect::<crate::Result<_>>()?;
    // The blocks use Osaka's precompiles and opcodes (P256VERIFY, CLZ,
    // its MODEXP pricing): made under Osaka only.
    if let Some((name, spec)) = clients
        .iter()
        .zip(&specs)
        .find(|(_, s)| s.newest_fork() < dyno_evm::block::fork::Fork::Osaka)
    {
        refuse!(
            "--client {name}: it runs up to {} only, and the op-isolation blocks are made under \
             osaka (P256VERIFY, CLZ and Osaka's MODEXP pricing among the series); leave it out \
             (docs/clients.md, \"Limits\")",
            spec.newest_fork()
        );
    }
    let say = |m: &str| {
        if !req.quiet {
            eprintln!("dyno gas --blocks: {m}");
        }
    };
    let ctx = lab.paths.ctx();
    let (list, mut series) =
        iso::load(&ctx, &lab.paths.specs, &req.fork).map_err(Error::Refused)?;
    if !req.only.is_empty() {
        series = keep_only(series, &req.only)?;
    }
    let schedules = dyno_spec::reprice::schedules(&lab.paths.specs)
        .map_err(|e| Error::Refused(e.to_string()))?;
    let state_schedules =
        dyno_spec::state_gas::load(&lab.paths.specs).map_err(|e| Error::Refused(e.to_string()))?;
    let accesses = dyno_spec::state_gas::load_accesses(&lab.paths.specs)
        .map_err(|e| Error::Refused(e.to_string()))?;
    let fork = dyno_spec::gas::Schedule::for_fork(&lab.paths.specs, &req.fork)
        .map_err(|e| Error::Refused(format!("--fork: {e}")))?;
    crate::history::check_location(&lab.paths)?;
    let interrupt = crate::interrupt::flag()?;
    if req.rounds == Some(0) {
        refuse!("--rounds 0: give at least 1 round");
    }
    let shape = iso::layout(&list.layout, req.quick, req.rounds);
    let gas_limit = list.layout.gas_limit_m * 1_000_000;
    let planned = iso::plan_rounds(&series, &shape, gas_limit);
    say(&format!(
        "making {} blocks: {} series (with {} controls) in at most {} round{}, each round every series at {} level{} of {} of gas{}, on a {}M gas limit; every block's operations counted by revm first",
        planned.len(),
        series.len(),
        series.iter().filter(|s| s.op.is_none()).count(),
        shape.rounds,
        if shape.rounds == 1 { "" } else { "s" },
        shape.round_levels,
        if shape.round_levels == 1 { "" } else { "s" },
        shape
            .budgets_m
            .iter()
            .map(|b| format!("{b}M"))
            .collect::<Vec<_>>()
            .join(", "),
        if shape.repeats == 1 {
            String::new()
        } else {
            format!(", {} times", shape.repeats)
        },
        list.layout.gas_limit_m,
    ));
    let contracts = dyno_evm::block::genesis::Contracts::load(&ctx)
        .map_err(|e| Error::Refused(format!("the blocks' contracts: {e}")))?;
    let bar = crate::replay::progress_bar(planned.len(), req.quiet);
    let total = planned.len();
    let made = iso::make(
        &contracts,
        series,
        planned,
        gas_limit,
        &interrupt,
        |n, _| {
            if let Some(bar) = &bar {
                bar.set_position(n as u64);
            } else if n * 4 / total != (n - 1) * 4 / total && n < total {
                say(&format!("made {n}/{total} blocks"));
            }
        },
    )
    .map_err(|e| match e {
        iso::RepriceError::Interrupted { .. } => Error::Refused(format!(
            "{e}; nothing was timed yet, so there is nothing to save"
        )),
        e => Error::Refused(e.to_string()),
    })?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let set = block_set(&made);
    let counts: HashMap<String, (u64, u32)> = made
        .blocks
        .iter()
        .map(|(p, b)| (b.header.hash_slow().to_string(), (p.count, p.round)))
        .collect();
    // The blocks of each round, in the set's order: the warm-up (round 0)
    // first.
    let mut rounds: Vec<std::ops::Range<usize>> = Vec::new();
    for (k, (p, _)) in made.blocks.iter().enumerate() {
        match rounds.last_mut() {
            Some(r) if made.blocks[r.start].0.round == p.round => r.end = k + 1,
            _ => rounds.push(k..k + 1),
        }
    }

    let (mut run, mut saving, probe) = crate::session::open_run(lab, req.quick, req.out.clone())?;
    let limits = Limits {
        call: req.call_timeout,
        ..Limits::default()
    };
    let mut failure: Option<Error> = None;
    let client_results = |name: &str, spec: &ClientSpec, r: &Replayed| {
        let implementation = Implementation {
            name: name.to_string(),
            version: if r.version.is_empty() {
                "unknown".into()
            } else {
                r.version.clone()
            },
            runtime: spec.runtime().into(),
        };
        let mut results = dyno_replay::results::results(&implementation, spec.name(), &set, &[r]);
        // In the list's order, each control after the series it serves.
        results.sort_by_key(|r| made.series.iter().position(|s| s.id == r.id));
        annotate(
            &mut results,
            &made.series,
            &counts,
            &schedules,
            &state_schedules,
            &accesses,
            &fork,
        );
        dyno_price::fit::fit_results(&mut results);
        results
    };
    // Every result so far, each client's series beside its anchor.
    let gathered = |drivers: &[(usize, Driver<'_>)]| {
        let mut results = Vec::new();
        for (c, d) in drivers {
            results.extend(client_results(&clients[*c], &specs[*c], d.replayed()));
        }
        dyno_price::anchor::anchor_ratios(&mut results);
        results
    };
    // Every client started once, on the genesis, and kept running: each
    // takes each round in turn.
    let mut drivers: Vec<(usize, Driver<'_>)> = Vec::new();
    for (c, (name, spec)) in clients.iter().zip(&specs).enumerate() {
        say(&format!("starting {name}"));
        let d = Driver::start(spec, &set, limits);
        if let Some(f) = &d.replayed().failure {
            failure = Some(Error::Refused(format!(
                "the replay into {name} stopped: {}\n  every block timed before it is kept in {}, the run marked incomplete",
                f.reason,
                saving.target()
            )));
        }
        drivers.push((c, d));
        if failure.is_some() {
            break;
        }
    }
    let total = set.blocks.len();
    let started = Instant::now();
    let mut saved_at = Instant::now();
    let mut saved_interrupted = false;
    let mut stopped_why = "its last round".to_string();
    let mut done_rounds = 0;
    if failure.is_none() {
        say(&format!(
            "replaying {total} blocks into {}, round by round (each client in turn, the order rotating)",
            clients.join(", ")
        ));
    }
    'rounds: for (k, range) in rounds.iter().enumerate() {
        if failure.is_some() || interrupt.load(Ordering::Relaxed) {
            break;
        }
        // The order rotates round by round: no client is always first.
        let n = drivers.len();
        for turn in 0..n {
            let at = (turn + k) % n;
            let (before, rest) = drivers.split_at_mut(at);
            let ((c, driver), after) = rest.split_first_mut().expect("at < n");
            let (name, spec) = (&clients[*c], &specs[*c]);
            // Every CHECKPOINT_EVERY, the blocks timed so far go to the
            // file, marked incomplete: a second Ctrl-C (which exits at
            // once) or a crash keeps them. And whenever dyno says how far
            // a client got (each quarter), so the file holds what the line
            // says; and at once after a first Ctrl-C, once the block in
            // flight is timed.
            let ok = driver.feed(range.clone(), &interrupt, &mut |done, _, so_far| {
                let quarter = done < total && done * 4 / total != (done - 1) * 4 / total;
                let interrupted = interrupt.load(Ordering::Relaxed) && !saved_interrupted;
                if (interrupted || quarter || saved_at.elapsed() >= CHECKPOINT_EVERY)
                    && done < total
                {
                    saved_at = Instant::now();
                    saved_interrupted |= interrupted;
                    let mut partial = run.clone();
                    for (c, d) in before.iter().chain(after.iter()) {
                        partial.results.extend(client_results(
                            &clients[*c],
                            &specs[*c],
                            d.replayed(),
                        ));
                    }
                    partial.results.extend(client_results(name, spec, so_far));
                    dyno_price::anchor::anchor_ratios(&mut partial.results);
                    partial.run.complete = false;
                    partial.run.incomplete_reason = Some(format!(
                        "a checkpoint in round {k} during the replay into {name}: {done} of {total} blocks timed"
                    ));
                    saving.checkpoint(&partial);
                }
                // Said after the checkpoint: the line's count is on disk.
                if quarter {
                    say(&format!("{name}: {done}/{total} blocks"));
                }
            });
            if !ok {
                let f = driver.replayed().failure.clone();
                if let Some(f) = f
                    && !interrupt.load(Ordering::Relaxed)
                {
                    failure = Some(Error::Refused(format!(
                        "the replay into {name} stopped: {}\n  every block timed before it is kept in {}, the run marked incomplete",
                        f.reason,
                        saving.target()
                    )));
                }
                break 'rounds;
            }
        }
        if k == 0 {
            continue; // the warm-up
        }
        done_rounds = k;
        let so_far = gathered(&drivers);
        let (reached, all) = dyno_price::anchor::reached(&so_far);
        let mut partial = run.clone();
        partial.results.extend(so_far);
        partial.run.complete = false;
        partial.run.incomplete_reason = Some(format!(
            "a checkpoint after round {k} of at most {}",
            rounds.len() - 1
        ));
        saving.checkpoint(&partial);
        saved_at = Instant::now();
        say(&format!(
            "round {k} of at most {}: {reached} of {all} anchor ratios within ±{:.0}% ({:.0?})",
            rounds.len() - 1,
            dyno_format::reprice::ANCHOR_TARGET * 100.0,
            Duration::from_secs(started.elapsed().as_secs())
        ));
        if k >= MIN_ROUNDS && all > 0 && reached == all {
            stopped_why = format!("every anchor ratio within its target after {k} rounds");
            break;
        }
        if let Some(limit) = req.time_limit
            && started.elapsed() >= limit
            && k + 1 < rounds.len()
        {
            stopped_why = format!("--time-limit {limit:?} reached after {k} rounds");
            break;
        }
    }
    if done_rounds > 0 {
        say(&format!("stopped: {stopped_why}"));
    }
    for (c, driver) in drivers {
        let r = driver.finish();
        let (name, spec) = (&clients[c], &specs[c]);
        run.results.extend(client_results(name, spec, &r));
        // The process's use and its metrics that changed: geth's
        // precompile cache hits and misses among them (docs/clients.md).
        if !matches!(spec, ClientSpec::Revm) {
            run.clients
                .push(crate::replay::client_run(name, &set, 1, &r));
        }
    }
    dyno_price::anchor::anchor_ratios(&mut run.results);
    for r in run.results.iter_mut().filter(|r| r.reprice.is_some()) {
        let p = &mut r.parameters;
        p.insert("rounds_planned".into(), json!(rounds.len() - 1));
        p.insert("rounds_replayed".into(), json!(done_rounds));
        p.insert("rounds_stopped".into(), json!(stopped_why));
    }
    saving.checkpoint(&run);
    crate::session::keep_noise(&mut run, probe, req.quiet);
    let interrupted = interrupt.load(Ordering::Relaxed);
    crate::session::close(&mut run, &mut failure, interrupted, "the blocks timed");
    let measured = saving.finish(run, Vec::new());
    Ok(Finished { measured, failure })
}

/// The series `only` names (an operation, `op/param` or an id), with the
/// anchor (ECRECOVER) and the controls they need (re-indexed).
fn keep_only(series: Vec<Series>, only: &[String]) -> crate::Result<Vec<Series>> {
    let wanted: Vec<usize> = (0..series.len())
        .filter(|&i| {
            let Some(op) = &series[i].op else {
                return false;
            };
            named_by(only, &op.op, &op.param, &series[i].id)
        })
        .collect();
    if wanted.is_empty() {
        refuse!(
            "--only {}: no series matches; the series are {}",
            only.join(","),
            series
                .iter()
                .filter(|s| s.op.is_some())
                .map(|s| s.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let mut keep: Vec<usize> = wanted.clone();
    // The anchor comes along: every series' figure is its ratio to it.
    let anchor = series
        .iter()
        .position(|s| s.id == dyno_format::reprice::ANCHOR_SERIES);
    if let Some(a) = anchor
        && !keep.contains(&a)
    {
        keep.push(a);
    }
    for &i in &keep.clone() {
        let c = series[i].control.expect("an op series has a control");
        if !keep.contains(&c) {
            keep.push(c);
        }
    }
    let new_index: HashMap<usize, usize> = keep.iter().enumerate().map(|(n, &o)| (o, n)).collect();
    let mut out: Vec<Series> = keep.iter().map(|&i| series[i].clone()).collect();
    for s in &mut out {
        s.control = s.control.map(|c| new_index[&c]);
    }
    Ok(out)
}

/// True if `only` names an op series: by its operation (`keccak256`), its
/// operation and parameter (`keccak256/32`) or its whole id.
fn named_by(only: &[String], op: &str, param: &str, id: &str) -> bool {
    let op_param = format!("{op}/{param}");
    only.iter().any(|o| o == op || *o == op_param || o == id)
}

/// A saved run's op-isolation results cut to those `only` names, as
/// `--only` names series (an operation, an operation and parameter, or a
/// whole id), with their controls: `gas --blocks --from RUN --only ...`.
pub fn keep_only_results(run: &mut dyno_format::Run, only: &[String]) -> crate::Result<()> {
    crate::choices::distinct("--only", only)?;
    let named = |r: &BenchResult| {
        r.reprice
            .as_ref()
            .is_some_and(|iso| iso.control.is_some() && named_by(only, &iso.op, &iso.param, &r.id))
    };
    if !run.results.iter().any(&named) {
        let mut ids: Vec<&str> = run
            .results
            .iter()
            .filter(|r| r.reprice.as_ref().is_some_and(|i| i.control.is_some()))
            .map(|r| r.id.as_str())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        refuse!(
            "--only {}: no series of run {} matches; its series are {}",
            only.join(","),
            run.run.id,
            ids.join(", ")
        );
    }
    let controls: Vec<String> = run
        .results
        .iter()
        .filter(|&r| named(r))
        .filter_map(|r| r.reprice.as_ref()?.control.clone())
        .collect();
    run.results
        .retain(|r| r.reprice.is_none() || named(r) || controls.contains(&r.id));
    Ok(())
}

/// The blocks as a replay set: measured blocks under their series' id,
/// each of class `<budget>M-<level>`.
pub fn block_set(made: &Made) -> BlockSet {
    let genesis = &made.genesis;
    BlockSet {
        name: "reprice".into(),
        genesis_json: dyno_evm::block::export::genesis_json(&genesis.world, &genesis.header)
            .to_string(),
        gas_limit: genesis.header.gas_limit,
        fork: Some(genesis.world.fork()),
        genesis: Some(genesis.clone()),
        blocks: made
            .blocks
            .iter()
            .map(|(p, b)| {
                let s = &made.series[p.series];
                Planned::own(
                    b.clone(),
                    p.measured.then(|| s.id.clone()),
                    &format!("{}M-{}", p.budget_m, p.level),
                )
            })
            .collect(),
    }
}

/// Each result's samples become (operations, time) points, and it learns
/// what it isolates and what prices it (recorded now, so that `--from`
/// prices a saved run alone).
fn annotate(
    results: &mut [BenchResult],
    series: &[Series],
    counts: &HashMap<String, (u64, u32)>,
    schedules: &[dyno_spec::reprice::ComputeSchedule],
    state_schedules: &[dyno_spec::state_gas::StateSchedule],
    accesses: &[dyno_spec::state_gas::AccessPrice],
    fork: &dyno_spec::gas::Schedule,
) {
    for r in results.iter_mut() {
        let Some(s) = series.iter().find(|s| s.id == r.id) else {
            continue;
        };
        for (sample, block) in r.samples.iter_mut().zip(r.blocks.iter_mut()) {
            let (count, round) = counts.get(&block.hash).copied().unwrap_or((0, 0));
            sample.iters = count;
            block.round = (round > 0).then_some(round);
        }
        let (op, param) = match &s.op {
            Some(o) => (o.op.clone(), o.param.clone()),
            None => (
                iso::CONTROL.to_string(),
                s.id.rsplit('/').next().unwrap_or_default().to_string(),
            ),
        };
        r.reprice = Some(Isolation {
            op,
            param,
            units: s.op.as_ref().and_then(|o| o.units),
            control: s.control.map(|c| series[c].id.clone()),
            fits: Vec::new(),
            anchor: None,
        });
        let p = &mut r.parameters;
        p.insert(
            "counted_by".into(),
            json!("revm inspector, before the replay"),
        );
        p.insert("per_turn".into(), json!(s.program.per_turn));
        p.insert("contract".into(), json!(s.address.to_string()));
        p.insert(
            "program_keccak".into(),
            json!(alloy_primitives::keccak256(&s.program.code).to_string()),
        );
        if let Some(op) = &s.op {
            for (key, id) in [("library_id", &op.library), ("bytecode_id", &op.bytecode)] {
                if let Some(id) = id {
                    p.insert(key.into(), json!(id));
                }
            }
            // One operation's price under each schedule, `gas_<schedule>`:
            // a state access's from the state schedules (what the access
            // alone costs, dyno_price::state), the rest from the compute
            // schedules or the fork's precompile prices.
            let mut nominal = std::collections::BTreeMap::new();
            if let Some(access) = &op.access {
                for sch in state_schedules {
                    if let Some(g) = dyno_price::state::nominal(access, sch, accesses) {
                        nominal.insert(sch.name.clone(), g);
                    }
                }
                p.insert("access".into(), json!(access));
            } else {
                for sch in schedules {
                    let gas = sch
                        .price(op, &schedules[0])
                        .or_else(|| iso::fork_price(s, fork));
                    if let Some(g) = gas {
                        nominal.insert(sch.name.clone(), g);
                    }
                }
            }
            for (name, g) in &nominal {
                p.insert(format!("gas_{name}"), json!(g));
            }
            let facts = dyno_format::operation::Facts {
                name: op.op.clone(),
                kind: op.kind.clone(),
                units: op.units,
                nominal_gas: nominal,
            };
            p.insert(dyno_format::operation::KEY.into(), facts.to_value());
        }
    }
}

/// `run`'s op-isolation results priced: each op series' per-operation
/// time (net of its glue) in every client at `anchor_mgas`, beside every
/// compute schedule's price recorded with it; and, from the runs `with`
/// (`dyno run precompile,precompile-bytecode,opcode,hash`, any
/// implementations), the same operation's library time (called directly)
/// and bytecode time (an EVM's loop: a precompile's call less the loop's
/// no-op control, an opcode's sequence) where the series names their ids.
/// Controls are not rows. A saved run prices alone (`--from`): the prices
/// and ids were recorded when it was measured.
pub fn price(
    lab: &Lab,
    run: &dyno_format::Run,
    anchor_mgas: f64,
    with: &[dyno_format::Run],
) -> crate::Result<dyno_format::reprice::Pricing> {
    let schedules = dyno_price::blocks::schedule_names(&lab.paths.specs)?;
    Ok(dyno_price::blocks::price_with(
        &schedules,
        run,
        anchor_mgas,
        with,
    )?)
}

/// `dyno gas --blocks`: a saved run (`from`, its series cut to `measure.only`)
/// or one measured now, priced beside the runs `with` at `anchor_mgas`,
/// and set beside a peer's table (`compare`).
#[derive(Debug, Clone)]
pub struct Blocks<'a> {
    pub from: Option<&'a std::path::Path>,
    pub measure: Request,
    pub with: &'a [std::path::PathBuf],
    pub compare: Option<&'a std::path::Path>,
    pub anchor_mgas: f64,
}

/// What `dyno gas --blocks` shows and how it ended: the priced table (none
/// when a run stopped before any series was timed), then the stop, or a
/// file that was not written as said.
#[derive(Debug)]
pub struct Priced {
    pub pricing: Option<dyno_format::reprice::Pricing>,
    pub end: crate::Result<()>,
}

/// Read `--with` and `--compare` first (a bad file costs no run), then
/// measure (the run kept: its files said, the history saved) or read
/// `from`, and price.
pub fn blocks(lab: &Lab, b: &Blocks<'_>) -> crate::Result<Priced> {
    let peer = match b.compare {
        Some(path) => Some(dyno_price::peer::read_peer(path)?),
        None => None,
    };
    let with: Vec<dyno_format::Run> = b
        .with
        .iter()
        .map(|p| {
            dyno_format::Run::read(p)
                .map_err(|e| Error::Refused(format!("--with {}: {e}", p.display())))
        })
        .collect::<crate::Result<_>>()?;
    let (run, failure, measured) = match b.from {
        Some(path) => {
            let mut run = dyno_format::Run::read(path)?;
            if !b.measure.only.is_empty() {
                keep_only_results(&mut run, &b.measure.only)?;
            }
            (run, None, None)
        }
        None => {
            let done = run(lab, &b.measure)?;
            done.measured.keep(&lab.paths, b.measure.quiet);
            (done.measured.run.clone(), done.failure, Some(done.measured))
        }
    };
    let pricing = match price(lab, &run, b.anchor_mgas, &with) {
        Ok(mut priced) => {
            if let (Some(rows), Some(path)) = (&peer, b.compare) {
                dyno_price::peer::compare(&mut priced, rows, &path.display().to_string())?;
            }
            Some(priced)
        }
        // A run stopped before any series was timed has nothing to price;
        // the stop is the error worth showing.
        Err(e) if failure.is_none() => return Err(e),
        Err(_) => None,
    };
    let end = match (failure, measured) {
        (Some(e), _) => Err(e),
        (None, Some(m)) => m.check_written(),
        (None, None) => Ok(()),
    };
    Ok(Priced { pricing, end })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_names_a_series_by_operation_by_operation_and_parameter_or_by_id() {
        let only = |o: &[&str]| o.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let id = "reprice/keccak256/32";
        assert!(named_by(&only(&["keccak256"]), "keccak256", "32", id));
        assert!(named_by(&only(&["keccak256/32"]), "keccak256", "32", id));
        assert!(named_by(&only(&["sha256", id]), "keccak256", "32", id));
        assert!(!named_by(&only(&["keccak256/64"]), "keccak256", "32", id));
        assert!(!named_by(&only(&["keccak"]), "keccak256", "32", id));
        assert!(!named_by(&only(&["32"]), "keccak256", "32", id));
    }
}
