//! A measuring session: plan what a filter and `--impl` select, start the
//! adapters they need, verify and measure every job (saving after each,
//! so an interruption loses nothing), and write the JSON and Markdown.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use dyno_format::destination::Destination;
use dyno_format::{Implementation, Run, VerificationStatus};
use dyno_runner::{Engine, Job, Progress};
use dyno_workload::{BenchDef, Ctx};

use crate::adapters::{self, Selection};
use crate::error::Context as _;
use crate::paths::Lab;
use crate::progress::Reporter;
use crate::suites::load_specs;
use crate::{Outcome, refuse};

/// Refuse a malformed test-only knob before measuring anything.
pub fn check_knobs() -> crate::Result<()> {
    let s = dyno_runner::slowdown::Slowdown::from_env()?;
    if s != dyno_runner::slowdown::Slowdown::default() {
        eprintln!(
            "dyno: warning: {} is set: matching benchmarks are slowed on purpose (test only)",
            dyno_runner::slowdown::ENV
        );
    }
    Ok(())
}

/// What to measure: the spec plan for a filter and implementations,
/// optionally narrowed to exact (id, implementation) pairs.
#[derive(Debug)]
pub struct Selected<'a> {
    pub filter: Option<&'a str>,
    pub impls: Option<&'a [String]>,
    /// Exactly these (id, implementation name) pairs, instead of `filter`.
    pub only: Option<&'a std::collections::HashSet<(String, String)>>,
    pub quick: bool,
}

/// Plan, start the adapters needed, verify and measure, save the JSON.
pub fn select_and_measure(
    lab: &Lab,
    what: &Selected<'_>,
    how: &Settings,
) -> crate::Result<Measured> {
    if let Some(impls) = what.impls
        && impls.iter().all(|i| i.trim().is_empty())
    {
        refuse!(
            "--impl is empty; give implementation names (k256,geth), runtimes (rust, {}) or all",
            adapters::RUNTIMES.join(", ")
        );
    }
    let (specs, catalog) = load_specs(&lab.paths)?;
    // A filter someone typed must select what it says. The exact pairs
    // `dyno check` asks for (`only`) may name benchmarks the specs no
    // longer have, which the comparison then reports.
    if let (Some(filter), None) = (what.filter, what.only) {
        dyno_spec::check_filter(&specs, filter)?;
    }
    let sel = Selection::parse(what.impls);
    let plan = match what.only {
        // Exact pairs (`dyno check`): every id the specs define, kept if
        // named; no pattern round trip that could select more or less.
        Some(only) => {
            let ids: std::collections::HashSet<&str> =
                only.iter().map(|(id, _)| id.as_str()).collect();
            let mut all = dyno_spec::plan(&specs, Some("*"));
            all.retain(|e| ids.contains(e.id.as_str()));
            all
        }
        None => dyno_spec::plan(&specs, what.filter),
    };
    if plan.is_empty() {
        match what.only {
            Some(only) => refuse!(
                "none of the {} benchmarks asked for is in the specs any more (see `dyno list`)",
                only.len()
            ),
            None => refuse!(
                "no benchmark matches {:?} (see `dyno list`)",
                what.filter.unwrap_or("")
            ),
        }
    }
    let ctx = lab.paths.ctx();
    let (started, notices) = adapters::start(&lab.paths, &sel)?;
    say(&notices, how.quiet);
    check_impls(&sel, &catalog, &started)?;
    let rust_plan: Vec<_> = plan
        .iter()
        .filter(|e| sel.wants("rust", &e.implementation))
        .cloned()
        .collect();
    let rust = jobs(rust_plan, catalog, &ctx, &lab.paths.specs);
    let mut jobs = adapters::interleave(rust, &plan, &started, &sel, &ctx, what.quick);
    if let Some(only) = what.only {
        jobs.retain(|j| {
            j.id == dyno_protocol::NOOP_ID
                || only.contains(&(j.id.clone(), j.implementation.name.clone()))
        });
    }
    if jobs.iter().any(|j| j.id != dyno_protocol::NOOP_ID) {
        jobs.extend(reference_job(&specs, &jobs, &ctx, &lab.paths.specs));
    }
    // Each result says what operation it times, with its nominal gas, in
    // process or through an adapter alike.
    let prices = crate::operation::Prices::load(&lab.paths.specs);
    for j in &mut jobs {
        let workload = j
            .parameters
            .get("workload")
            .and_then(|w| w.as_str())
            .unwrap_or(&j.id)
            .to_string();
        prices.record(&ctx, &workload, &mut j.parameters);
    }
    let real = jobs
        .iter()
        .filter(|j| j.id != dyno_protocol::NOOP_ID)
        .count();
    if real == 0 {
        refuse!(
            "no implementation selected by --impl {} runs {:?} (see `dyno list` and `dyno doctor`)",
            what.impls.unwrap_or_default().join(","),
            what.filter.unwrap_or("the default suites")
        );
    }
    let records: Vec<_> = started
        .iter()
        .filter_map(|s| {
            let pool = s.pool.borrow();
            let a = pool.adapter();
            let mut used: Vec<String> = jobs
                .iter()
                .filter(|j| j.implementation.runtime == a.runtime)
                .map(|j| j.implementation.name.clone())
                .collect();
            used.sort();
            used.dedup();
            (!used.is_empty()).then(|| adapters::record(a, &s.hello, used))
        })
        .collect();
    let measured = measure_with(lab, jobs, how, records);
    drop(started);
    measured
}

/// The cross-machine reference (`dyno check --normalize`, gate.md:
/// "Another machine") on its spec's baseline implementation, measured in
/// every run that does not measure it already, so that any run can be
/// compared with one made on another machine. Its result says
/// `reference = true` in its parameters.
fn reference_job(
    specs: &[dyno_spec::Spec],
    jobs: &[Job],
    ctx: &Ctx,
    specs_dir: &Path,
) -> Option<Job> {
    let id = dyno_gate::DEFAULT_REFERENCE;
    let plan: Vec<_> = dyno_spec::plan(specs, Some(id))
        .into_iter()
        .filter(|e| e.id == id && e.baseline)
        .collect();
    let entry = plan.first()?;
    if jobs
        .iter()
        .any(|j| j.id == id && j.implementation.name == entry.implementation)
    {
        return None;
    }
    let catalog = crate::suites::first_with(|d| d.id() == id);
    let mut job = self::jobs(plan, catalog, ctx, specs_dir)
        .into_iter()
        .next()?;
    job.parameters
        .insert("reference".into(), serde_json::Value::Bool(true));
    Some(job)
}

/// Print what starting the adapters said, one line each: a skipped
/// runtime always (a run that does less than asked says so), a stale
/// install unless `quiet`.
fn say(notices: &[adapters::Notice], quiet: bool) {
    for n in notices {
        match n {
            adapters::Notice::Stale(..) if quiet => {}
            adapters::Notice::Stale(runtime, setup) => eprintln!(
                "dyno: warning: the {runtime} adapter changed since `dyno setup` installed it; \
                 run `{setup}` to rebuild"
            ),
            adapters::Notice::Skipped { runtime, reason } => {
                let line = dyno_report::one_line(reason);
                let prefix = format!("{runtime}: ");
                eprintln!(
                    "dyno: skipping {runtime}: {}",
                    line.strip_prefix(&prefix).unwrap_or(&line)
                );
            }
        }
    }
}

/// How to measure.
#[derive(Debug)]
pub struct Settings {
    pub quick: bool,
    pub samples: Option<u32>,
    /// Where the JSON result goes (Markdown beside it), checked; `None`
    /// for the default, `dyno-results/<run-id>.json`.
    pub out: Option<Destination>,
    pub quiet: bool,
}

/// The folder results go to when `-o` is not given.
pub const RESULTS_DIR: &str = "dyno-results";

impl Settings {
    /// From `--quick`, `--samples`, `-o` and `-q`, with `-o` (or the
    /// default folder) checked before anything is measured.
    pub fn new(
        quick: bool,
        samples: Option<u32>,
        out: Option<&Path>,
        quiet: bool,
    ) -> crate::Result<Self> {
        let out = match out {
            Some(path) => {
                let dest = Destination::check(path).map_err(flag_o)?;
                dest.beside("md").map_err(flag_o)?;
                Some(dest)
            }
            None => {
                if let Err(e) = Destination::check(&PathBuf::from(RESULTS_DIR).join("run.json")) {
                    refuse!("{RESULTS_DIR}/, where results go without -o: {e}; or give -o FILE")
                }
                None
            }
        };
        Ok(Self {
            quick,
            samples,
            out,
            quiet,
        })
    }
}

/// A finished (or interrupted) run, saved.
#[derive(Debug)]
pub struct Measured {
    pub run: Run,
    pub errors: Vec<(String, dyno_workload::BuildError)>,
    /// Where the JSON went: `-o`, the default file, or, if writing there
    /// failed, the fallback file.
    pub json: Destination,
    /// The Markdown beside a JSON file.
    pub markdown: Option<PathBuf>,
    /// What failed at the end, said in full (where the results are instead).
    pub write_error: Option<String>,
}

impl Measured {
    /// Say where the run's files went and save it to the history: what
    /// every command that measures does before it prints, so that a full
    /// stdout cannot cost the run its place there. `quiet` silences the
    /// history's own messages, never the line that says where the files
    /// are.
    pub fn keep(&self, paths: &crate::Paths, quiet: bool) {
        self.announce();
        crate::history::save(paths, &self.run, self.file(), quiet);
    }

    /// Say on stderr where the results went.
    pub fn announce(&self) {
        match (&self.json, &self.markdown) {
            (Destination::Stdout, _) => eprintln!("dyno: wrote the result JSON to stdout"),
            (json, Some(md)) => eprintln!("dyno: wrote {json} and {}", md.display()),
            (json, None) => eprintln!("dyno: wrote {json}"),
        }
    }

    /// The file that holds the JSON, for messages that point at it.
    pub fn file(&self) -> Option<&Path> {
        match &self.json {
            Destination::File(p) => Some(p),
            _ => None,
        }
    }

    /// Write the JSON again after adding to the run (instruction counts).
    pub fn rewrite(&self) -> crate::Result<()> {
        if let Destination::File(p) = &self.json {
            self.run
                .write(p)
                .with_context(|| format!("saving results to {}", p.display()))?;
        }
        Ok(())
    }

    /// An error (exit 2) if the results could not be written where asked.
    pub fn check_written(&self) -> crate::Result<()> {
        match &self.write_error {
            Some(e) => Err(crate::Error::Refused(e.clone())),
            None => Ok(()),
        }
    }
}

/// Calibrate the clock, measure every planned benchmark (saving after
/// each, so an interruption loses nothing), and write JSON and Markdown.
pub fn measure(
    lab: &Lab,
    plan: Vec<dyno_spec::PlanEntry>,
    catalog: Vec<BenchDef>,
    ctx: &Ctx,
    how: &Settings,
) -> crate::Result<Measured> {
    measure_jobs(lab, jobs(plan, catalog, ctx, &lab.paths.specs), how)
}

/// [`measure`] for jobs already built.
pub fn measure_jobs(lab: &Lab, jobs: Vec<Job>, how: &Settings) -> crate::Result<Measured> {
    measure_with(lab, jobs, how, Vec::new())
}

/// [`measure_jobs`], recording the adapters whose workers take part (and
/// their runtimes' versions in the environment).
fn measure_with(
    lab: &Lab,
    jobs: Vec<Job>,
    how: &Settings,
    adapters: Vec<dyno_format::adapter::AdapterRecord>,
) -> crate::Result<Measured> {
    let clock = dyno_runner::clock::calibrate();
    dyno_runner::clock::check(&clock)?;
    let settings = dyno_runner::settings(how.quick, how.samples.map(|n| n as usize), &clock);
    let mut environment = dyno_runner::env::capture(clock, lab.build.rustc);
    for a in &adapters {
        environment
            .runtimes
            .insert(a.name.clone(), a.runtime.clone());
    }
    let invocation = lab.build.invocation();
    let engine = Engine::new(settings.clone()).with_stop(crate::interrupt::flag()?);
    let mut run = dyno_runner::new_run(invocation, settings, environment);
    run.adapters = adapters;
    let mut saving = Saving::new(how.out.clone(), &run.run.id)?;

    let probe = dyno_runner::noise::Probe::start();
    let (_, harness) = dyno_runner::measure_harness(&engine);
    run.harness = harness;

    let progress = Reporter::new(jobs.len(), how.quiet);
    let errors = dyno_runner::execute(&engine, &mut run, jobs, |p| match p {
        Progress::Start {
            index,
            total,
            id,
            implementation,
        } => progress.start(index, total, id, implementation),
        Progress::Done { run, .. } => {
            progress.done();
            // A checkpoint after every benchmark, so that a crash loses
            // at most one.
            saving.checkpoint(run);
        }
    });
    progress.finish();
    keep_noise(&mut run, probe, how.quiet);
    Ok(saving.finish(run, errors))
}

/// Stop the noise probe, keep what it saw in the run, and warn on stderr
/// when the machine was busy.
pub(crate) fn keep_noise(
    run: &mut Run,
    probe: dyno_runner::noise::Probe,
    quiet: bool,
) -> &dyno_format::noise::Noise {
    let noise = probe.finish();
    if dyno_runner::noise::noisy(&noise) && !quiet {
        eprintln!(
            "dyno: warning: the machine was busy: {}; times from it are less steady \
             (`dyno ab` compares two builds in the same minutes)",
            dyno_report::paired::noise_line(&noise)
        );
    }
    run.noise.insert(noise)
}

/// A new run for a command that measures in its own way (`dyno ab`, `dyno
/// replay`, `dyno gas --blocks`): the clock calibrated, the environment
/// captured, no harness measurement; where it will be saved; and the noise
/// probe, started (its end is [`keep_noise`]).
pub(crate) fn open_run(
    lab: &Lab,
    quick: bool,
    out: Option<Destination>,
) -> crate::Result<(Run, Saving, dyno_runner::noise::Probe)> {
    let clock = dyno_runner::clock::calibrate();
    let settings = dyno_runner::settings(quick, None, &clock);
    let environment = dyno_runner::env::capture(clock, lab.build.rustc);
    let mut run = dyno_runner::new_run(lab.build.invocation(), settings, environment);
    run.harness = None;
    let saving = Saving::new(out, &run.run.id)?;
    Ok((run, saving, dyno_runner::noise::Probe::start()))
}

/// Mark `run` finished: complete unless `failure` or an interrupt stopped
/// it (the reason recorded), its end time set; an interrupt with no other
/// failure becomes one, saying that `kept` (what was measured) is saved.
pub(crate) fn close(
    run: &mut Run,
    failure: &mut Option<crate::Error>,
    interrupted: bool,
    kept: &str,
) {
    run.run.complete = failure.is_none() && !interrupted;
    run.run.incomplete_reason = if interrupted && failure.is_none() {
        Some("interrupted (Ctrl-C or a termination signal)".into())
    } else {
        failure
            .as_ref()
            .map(|e| dyno_report::one_line(&e.to_string()))
    };
    run.run.finished_at = Some(dyno_runner::now_rfc3339());
    if interrupted && failure.is_none() {
        *failure = Some(crate::Error::Refused(format!(
            "interrupted; {kept} until then are saved and marked incomplete"
        )));
    }
}

/// Where a session's results go (`-o`, else `dyno-results/<run id>.json`,
/// the Markdown beside a file), checkpointed while it measures, and the
/// final write with its fallback.
#[derive(Debug)]
pub(crate) struct Saving {
    dest: Destination,
    default: PathBuf,
    md: Option<Destination>,
    save_error: Option<dyno_format::FormatError>,
}

impl Saving {
    /// For the run `run_id`, to `out` (checked already) or the default.
    pub(crate) fn new(out: Option<Destination>, run_id: &str) -> crate::Result<Self> {
        let default = PathBuf::from(RESULTS_DIR).join(format!("{run_id}.json"));
        let dest = out.unwrap_or_else(|| Destination::File(default.clone()));
        let md = dest.beside("md").map_err(flag_o)?;
        Ok(Self {
            dest,
            default,
            md,
            save_error: None,
        })
    }

    /// Where the results go, for a message.
    pub(crate) fn target(&self) -> String {
        self.dest.to_string()
    }

    /// Save what is measured so far; only a file can take checkpoints.
    /// A failure is remembered and said at the end.
    pub(crate) fn checkpoint(&mut self, run: &Run) {
        if let Destination::File(path) = &self.dest
            && self.save_error.is_none()
        {
            match run.write(path) {
                Ok(()) => crate::interrupt::saved_at(path),
                Err(e) => self.save_error = Some(e),
            }
        }
    }

    /// The final write of `run` (JSON, then Markdown beside it).
    pub(crate) fn finish(
        self,
        run: Run,
        errors: Vec<(String, dyno_workload::BuildError)>,
    ) -> Measured {
        let Self {
            dest,
            default,
            md,
            save_error,
        } = self;
        let (json, write_error) = match dest.write(run.to_json().as_bytes()) {
            Ok(()) => {
                if let Some(e) = save_error {
                    eprintln!(
                        "dyno: warning: a checkpoint save failed ({e}); the final save succeeded"
                    );
                }
                (dest, None)
            }
            Err(e) => {
                let (kept, said) = fallback(&run, &dest, &default, save_error.is_some());
                (
                    kept,
                    Some(format!(
                        "could not write the results to {dest}: {}; {said}",
                        source_of(&e)
                    )),
                )
            }
        };
        let mut markdown = None;
        let mut write_error = write_error;
        if let (Some(md), None) = (&md, &write_error) {
            match md.write(dyno_report::markdown::render(&run).as_bytes()) {
                Ok(()) => markdown = md.path().map(Path::to_path_buf),
                Err(e) => {
                    write_error = Some(format!(
                        "could not write the Markdown: {e}; the JSON is complete in {json}"
                    ))
                }
            }
        }
        Measured {
            run,
            errors,
            json,
            markdown,
            write_error,
        }
    }
}

/// The OS error of a failed write, without the path (the message names
/// the destination once).
fn source_of(e: &dyno_format::destination::DestinationError) -> String {
    match e {
        dyno_format::destination::DestinationError::Write { source, .. } => source.to_string(),
        other => other.to_string(),
    }
}

/// Where the results go when their destination refuses them at the end
/// (a full disk, a device that fails): the default result file, else the
/// temporary folder. Returns where they went and a sentence saying so,
/// and what the requested file still holds.
fn fallback(
    run: &Run,
    failed: &Destination,
    default: &Path,
    checkpoint_failed: bool,
) -> (Destination, String) {
    let tmp = std::env::temp_dir().join(format!("dyno-{}.json", run.run.id));
    let stale = match failed {
        Destination::File(p) if p.exists() && !checkpoint_failed => format!(
            " ({} still holds the last checkpoint: an incomplete run, marked in progress)",
            p.display()
        ),
        Destination::File(p) if p.exists() => format!(
            " ({} holds an earlier checkpoint: an incomplete run, marked in progress)",
            p.display()
        ),
        _ => String::new(),
    };
    for candidate in [default, tmp.as_path()] {
        if failed.path() == Some(candidate) {
            continue;
        }
        if run.write(candidate).is_ok() {
            return (
                Destination::File(candidate.to_path_buf()),
                format!(
                    "the whole run is saved in {} instead{stale}",
                    candidate.display()
                ),
            );
        }
    }
    (
        failed.clone(),
        format!(
            "no fallback file could be written either ({} nor {}){stale}; \
             the run is only in the history, if it is saved there",
            default.display(),
            tmp.display()
        ),
    )
}

/// Refuse `--impl` names that neither a built-in suite nor a started
/// adapter has, suggesting the nearest.
fn check_impls(
    sel: &Selection,
    catalog: &[BenchDef],
    started: &[adapters::Started],
) -> crate::Result<()> {
    let mut known: Vec<String> = catalog
        .iter()
        .map(|d| d.implementation.to_string())
        .collect();
    for s in started {
        known.extend(
            s.hello
                .benchmarks
                .iter()
                .chain(&s.hello.patterns)
                .map(|o| o.implementation.clone()),
        );
    }
    known.sort_unstable();
    known.dedup();
    for name in sel.names() {
        if !known.contains(name) {
            let near = known
                .iter()
                .filter(|k| k.contains(name.as_str()) || name.contains(k.as_str()))
                .map(|k| format!(" (did you mean {k:?}?)"))
                .next()
                .unwrap_or_default();
            refuse!(
                "--impl: unknown implementation {name:?}{near}; known: all, rust, {}, {} (other runtimes' names need their adapters: see `dyno doctor`)",
                adapters::RUNTIMES.join(", "),
                known.join(", ")
            );
        }
    }
    Ok(())
}

/// Pair each plan entry with the suite's constructor. A direct-mode
/// precompile result also records its input's nominal gas under every
/// fork's schedule in `specs/gas/` (`nominal_gas`), so a report prices
/// the run from the run alone.
fn jobs(
    plan: Vec<dyno_spec::PlanEntry>,
    catalog: Vec<BenchDef>,
    ctx: &Ctx,
    specs: &Path,
) -> Vec<Job> {
    let schedules: Vec<_> = crate::gas::Schedule::forks(specs)
        .iter()
        .filter_map(|fork| crate::gas::Schedule::for_fork(specs, fork).ok())
        .collect();
    let mut defs: HashMap<(String, &'static str), BenchDef> = catalog
        .into_iter()
        .map(|d| ((d.id(), d.implementation), d))
        .collect();
    plan.into_iter()
        .filter_map(|e| {
            let key = defs
                .keys()
                .find(|(id, imp)| *id == e.workload && *imp == e.implementation)?
                .clone();
            let def = defs.remove(&key)?;
            let ctx = ctx.clone();
            let mut parameters: std::collections::BTreeMap<String, serde_json::Value> = def
                .params
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_json()))
                .collect();
            if e.workload != e.id {
                parameters.insert("workload".into(), e.workload.clone().into());
            }
            if def.group == "precompile"
                && let Some(gas) = dyno_evm::gas::nominal_gas_by_fork(&ctx, &schedules, &e.workload)
                && !gas.is_empty()
            {
                parameters.insert(dyno_format::gas::NOMINAL_GAS.into(), serde_json::json!(gas));
            }
            Some(Job {
                id: e.id,
                implementation: Implementation {
                    name: def.implementation.into(),
                    version: def.version.into(),
                    runtime: "rust".into(),
                },
                baseline: e.baseline,
                parameters,
                threshold: e.threshold,
                target: e.target.map(|t| (t.stat, t.limit_ns)),
                build: Box::new(move || (def.build)(&ctx)),
            })
        })
        .collect()
}

/// `-o` of a command that prints its own view (`dyno ab`, `dyno replay`),
/// checked before anything runs: a file, never stdout (its JSON goes
/// there with `--format json`). `command` names it in the message.
pub fn result_file(
    out: Option<&Path>,
    command: &str,
) -> crate::Result<Option<dyno_format::destination::Destination>> {
    use dyno_format::destination::Destination;
    let Some(path) = out else {
        return Ok(None);
    };
    match Destination::check(path) {
        Err(e) => refuse!("-o: {e}"),
        Ok(Destination::Stdout) => {
            refuse!("-o -: {command} prints its result with --format json; give -o a file name")
        }
        Ok(dest) => Ok(Some(dest)),
    }
}

mod problems;
pub use problems::report_problems;

/// A destination error as `-o`'s.
fn flag_o(e: dyno_format::destination::DestinationError) -> crate::Error {
    crate::Error::Refused(format!("-o: {e}"))
}

#[cfg(test)]
mod tests;
