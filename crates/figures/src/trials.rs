//! docs/gate.md's table of `dyno ab` trials, from the trial series in
//! docs/trials/: every trial's whole Result, judged by today's rules
//! (`dyno_gate::paired::judge`: Holm's p, the verdict and the minimum detectable
//! effect at the run's number of comparisons).

use std::fmt::Write as _;
use std::path::Path;

use dyno_format::paired::Paired;

use crate::{FiguresError, head, line, read};

/// A series: its folder under docs/trials and what the table calls it.
const SERIES: &[(&str, &str)] = &[
    (
        "ab-aa-2026-11-26",
        "A/A, default suites (152 comparisons a check)",
    ),
    (
        "ab-aa-copies-per-run-2026-11-26",
        "A/A, default suites, an older `dyno ab` (440f2f4) that copied the binaries once per run, not per pass",
    ),
    (
        "ab-knob-x1.25-2026-11-26",
        "knob x1.25 on `hash/keccak256/1KiB` (3 implementations) within `hash/keccak256`",
    ),
    ("ab-knob-x1.10-2026-11-26", "knob x1.10, the same"),
    (
        "ab-knob-x1.25-passes8-debug-2026-11-26",
        "knob x1.25, the same, as CI runs it (debug build, `--passes 8`)",
    ),
    (
        "ab-aa-adapter-go-2026-11-26",
        "A/A, Go adapter (`hash/keccak256/1KiB`, geth)",
    ),
    (
        "ab-knob-adapter-go-x1.25-2026-11-26",
        "knob x1.25, Go adapter",
    ),
    (
        "ab-aa-adapter-java-2026-11-26",
        "A/A, Java adapter (`hash/keccak256/1KiB`, bouncycastle and web3j)",
    ),
    (
        "ab-knob-adapter-java-x1.25-2026-11-26",
        "knob x1.25, Java adapter",
    ),
    (
        "ab-knob-x1.25-busy-2026-11-26",
        "knob x1.25, `hash/keccak256`, while the same cores ran `cargo build`/`cargo test`; an older `dyno ab` (binaries copied once per run)",
    ),
];

/// One trial, judged.
struct Trial {
    number: usize,
    paired: Vec<Paired>,
}

/// Was this comparison's candidate slowed by the knob?
fn slowed(p: &Paired) -> bool {
    p.note
        .as_deref()
        .is_some_and(|n| n.contains("slowed on purpose"))
}

fn flagged(p: &Paired) -> bool {
    p.verdict == "regressed" || p.verdict == "improved"
}

/// The trials of the series in `dir`, in order, each judged.
fn series(dir: &Path) -> Result<Vec<Trial>, FiguresError> {
    let files = read::trials(dir, ".json.gz")?;
    files
        .into_iter()
        .map(|(number, path)| {
            let mut run = read::run(&path)?;
            dyno_gate::paired::judge(&mut run.paired);
            Ok(Trial {
                number,
                paired: run.paired,
            })
        })
        .collect()
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn signed_pct(x: f64) -> String {
    format!("{:+.1}%", 100.0 * x)
}

/// One row of the table.
fn row(label: &str, trials: &[Trial]) -> Vec<String> {
    let compared = |t: &Trial| {
        t.paired
            .iter()
            .filter(|p| p.verdict != "not compared")
            .count()
    };
    let comparisons: usize = trials.iter().map(compared).sum();
    let mut alarms = Vec::new();
    for t in trials {
        for p in t.paired.iter().filter(|p| !slowed(p) && flagged(p)) {
            alarms.push(format!(
                "check {}: `{}` {} {}",
                t.number,
                p.id,
                p.implementation,
                signed_pct(p.delta)
            ));
        }
    }
    let false_alarms = if alarms.is_empty() {
        "0".to_string()
    } else {
        format!("{} ({})", alarms.len(), alarms.join("; "))
    };
    let inconclusive: usize = trials
        .iter()
        .flat_map(|t| &t.paired)
        .filter(|p| !slowed(p) && p.verdict == "inconclusive")
        .count();
    let caught = caught(trials);
    let mut medians: Vec<f64> = trials
        .iter()
        .filter_map(|t| {
            let mdes: Vec<f64> = t.paired.iter().filter_map(|p| p.min_detectable).collect();
            dyno_stats::median(&mdes)
        })
        .collect();
    medians.sort_by(f64::total_cmp);
    let detectable = match (
        dyno_stats::median(&medians),
        medians.first(),
        medians.last(),
    ) {
        (Some(m), Some(lo), Some(hi)) => format!("{} ({}-{})", pct(m), pct(*lo), pct(*hi)),
        _ => "-".into(),
    };
    vec![
        label.to_string(),
        trials.len().to_string(),
        comparisons.to_string(),
        false_alarms,
        inconclusive.to_string(),
        caught,
        detectable,
    ]
}

/// How often the slowed comparisons were all flagged, and at least one.
fn caught(trials: &[Trial]) -> String {
    let per: Vec<(usize, usize)> = trials
        .iter()
        .map(|t| {
            let s: Vec<&Paired> = t.paired.iter().filter(|p| slowed(p)).collect();
            (
                s.len(),
                s.iter().filter(|p| p.verdict == "regressed").count(),
            )
        })
        .collect();
    let slowed_each = per.iter().map(|(s, _)| *s).max().unwrap_or(0);
    if slowed_each == 0 {
        return String::new();
    }
    let n = trials.len();
    let all = per.iter().filter(|(s, c)| c == s && *s > 0).count();
    if slowed_each == 1 {
        return format!("{all} of {n}");
    }
    let any = per.iter().filter(|(_, c)| *c > 0).count();
    let total: usize = per.iter().map(|(_, c)| c).sum();
    let slots: usize = per.iter().map(|(s, _)| s).sum();
    if all == n {
        format!("all {slowed_each} in {all} of {n}")
    } else {
        format!(
            "all {slowed_each} in {all} of {n}, at least one in {any} of {n} ({total} of {slots})"
        )
    }
}

/// The table of docs/gate.md ("How well it works").
pub fn gate_table(root: &Path) -> Result<String, FiguresError> {
    let header = [
        "trial",
        "checks",
        "comparisons",
        "false alarms",
        "inconclusive",
        "slowed id caught",
        "detectable change: median (range over checks)",
    ];
    let mut out = String::new();
    out.push_str(&line(&header.map(String::from)));
    out.push_str(&line(&vec!["---".to_string(); header.len()]));
    for (folder, label) in SERIES {
        let trials = series(&root.join("docs/trials").join(folder))?;
        out.push_str(&line(&row(label, &trials)));
    }
    let _ = writeln!(
        out,
        "\nGenerated by `cargo run -p dyno-figures -- write` from `docs/trials/<series>/trial-K.json.gz`, \
         each trial judged by today's `dyno ab` rules (the detectable change at each run's number of comparisons)."
    );
    Ok(out)
}

/// The unpaired gate's trials under `--instructions` (docs/gate.md), from
/// the summaries `scripts/gate-trials.sh` wrote: one row a series.
pub fn count_table(root: &Path) -> Result<String, FiguresError> {
    let series = [
        (
            "docs/trials/aa-count-2026-11-24.tsv",
            "A/A (`scripts/gate-trials.sh aa-count 20`)",
        ),
        (
            "docs/trials/knob-count-2026-11-24.tsv",
            "knob on `hash/keccak256/1KiB` within `hash/keccak256` (`knob-count 20`, stopped at a session's end)",
        ),
    ];
    let header = [
        "trial",
        "checks",
        "benchmarks per check",
        "insufficient data",
        "flagged before the re-measure",
        "confirmed false alarms",
        "slowed id caught",
    ]
    .map(String::from);
    let mut out = head(&header);
    for (file, label) in series {
        let path = root.join(file);
        let text = read::text(&path)?;
        let mut lines = text.lines();
        let head: Vec<&str> = lines.next().unwrap_or("").split('\t').collect();
        let col = |name: &str| {
            head.iter()
                .position(|h| *h == name)
                .ok_or_else(|| FiguresError::Data {
                    path: path.clone(),
                    why: format!("no column {name}"),
                })
        };
        let (first_reg, first_imp, confirmed, insufficient, compared, slowed, others) = (
            col("first_pass_regressed")?,
            col("first_pass_improved")?,
            col("confirmed_regressed")?,
            col("insufficient")?,
            col("compared")?,
            col("slowed_id_verdict")?,
            col("confirmed_other_ids")?,
        );
        let rows: Vec<Vec<&str>> = lines
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.split('\t').collect())
            .collect();
        let num =
            |r: &Vec<&str>, c: usize| r.get(c).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0);
        let knob = rows
            .iter()
            .any(|r| r.get(slowed).is_some_and(|v| *v == "regressed"));
        let span = |c: usize| {
            let lo = rows.iter().map(|r| num(r, c)).min().unwrap_or(0);
            let hi = rows.iter().map(|r| num(r, c)).max().unwrap_or(0);
            if lo == hi {
                lo.to_string()
            } else {
                format!("{lo}-{hi}")
            }
        };
        let flagged: u64 = rows
            .iter()
            .map(|r| num(r, first_reg) + num(r, first_imp))
            .sum();
        let false_alarms: u64 = if knob {
            rows.iter().map(|r| num(r, others)).sum()
        } else {
            rows.iter().map(|r| num(r, confirmed)).sum()
        };
        let caught = if knob {
            format!(
                "{} of {}",
                rows.iter()
                    .filter(|r| r.get(slowed).is_some_and(|v| *v == "regressed"))
                    .count(),
                rows.len()
            )
        } else {
            String::new()
        };
        out.push_str(&line(&[
            label.to_string(),
            rows.len().to_string(),
            span(compared),
            span(insufficient),
            if knob {
                format!("{flagged} (the slowed id's implementations)")
            } else {
                flagged.to_string()
            },
            false_alarms.to_string(),
            caught,
        ]));
    }
    out.push_str(
        "\nGenerated by `cargo run -p dyno-figures -- write` from `docs/trials/aa-count-2026-11-24.tsv` and \
         `docs/trials/knob-count-2026-11-24.tsv` (release build, `--instructions`, each run checked against the one before).\n",
    );
    Ok(out)
}
