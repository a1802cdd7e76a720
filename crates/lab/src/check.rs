//! The gate's session: a run against a baseline (measured now with the
//! baseline's settings, or given), flagged benchmarks measured again until
//! only what repeats is left; and two runs compared benchstat style.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use dyno_format::{Run, VerificationStatus};
use dyno_gate::{Comparison, Options, Verdict};

use crate::history;
use crate::paths::Lab;
use crate::session::{Measured, Selected, Settings, select_and_measure};

/// What `dyno check` is asked.
#[derive(Debug)]
pub struct Request<'a> {
    /// A baseline name in the history, or a baseline (or result) file.
    pub baseline: &'a str,
    /// The run to check; `None` measures the baseline's benchmarks now.
    pub run: Option<&'a str>,
    pub opts: Options,
    /// Re-measures of flagged benchmarks at most (0: the first pass decides).
    pub remeasure: u32,
    /// The least time between the starts of two re-measures.
    pub gap: Duration,
    pub quiet: bool,
}

/// A checked run.
#[derive(Debug)]
pub struct Checked {
    /// The verdicts; `None` when every result of the run is wrong, so
    /// nothing was left to compare (said on stderr).
    pub comparison: Option<Comparison>,
    /// The run's wrong results, one line each.
    pub wrong: Vec<String>,
    /// Why the checked run is incomplete, if it is: a gate that did not
    /// see every benchmark has not passed.
    pub incomplete: Option<String>,
    /// Why the machine's own speed (the noise probe's reference workload)
    /// moved more than the threshold while the checked run measured, if it
    /// did (time only).
    pub speed_warning: Option<String>,
}

impl Checked {
    /// How the gate ends once its table is shown: each wrong result and the
    /// count of confirmed regressions said on stderr, then failed (exit 1)
    /// on either; an incomplete check is an error (it did not see every
    /// benchmark, so it has not passed); else passed.
    pub fn verdict(&self) -> crate::Result<crate::Outcome> {
        let Some(result) = &self.comparison else {
            return Ok(crate::Outcome::Failed);
        };
        for w in &self.wrong {
            eprintln!("dyno: WRONG result: {w}");
        }
        let regressed = result.count(Verdict::Regressed);
        if regressed > 0 {
            eprintln!("dyno: {regressed} confirmed regression(s)");
        }
        if regressed > 0 || !self.wrong.is_empty() {
            return Ok(crate::Outcome::Failed);
        }
        if let Some(why) = &self.incomplete {
            crate::refuse!(
                "the check is incomplete: {why}, so {} of {} benchmarks have insufficient data; \
                 the gate did not pass",
                result.count(Verdict::Insufficient),
                result.rows.len()
            );
        }
        Ok(crate::Outcome::Ok)
    }
}

/// Why the machine's speed moved more than the smallest threshold the
/// check applies (`opts.threshold`, else each result's own) while `run`
/// measured; `None` when it held, when counting instructions, or when the
/// run has no speed record (files before issue 33).
pub fn speed_warning(run: &dyno_format::Run, opts: &dyno_gate::Options) -> Option<String> {
    if opts.metric != dyno_gate::Metric::Time {
        return None;
    }
    let threshold = opts.threshold.unwrap_or_else(|| {
        run.results
            .iter()
            .map(|r| r.regression_threshold)
            .fold(f64::INFINITY, f64::min)
    });
    if !threshold.is_finite() {
        return None;
    }
    run.noise.as_ref()?.speed.as_ref()?.swung(threshold)
}

/// Check a run (given, or measured now with the baseline's settings)
/// against a baseline, then measure flagged benchmarks again as
/// `req.remeasure` says.
pub fn check(lab: &Lab, req: &Request<'_>) -> crate::Result<Checked> {
    crate::session::check_knobs()?;
    history::check_location(&lab.paths)?;
    let opts = &req.opts;
    let (base, base_label) = crate::baseline::resolve(&lab.paths, req.baseline)?;
    let (new, new_label, measured_here) = match req.run {
        Some(what) => {
            let (run, label) = history::resolve_run(&lab.paths, what)?;
            (run, label, false)
        }
        None => {
            let counting = opts.metric == dyno_gate::Metric::Instructions;
            if counting {
                crate::callgrind::check_valgrind()?;
            }
            let keys = keys_of(&base, None, &opts.reference);
            eprintln!(
                "dyno: measuring the {} benchmarks of {base_label} now ({} settings)",
                keys.len() - usize::from(keys.iter().any(|k| k.0 == opts.reference)),
                if base.run.settings.quick {
                    "--quick"
                } else {
                    "full"
                }
            );
            let mut m = measure_keys(lab, &base, &keys, None, req.quiet)?;
            if counting {
                crate::callgrind::count_run(lab, &mut m.run, req.quiet)?;
                m.rewrite()?;
            }
            history::save(&lab.paths, &m.run, m.file(), req.quiet);
            m.check_written()?;
            let label = format!("run {} (measured now, {})", m.run.run.id, m.json);
            (m.run, label, true)
        }
    };
    let wrong = new.wrong_results();
    let incomplete = (!new.run.complete).then(|| {
        format!(
            "{new_label} is incomplete ({})",
            new.run.incomplete_reason.as_deref().unwrap_or("stopped")
        )
    });
    let first = match dyno_gate::compare(&base, &new, &base_label, &new_label, opts) {
        Ok(c) => c,
        // Nothing left to compare because every result is wrong: that is
        // a wrong result (exit 1), not a usage error.
        Err(e) if !wrong.is_empty() => {
            for w in &wrong {
                eprintln!("dyno: WRONG result: {w}");
            }
            eprintln!("dyno: nothing to compare ({e}): the results above are wrong");
            return Ok(Checked {
                comparison: None,
                wrong: Vec::new(),
                incomplete,
                speed_warning: speed_warning(&new, opts),
            });
        }
        Err(e) => return Err(e.into()),
    };
    let comparison = if first.count(dyno_gate::Verdict::Regressed) == 0 || req.remeasure == 0 {
        first
    } else if opts.metric == dyno_gate::Metric::Instructions {
        let mut c = first;
        c.notes.push(
            "instruction counts repeat exactly, so the flagged benchmarks were not measured again"
                .into(),
        );
        c
    } else {
        let again = Again {
            rounds: req.remeasure,
            gap: req.gap,
            quiet: req.quiet,
            measured_here,
        };
        remeasure(lab, &base, first, opts, &again)
    };
    Ok(Checked {
        comparison: Some(comparison),
        wrong,
        incomplete,
        speed_warning: speed_warning(&new, opts),
    })
}

/// How to look again at flagged benchmarks.
struct Again {
    /// Re-measures at most.
    rounds: u32,
    /// The least time between the starts of two re-measures.
    gap: Duration,
    quiet: bool,
    /// The first pass was measured by this command (not a saved run).
    measured_here: bool,
}

/// Measure the flagged benchmarks again, up to `again.rounds` times with
/// `again.gap` between the starts, and keep only what repeats every time:
/// a slower build is slower in every pass; a machine that was busy for a
/// while is not. If they cannot be measured here, the verdicts so far
/// stand, and say so.
fn remeasure(
    lab: &Lab,
    base: &Run,
    first: Comparison,
    opts: &Options,
    again: &Again,
) -> Comparison {
    let mut current = first;
    let mut last: Option<Instant> = None;
    for round in 1..=again.rounds {
        let flagged: HashSet<(String, String)> = current
            .regressed()
            .map(|r| (r.id.clone(), r.implementation.clone()))
            .collect();
        if flagged.is_empty() {
            break;
        }
        if let Some(wait) = last.map(|t| again.gap.saturating_sub(t.elapsed()))
            && !wait.is_zero()
        {
            std::thread::sleep(wait);
        }
        eprintln!(
            "dyno: {} flagged; measuring {} again ({round} of at most {})",
            flagged.len(),
            if flagged.len() == 1 { "it" } else { "them" },
            again.rounds
        );
        last = Some(Instant::now());
        let keys = keys_of(base, Some(&flagged), &opts.reference);
        let suffix = format!("remeasure{round}");
        let confirmed = measure_keys(lab, base, &keys, Some(&suffix), again.quiet)
            .map_err(|e| e.to_string())
            .and_then(|m| {
                dyno_gate::confirm(&current, base, &m.run, opts).map_err(|e| e.to_string())
            });
        match confirmed {
            Ok(c) => current = c,
            Err(e) => {
                current.notes.push(format!(
                    "the flagged benchmarks could not be measured again{}: {e}; the verdicts so far stand",
                    if again.measured_here {
                        ""
                    } else {
                        " on this machine"
                    }
                ));
                break;
            }
        }
    }
    current
}

/// The (id, implementation) pairs to measure: the baseline's verified
/// results (or only `subset`), plus the normalisation reference.
fn keys_of(
    base: &Run,
    subset: Option<&HashSet<(String, String)>>,
    reference: &str,
) -> HashSet<(String, String)> {
    let mut keys: HashSet<(String, String)> = base
        .results
        .iter()
        .filter(|r| r.verification.status == VerificationStatus::Passed)
        .map(|r| (r.id.clone(), r.implementation.name.clone()))
        .filter(|k| subset.is_none_or(|s| s.contains(k)))
        .collect();
    if let Some(r) = base
        .results
        .iter()
        .find(|r| r.id == reference && (r.baseline || r.implementation.runtime == "rust"))
    {
        keys.insert((r.id.clone(), r.implementation.name.clone()));
    }
    keys
}

/// Measure `keys` with the baseline's settings (quick or full, its sample
/// floor), on the runtimes the baseline used.
fn measure_keys(
    lab: &Lab,
    base: &Run,
    keys: &HashSet<(String, String)>,
    suffix: Option<&str>,
    quiet: bool,
) -> crate::Result<Measured> {
    let mut runtimes: Vec<String> = base
        .results
        .iter()
        .filter(|r| keys.contains(&(r.id.clone(), r.implementation.name.clone())))
        .map(|r| r.implementation.runtime.clone())
        .collect();
    runtimes.sort();
    runtimes.dedup();
    let out = suffix.map(|s| {
        PathBuf::from("dyno-results").join(format!(
            "{}-{s}.json",
            dyno_runner::now_rfc3339().replace([':', '-'], "")
        ))
    });
    let samples = u32::try_from(base.run.settings.min_samples).ok();
    let quick = base.run.settings.quick;
    select_and_measure(
        lab,
        &Selected {
            filter: None,
            impls: Some(&runtimes),
            only: Some(keys),
            quick,
        },
        &Settings::new(quick, samples, out.as_deref(), quiet)?,
    )
}

/// Compare two runs (files, ids, `latest`, `latest~N`) in the benchstat
/// style: any significant change is shown as one.
pub fn compare(
    lab: &Lab,
    old: &str,
    new: &str,
    alpha: f64,
    normalize: dyno_gate::Normalize,
) -> crate::Result<Comparison> {
    let (old, old_label) = history::resolve_run(&lab.paths, old)?;
    let (new, new_label) = history::resolve_run(&lab.paths, new)?;
    let opts = Options {
        alpha,
        threshold: Some(f64::MIN_POSITIVE),
        normalize,
        ..Options::default()
    };
    Ok(dyno_gate::compare(
        &old, &new, &old_label, &new_label, &opts,
    )?)
}
