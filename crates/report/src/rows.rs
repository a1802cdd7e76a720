//! The table model every human-readable format shares: results grouped by
//! id, each with its ratio to the id's baseline implementation.

use dyno_format::{BenchResult, Mode, Run, VerificationStatus};

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

/// Whether a result's P95, P99 and max are over batch means: its samples
/// each timed many operations (batched and fitted modes, operations under
/// ~10 µs) and were divided by their number, so one operation's tail is
/// not in them.
pub(crate) fn batch_tails(r: &BenchResult) -> bool {
    r.samples.iter().any(|s| s.iters > 1) || matches!(r.mode, Some(Mode::Batched | Mode::LinearFit))
}

/// The mark on a P95, P99 or max over batch means.
pub(crate) const BATCH_MARK: &str = "ᵇ";

/// What [`BATCH_MARK`] means, for a table's footer.
pub(crate) const BATCH_NOTE: &str = "ᵇ P95, P99 and max over batch means: each sample timed many operations and was divided by their number (operations under ~10 µs), so one operation's tail is not in them";

/// What the allocs/op and B/op columns cannot see.
pub(crate) const ALLOC_NOTE: &str = "allocs/op, B/op: Rust heap allocations on the benchmark's own thread; not other threads (RocksDB's compactions, thread pools) nor what C and C++ libraries allocate with malloc (RocksDB, MDBX, blst, c-kzg); other runtimes report their own";

/// Whether any result of `run` counted allocations.
pub(crate) fn any_allocations(run: &Run) -> bool {
    run.results.iter().any(|r| r.allocations.is_some())
}

/// Whether any result of `run` has [`batch_tails`].
pub(crate) fn any_batch_tails(run: &Run) -> bool {
    run.results
        .iter()
        .any(|r| r.stats.is_some() && batch_tails(r))
}

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
    let mark = if batch_tails(r) { BATCH_MARK } else { "" };
    let tail = |v: f64| format!("{}{mark}", units::duration(v));
    [
        name,
        units::duration(s.p50),
        tail(s.p95),
        tail(s.p99),
        tail(s.max),
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
/// and the throughput it implies: gas / time, in MGas/s, on the time
/// comparisons use ([`crate::compare::per_op_ns`]: the robust slope where
/// fitted, else the P50).
pub(crate) fn gas_rate(r: &BenchResult) -> Option<(u64, f64)> {
    let gas = r.parameters.get("gas_per_op")?.as_u64()?;
    let ns = crate::compare::per_op_ns(r)?;
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

#[cfg(test)]
mod tests {
    use dyno_format::{Mode, Sample, fixture};

    /// A slow operation timed one at a time, and a fast one in batches.
    fn run() -> dyno_format::Run {
        let mut single = fixture::result("crypto/slow/x", "a", Some(50_000.0));
        single.mode = Some(Mode::Single);
        single.samples = vec![
            Sample {
                iters: 1,
                ns: 50_000
            };
            3
        ];
        let mut batched = fixture::result("hash/fast/y", "a", Some(50.0));
        batched.samples = vec![
            Sample {
                iters: 1000,
                ns: 50_000
            };
            3
        ];
        fixture::run("r", vec![single, batched])
    }

    #[test]
    fn tails_over_batch_means_are_marked_in_every_view() {
        let run = run();
        assert!(!super::batch_tails(&run.results[0]));
        assert!(super::batch_tails(&run.results[1]));
        let text = crate::table::render(&run, false);
        let line = |id: &str| {
            text.lines()
                .find(|l| l.starts_with(id))
                .unwrap()
                .to_string()
        };
        assert!(!line("crypto/slow/x").contains('ᵇ'), "{text}");
        assert!(
            line("hash/fast/y").contains("ns ᵇ") || line("hash/fast/y").contains("nsᵇ"),
            "{text}"
        );
        assert!(text.contains("P95, P99 and max over batch means"), "{text}");
        let md = crate::markdown::render(&run);
        assert!(md.contains("P95, P99 and max over batch means"), "{md}");
        assert_eq!(
            md.matches('ᵇ').count(),
            3 + 1,
            "three cells and the note: {md}"
        );
        let csv = crate::csv::render(&run);
        let tails: Vec<&str> = csv
            .lines()
            .skip(1)
            .map(|l| l.rsplit(',').next().unwrap())
            .collect();
        assert_eq!(tails, ["operations", "batch-means"], "{csv}");
        // A run of single operations only says nothing of batches.
        let mut only = run.clone();
        only.results.truncate(1);
        assert!(!crate::table::render(&only, false).contains("batch means"));
    }
}
