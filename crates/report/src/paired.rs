//! Interleaved A/B runs for people (`dyno ab`): per benchmark, each side's
//! own rounds (P50 and P95 of the rounds' per-operation means), B against
//! A with its interval, the pairs, the minimum detectable effect, Holm's
//! p and the verdict; then the machine's noise. Terminal columns and
//! Markdown from the same rows.

use dyno_format::Run;
use dyno_format::noise::Noise;
use dyno_format::paired::Paired;

use crate::columns::Columns;
use crate::units;

fn pct(x: f64) -> String {
    format!("{:+.1}%", 100.0 * x)
}

/// A p-value in two significant digits, small ones in scientific form.
pub fn p_value(p: f64) -> String {
    if p >= 0.001 {
        format!("{p:.3}")
    } else {
        format!("{p:.1e}")
    }
}

fn header() -> Vec<String> {
    [
        "id",
        "impl",
        "A P50",
        "B P50",
        "B P95",
        "B vs A [95% CI]",
        "passes x pairs",
        "detectable",
        "p (Holm)",
        "verdict",
    ]
    .map(String::from)
    .to_vec()
}

fn sorted(xs: &[f64]) -> Vec<f64> {
    let mut s = xs.to_vec();
    s.sort_by(f64::total_cmp);
    s
}

fn at(xs: &[f64], p: f64) -> String {
    dyno_stats::percentile(&sorted(xs), p).map_or("-".into(), units::duration)
}

/// Every pass's values of one kind, one after another.
fn all(p: &Paired, of: impl Fn(&dyno_format::paired::Pass) -> &Vec<f64>) -> Vec<f64> {
    p.passes
        .iter()
        .flat_map(|x| of(x).iter().copied())
        .collect()
}

fn row(p: &Paired) -> Vec<String> {
    if p.verdict == "not compared" {
        let mut r = vec![p.id.clone(), p.implementation.clone()];
        r.extend(std::iter::repeat_n("-".to_string(), 7));
        r.push(format!(
            "not compared: {}",
            p.note.as_deref().unwrap_or("no reason given")
        ));
        return r;
    }
    let mut verdict = p.verdict.clone();
    if p.note.is_some() {
        verdict.push_str(" *");
    }
    vec![
        p.id.clone(),
        p.implementation.clone(),
        at(&all(p, |x| &x.base_ns), 50.0),
        at(&all(p, |x| &x.candidate_ns), 50.0),
        at(&all(p, |x| &x.candidate_ns), 95.0),
        format!(
            "{} [{}, {}]",
            pct(p.delta),
            pct(p.delta_low),
            pct(p.delta_high)
        ),
        format!(
            "{} x {}",
            p.passes.len(),
            p.passes.iter().map(|x| x.log_ratios.len()).sum::<usize>() / p.passes.len().max(1)
        ),
        p.min_detectable
            .map_or("-".into(), |m| format!("{:.1}%", 100.0 * m)),
        p_value(p.p_holm),
        verdict,
    ]
}

/// The machine's noise in one line.
pub fn noise_line(n: &Noise) -> String {
    let steal = match (n.steal_pct, n.steal_max_pct, n.steal_sd_pct) {
        (Some(s), Some(m), Some(sd)) => {
            format!("CPU steal {s:.1}% (1-s windows: max {m:.1}%, sd {sd:.1})")
        }
        (Some(s), _, _) => format!("CPU steal {s:.1}%"),
        _ => "CPU steal unknown (no /proc/stat)".into(),
    };
    let load = n.loadavg.map_or(String::new(), |l| {
        format!(", load {l:.2} on {} CPUs", n.cpus)
    });
    let governor = n
        .governor
        .as_deref()
        .map_or(String::new(), |g| format!(", governor {g}"));
    let timer = match (n.timer_late_us_p50, n.timer_late_us_p99) {
        (Some(a), Some(b)) => format!(", a 1 ms sleep wakes {a:.0} µs late (P99 {b:.0} µs)"),
        _ => String::new(),
    };
    let speed = n.speed.as_ref().map_or(String::new(), |s| {
        format!(
            "; speed (a reference workload, {} windows): spread {:.1}%, drift {:+.1}%",
            s.windows, s.spread_pct, s.drift_pct
        )
    });
    let waited = match (n.waited_pct, n.waited_max_pct) {
        (Some(w), Some(m)) => {
            format!("; a thread of dyno's waited {w:.1}% of the time for a CPU (max {m:.1}%)")
        }
        _ => String::new(),
    };
    format!(
        "noise over {:.0} s: {steal}{load}{governor}{timer}{speed}{waited}",
        n.seconds
    )
}

/// What the columns mean, and what the run's noise and threshold allow.
pub(crate) fn explain(run: &Run) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(p) = run.paired.iter().find(|p| p.verdict != "not compared") {
        let compared = run
            .paired
            .iter()
            .filter(|p| p.verdict != "not compared")
            .count();
        lines.push(format!(
            "A = {}; B = {}. Rounds of A and B alternate (ABBA); each pair of adjacent rounds is one ratio B/A.",
            p.base, p.candidate
        ));
        lines.push(format!(
            "A P50, B P50, B P95: of the rounds' per-operation means (a round is {} operations or so: a batch mean, not one operation's time). B vs A: from each pass's median ratio (each pass fresh worker processes), their mean and its t interval over the passes.",
            p.passes.first().map_or(0, |x| x.iterations)
        ));
        lines.push(format!(
            "detectable: the change the verdict would flag 95% of the time at the noise each comparison saw, among {} comparisons; verdicts need the whole interval beyond ±{:.0}% and the t test over the passes, Holm-adjusted over the {} comparisons, below 0.05; inconclusive: too noisy here to say either way.",
            compared,
            100.0 * p.threshold,
            compared
        ));
        let noisy: Vec<&Paired> = run
            .paired
            .iter()
            .filter(|p| p.verdict == "inconclusive")
            .collect();
        if !noisy.is_empty() {
            lines.push(format!(
                "{} of {} comparisons were too noisy for a ±{:.0}% threshold on this machine (their detectable change is larger); more passes (--passes) and more time per benchmark (no --quick) narrow them.",
                noisy.len(),
                run.paired.len(),
                100.0 * p.threshold
            ));
        }
    }
    if let Some(note) = run
        .paired
        .iter()
        .filter(|p| p.verdict != "not compared")
        .find_map(|p| p.note.as_deref())
    {
        lines.push(format!("*: {note}"));
    }
    if let Some(n) = &run.noise {
        lines.push(noise_line(n));
        let threshold = run
            .paired
            .iter()
            .map(|p| p.threshold)
            .fold(f64::INFINITY, f64::min);
        if let Some(why) = n
            .speed
            .as_ref()
            .filter(|_| threshold.is_finite())
            .and_then(|s| s.swung(threshold))
        {
            lines.push(format!("warning: {why}."));
        }
    }
    lines
}

/// The header and one row per benchmark.
pub(crate) fn rows(run: &Run) -> Vec<Vec<String>> {
    let mut rows = vec![header()];
    rows.extend(run.paired.iter().map(row));
    rows
}

/// The terminal table.
pub fn table(run: &Run) -> String {
    let rows = rows(run);
    let cols = Columns::fit(rows.iter().map(Vec::as_slice));
    let mut out: String = rows.iter().map(|r| cols.line(r) + "\n").collect();
    out.push('\n');
    out.extend(explain(run).into_iter().map(|l| l + "\n"));
    out
}

/// Markdown: the same table.
pub fn markdown(run: &Run) -> String {
    let rows = rows(run);
    let line = |cells: &[String]| format!("{}\n", dyno_format::escape::markdown_row(cells));
    let mut out = String::from("## A/B, interleaved\n\n");
    out.push_str(&line(&rows[0]));
    out.push_str(&line(&vec!["---".to_string(); rows[0].len()]));
    for r in &rows[1..] {
        out.push_str(&line(r));
    }
    out.push('\n');
    out.extend(explain(run).into_iter().map(|l| l + "\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use dyno_format::fixture;

    fn paired(verdict: &str, note: Option<&str>) -> Paired {
        Paired {
            id: "hash/keccak256/1KiB".into(),
            implementation: "tiny-keccak".into(),
            base: "base: old/dyno".into(),
            candidate: "candidate: this dyno".into(),
            passes: vec![
                dyno_format::paired::Pass {
                    iterations: 4000,
                    order: "ABBA".into(),
                    base_ns: vec![1000.0, 1010.0],
                    candidate_ns: vec![1250.0, 1262.0],
                    log_ratios: vec![0.223, 0.222],
                    statistic: 0.2225,
                };
                4
            ],
            delta: 0.25,
            delta_low: 0.24,
            delta_high: 0.26,
            level: 0.95,
            p: 0.001,
            p_holm: 0.002,
            threshold: 0.05,
            min_detectable: Some(0.071),
            verdict: verdict.into(),
            note: note.map(String::from),
        }
    }

    #[test]
    fn the_table_shows_both_sides_the_ratio_and_what_could_be_seen() {
        let mut run = fixture::run("ab", Vec::new());
        run.paired = vec![
            paired("regressed", Some("slowed on purpose")),
            paired("not compared", Some("WRONG on base")),
        ];
        run.noise = Some(Noise {
            seconds: 12.0,
            steal_pct: Some(3.25),
            steal_max_pct: Some(9.0),
            steal_sd_pct: Some(2.5),
            windows: 12,
            loadavg: Some(1.5),
            cpus: 2,
            governor: None,
            timer_late_us_p50: Some(60.0),
            timer_late_us_p99: Some(400.0),
            speed: Some(dyno_format::noise::Speed {
                windows: 12,
                reference_ns: 21_000.0,
                spread_pct: 2.0,
                drift_pct: 1.0,
                window_ms: Some(10.0),
            }),
            waited_pct: Some(1.0),
            waited_max_pct: Some(4.0),
        });
        let t = table(&run);
        assert!(t.contains("spread 2.0%, drift +1.0%"), "{t}");
        assert!(
            t.contains("waited 1.0% of the time for a CPU (max 4.0%)"),
            "{t}"
        );
        assert!(!t.contains("warning"), "a steady machine: {t}");
        // A machine whose speed moved more than the threshold says so.
        if let Some(n) = run.noise.as_mut() {
            n.speed.as_mut().unwrap().drift_pct = 12.0;
        }
        let swung = table(&run);
        assert!(
            swung.contains("warning: the machine's own speed moved more than the ±5%"),
            "{swung}"
        );
        if let Some(n) = run.noise.as_mut() {
            n.speed.as_mut().unwrap().drift_pct = 1.0;
        }
        let t = table(&run);
        assert!(t.contains("+25.0% [+24.0%, +26.0%]"), "{t}");
        assert!(t.contains("regressed *"), "{t}");
        assert!(t.contains("7.1%"), "{t}");
        assert!(t.contains("4 x 2"), "{t}");
        assert!(t.contains("not compared: WRONG on base"), "{t}");
        assert!(t.contains("*: slowed on purpose"), "{t}");
        assert!(
            t.contains("CPU steal 3.2% (1-s windows: max 9.0%, sd 2.5), load 1.50 on 2 CPUs"),
            "{t}"
        );
        assert!(t.contains("a batch mean, not one operation's time"), "{t}");
        let md = markdown(&run);
        assert!(
            md.starts_with("## A/B, interleaved\n\n| id | impl |"),
            "{md}"
        );
    }
}
