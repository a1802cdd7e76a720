//! `dyno gas --blocks`: one operation's cost inside a client, the way
//! the 2026 repricing EIPs measure it. The op-isolation blocks of
//! [`dyno_evm::reprice`] (each block's operation count checked by revm's
//! inspector before anything is timed) are replayed into each client
//! through the replay lab (a fresh geth through the Engine API, or revm in
//! this process): only `VALID` counts, with dyno's state root. Each series
//! then gets its fits ([`fit_results`]): block time on operation count by
//! non-negative least squares with the EIPs' rule, the Theil-Sen slope
//! beside it, on dyno's newPayload time and on the client's own execution
//! and total time, each less its control series' per-operation time.
//!
//! Results are saved after each client, so a client that fails costs
//! nothing already timed (the run marked incomplete, exit 2).

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use dyno_evm::reprice::{self as iso, Made, Series};
use dyno_format::destination::Destination;
use dyno_format::gas::Estimate;
use dyno_format::reprice::{Coefficient, Fit, Isolation};
use dyno_format::state::ScheduleName;
use dyno_format::{BenchResult, Implementation, Mode, Sample};
use dyno_replay::blocks::{BlockSet, Planned};
use dyno_replay::drive::{self, Limits};
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
    pub call_timeout: Duration,
    pub out: Option<Destination>,
    pub quiet: bool,
}

/// The clients measured when none are named.
pub const DEFAULT_CLIENTS: [&str; 2] = ["geth", "revm"];
/// The measures of block time a fit is made on.
pub const TIMES: [&str; 3] = ["new_payload", "client_execution", "client_total"];
/// The confidence of every interval.
const LEVEL: f64 = 0.95;

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
    let fork = dyno_spec::gas::Schedule::for_fork(&lab.paths.specs, &req.fork)
        .map_err(|e| Error::Refused(format!("--fork: {e}")))?;
    crate::history::check_location(&lab.paths)?;
    let interrupt = crate::interrupt::flag()?;
    let (budgets, repeats) = iso::layout(&list.layout, req.quick);
    let gas_limit = list.layout.gas_limit_m * 1_000_000;
    let planned = iso::plan(&series, &budgets, list.layout.levels, repeats, gas_limit);
    say(&format!(
        "making {} blocks: {} series (with {} controls), {} levels at {} of gas, {} each, on a {}M gas limit; every block's operations counted by revm first",
        planned.len(),
        series.len(),
        series.iter().filter(|s| s.op.is_none()).count(),
        list.layout.levels,
        budgets
            .iter()
            .map(|b| format!("{b}M"))
            .collect::<Vec<_>>()
            .join(", "),
        if repeats == 1 {
            "once".to_string()
        } else {
            format!("{repeats} times")
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
    let counts: HashMap<String, u64> = made
        .blocks
        .iter()
        .map(|(p, b)| (b.header.hash_slow().to_string(), p.count))
        .collect();

    let (mut run, mut saving) = crate::session::open_run(lab, req.quick, req.out.clone())?;
    let limits = Limits {
        call: req.call_timeout,
        ..Limits::default()
    };
    let mut failure: Option<Error> = None;
    for (name, spec) in clients.iter().zip(&specs) {
        if interrupt.load(Ordering::Relaxed) {
            break;
        }
        say(&format!(
            "replaying {} blocks into {name}",
            set.blocks.len()
        ));
        let bar = crate::replay::progress_bar(set.blocks.len(), req.quiet);
        let total = set.blocks.len();
        let client_results = |r: &dyno_replay::drive::Replayed| {
            let implementation = Implementation {
                name: name.clone(),
                version: if r.version.is_empty() {
                    "unknown".into()
                } else {
                    r.version.clone()
                },
                runtime: spec.runtime().into(),
            };
            let mut results =
                dyno_replay::results::results(&implementation, spec.name(), &set, &[r]);
            // In the list's order, each control after the series it serves.
            results.sort_by_key(|r| made.series.iter().position(|s| s.id == r.id));
            annotate(
                &mut results,
                &made.series,
                &counts,
                &schedules,
                &state_schedules,
                &fork,
            );
            fit_results(&mut results);
            results
        };
        // Every CHECKPOINT_EVERY, the blocks timed so far go to the file,
        // marked incomplete: a second Ctrl-C (which exits at once) or a
        // crash keeps them. And at once after a first Ctrl-C, so a second
        // one, however soon, keeps every block timed before it.
        let mut saved_at = Instant::now();
        let mut saved_interrupted = false;
        let r = drive::replay(spec, &set, limits, &interrupt, |n, _, so_far| {
            if let Some(bar) = &bar {
                bar.set_position(n as u64);
            } else if n < total && n * 4 / total != (n - 1) * 4 / total {
                say(&format!("{name}: {n}/{total} blocks"));
            }
            let interrupted = interrupt.load(Ordering::Relaxed) && !saved_interrupted;
            if (interrupted || saved_at.elapsed() >= CHECKPOINT_EVERY) && n < total {
                saved_at = Instant::now();
                saved_interrupted |= interrupted;
                let mut partial = run.clone();
                partial.results.extend(client_results(so_far));
                partial.run.complete = false;
                partial.run.incomplete_reason = Some(format!(
                    "a checkpoint during the replay into {name}: {n} of {total} blocks timed"
                ));
                saving.checkpoint(&partial);
            }
        });
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        let stopped = r.failure.clone();
        run.results.extend(client_results(&r));
        saving.checkpoint(&run);
        if let Some(f) = stopped {
            failure = Some(Error::Refused(format!(
                "the replay into {name} stopped: {}\n  every block timed before it is kept in {}, the run marked incomplete",
                f.reason,
                saving.target()
            )));
            break;
        }
    }
    let interrupted = interrupt.load(Ordering::Relaxed);
    crate::session::close(&mut run, &mut failure, interrupted, "the blocks timed");
    let measured = saving.finish(run, Vec::new());
    Ok(Finished { measured, failure })
}

/// The series `only` names (an operation, `op/param` or an id), with the
/// controls they need (re-indexed).
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
    for &i in &wanted {
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
        let mut ids = distinct(
            run.results
                .iter()
                .filter(|r| r.reprice.as_ref().is_some_and(|i| i.control.is_some()))
                .map(|r| &r.id),
        );
        ids.sort();
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
    counts: &HashMap<String, u64>,
    schedules: &[dyno_spec::reprice::ComputeSchedule],
    state_schedules: &[dyno_spec::state_gas::StateSchedule],
    fork: &dyno_spec::gas::Schedule,
) {
    for r in results.iter_mut() {
        let Some(s) = series.iter().find(|s| s.id == r.id) else {
            continue;
        };
        for (sample, block) in r.samples.iter_mut().zip(&r.blocks) {
            sample.iters = counts.get(&block.hash).copied().unwrap_or(0);
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
            // alone costs, dyno_state::pricing), the rest from the compute
            // schedules or the fork's precompile prices.
            if let Some(access) = &op.access {
                for sch in state_schedules {
                    if let Some(g) = dyno_state::pricing::nominal(access, sch) {
                        p.insert(format!("gas_{}", sch.name), json!(g));
                    }
                }
                p.insert("access".into(), json!(access));
                continue;
            }
            for sch in schedules {
                let gas = sch
                    .price(op, &schedules[0])
                    .or_else(|| iso::fork_price(s, fork));
                if let Some(g) = gas {
                    p.insert(format!("gas_{}", sch.name), json!(g));
                }
            }
        }
    }
}

/// The block times of `r` on `time`, with the blocks' operation counts;
/// `None` when a block lacks that measure (a client log missing).
fn points(r: &BenchResult, time: &str) -> Option<(Vec<f64>, Vec<f64>)> {
    let y: Vec<f64> = (0..r.samples.len())
        .map(|k| dyno_format::reprice::block_ns(r, k, time))
        .collect::<Option<_>>()?;
    let x = r.samples.iter().map(|s| s.iters as f64).collect();
    Some((x, y))
}

/// One fit of `y` on `x`, or `None` with too few distinct counts.
fn fit(time: &str, x: &[f64], y: &[f64]) -> Option<Fit> {
    let ones = vec![1.0; x.len()];
    let f = dyno_stats::nnls::cost_fit(&[&ones, x], y, 1, LEVEL)?;
    let (slope, ci) = dyno_stats::theil_sen(x, y, LEVEL)?;
    let coef = |c: &dyno_stats::nnls::Coefficient| Coefficient {
        value: c.value,
        lower: c.ci.lower,
        upper: c.ci.upper,
        p: c.p,
    };
    Some(Fit {
        time: time.into(),
        n: f.n,
        intercept_ns: coef(&f.coefficients[0]),
        per_op_ns: coef(&f.coefficients[1]),
        r_squared: f.r_squared,
        kept: f.kept,
        robust_per_op_ns: Estimate {
            value: slope,
            lower: ci.lower,
            upper: ci.upper,
        },
        net_per_op_ns: None,
        net_robust_per_op_ns: None,
    })
}

/// Fit every op-isolation result (those with `reprice`) on each measure of
/// block time it has, then subtract, per implementation and measure, its
/// control's per-operation time. A fit that fails the EIPs' rule stays,
/// marked `kept: false`. The results' `mode` becomes a linear fit (time
/// against operations), `fit` the OLS line, `stats` per operation.
pub fn fit_results(results: &mut [BenchResult]) {
    for r in results.iter_mut() {
        if r.reprice.is_none() {
            continue;
        }
        let mut fits = Vec::new();
        for time in TIMES {
            if let Some((x, y)) = points(r, time)
                && let Some(f) = fit(time, &x, &y)
            {
                fits.push(f);
            }
        }
        if let Some((x, y)) = points(r, "new_payload") {
            r.fit = dyno_stats::fit_line(&x, &y, LEVEL);
            r.mode = Some(Mode::LinearFit);
        }
        let per_op: Vec<f64> = r
            .samples
            .iter()
            .filter(|s| s.iters > 0)
            .map(Sample::per_op)
            .collect();
        r.stats = dyno_stats::summarize(&per_op);
        r.ops_per_sec = r.stats.as_ref().map(|s| 1e9 / s.p50);
        if let Some(iso) = &mut r.reprice {
            iso.fits = fits;
        }
    }
    // The glue: each op series less its control, same client, same time,
    // per loop turn: a control that counts two POPs a turn where its
    // series counts one SSTORE has its per-count time doubled.
    let controls: Vec<(String, String, f64, Vec<Fit>)> = results
        .iter()
        .filter_map(|r| {
            let iso = r.reprice.as_ref()?;
            iso.control.is_none().then(|| {
                (
                    r.id.clone(),
                    r.implementation.name.clone(),
                    per_turn(r),
                    iso.fits.clone(),
                )
            })
        })
        .collect();
    let as_estimate = |c: &Coefficient| Estimate {
        value: c.value,
        lower: c.lower,
        upper: c.upper,
    };
    for r in results.iter_mut() {
        let who = r.implementation.name.clone();
        let own_turn = per_turn(r);
        let Some(iso) = &mut r.reprice else { continue };
        let Some(control) = &iso.control else {
            continue;
        };
        let Some((_, _, control_turn, cfits)) = controls
            .iter()
            .find(|(id, name, ..)| id == control && *name == who)
        else {
            continue;
        };
        let scale = control_turn / own_turn;
        for f in &mut iso.fits {
            if let Some(c) = cfits.iter().find(|c| c.time == f.time) {
                let glue = as_estimate(&c.per_op_ns).scale(scale);
                f.net_per_op_ns = Some(as_estimate(&f.per_op_ns).minus(glue));
                f.net_robust_per_op_ns =
                    Some(f.robust_per_op_ns.minus(c.robust_per_op_ns.scale(scale)));
            }
        }
    }
}

/// An op-isolation result's counts are what a block can hold: one sample
/// per block, each block counting at least one operation and at most one
/// per unit of the gas it used (no operation costs less than 1 gas), and
/// a time above 0.
fn check_counts(r: &BenchResult) -> Result<(), String> {
    if !r.blocks.is_empty() && r.blocks.len() != r.samples.len() {
        return Err(format!(
            "{} samples for {} blocks (one per block)",
            r.samples.len(),
            r.blocks.len()
        ));
    }
    for (k, s) in r.samples.iter().enumerate() {
        let gas = r.blocks.get(k).map(|b| b.gas_used);
        if s.iters == 0 {
            return Err(format!("block {} counts 0 operations", k + 1));
        }
        if let Some(gas) = gas
            && s.iters > gas
        {
            return Err(format!(
                "block {} counts {} operations in {gas} gas (each costs at least 1)",
                k + 1,
                s.iters
            ));
        }
        if s.ns == 0 {
            return Err(format!("block {} took 0 ns", k + 1));
        }
    }
    Ok(())
}

/// Counted operations a loop turn of `r`'s program makes (recorded when
/// measured; 1 when it was not).
fn per_turn(r: &BenchResult) -> f64 {
    r.parameters
        .get("per_turn")
        .and_then(|v| v.as_f64())
        .filter(|&t| t > 0.0)
        .unwrap_or(1.0)
}

/// The anchor when none is given: the repricing EIPs' 100 MGas/s.
pub const ANCHOR_MGAS: f64 = 100.0;

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
    let schedules = schedule_names(&lab.paths.specs)?;
    price_with(&schedules, run, anchor_mgas, with)
}

/// The schedules a priced row has a column for: the compute schedules
/// (today's first), then the state schedules not named already (today's
/// is both, `osaka`). A result records its price under each of them
/// (`gas_<name>`), from whichever file prices its kind.
pub fn schedule_names(specs: &std::path::Path) -> crate::Result<Vec<ScheduleName>> {
    let compute =
        dyno_spec::reprice::schedules(specs).map_err(|e| Error::Refused(e.to_string()))?;
    let state = dyno_spec::state_gas::load(specs).map_err(|e| Error::Refused(e.to_string()))?;
    let mut out: Vec<ScheduleName> = Vec::new();
    let names = compute
        .iter()
        .map(|s| (&s.name, &s.status, &s.source))
        .chain(state.iter().map(|s| (&s.name, &s.status, &s.source)));
    for (name, status, source) in names {
        match out.iter_mut().find(|o| &o.name == name) {
            // Today's, in both files: one column, both sources.
            Some(o) => o.source = format!("{}; {source}", o.source),
            None => out.push(ScheduleName {
                name: name.clone(),
                status: status.clone(),
                source: source.clone(),
            }),
        }
    }
    Ok(out)
}

/// [`price`] with a column for each of `schedules` ([`schedule_names`]).
pub fn price_with(
    schedules: &[ScheduleName],
    run: &dyno_format::Run,
    anchor_mgas: f64,
    with: &[dyno_format::Run],
) -> crate::Result<dyno_format::reprice::Pricing> {
    use dyno_format::reprice::Row;
    let others: Vec<&BenchResult> = with.iter().flat_map(|r| &r.results).collect();
    for r in run.results.iter().filter(|r| r.reprice.is_some()) {
        check_counts(r).map_err(|why| {
            Error::Refused(format!(
                "run {}: {} in {}: {why}; the file is damaged or not written by `dyno gas --blocks`",
                run.run.id, r.id, r.implementation.name
            ))
        })?;
    }
    // A --with run that times none of the operations priced here was given
    // by mistake: say so rather than set nothing beside them.
    let mut wanted: Vec<&str> = run
        .results
        .iter()
        .filter(|r| r.reprice.is_some())
        .flat_map(|r| {
            ["library_id", "bytecode_id"]
                .into_iter()
                .filter_map(move |k| r.parameters.get(k)?.as_str())
        })
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    for w in with {
        if !w.results.iter().any(|o| wanted.contains(&o.id.as_str())) {
            refuse!(
                "--with: run {} times none of the operations run {} prices outside a client (it \
                 looks for {}); give a run of `dyno run precompile,precompile-bytecode,opcode,hash`",
                w.run.id,
                run.run.id,
                match wanted.len() {
                    0 => "none".to_string(),
                    n if n > 6 => format!("{}, and {} more", wanted[..6].join(", "), n - 6),
                    _ => wanted.join(", "),
                }
            );
        }
    }
    // Fitted again from the raw per-block samples, so that a saved run is
    // priced by today's fit (the figures recorded with it are what it was
    // measured with; these are what its data say).
    let mut results = run.results.clone();
    fit_results(&mut results);
    let mut rows = Vec::new();
    for r in &results {
        let Some(iso) = &r.reprice else { continue };
        if iso.control.is_none() {
            continue;
        }
        let prices: Vec<Option<u64>> = schedules
            .iter()
            .map(|s| r.parameters.get(&format!("gas_{}", s.name))?.as_u64())
            .collect();
        let id_of = |key: &str| r.parameters.get(key).and_then(|v| v.as_str());
        let row = |level: &str, client: &str, time: &str, n: usize, ns: Estimate| Row {
            id: r.id.clone(),
            level: level.into(),
            client: client.into(),
            time: time.into(),
            n,
            ns,
            robust_ns: None,
            r_squared: None,
            p: None,
            kept: true,
            net: true,
            gas: ns.scale(anchor_mgas / 1000.0),
            prices: prices.clone(),
            vs_library: None,
        };
        // Each library timed directly, by implementation, the baseline
        // (revm's own backend) first.
        let mut libraries: Vec<(String, f64)> = Vec::new();
        if let Some(lib) = id_of("library_id") {
            let mut of: Vec<&&BenchResult> = others.iter().filter(|o| o.id == lib).collect();
            of.sort_by_key(|o| !o.baseline);
            for o in of {
                let Some(ns) = Estimate::of(o) else { continue };
                libraries.push((o.implementation.name.clone(), ns.value));
                rows.push(row(
                    "library",
                    &o.implementation.name,
                    "direct",
                    o.samples.len(),
                    ns,
                ));
            }
        }
        let library = |who: &str| own_library(who, &libraries);
        if let Some(bc) = id_of("bytecode_id") {
            for o in others.iter().filter(|o| o.id == bc) {
                let (ns, net) = if bc.starts_with("precompile-bytecode/") {
                    let noop = others
                        .iter()
                        .find(|n| {
                            n.id == dyno_evm::pricing::NOOP_ID
                                && n.implementation.name == o.implementation.name
                        })
                        .and_then(|n| Estimate::of(n));
                    match dyno_evm::pricing::bytecode_net(o, noop) {
                        Some((ns, _)) => (ns, true),
                        None => continue,
                    }
                } else {
                    match Estimate::of(o) {
                        Some(ns) => (ns, false),
                        None => continue,
                    }
                };
                let mut b = row(
                    "bytecode",
                    &o.implementation.name,
                    "loop",
                    o.samples.len(),
                    ns,
                );
                b.net = net;
                b.vs_library = library(&o.implementation.name).map(|l| ns.value / l);
                rows.push(b);
            }
        }
        for f in &iso.fits {
            let raw = Estimate {
                value: f.per_op_ns.value,
                lower: f.per_op_ns.lower,
                upper: f.per_op_ns.upper,
            };
            let ns = f.net_per_op_ns.unwrap_or(raw);
            let mut b = row("block", &r.implementation.name, &f.time, f.n, ns);
            b.robust_ns = f.net_robust_per_op_ns;
            b.r_squared = Some(f.r_squared);
            b.p = Some(f.per_op_ns.p);
            b.kept = f.kept;
            b.net = f.net_per_op_ns.is_some();
            b.vs_library = library(&r.implementation.name).map(|l| ns.value / l);
            rows.push(b);
        }
    }
    if rows.is_empty() {
        refuse!(
            "run {} has no op-isolation results to price (measure them with `dyno gas --blocks`)",
            run.run.id
        );
    }
    Ok(dyno_format::reprice::Pricing {
        anchor_mgas,
        schedules: schedules.to_vec(),
        rows,
        run_id: run.run.id.clone(),
        compared: Vec::new(),
        joint: joint_fits(&results, schedules, anchor_mgas),
    })
}

/// Every operation measured at two or more parameters, in each client and
/// on each measure of time, fitted on (1, count, count × parameter) over
/// all its blocks ([`dyno_format::reprice::Joint`]). Each block's glue is
/// its control's per-count slope times the control's counts a turn times
/// the block's turns, taken off before the fit.
pub fn joint_fits(
    results: &[BenchResult],
    schedules: &[ScheduleName],
    anchor_mgas: f64,
) -> Vec<dyno_format::reprice::Joint> {
    let mut out = Vec::new();
    let keys: Vec<(String, String)> = {
        let mut k: Vec<(String, String)> = Vec::new();
        for r in results {
            let Some(iso) = &r.reprice else { continue };
            let key = (iso.op.clone(), r.implementation.name.clone());
            if iso.control.is_some() && iso.units.is_some() && !k.contains(&key) {
                k.push(key);
            }
        }
        k
    };
    for (op, client) in keys {
        let members: Vec<&BenchResult> = results
            .iter()
            .filter(|r| {
                r.implementation.name == client
                    && r.reprice
                        .as_ref()
                        .is_some_and(|i| i.op == op && i.control.is_some() && i.units.is_some())
            })
            .collect();
        let mut units: Vec<u64> = members
            .iter()
            .filter_map(|r| r.reprice.as_ref()?.units)
            .collect();
        units.sort_unstable();
        units.dedup();
        if units.len() < 2 {
            continue;
        }
        for time in TIMES {
            let (mut x1, mut x2, mut y) = (Vec::new(), Vec::new(), Vec::new());
            let mut series = Vec::new();
            let mut complete = true;
            for r in &members {
                let iso = r.reprice.as_ref().expect("filtered");
                let u = iso.units.expect("filtered") as f64;
                let control = results.iter().find(|c| {
                    Some(&c.id) == iso.control.as_ref() && c.implementation.name == client
                });
                let glue_turn = control.and_then(|c| {
                    Some(c.reprice.as_ref()?.fit(time)?.per_op_ns.value * per_turn(c))
                });
                let (Some((xs, ys)), Some(glue_turn)) = (points(r, time), glue_turn) else {
                    complete = false;
                    break;
                };
                let own = per_turn(r);
                for (x, t) in xs.iter().zip(ys) {
                    x1.push(*x);
                    x2.push(x * u);
                    y.push(t - glue_turn * x / own);
                }
                series.push((r.id.clone(), u as u64));
            }
            if !complete {
                continue;
            }
            let ones = vec![1.0; y.len()];
            let Some(f) = dyno_stats::nnls::cost_fit(&[&ones, &x1, &x2], &y, 2, LEVEL) else {
                continue;
            };
            let coef = |c: &dyno_stats::nnls::Coefficient| Coefficient {
                value: c.value,
                lower: c.ci.lower,
                upper: c.ci.upper,
                p: c.p,
            };
            let gas = |c: &Coefficient| {
                Estimate {
                    value: c.value,
                    lower: c.lower,
                    upper: c.upper,
                }
                .scale(anchor_mgas / 1000.0)
            };
            let (per_op, per_unit) = (coef(&f.coefficients[1]), coef(&f.coefficients[2]));
            let prices = schedules
                .iter()
                .map(|sch| {
                    let at: Vec<(f64, f64)> = members
                        .iter()
                        .map(|r| {
                            let g = r.parameters.get(&format!("gas_{}", sch.name))?.as_f64()?;
                            Some((r.reprice.as_ref()?.units? as f64, g))
                        })
                        .collect::<Option<_>>()?;
                    line_through(&at)
                })
                .collect();
            out.push(dyno_format::reprice::Joint {
                op: op.clone(),
                client: client.clone(),
                time: time.into(),
                series,
                n: f.n,
                intercept_ns: coef(&f.coefficients[0]),
                gas_base: gas(&per_op),
                gas_per_unit: gas(&per_unit),
                per_op_ns: per_op,
                per_unit_ns: per_unit,
                r_squared: f.r_squared,
                kept: f.kept,
                prices,
            });
        }
    }
    out
}

/// The line `base + per_unit × units` through every point, if they lie on
/// one (a price linear in its parameter) and there are two distinct units.
fn line_through(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let (u1, g1) = *points.first()?;
    let &(u2, g2) = points.iter().find(|(u, _)| *u != u1)?;
    let per_unit = (g2 - g1) / (u2 - u1);
    let base = g1 - per_unit * u1;
    points
        .iter()
        .all(|(u, g)| (base + per_unit * u - g).abs() < 1e-6 * g.abs().max(1.0))
        .then_some((base, per_unit))
}

/// Each of `names` once, in the order first seen.
fn distinct<'a>(names: impl Iterator<Item = &'a String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in names {
        if !out.contains(n) {
            out.push(n.clone());
        }
    }
    out
}

/// One row of a peer's per-client table (`--compare FILE.csv`).
#[derive(Debug, Clone, PartialEq)]
pub struct PeerRow {
    pub operation: String,
    pub parameter: String,
    pub client: String,
    pub gas: f64,
    /// Its line in the file.
    pub line: usize,
}

/// The ECRECOVER row a peer's figures are relative to.
const ANCHOR_OP: &str = "ecrecover";

/// Read a peer's table: CSV with a header naming `operation`, `parameter`,
/// `client` and `gas` (in any order, any case; other columns ignored), one
/// row per operation, parameter and client; `parameter` may be empty for
/// an operation dyno has one series of. Every error names the file and
/// line.
pub fn read_peer(path: &std::path::Path) -> crate::Result<Vec<PeerRow>> {
    let text = dyno_format::read_text(path)
        .map_err(|e| Error::Refused(format!("--compare {}: {e}", path.display())))?;
    parse_peer(&text, &path.display().to_string())
}

/// [`read_peer`] on the file's text; `name` names it in errors. CSV as RFC
/// 4180 writes it (quoted fields, a byte-order mark dropped). A file with
/// no rows, or a row repeated (the same operation, parameter and client),
/// is refused naming the lines.
pub fn parse_peer(text: &str, name: &str) -> crate::Result<Vec<PeerRow>> {
    let records = dyno_format::csv::records(text)
        .map_err(|e| Error::Refused(format!("--compare {name}: {e}")))?;
    let mut records = records.into_iter();
    let Some(header) = records.next() else {
        refuse!(
            "--compare {name}: empty; give a CSV with a header: operation,parameter,client,gas"
        );
    };
    let cols: Vec<String> = header
        .fields
        .iter()
        .map(|c| c.to_ascii_lowercase())
        .collect();
    let col = |want: &str| cols.iter().position(|c| c == want);
    let (Some(op), Some(param), Some(client), Some(gas)) = (
        col("operation"),
        col("parameter"),
        col("client"),
        col("gas"),
    ) else {
        refuse!(
            "--compare {name}:{}: the header must name operation, parameter, client and gas (it has: {})",
            header.line,
            cols.join(", ")
        );
    };
    let mut rows: Vec<PeerRow> = Vec::new();
    for r in records {
        let cell = |i: usize| r.fields.get(i).map_or("", String::as_str);
        let gas_text = cell(gas);
        let Ok(g) = gas_text.parse::<f64>() else {
            refuse!(
                "--compare {name}:{}: gas {gas_text:?} is not a number",
                r.line
            );
        };
        if !(g.is_finite() && g > 0.0) || cell(op).is_empty() || cell(client).is_empty() {
            refuse!(
                "--compare {name}:{}: each row needs an operation, a client and a gas above 0",
                r.line
            );
        }
        let row = PeerRow {
            operation: cell(op).to_ascii_lowercase(),
            parameter: cell(param).to_ascii_lowercase(),
            client: cell(client).to_string(),
            gas: g,
            line: r.line,
        };
        if let Some(first) = rows.iter().find(|p| {
            (&p.operation, &p.parameter, &p.client) == (&row.operation, &row.parameter, &row.client)
        }) {
            refuse!(
                "--compare {name}:{}: {} {:?} for {} is given twice (first on line {}): keep one",
                row.line,
                row.operation,
                row.parameter,
                row.client,
                first.line
            );
        }
        rows.push(row);
    }
    if rows.is_empty() {
        refuse!(
            "--compare {name}: a header and no rows: give one row per operation, parameter and \
             client (operation,parameter,client,gas)"
        );
    }
    Ok(rows)
}

/// Set `peer`'s figures beside `pricing`'s: for every peer row whose
/// operation (and parameter) names one of dyno's series, its gas over the
/// same client's ECRECOVER, and dyno's per-operation time over its own
/// ECRECOVER in each client (geth's execution time, revm's newPayload).
/// A peer row that names no series, or a client without an ECRECOVER
/// row, is an error naming the line.
pub fn compare(
    pricing: &mut dyno_format::reprice::Pricing,
    peer: &[PeerRow],
    name: &str,
) -> crate::Result<()> {
    let ids = distinct(pricing.rows.iter().map(|r| &r.id));
    let series_of = |p: &PeerRow| -> Option<String> {
        let exact = format!("{}/{}/{}", iso::GROUP, p.operation, p.parameter);
        if ids.contains(&exact) {
            return Some(exact);
        }
        let of_op: Vec<&String> = ids
            .iter()
            .filter(|id| id.split('/').nth(1) == Some(p.operation.as_str()))
            .collect();
        (p.parameter.is_empty() && of_op.len() == 1).then(|| of_op[0].clone())
    };
    // dyno's figure per client: the client's own execution time where it
    // logged one, else dyno's newPayload time.
    let ours = |id: &str, client: &str| -> Option<f64> {
        let of = |time: &str| {
            pricing
                .rows
                .iter()
                .find(|r| r.id == id && r.level == "block" && r.client == client && r.time == time)
        };
        of("client_execution")
            .or_else(|| of("new_payload"))
            .map(|r| r.ns.value)
    };
    let clients = distinct(
        pricing
            .rows
            .iter()
            .filter(|r| r.level == "block")
            .map(|r| &r.client),
    );
    let anchor_id = ids
        .iter()
        .find(|id| id.split('/').nth(1) == Some(ANCHOR_OP))
        .cloned();
    let mut out = Vec::new();
    for p in peer {
        let Some(id) = series_of(p) else {
            refuse!(
                "--compare {name}:{}: {} {:?} names no series of this run (its series: {})",
                p.line,
                p.operation,
                p.parameter,
                ids.iter()
                    .map(|i| i.trim_start_matches("reprice/"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        };
        let Some(anchor) = peer
            .iter()
            .find(|a| a.operation == ANCHOR_OP && a.client == p.client)
        else {
            refuse!(
                "--compare {name}:{}: client {} has no {ANCHOR_OP} row to set its figures against",
                p.line,
                p.client
            );
        };
        let ours: Vec<(String, f64)> = clients
            .iter()
            .filter_map(|c| {
                let a = ours(anchor_id.as_deref()?, c)?;
                Some((c.clone(), ours(&id, c)? / a))
            })
            .collect();
        out.push(dyno_format::reprice::Compared {
            id,
            peer_client: p.client.clone(),
            peer_gas: p.gas,
            peer_ratio: p.gas / anchor.gas,
            ours,
        });
    }
    pricing.compared = out;
    Ok(())
}

/// The libraries each client and EVM calls, by the names the suites give
/// their direct implementations, most specific first: geth's precompiles
/// (`geth-precompile`) and its Keccak (`geth`), ethereumjs's, py-evm's
/// (coincurve, py_ecc, cryptography, pycryptodome). revm calls the
/// suites' baselines (libsecp256k1, substrate-bn, blst, c-kzg, p256: its
/// own backends), the first library of a row.
const LIBRARIES: [(&str, &[&str]); 4] = [
    ("geth", &["geth-precompile", "geth"]),
    ("ethereumjs", &["ethereumjs", "noble"]),
    (
        "py-evm",
        &[
            "coincurve",
            "py-ecc",
            "cryptography",
            "pycryptodome",
            "eth-hash",
        ],
    ),
    ("revm", &[]),
];

/// The time of the library `who` (a client or an EVM: `geth`,
/// `geth-evm`, `revm`, ...) calls for this operation, from `libraries`
/// (name, ns; the baseline first); `None` when it was not timed.
fn own_library(who: &str, libraries: &[(String, f64)]) -> Option<f64> {
    let names = LIBRARIES
        .iter()
        .find(|(client, _)| who == *client || who.starts_with(&format!("{client}-")))
        .map(|(_, names)| *names)?;
    if names.is_empty() {
        return libraries.first().map(|(_, ns)| *ns);
    }
    names
        .iter()
        .find_map(|n| libraries.iter().find(|(name, _)| name == n))
        .map(|(_, ns)| *ns)
}

#[cfg(test)]
mod tests;
