//! The Memory section: each result's peak resident memory and, where the
//! runtime has a collector, its GC figures, set against the limits a client
//! team publishes for normal operation (`../shared/reference/000_*.txt`,
//! "Memory Usage" and "GC Performance"): under 2 GB, GC overhead under 5%.

use std::fmt::Write as _;

use dyno_format::{BenchResult, Run};

use crate::units;

/// Peak memory (RSS, or a runtime's heap) a scenario may reach: 2 GB.
pub const RSS_LIMIT_BYTES: f64 = 2e9;
/// GC time a runtime may spend, as a share of the timed time: 5%.
pub const GC_LIMIT_PCT: f64 = 5.0;

/// One result's memory figures.
#[derive(Debug, Clone, PartialEq)]
pub struct MemRow {
    /// Benchmark id.
    pub id: String,
    /// Implementation (runtime).
    pub implementation: String,
    /// Peak RSS of the process it ran in, bytes.
    pub rss_peak_bytes: Option<f64>,
    /// RSS when the scenario began, bytes: the peak less this is what the
    /// scenario itself added.
    pub rss_start_bytes: Option<f64>,
    /// The runtime's own peak heap in use, bytes, where it tracks one (the
    /// JVM: the sum of its heap pools' peaks, an upper bound).
    pub heap_peak_bytes: Option<f64>,
    /// Bytes allocated per operation (Rust's counting allocator, or the
    /// runtime's own figure).
    pub alloc_bytes_per_op: Option<f64>,
    /// Collections during the timed runs.
    pub gc_count: Option<f64>,
    /// GC time during the timed runs, ns.
    pub gc_time_ns: Option<f64>,
    /// GC time as a share of the timed time, %.
    pub gc_overhead_pct: Option<f64>,
    /// Which limits it breaks (empty: none).
    pub over: Vec<&'static str>,
}

/// The section's column headers, after id and implementation.
pub const HEADERS: [&str; 8] = [
    "peak RSS",
    "added",
    "heap peak",
    "B/op",
    "GCs",
    "GC time",
    "GC overhead",
    "within limits",
];

impl MemRow {
    /// The figures under [`HEADERS`] but the last (`-` where unknown).
    pub fn cells(&self) -> [String; 7] {
        let show = |v: Option<f64>, f: &dyn Fn(f64) -> String| v.map_or("-".to_string(), f);
        let added = match (self.rss_peak_bytes, self.rss_start_bytes) {
            (Some(p), Some(s)) => Some((p - s).max(0.0)),
            _ => None,
        };
        [
            show(self.rss_peak_bytes, &units::bytes),
            show(added, &units::bytes),
            show(self.heap_peak_bytes, &units::bytes),
            show(self.alloc_bytes_per_op, &units::bytes),
            show(self.gc_count, &|c| format!("{c:.0}")),
            show(self.gc_time_ns, &units::duration),
            show(self.gc_overhead_pct, &|p| format!("{p:.2}%")),
        ]
    }

    /// "yes", or "no: " and the limits it breaks, `strong` wrapping the "no".
    pub fn verdict(&self, strong: (&str, &str)) -> String {
        if self.over.is_empty() {
            "yes".to_string()
        } else {
            format!("{}no{}: {}", strong.0, strong.1, self.over.join(", "))
        }
    }
}

fn param(r: &BenchResult, key: &str) -> Option<f64> {
    r.parameters.get(key).and_then(serde_json::Value::as_f64)
}

/// The rows of every result that recorded any memory figure.
pub fn rows(run: &Run) -> Vec<MemRow> {
    run.results
        .iter()
        .filter_map(|r| {
            let rss = param(r, "rss_peak_bytes");
            let gc = param(r, "gc_count");
            let pct = param(r, "gc_overhead_pct");
            if rss.is_none() && gc.is_none() && pct.is_none() {
                return None;
            }
            let mut over = Vec::new();
            let heap = param(r, "heap_peak_bytes");
            if rss.is_some_and(|b| b > RSS_LIMIT_BYTES) {
                over.push("peak memory over 2 GB");
            }
            if heap.is_some_and(|b| b > RSS_LIMIT_BYTES) {
                over.push("heap over 2 GB");
            }
            if pct.is_some_and(|p| p > GC_LIMIT_PCT) {
                over.push("GC over 5%");
            }
            let alloc = r
                .allocations
                .as_ref()
                .map(|a| a.bytes_per_op)
                .or_else(|| param(r, "alloc_bytes_per_op"));
            Some(MemRow {
                id: r.id.clone(),
                implementation: format!("{} ({})", r.implementation.name, r.implementation.runtime),
                rss_peak_bytes: rss,
                rss_start_bytes: param(r, "rss_start_bytes"),
                heap_peak_bytes: heap,
                alloc_bytes_per_op: alloc,
                gc_count: gc,
                gc_time_ns: param(r, "gc_time_ns"),
                gc_overhead_pct: pct,
                over,
            })
        })
        .collect()
}

const ABOUT: &str = "Peak RSS of the process each benchmark ran in (dyno's own, or the worker's), over its set-up, verification, warm-up and measurement; added: the peak less the RSS when it began; heap peak: the runtime's own figure where it keeps one (the JVM's heap pools); B/op: bytes allocated per operation; GC during the timed runs. Limits: peak under 2 GB, GC overhead under 5%.";

/// The section in Markdown, or nothing when no result has memory figures.
pub fn render_markdown(run: &Run) -> String {
    let rows = rows(run);
    if rows.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    let _ = writeln!(out, "\n## Memory\n\n{ABOUT}\n");
    let _ = writeln!(out, "| id | implementation | {} |", HEADERS.join(" | "));
    let _ = writeln!(out, "|:--|:--|{}:--|", "--:|".repeat(HEADERS.len() - 1));
    for r in rows {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            dyno_format::escape::markdown_cell(&r.id),
            dyno_format::escape::markdown_cell(&r.implementation),
            r.cells()
                .iter()
                .map(|c| dyno_format::escape::markdown_cell(c))
                .collect::<Vec<_>>()
                .join(" | "),
            r.verdict(("**", "**"))
        );
    }
    out
}

/// The section as plain text for the terminal, when the run has scenarios
/// of the `mem` suite (other runs keep the figures in their JSON, Markdown
/// and HTML); nothing otherwise.
pub fn render_text(run: &Run) -> String {
    if !run.results.iter().any(|r| r.id.starts_with("mem/")) {
        return String::new();
    }
    let rows = rows(run);
    let mut table: Vec<Vec<String>> = vec![
        ["id", "implementation"]
            .into_iter()
            .chain(HEADERS)
            .map(String::from)
            .collect(),
    ];
    let mut last = String::new();
    for r in rows.iter().filter(|r| !r.id.starts_with("harness/")) {
        let id = if r.id == last {
            String::new()
        } else {
            r.id.clone()
        };
        last.clone_from(&r.id);
        let mut line = vec![id, r.implementation.clone()];
        line.extend(r.cells());
        line.push(r.verdict(("", "")));
        table.push(line);
    }
    let columns = crate::columns::Columns::fit(table.iter().map(Vec::as_slice));
    let mut out = format!("\nMemory: {ABOUT}\n");
    for line in &table {
        let _ = writeln!(out, "{}", columns.line(line));
    }
    out
}
