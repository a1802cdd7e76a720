//! The Memory section: each result's peak resident memory and, where the
//! runtime has a collector, its GC figures, set against the limits a client
//! team publishes for normal operation (`../shared/reference/000_*.txt`,
//! "Memory Usage" and "GC Performance"): under 2 GB, GC overhead under 5%.

use std::fmt::Write as _;

use dyno_format::{BenchResult, Run};

use crate::units;

/// Peak memory a scenario may reach: 2 GB.
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
    /// Collections during the timed runs.
    pub gc_count: Option<f64>,
    /// GC time as a share of the timed time, %.
    pub gc_overhead_pct: Option<f64>,
    /// Which limits it breaks (empty: none).
    pub over: Vec<&'static str>,
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
            if rss.is_some_and(|b| b > RSS_LIMIT_BYTES) {
                over.push("peak memory over 2 GB");
            }
            if pct.is_some_and(|p| p > GC_LIMIT_PCT) {
                over.push("GC over 5%");
            }
            Some(MemRow {
                id: r.id.clone(),
                implementation: format!("{} ({})", r.implementation.name, r.implementation.runtime),
                rss_peak_bytes: rss,
                gc_count: gc,
                gc_overhead_pct: pct,
                over,
            })
        })
        .collect()
}

/// The section in Markdown, or nothing when no result has memory figures.
pub fn render_markdown(run: &Run) -> String {
    let rows = rows(run);
    if rows.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n## Memory\n\nPeak RSS of the process each benchmark ran in (dyno's own, or the worker's), over its verification, warm-up and measurement; GC during the timed runs. Limits: peak under 2 GB, GC overhead under 5%.\n"
    );
    let _ = writeln!(
        out,
        "| id | implementation | peak RSS | GCs | GC overhead | within limits |"
    );
    let _ = writeln!(out, "|:--|:--|--:|--:|--:|:--|");
    let show = |v: Option<f64>, f: &dyn Fn(f64) -> String| v.map_or("-".to_string(), f);
    for r in rows {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | {} |",
            r.id,
            r.implementation,
            show(r.rss_peak_bytes, &units::bytes),
            show(r.gc_count, &|c| format!("{c:.0}")),
            show(r.gc_overhead_pct, &|p| format!("{p:.2}%")),
            if r.over.is_empty() {
                "yes".to_string()
            } else {
                format!("**no**: {}", r.over.join(", "))
            }
        );
    }
    out
}
