//! The comparison itself: match results, test, adjust, decide.

use std::collections::HashSet;

use dyno_format::{BenchResult, Run, VerificationStatus};
use dyno_stats::{holm, mann_whitney, median, median_ci, min_attainable_p, ratio_ci};

use crate::{
    Comparison, DEFAULT_THRESHOLD, GateError, Metric, Normalisation, Normalize, Options, Row, Side,
    Verdict, per_op_samples, reference_ns, same_machine,
};

type Key = (String, String, String);

fn key(r: &BenchResult) -> Key {
    (
        r.id.clone(),
        r.implementation.name.clone(),
        r.implementation.runtime.clone(),
    )
}

/// Compare `new` against `base`. The labels say what each is in output.
pub fn compare(
    base: &Run,
    new: &Run,
    base_label: &str,
    new_label: &str,
    opts: &Options,
) -> Result<Comparison, GateError> {
    compare_keys(base, new, base_label, new_label, opts, None)
}

/// Another look: re-compare the rows `first` flagged as regressed against
/// `remeasured` (a run holding just those benchmarks, measured again). A
/// row stays regressed only if this pass says so too; every other row is
/// kept as it was. The re-measured rows form their own Holm family.
///
/// Call it once per re-measure: each call looks only at the rows still
/// regressed, so a row is confirmed only if every pass so far flagged it.
/// A row's `passes` keeps each pass's ratio, the first one first.
pub fn confirm(
    first: &Comparison,
    base: &Run,
    remeasured: &Run,
    opts: &Options,
) -> Result<Comparison, GateError> {
    let flagged: HashSet<Key> = first.regressed().map(Row::key).collect();
    if flagged.is_empty() {
        return Ok(first.clone());
    }
    let second = compare_keys(
        base,
        remeasured,
        &first.base_label,
        &first.new_label,
        opts,
        Some(&flagged),
    )?;
    let mut out = first.clone();
    for row in out.rows.iter_mut().filter(|r| flagged.contains(&r.key())) {
        let again = second.rows.iter().find(|r| r.key() == row.key());
        let mut passes = if row.passes.is_empty() {
            vec![row.ratio]
        } else {
            row.passes.clone()
        };
        match again {
            Some(again) => {
                passes.push(again.ratio);
                *row = again.clone();
                let outcome = if row.verdict == Verdict::Regressed {
                    "confirmed"
                } else {
                    "not confirmed"
                };
                let fmt = |r: &Option<f64>| {
                    r.map_or("-".into(), |x| format!("{:+.1}%", (x - 1.0) * 100.0))
                };
                let seen: Vec<String> = passes.iter().map(fmt).collect();
                row.note = Some(format!("re-measured: {}; {outcome}", seen.join(" then ")));
            }
            None => {
                row.note = Some("could not be re-measured; the verdict so far stands".into());
            }
        }
        row.first_verdict = Some(Verdict::Regressed);
        row.passes = passes;
    }
    out.geomean_ratio = geomean(&out.rows);
    Ok(out)
}

/// Per-row values and test statistics before the family-wide decision.
struct Pending {
    row: Row,
    /// Eligible for the significance test.
    testable: bool,
    sizes: (usize, usize),
}

fn compare_keys(
    base: &Run,
    new: &Run,
    base_label: &str,
    new_label: &str,
    opts: &Options,
    only: Option<&HashSet<Key>>,
) -> Result<Comparison, GateError> {
    if !(opts.alpha > 0.0 && opts.alpha < 1.0) {
        return Err(GateError::Options(format!(
            "alpha {} must be between 0 and 1, e.g. 0.05",
            opts.alpha
        )));
    }
    if let Some(t) = opts.threshold
        && !(t.is_finite() && t > 0.0)
    {
        return Err(GateError::Options(format!(
            "--threshold {t} must be above 0, e.g. 0.2 for 20%"
        )));
    }
    let mut notes = Vec::new();
    let normalised = normalisation(base, new, opts, &mut notes)?;

    let wanted = |r: &BenchResult| only.is_none_or(|keys| keys.contains(&key(r)));
    let mut pending = Vec::new();
    let mut seen = HashSet::new();
    for b in base.results.iter().filter(|r| wanted(r)) {
        let k = key(b);
        if !seen.insert(k.clone()) {
            continue;
        }
        let n = new.results.iter().find(|r| key(r) == k);
        pending.push(pair(b, n, opts, normalised.as_ref()));
    }
    for n in new.results.iter().filter(|r| wanted(r)) {
        if seen.insert(key(n)) {
            let mut p = pair(n, None, opts, None);
            // Only in the new run: nothing to compare with.
            p.row.base = None;
            p.row.new = side_from(&values(n, opts, None));
            p.row.note = Some("not in the baseline".into());
            pending.push(p);
        }
    }
    if only.is_none()
        && !pending
            .iter()
            .any(|p| p.row.base.is_some() && p.row.new.is_some())
    {
        return Err(GateError::Disjoint {
            base: base.results.len(),
            new: new.results.len(),
        });
    }

    // The Holm family: testable rows whose sample sizes could reach
    // significance within it; shrink until stable.
    let mut family: Vec<usize> = (0..pending.len())
        .filter(|&i| pending[i].testable)
        .collect();
    loop {
        let m = family.len().max(1) as f64;
        let before = family.len();
        family.retain(|&i| {
            let (a, b) = pending[i].sizes;
            min_attainable_p(a, b) * m < opts.alpha
        });
        if family.len() == before {
            break;
        }
    }
    let m = family.len();
    for (i, p) in pending.iter_mut().enumerate() {
        if p.testable && !family.contains(&i) {
            let (a, b) = p.sizes;
            p.row.verdict = Verdict::Insufficient;
            p.row.note = Some(format!(
                "n={a}/{b}: the smallest p these sizes allow is {:.1e}, above the {:.1e} \
                 a family of {} needs; take more samples (--samples 20)",
                min_attainable_p(a, b),
                opts.alpha / m.max(1) as f64,
                m.max(1)
            ));
        }
    }
    let ps: Vec<f64> = family
        .iter()
        .map(|&i| pending[i].row.p.unwrap_or(1.0))
        .collect();
    for (&i, adj) in family.iter().zip(holm(&ps)) {
        let row = &mut pending[i].row;
        row.p_adjusted = Some(adj);
        row.verdict = decide(row.ratio, row.threshold, adj < opts.alpha);
    }

    let rows: Vec<Row> = pending.into_iter().map(|p| p.row).collect();
    if opts.metric == Metric::Time
        && only.is_none()
        && let Some(note) = unsteady(&rows)
    {
        notes.push(note);
    }
    let mut slowed: Vec<&str> = new
        .results
        .iter()
        .filter(|r| r.parameters.contains_key("test_slowdown"))
        .map(|r| r.id.as_str())
        .collect();
    slowed.dedup();
    if !slowed.is_empty() {
        notes.push(format!(
            "the new run was slowed on purpose by DYNO_TEST_SLOWDOWN (test only): {}",
            slowed.join(", ")
        ));
    }
    for (run, which) in [(base, "baseline"), (new, "new")] {
        if !run.run.complete {
            notes.push(format!(
                "the {which} run is incomplete ({})",
                run.run
                    .incomplete_reason
                    .as_deref()
                    .unwrap_or("no reason recorded")
            ));
        }
    }
    Ok(Comparison {
        base_label: base_label.to_string(),
        new_label: new_label.to_string(),
        metric: opts.metric,
        alpha: opts.alpha,
        family: m,
        normalised,
        geomean_ratio: geomean(&rows),
        rows,
        notes,
    })
}

/// A warning when many benchmarks moved beyond their thresholds in both
/// directions at once. A change to the code moves some benchmarks, mostly
/// one way; a machine whose speed changed between or during the runs (a
/// busy host, a neighbour on the same physical cores) moves many, both ways.
fn unsteady(rows: &[Row]) -> Option<String> {
    let count = |v: Verdict| rows.iter().filter(|r| r.verdict == v).count();
    let (up, down) = (count(Verdict::Regressed), count(Verdict::Improved));
    let compared = rows.iter().filter(|r| r.ratio.is_some()).count();
    (up.min(down) >= 3 && (up + down) * 10 >= compared).then(|| {
        format!(
            "{down} benchmarks are faster and {up} slower beyond their thresholds, both ways at \
             once: the machine's speed changed between or during the runs, and wall times here \
             cannot carry a gate this fine; --metric instructions counts instructions instead \
             (docs/gate.md, \"A noisy machine\")"
        )
    })
}

/// Decide from the ratio and significance.
fn decide(ratio: Option<f64>, threshold: f64, significant: bool) -> Verdict {
    match ratio {
        Some(r) if significant && r > 1.0 + threshold => Verdict::Regressed,
        Some(r) if significant && r < 1.0 / (1.0 + threshold) => Verdict::Improved,
        Some(_) => Verdict::NoChange,
        None => Verdict::Insufficient,
    }
}

fn normalisation(
    base: &Run,
    new: &Run,
    opts: &Options,
    notes: &mut Vec<String>,
) -> Result<Option<Normalisation>, GateError> {
    if opts.metric == Metric::Instructions {
        return Ok(None);
    }
    let differs = same_machine(&base.environment, &new.environment);
    let why = match (opts.normalize, differs) {
        (Normalize::Never, Some(d)) => {
            notes.push(format!(
                "{d}; raw times compared as asked (--normalize never): differences may be the machines'"
            ));
            return Ok(None);
        }
        (Normalize::Never, None) | (Normalize::Auto, None) => return Ok(None),
        (Normalize::Auto, Some(d)) => d,
        (Normalize::Always, _) => "normalisation was asked for (--normalize always)".to_string(),
    };
    let side = |run: &Run, side: &'static str| {
        reference_ns(run, &opts.reference).ok_or_else(|| GateError::NoReference {
            why: why.clone(),
            reference: opts.reference.clone(),
            side,
        })
    };
    let base_ns = side(base, "baseline")?;
    let new_ns = side(new, "new")?;
    notes.push(format!(
        "{why}: every time is divided by {} measured in the same run \
         ({:.0} ns in the baseline, {:.0} ns now), so ratios compare relative speed",
        opts.reference, base_ns, new_ns
    ));
    Ok(Some(Normalisation {
        reference: opts.reference.clone(),
        base_ns,
        new_ns,
        reason: why,
    }))
}

/// The values compared for one result: per-op times (divided by the
/// reference's median when normalised) or the instruction count.
fn values(r: &BenchResult, opts: &Options, ref_ns: Option<f64>) -> Vec<f64> {
    match opts.metric {
        Metric::Instructions => r
            .instructions
            .as_ref()
            .filter(|_| r.verification.status != VerificationStatus::Failed)
            .map(|i| vec![i.per_op])
            .unwrap_or_default(),
        Metric::Time => {
            let xs = per_op_samples(r);
            match ref_ns {
                Some(ns) => xs.into_iter().map(|x| x / ns).collect(),
                None => xs,
            }
        }
    }
}

fn side_from(xs: &[f64]) -> Option<Side> {
    let med = median(xs)?;
    let mut sorted = xs.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    Some(Side {
        n: xs.len(),
        median: med,
        ci: (xs.len() > 1).then(|| median_ci(&sorted, 0.95)).flatten(),
    })
}

fn pair(
    b: &BenchResult,
    n: Option<&BenchResult>,
    opts: &Options,
    norm: Option<&Normalisation>,
) -> Pending {
    let threshold = opts.threshold.unwrap_or_else(|| {
        let t = n.map_or(b.regression_threshold, |n| n.regression_threshold);
        if t.is_finite() && t > 0.0 {
            t
        } else {
            DEFAULT_THRESHOLD
        }
    });
    let bv = values(b, opts, norm.map(|x| x.base_ns));
    let nv = n
        .map(|n| values(n, opts, norm.map(|x| x.new_ns)))
        .unwrap_or_default();
    let mut row = Row {
        id: b.id.clone(),
        implementation: b.implementation.name.clone(),
        runtime: b.implementation.runtime.clone(),
        base: side_from(&bv),
        new: side_from(&nv),
        ratio: None,
        ratio_ci: None,
        p: None,
        p_adjusted: None,
        threshold,
        verdict: Verdict::Insufficient,
        note: None,
        first_verdict: None,
        passes: Vec::new(),
    };
    let wrong = |r: &BenchResult| r.verification.status == VerificationStatus::Failed;
    let mut testable = false;
    if wrong(b) || n.is_some_and(wrong) {
        row.note = Some(format!(
            "WRONG result in the {} run: never compared as a timing",
            if wrong(b) { "baseline" } else { "new" }
        ));
    } else if n.is_none() {
        row.note = Some("not measured in the new run".into());
    } else if let (Some(bs), Some(ns)) = (&row.base, &row.new) {
        row.ratio = Some(ns.median / bs.median);
        match opts.metric {
            Metric::Instructions => {
                row.verdict = decide(row.ratio, threshold, true);
                row.note = Some("instruction counts are exact: the threshold alone decides".into());
            }
            Metric::Time if norm.is_some_and(|x| x.reference == b.id) => {
                row.verdict = Verdict::NoChange;
                row.note = Some("the normalisation reference: 1 by definition".into());
            }
            Metric::Time if bv.len() < opts.min_samples || nv.len() < opts.min_samples => {
                row.note = Some(format!(
                    "n={}/{}: fewer than {} samples on a side",
                    bv.len(),
                    nv.len(),
                    opts.min_samples
                ));
            }
            Metric::Time => {
                row.p = mann_whitney(&bv, &nv).map(|m| m.p);
                row.ratio_ci = ratio_ci(&bv, &nv, 0.95, opts.resamples, seed(&b.id));
                testable = row.p.is_some();
            }
        }
    } else {
        row.note = Some(match opts.metric {
            Metric::Instructions => {
                "no instruction count on a side: not run with --instructions, or skipped \
                 there (slower than 100 ms per op, or not in-process Rust)"
                    .into()
            }
            Metric::Time => "no timed samples on a side".into(),
        });
    }
    Pending {
        row,
        testable,
        sizes: (bv.len(), nv.len()),
    }
}

/// A stable seed per id (FNV-1a), so a comparison is reproducible.
fn seed(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn geomean(rows: &[Row]) -> Option<f64> {
    let ratios: Vec<f64> = rows
        .iter()
        .filter(|r| r.base.is_some() && r.new.is_some())
        .filter_map(|r| r.ratio)
        .collect();
    dyno_stats::geomean(&ratios)
}
