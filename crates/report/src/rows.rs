//! The table model every human-readable format shares: results grouped by
//! id, each with its ratio to the id's baseline implementation.

use dyno_format::{BenchResult, Run, VerificationStatus};

use crate::units;

/// One rendered row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row<'a> {
    pub(crate) result: &'a BenchResult,
    /// P50 over the baseline's P50, when both exist.
    pub(crate) ratio: Option<f64>,
}

/// Results of one id, baseline first.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Block<'a> {
    pub(crate) id: &'a str,
    pub(crate) rows: Vec<Row<'a>>,
}

/// Group results by id, keeping first-seen order; baseline first in each.
pub(crate) fn blocks(run: &Run) -> Vec<Block<'_>> {
    let mut out: Vec<Block<'_>> = Vec::new();
    for r in &run.results {
        match out.iter_mut().find(|b| b.id == r.id) {
            Some(b) => b.rows.push(Row {
                result: r,
                ratio: None,
            }),
            None => out.push(Block {
                id: &r.id,
                rows: vec![Row {
                    result: r,
                    ratio: None,
                }],
            }),
        }
    }
    for b in &mut out {
        b.rows.sort_by_key(|r| !r.result.baseline);
        let base = b
            .rows
            .iter()
            .find(|r| r.result.baseline)
            .and_then(|r| r.result.stats.as_ref())
            .map(|s| s.p50);
        for row in &mut b.rows {
            row.ratio = match (base, row.result.stats.as_ref()) {
                (Some(base), Some(s)) if base > 0.0 => Some(s.p50 / base),
                _ => None,
            };
        }
    }
    out
}

/// The column headers of the human tables.
pub(crate) const HEADERS: [&str; 11] = [
    "id",
    "impl",
    "P50",
    "P95",
    "P99",
    "max",
    "±CI",
    "ops/s",
    "allocs/op",
    "B/op",
    "vs *",
];

/// The cells of one row (the id is shown once per block by the caller).
pub(crate) fn cells(row: &Row<'_>) -> [String; 10] {
    let r = row.result;
    let label = crate::compare::label(r);
    let name = if r.baseline {
        format!("{label} *")
    } else {
        label
    };
    let dash = || "-".to_string();
    let Some(s) = r.stats.as_ref() else {
        let mut c: [String; 10] = Default::default();
        c[0] = name;
        for x in c.iter_mut().skip(1) {
            *x = dash();
        }
        return c;
    };
    let half = (s.median_ci.upper - s.median_ci.lower) / 2.0;
    let allocs = r.allocations.as_ref();
    [
        name,
        units::duration(s.p50),
        units::duration(s.p95),
        units::duration(s.p99),
        units::duration(s.max),
        units::plus_minus_pct(half / s.p50),
        r.ops_per_sec.map_or_else(dash, units::rate),
        allocs.map_or_else(dash, |a| units::count(a.allocs_per_op)),
        allocs.map_or_else(dash, |a| units::bytes(a.bytes_per_op)),
        row.ratio.map_or_else(dash, units::ratio),
    ]
}

/// A note for a row that is not a plain timing: a wrong result, a missed
/// target, or an incomplete measurement.
pub(crate) fn note(r: &BenchResult) -> Option<String> {
    if r.verification.status == VerificationStatus::Failed {
        let m = r.verification.mismatch.as_ref();
        return Some(match m {
            Some(m) => format!(
                "WRONG RESULT (not timed): case {}: expected {}, got {}",
                m.case, m.expected, m.actual
            ),
            None => "WRONG RESULT (not timed)".into(),
        });
    }
    let mut notes = Vec::new();
    if let Some(t) = &r.target
        && t.met == Some(false)
    {
        notes.push(format!(
            "target missed: {} above {}",
            t.stat,
            units::duration(t.limit_ns)
        ));
    }
    if let Some(reason) = &r.incomplete_reason {
        notes.push(format!("incomplete: {}", one_line(reason)));
    }
    if r.parameters.get("reference") == Some(&serde_json::Value::Bool(true)) {
        notes.push("reference for other machines (measured in every run)".into());
    }
    if let Some(s) = &r.stats
        && s.n < 10
    {
        notes.push(format!("n={}", s.n));
    }
    (!notes.is_empty()).then(|| notes.join("; "))
}

/// One line about where and how the run was measured.
pub(crate) fn environment_line(run: &Run) -> String {
    let e = &run.environment;
    format!(
        "{} ({} cores), {}, clock {} (read {:.0} ns, resolution {:.0} ns), {}",
        e.cpu_model,
        e.cores,
        e.os,
        e.clock.source,
        e.clock.read_cost_ns,
        e.clock.resolution_ns,
        e.rustc
    )
}

/// One line about the harness's own cost. The per-sample cost is shown as
/// the measured clock read; the empty benchmark's fit intercept (in the
/// JSON) is too noisy at a few nanoseconds against millisecond samples to be
/// worth printing.
/// One line per implementation in `group` that states its set-up (a
/// storage engine's durability and settings): `name version (runtime):
/// durability; settings`, in first-seen order.
pub(crate) fn setup_lines(run: &Run, group: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let prefix = format!("{group}/");
    for r in run.results.iter().filter(|r| r.id.starts_with(&prefix)) {
        let text = |k: &str| r.parameters.get(k).and_then(|v| v.as_str());
        let Some(durability) = text("durability") else {
            continue;
        };
        let imp = &r.implementation;
        let mut line = format!("{} {} ({})", imp.name, imp.version, imp.runtime);
        if let Some(lib) = text("library").filter(|l| !l.contains('/')) {
            line.push_str(&format!(", {lib}"));
        }
        line.push_str(&format!(": {durability}"));
        if let Some(settings) = text("engine_settings") {
            line.push_str(&format!("; {settings}"));
        }
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    lines
}

pub(crate) fn harness_line(run: &Run) -> Option<String> {
    run.harness.as_ref().map(|h| {
        format!(
            "{} per iteration (empty benchmark), plus one clock read ({}) per sample",
            units::duration(h.empty_iteration_ns),
            units::duration(run.environment.clock.read_cost_ns)
        )
    })
}

/// Gas per operation (the `gas_per_op` parameter an EVM workload records)
/// and the throughput it implies: gas / time, in MGas/s, on the fit's
/// slope if there is one, else the P50.
pub(crate) fn gas_rate(r: &BenchResult) -> Option<(u64, f64)> {
    let gas = r.parameters.get("gas_per_op")?.as_u64()?;
    let ns = r
        .fit
        .as_ref()
        .map(|f| f.slope)
        .or_else(|| r.stats.as_ref().map(|s| s.p50))?;
    (ns > 0.0).then(|| (gas, gas as f64 / ns * 1e3))
}

/// `12.3 MGas/s (11 gas/op)`, for the human tables.
pub(crate) fn gas_text(r: &BenchResult) -> Option<String> {
    gas_rate(r).map(|(gas, mgas)| format!("{} MGas/s ({gas} gas/op)", units::sig3(mgas)))
}

/// A possibly multi-line message (a worker's stderr tail) as one line.
pub fn one_line(s: &str) -> String {
    let parts: Vec<&str> = s.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let flat = parts.join(" | ");
    const MAX: usize = 400;
    if flat.chars().count() <= MAX {
        return flat;
    }
    let head: String = flat.chars().take(150).collect();
    let tail: Vec<char> = flat.chars().rev().take(MAX - 150).collect();
    format!("{head} … {}", tail.into_iter().rev().collect::<String>())
}
