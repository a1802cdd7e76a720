//! `dyno ab`: two builds of the same benchmarks, compared side by side in
//! one run. Each side is a worker speaking the adapter protocol: `dyno
//! worker` of two dyno binaries, or two installs of one adapter (two
//! library versions in one runtime). For each benchmark both are prepared
//! and verified, then measured in interleaved rounds
//! ([`dyno_runner::rounds`]); each pair of rounds gives one ratio. That
//! happens in [`PASSES`] passes, each with fresh worker processes whose
//! environment is padded to a random length (the same binary in two
//! processes can differ by a few percent for their whole lives: memory
//! layout, the stack's alignment, the core), and a pass's statistic is
//! the median of its ratios. The verdict comes from the passes' t
//! interval against the threshold ([`dyno_stats::paired::passes`]), with
//! Holm's adjustment over the run's benchmarks for the t test of any
//! difference at all.
//!
//! Verdicts (B, the candidate, against A, the base):
//! - `regressed`: the whole interval lies beyond +threshold, and the t
//!   test (Holm) says B differs;
//! - `improved`: likewise beyond -threshold;
//! - `unchanged`: the whole interval lies within ±threshold;
//! - `inconclusive`: the interval spans a threshold: too noisy here to
//!   say (each result's minimum detectable effect says what would be).

use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::Ordering;

use dyno_adapter::{Adapter, AdapterWorkload, Checker, Launch, Pool};
use dyno_format::destination::Destination;
use dyno_format::paired::{Paired, Pass};
use dyno_gate::paired::{self as verdicts, Of};
use dyno_runner::rounds::{self, Plan, Stopped};
use dyno_runner::slowdown::{self, Slowdown};
use dyno_workload::{BuildError, Workload};

use crate::session::Measured;
use crate::{Error, Lab, refuse};

/// Passes per benchmark, each with fresh worker processes, unless asked
/// for more ([`Request::passes`]).
pub const PASSES: usize = 4;
/// The fewest passes an interval can come from (two give one degree of
/// freedom) and the most a run may ask for.
pub const PASSES_RANGE: std::ops::RangeInclusive<usize> = 2..=64;
/// The environment variable whose random length moves a worker's stack.
pub const PAD: &str = "DYNO_AB_PAD";

/// What the base side is.
#[derive(Debug, Clone, PartialEq)]
pub enum Base {
    /// Another dyno binary: its `dyno worker` serves the base side, this
    /// dyno's the candidate.
    Binary(PathBuf),
    /// The dyno of a git revision of the repository dyno is run in, built
    /// once per commit ([`crate::revision`]).
    Revision(String),
    /// Another install of an adapter (its folder, holding `run`): the base
    /// side; the installed adapter of the same runtime is the candidate.
    Adapter { runtime: String, home: PathBuf },
}

impl Base {
    /// The base side from `dyno ab`'s three flags (clap lets at most one
    /// through): `--base PATH`, `--base-rev REV` or `--base-adapter
    /// RUNTIME=FOLDER`; none is an error that names all three.
    pub fn from_flags(
        base: Option<&std::path::Path>,
        base_rev: Option<&str>,
        base_adapter: Option<&str>,
    ) -> crate::Result<Base> {
        Ok(match (base, base_rev, base_adapter) {
            (Some(path), _, _) => Base::Binary(path.to_path_buf()),
            (None, Some(rev), _) => Base::Revision(rev.to_string()),
            (None, None, Some(spec)) => {
                let Some((runtime, dir)) = spec.split_once('=') else {
                    refuse!(
                        "--base-adapter {spec:?}: write RUNTIME=FOLDER, e.g. go=/tmp/go-old (a \
                         folder adapters/go/setup installed into)"
                    );
                };
                Base::Adapter {
                    runtime: runtime.trim().to_string(),
                    home: PathBuf::from(dir),
                }
            }
            (None, None, None) => refuse!(
                "dyno ab needs the other side: --base PATH (another dyno binary), --base-rev REV \
                 (the dyno of a git revision) or --base-adapter RUNTIME=FOLDER (another install \
                 of an adapter); see `dyno ab --help`"
            ),
        })
    }
}

/// What `dyno ab` is asked.
#[derive(Debug, Clone)]
pub struct Request {
    pub base: Base,
    /// Which benchmarks (as `dyno run`'s filter); the default suites
    /// without one.
    pub filter: Option<String>,
    pub quick: bool,
    /// Passes, each with fresh workers ([`PASSES`] by default): more give
    /// the t interval more degrees of freedom, so one odd pass (a worker
    /// placed badly for its life) moves it less. The rounds' time is
    /// shared among them.
    pub passes: usize,
    /// A change smaller than this (relative) is not a regression.
    pub threshold: f64,
    /// `-o`, checked by the caller; `None` for the default file.
    pub out: Option<Destination>,
    pub quiet: bool,
}

/// How an A/B ended.
#[derive(Debug)]
pub struct Finished {
    pub measured: Measured,
    /// A benchmark regressed, or a side gave a wrong result (exit 1).
    pub failed: bool,
    /// What stopped it early (exit 2), if anything.
    pub failure: Option<Error>,
}

/// One side: its worker pool and what it is.
struct Side {
    pool: Rc<RefCell<Pool>>,
    label: String,
    /// Whether this side runs the implementations' own Rust code in a dyno
    /// worker (which verifies with its own inputs) rather than an
    /// adapter (given the cases, checked here).
    dyno: bool,
}

/// The two dyno binaries of a `--base` comparison, copied into one fresh
/// folder (removed with it): the same bytes can run at very different
/// speeds from two files. Measured here: `hash/keccak256/1KiB` on sha3
/// took 8.45 µs per operation from the debug binary as the linker wrote it
/// (`target/debug/dyno`) and 4.63 µs from a byte-identical copy of it in
/// the same folder, again and again; and in an A/A trial of a release
/// binary, whose two copies were made once for the whole run, k256's key
/// derivation ran 28% slower on one copy in all four passes
/// (docs/trials/ab-aa-copies-per-run-2026-11-26, trial 6). `dyno ab`
/// therefore makes fresh copies for every pass: whatever a file's
/// placement does then varies from pass to pass, where the interval sees
/// it.
fn copies(base: &std::path::Path) -> crate::Result<(tempfile::TempDir, PathBuf, PathBuf)> {
    if !base.is_file() {
        refuse!(
            "--base {}: no such file; give the path of another dyno binary (or \
             --base-adapter RUNTIME=FOLDER)",
            base.display()
        );
    }
    let me = std::env::current_exe().map_err(|e| {
        Error::Refused(format!(
            "finding this dyno's own binary to start it as a worker: {e}"
        ))
    })?;
    let dir = tempfile::Builder::new()
        .prefix("dyno-ab-")
        .tempdir()
        .map_err(|e| Error::Refused(format!("making a folder for the two binaries: {e}")))?;
    let copy = |from: &std::path::Path, name: &str| {
        let to = dir.path().join(name);
        std::fs::copy(from, &to)
            .map(|_| to)
            .map_err(|e| Error::Refused(format!("copying {} to {name}: {e}", from.display())))
    };
    let a = copy(base, "base-dyno")?;
    let b = copy(&me, "candidate-dyno")?;
    Ok((dir, a, b))
}

/// The two dyno binaries of a comparison of builds: the base's, with how
/// it is shown, and their fresh copies.
struct Binaries {
    base: PathBuf,
    label: String,
    copies: Option<(tempfile::TempDir, PathBuf, PathBuf)>,
}

/// The two sides `base` means, for pass `pass`: fresh pools, each worker
/// with its own random padding of the environment. `bins`: the two dyno
/// binaries' copies, for a base that is a dyno binary.
fn sides(
    lab: &Lab,
    base: &Base,
    bins: Option<&Binaries>,
    pass: usize,
) -> crate::Result<(Side, Side)> {
    let mut rng = dyno_stats::SplitMix64(0xab00 + pass as u64);
    let mut env = |extra: &[(String, String)]| {
        let mut env = extra.to_vec();
        env.push((PAD.to_string(), ".".repeat(rng.below(4096))));
        env
    };
    // The dyno workers read the same specs and inputs as this dyno.
    let paths = vec![
        (
            crate::paths::ENV_SPECS.to_string(),
            lab.paths.specs.display().to_string(),
        ),
        (
            crate::paths::ENV_VECTORS.to_string(),
            lab.paths.vectors.display().to_string(),
        ),
    ];
    let side = |adapter: Adapter, label: String, dyno: bool| Side {
        pool: Rc::new(RefCell::new(Pool::new(adapter))),
        label,
        dyno,
    };
    match base {
        Base::Binary(_) | Base::Revision(_) => {
            let bins = bins
                .ok_or_else(|| Error::Refused("internal: the binaries were not copied".into()))?;
            let (_, base_bin, me) = bins
                .copies
                .as_ref()
                .ok_or_else(|| Error::Refused("internal: the binaries were not copied".into()))?;
            let worker = |program: PathBuf, env: Vec<(String, String)>, strip: bool| {
                Adapter::launching(
                    "dyno",
                    Launch {
                        program,
                        args: vec!["worker".into()],
                        env,
                        cwd: None,
                        env_remove: if strip {
                            vec![slowdown::ENV.into()]
                        } else {
                            Vec::new()
                        },
                    },
                )
            };
            let (ea, eb) = (env(&paths), env(&paths));
            Ok((
                side(worker(base_bin.clone(), ea, true), bins.label.clone(), true),
                side(
                    worker(me.clone(), eb, false),
                    "candidate: this dyno".into(),
                    true,
                ),
            ))
        }
        Base::Adapter { runtime, home } => {
            let installed = crate::adapters::adapters(&lab.paths)?
                .into_iter()
                .find(|a| &a.runtime == runtime)
                .ok_or_else(|| {
                    Error::Refused(format!(
                        "--base-adapter {runtime}=...: no adapter {runtime:?} in {}; the \
                         adapters are {}",
                        lab.paths.adapters.display(),
                        crate::adapters::RUNTIMES.join(", ")
                    ))
                })?;
            if !home.join("run").is_file() {
                refuse!(
                    "--base-adapter {runtime}={}: no `run` in that folder; give a folder an \
                     adapter's `setup` installed into (adapters/{runtime}/setup FOLDER)",
                    home.display()
                );
            }
            // The worker starts in its own folder: a relative path would
            // then point elsewhere. The label keeps the path as given.
            let given = home;
            let home = &home.canonicalize().map_err(|e| {
                Error::Refused(format!("--base-adapter {runtime}={}: {e}", home.display()))
            })?;
            if !installed.installed() {
                refuse!(
                    "the {runtime} adapter is not installed, so there is no candidate side; run \
                     `dyno setup {runtime}`"
                );
            }
            let worker = |home: &std::path::Path, env: Vec<(String, String)>| {
                Adapter::launching(
                    runtime,
                    Launch {
                        program: home.join("run"),
                        args: Vec::new(),
                        env,
                        cwd: Some(home.to_path_buf()),
                        env_remove: vec![slowdown::ENV.into()],
                    },
                )
            };
            let (ea, eb) = (env(&[]), env(&[]));
            Ok((
                side(
                    worker(home, ea),
                    format!("base: {runtime} adapter in {}", given.display()),
                    false,
                ),
                side(
                    worker(&installed.home, eb),
                    format!(
                        "candidate: {runtime} adapter in {}",
                        installed.home.display()
                    ),
                    false,
                ),
            ))
        }
    }
}

/// Prepare and verify `id` on `side`: a dyno worker checks its own
/// outputs; an adapter's are checked here against the vectors.
fn prepare(
    lab: &Lab,
    side: &Side,
    workload: &str,
    implementation: &str,
    quick: bool,
) -> Result<Box<dyn Workload>, BuildError> {
    let ctx = lab.paths.ctx();
    let (cases, check): (_, Checker) = if side.dyno {
        (Vec::new(), Box::new(|_, _| Ok(())))
    } else {
        let cases = crate::cases::cases(&ctx, workload).unwrap_or_else(|| {
            Err(BuildError::Adapter {
                runtime: side.label.clone(),
                reason: format!("{workload} has no portable form"),
            })
        })?;
        let id = workload.to_string();
        (
            cases,
            Box::new(move |case, out| {
                crate::cases::check(&id, case, out).map_err(|w| (w.field, w.expected, w.actual))
            }),
        )
    };
    let w = AdapterWorkload::prepare(
        side.pool.clone(),
        workload,
        implementation,
        cases,
        &check,
        crate::adapters::jit_warmup_ns(quick),
        crate::cases::limits(workload),
    )?;
    Ok(Box::new(w))
}

/// What a benchmark is compared as: an id and implementation both sides
/// offer.
#[derive(Debug, Clone)]
struct Planned {
    id: String,
    workload: String,
    implementation: String,
}

/// The benchmarks to compare: what the filter (checked by the caller) or
/// the default suites select in `specs` that both workers offer.
fn plan(
    specs: &[dyno_spec::Spec],
    req: &Request,
    a: &Side,
    b: &Side,
) -> crate::Result<Vec<Planned>> {
    let hello = |s: &Side| {
        s.pool
            .borrow_mut()
            .hello()
            .cloned()
            .map_err(|e| Error::Refused(format!("starting the {} worker: {e}", s.label)))
    };
    let (ha, hb) = (hello(a)?, hello(b)?);
    let offered = |h: &dyno_protocol::Hello, workload: &str, imp: &str| {
        h.implementations_of(workload)
            .iter()
            .any(|o| o.implementation == imp)
    };
    let entries = dyno_spec::plan(specs, req.filter.as_deref());
    let mut out: Vec<Planned> = entries
        .iter()
        .filter(|e| {
            offered(&ha, &e.workload, &e.implementation)
                && offered(&hb, &e.workload, &e.implementation)
        })
        .map(|e| Planned {
            id: e.id.clone(),
            workload: e.workload.clone(),
            implementation: e.implementation.clone(),
        })
        .collect();
    if out.is_empty() && !a.dyno {
        // An adapter's implementations are not in the Rust plan by name:
        // every id the filter selects, on every implementation both
        // installs offer.
        let mut ids: Vec<(&str, &str)> = Vec::new();
        for e in &entries {
            if !ids.iter().any(|(id, _)| *id == e.id) {
                ids.push((&e.id, &e.workload));
            }
        }
        for (id, workload) in ids {
            for o in ha.implementations_of(workload) {
                if offered(&hb, workload, &o.implementation) {
                    out.push(Planned {
                        id: id.into(),
                        workload: workload.into(),
                        implementation: o.implementation.clone(),
                    });
                }
            }
        }
    }
    if out.is_empty() {
        refuse!(
            "{:?} selects nothing both sides offer (the base: {}; the candidate: {})",
            req.filter.as_deref().unwrap_or("the default suites"),
            a.label,
            b.label
        );
    }
    Ok(out)
}

/// Why a pass of a benchmark gave no rounds.
#[derive(Debug)]
enum Skip {
    /// A side's output differed from the expected one: a wrong result.
    Wrong(String),
    /// It could not be prepared or timed; both workers live on.
    Failed(String),
    /// A side's worker died or stopped answering: the run cannot go on.
    Dead(String),
    /// Ctrl-C, before enough rounds were done.
    Interrupted,
}

impl Skip {
    /// `why`, on `side`: fatal when that side's worker is gone.
    fn on(side: &Side, why: String) -> Self {
        let why = format!("{}: {why}", side.label);
        if side.pool.borrow_mut().current().is_none() {
            Skip::Dead(why)
        } else {
            Skip::Failed(why)
        }
    }
}

/// One pass of `p` on `a` and `b`: prepare, verify, rounds.
fn one_pass(
    lab: &Lab,
    req: &Request,
    p: &Planned,
    (a, b): (&Side, &Side),
    knob: &Slowdown,
    plan: &Plan,
    stop: &dyn Fn() -> bool,
) -> Result<Pass, Skip> {
    let mut wa = prepare(lab, a, &p.workload, &p.implementation, req.quick)
        .map_err(|e| Skip::on(a, e.to_string()))?;
    let mut wb = prepare(lab, b, &p.workload, &p.implementation, req.quick)
        .map_err(|e| Skip::on(b, e.to_string()))?;
    if let Some(f) = knob.factor(&p.id).filter(|_| !b.dyno) {
        wb = Box::new(slowdown::Slowed::new(wb, f));
    }
    for (w, s) in [(&mut wa, a), (&mut wb, b)] {
        if let Err(m) = w.verify() {
            return Err(Skip::Wrong(format!(
                "WRONG on {}: case {}: expected {}, got {}",
                s.label, m.case, m.expected, m.actual
            )));
        }
    }
    let m = rounds::run(wa.as_mut(), wb.as_mut(), plan, stop).map_err(|e| match e {
        Stopped::Interrupted => Skip::Interrupted,
        Stopped::Failed { side, message } => match side {
            rounds::Side::A => Skip::on(a, message),
            rounds::Side::B => Skip::on(b, message),
        },
    })?;
    let statistic = pass_statistic(&m.log_ratios)?;
    Ok(Pass {
        iterations: m.iterations,
        order: m.order,
        base_ns: m.a_ns,
        candidate_ns: m.b_ns,
        log_ratios: m.log_ratios,
        statistic,
    })
}

/// A pass's statistic: the median of its log ratios. A pass with none
/// says nothing (taken as 0 it would read as "no change").
fn pass_statistic(log_ratios: &[f64]) -> Result<f64, Skip> {
    dyno_stats::median(log_ratios)
        .ok_or_else(|| Skip::Failed("the pass gave no rounds to compare".into()))
}

/// Compare what `req` asks; every refusal comes before anything runs.
pub fn run(lab: &Lab, req: &Request) -> crate::Result<Finished> {
    if !(req.threshold > 0.0 && req.threshold < 1.0) {
        refuse!(
            "--threshold {}: give a fraction between 0 and 1, e.g. 0.05 for 5%",
            req.threshold
        );
    }
    if !PASSES_RANGE.contains(&req.passes) {
        refuse!(
            "--passes {}: give {} to {} (each pass is one value of the t interval)",
            req.passes,
            PASSES_RANGE.start(),
            PASSES_RANGE.end()
        );
    }
    let knob = Slowdown::from_env()?;
    // The specs once, and a bad filter said before anything starts (or a
    // base revision spends minutes building).
    let (specs, _) = crate::suites::load_specs(&lab.paths)?;
    if let Some(f) = &req.filter {
        dyno_spec::check_filter(&specs, f)?;
    }
    let say = |m: &str| {
        if !req.quiet {
            eprintln!("dyno ab: {m}");
        }
    };
    let mut bins = match &req.base {
        Base::Binary(path) => Some(Binaries {
            base: path.clone(),
            label: format!("base: {}", path.display()),
            copies: None,
        }),
        Base::Revision(rev) => {
            let here = std::env::current_dir().map_err(|e| {
                Error::Refused(format!("--base-rev {rev}: the current folder: {e}"))
            })?;
            let (base, commit) = crate::revision::binary(&lab.paths, &here, rev, &say)?;
            Some(Binaries {
                base,
                label: format!("base: dyno at {rev} ({})", &commit[..commit.len().min(12)]),
                copies: None,
            })
        }
        Base::Adapter { .. } => None,
    };
    // Fresh copies of both binaries for every pass: two copies of one file
    // can differ in speed for as long as they exist (see `copies`), so
    // that, too, must vary from pass to pass, where the interval sees it.
    let fresh = |bins: &mut Option<Binaries>| -> crate::Result<()> {
        if let Some(b) = bins.as_mut() {
            b.copies = None;
            b.copies = Some(copies(&b.base)?);
        }
        Ok(())
    };
    fresh(&mut bins)?;
    let (a0, b0) = sides(lab, &req.base, bins.as_ref(), 0)?;
    let planned = plan(&specs, req, &a0, &b0)?;
    crate::history::check_location(&lab.paths)?;
    let interrupt = crate::interrupt::flag()?;
    let (mut run, mut saving, probe) = crate::session::open_run(lab, req.quick, req.out.clone())?;
    let passes = req.passes;
    let total = Plan::new(req.quick);
    let plan = Plan {
        budget_ns: total.budget_ns / passes as u64,
        min_pairs: 5,
        ..total
    };
    say(&format!(
        "{} benchmarks; A = {}, B = {}; {passes} passes, each with fresh workers: rounds of ~{} ms in ABBA order, {:.2} s of rounds per benchmark a pass",
        planned.len(),
        a0.label,
        b0.label,
        plan.round_ns / 1_000_000,
        plan.budget_ns as f64 / 1e9
    ));
    let knob_note = |id: &str| {
        knob.factor(id).map(|f| {
            format!(
                "the candidate side was slowed on purpose by {}: x{f} (test only)",
                slowdown::ENV
            )
        })
    };
    let labels = (a0.label.clone(), b0.label.clone());
    let tally = |planned: &[Planned], dropped: &[Option<String>], data: &[Vec<Pass>]| {
        planned
            .iter()
            .enumerate()
            .map(|(k, p)| {
                let of = Of {
                    id: &p.id,
                    implementation: &p.implementation,
                    base: &labels.0,
                    candidate: &labels.1,
                };
                match &dropped[k] {
                    Some(why) => verdicts::not_compared(of, req.threshold, why.clone()),
                    None => verdicts::compared(of, req.threshold, &data[k], knob_note(&p.id))
                        .unwrap_or_else(|| Paired {
                            // Kept, so an interrupted run loses no round.
                            passes: data[k].clone(),
                            ..verdicts::not_compared(
                                of,
                                req.threshold,
                                format!("{} pass(es) so far: at least 2 are needed", data[k].len()),
                            )
                        }),
                }
            })
            .collect::<Vec<Paired>>()
    };
    let mut data: Vec<Vec<Pass>> = vec![Vec::new(); planned.len()];
    let mut dropped: Vec<Option<String>> = vec![None; planned.len()];
    let mut failure = None;
    let mut wrong = false;
    let stop = || interrupt.load(Ordering::Relaxed);
    let mut pair = Some((a0, b0));
    'passes: for pass in 0..passes {
        let (a, b) = match pair.take() {
            Some(p) => p,
            None => {
                fresh(&mut bins)?;
                sides(lab, &req.base, bins.as_ref(), pass)?
            }
        };
        // Every other pass backwards, so no benchmark always runs early.
        let mut order: Vec<usize> = (0..planned.len()).collect();
        if pass % 2 == 1 {
            order.reverse();
        }
        for (n, &k) in order.iter().enumerate() {
            if stop() {
                break 'passes;
            }
            if dropped[k].is_some() {
                continue;
            }
            let p = &planned[k];
            match one_pass(lab, req, p, (&a, &b), &knob, &plan, &stop) {
                Ok(x) => {
                    say(&format!(
                        "pass {}/{passes}, {}/{}: {} on {}: B vs A {:+.1}% over {} pairs",
                        pass + 1,
                        n + 1,
                        planned.len(),
                        p.id,
                        p.implementation,
                        100.0 * x.statistic.exp_m1(),
                        x.log_ratios.len()
                    ));
                    data[k].push(x);
                }
                Err(skip) => {
                    let (why, dead) = match skip {
                        Skip::Interrupted => break 'passes,
                        Skip::Wrong(why) => {
                            wrong = true;
                            (why, false)
                        }
                        Skip::Dead(why) => (why, true),
                        Skip::Failed(why) => (why, false),
                    };
                    say(&format!(
                        "{} on {}: not compared: {why}",
                        p.id, p.implementation
                    ));
                    dropped[k] = Some(why.clone());
                    if dead {
                        failure = Some(Error::Refused(format!(
                            "{} on {}: {why}",
                            p.id, p.implementation
                        )));
                        break 'passes;
                    }
                }
            }
        }
        for s in [&a, &b] {
            s.pool.borrow_mut().stop();
        }
        run.paired = tally(&planned, &dropped, &data);
        verdicts::judge(&mut run.paired);
        saving.checkpoint(&run);
    }
    // Again: a pass cut short has rounds the last tally did not see.
    run.paired = tally(&planned, &dropped, &data);
    verdicts::judge(&mut run.paired);
    let noise = crate::session::keep_noise(&mut run, probe, true);
    if let Some(why) = noise.speed.as_ref().and_then(|s| s.swung(req.threshold)) {
        say(&format!("warning: {why}"));
    }
    let interrupted = interrupt.load(Ordering::Relaxed);
    crate::session::close(&mut run, &mut failure, interrupted, "the comparisons done");
    let failed = wrong || run.paired.iter().any(|p| p.verdict == "regressed");
    let measured = saving.finish(run, Vec::new());
    Ok(Finished {
        measured,
        failed,
        failure,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_with_no_ratios_is_no_pass() {
        assert!(matches!(pass_statistic(&[]), Err(Skip::Failed(_))));
        assert_eq!(pass_statistic(&[0.1, 0.3, 0.2]).unwrap(), 0.2);
    }
}
