//! `dyno check` (a run against a baseline, the CI gate) and `dyno compare`
//! (two runs, benchstat style).

use std::collections::HashSet;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use dyno_format::{Run, VerificationStatus};
use dyno_gate::{Comparison, Options};

use crate::cli::{CheckArgs, CompareArgs, DeltaFormat, Global, Output, OutputFormat};
use crate::run::{Measured, Selected, Settings, check_knobs, select_and_measure};
use crate::{Outcome, history, print_stdout, use_color};

pub(crate) fn check(global: &Global, args: &CheckArgs) -> anyhow::Result<Outcome> {
    check_knobs()?;
    history::check_location(global)?;
    let (base, base_label) = crate::baseline::resolve(global, &args.baseline)?;
    let opts = Options {
        alpha: args.alpha,
        threshold: args.threshold,
        normalize: args.normalize.into(),
        reference: args.reference.clone(),
        metric: args.metric.into(),
        ..Options::default()
    };
    let (new, new_label, measured_here) = match &args.run {
        Some(what) => {
            let (run, label) = history::resolve_run(global, what)?;
            (run, label, false)
        }
        None => {
            let counting = opts.metric == dyno_gate::Metric::Instructions;
            if counting {
                crate::instructions::check_valgrind()?;
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
            let mut m = measure_keys(global, &base, &keys, None, args.quiet)?;
            if counting {
                crate::instructions::count_run(global, &mut m.run, args.quiet)?;
                m.rewrite()?;
            }
            history::save(global, &m.run, m.file(), args.quiet);
            m.check_written()?;
            let label = format!("run {} (measured now, {})", m.run.run.id, m.json);
            (m.run, label, true)
        }
    };
    let wrong = new.wrong_results();
    let first = match dyno_gate::compare(&base, &new, &base_label, &new_label, &opts) {
        Ok(c) => c,
        // Nothing left to compare because every result is wrong: that is
        // a wrong result (exit 1), not a usage error.
        Err(e) if !wrong.is_empty() => {
            for w in &wrong {
                eprintln!("dyno: WRONG result: {w}");
            }
            eprintln!("dyno: nothing to compare ({e}): the results above are wrong");
            return Ok(Outcome::Failed);
        }
        Err(e) => return Err(e.into()),
    };
    let rounds = if args.no_remeasure { 0 } else { args.remeasure };
    let result = if first.count(dyno_gate::Verdict::Regressed) == 0 || rounds == 0 {
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
            rounds,
            gap: Duration::from_secs(args.remeasure_gap),
            quiet: args.quiet,
            measured_here,
        };
        remeasure(global, &base, first, &opts, &again)
    };
    let color = use_color(global.color, std::io::stdout().is_terminal());
    print_stdout(&render(&result, args.format, color)?)?;

    for w in &wrong {
        eprintln!("dyno: WRONG result: {w}");
    }
    let regressed = result.count(dyno_gate::Verdict::Regressed);
    if regressed > 0 {
        eprintln!("dyno: {regressed} confirmed regression(s)");
    }
    if regressed > 0 || !wrong.is_empty() {
        return Ok(Outcome::Failed);
    }
    // A gate that did not see every benchmark has not passed.
    if !new.run.complete {
        anyhow::bail!(
            "the check is incomplete: {new_label} is incomplete ({}), so {} of {} benchmarks \
             have insufficient data; the gate did not pass",
            new.run.incomplete_reason.as_deref().unwrap_or("stopped"),
            result.count(dyno_gate::Verdict::Insufficient),
            result.rows.len()
        );
    }
    Ok(Outcome::Ok)
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
    global: &Global,
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
        let confirmed = measure_keys(global, base, &keys, Some(&suffix), again.quiet)
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
    global: &Global,
    base: &Run,
    keys: &HashSet<(String, String)>,
    suffix: Option<&str>,
    quiet: bool,
) -> anyhow::Result<Measured> {
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
    let output = Output {
        samples: u32::try_from(base.run.settings.min_samples).ok(),
        out,
        format: OutputFormat::Table,
        quiet,
    };
    let quick = base.run.settings.quick;
    select_and_measure(
        global,
        &Selected {
            filter: None,
            impls: Some(&runtimes),
            only: Some(keys),
            quick,
        },
        &Settings::new(quick, &output)?,
    )
}

fn render(c: &Comparison, format: DeltaFormat, color: bool) -> anyhow::Result<String> {
    Ok(match format {
        DeltaFormat::Table => dyno_report::delta::text(c, color),
        DeltaFormat::Markdown => dyno_report::delta::markdown(c),
        DeltaFormat::Json => serde_json::to_string_pretty(c)? + "\n",
    })
}

pub(crate) fn compare(global: &Global, args: &CompareArgs) -> anyhow::Result<Outcome> {
    let (old, old_label) = history::resolve_run(global, &args.old)?;
    let (new, new_label) = history::resolve_run(global, &args.new)?;
    let opts = Options {
        alpha: args.alpha,
        // benchstat's view: any significant change is shown as one.
        threshold: Some(f64::MIN_POSITIVE),
        normalize: args.normalize.into(),
        ..Options::default()
    };
    let c = dyno_gate::compare(&old, &new, &old_label, &new_label, &opts)?;
    let color = use_color(global.color, std::io::stdout().is_terminal());
    print_stdout(&render(&c, args.format, color)?)?;
    Ok(Outcome::Ok)
}
