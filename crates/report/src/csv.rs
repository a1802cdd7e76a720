//! CSV: one row per result, raw numbers in nanoseconds, for spreadsheets
//! and scripts. Text fields are quoted when they need it (RFC 4180).

use std::fmt::Write as _;

use dyno_format::Run;

use crate::rows;

/// The CSV header.
pub const COLUMNS: [&str; 30] = [
    "id",
    "implementation",
    "version",
    "baseline",
    "verification",
    "mode",
    "n",
    "min_ns",
    "p50_ns",
    "p95_ns",
    "p99_ns",
    "max_ns",
    "mean_ns",
    "stddev_ns",
    "mad_ns",
    "ci_lower_ns",
    "ci_upper_ns",
    "ops_per_sec",
    "slope_ns",
    "intercept_ns",
    "allocs_per_op",
    "bytes_per_op",
    "ratio_to_baseline",
    "target_stat",
    "target_ns",
    "target_met",
    "regression_threshold",
    "gas_per_op",
    "mgas_per_s",
    "tails_over",
];

/// One field, quoted as RFC 4180 asks and never a spreadsheet formula
/// ([`dyno_format::escape::csv_field`]).
pub(crate) fn quote(s: &str) -> String {
    dyno_format::escape::csv_field(s)
}

fn num(v: Option<f64>) -> String {
    v.map(|x| format!("{x}")).unwrap_or_default()
}

/// The serialized name of a unit enum variant (`linear-fit`, `passed`).
fn word(v: serde_json::Result<serde_json::Value>) -> String {
    v.ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

/// Render `run` as CSV with a header row.
pub fn render(run: &Run) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", COLUMNS.join(","));
    for b in rows::blocks(run) {
        for row in &b.rows {
            let r = row.result;
            let s = r.stats.as_ref();
            let f = r.fit.as_ref();
            let a = r.allocations.as_ref();
            let t = r.target.as_ref();
            let mode = r
                .mode
                .map(|m| word(serde_json::to_value(m)))
                .unwrap_or_default();
            let verification = word(serde_json::to_value(r.verification.status));
            let fields = [
                quote(&r.id),
                quote(&r.implementation.name),
                quote(&r.implementation.version),
                r.baseline.to_string(),
                verification,
                mode,
                s.map(|s| s.n.to_string()).unwrap_or_default(),
                num(s.map(|s| s.min)),
                num(s.map(|s| s.p50)),
                num(s.map(|s| s.p95)),
                num(s.map(|s| s.p99)),
                num(s.map(|s| s.max)),
                num(s.map(|s| s.mean)),
                num(s.map(|s| s.stddev)),
                num(s.map(|s| s.mad)),
                num(s.map(|s| s.median_ci.lower)),
                num(s.map(|s| s.median_ci.upper)),
                num(r.ops_per_sec),
                // The robust slope (decisions D9), as every view shows it.
                num(f.and_then(|_| crate::compare::per_op_ns(r))),
                num(f.map(|f| f.intercept)),
                num(a.map(|a| a.allocs_per_op)),
                num(a.map(|a| a.bytes_per_op)),
                num(row.ratio),
                t.map(|t| t.stat.name().to_string()).unwrap_or_default(),
                num(t.map(|t| t.limit_ns)),
                t.and_then(|t| t.met)
                    .map(|m| m.to_string())
                    .unwrap_or_default(),
                format!("{}", r.regression_threshold),
                rows::gas_rate(r)
                    .map(|(g, _)| g.to_string())
                    .unwrap_or_default(),
                num(rows::gas_rate(r).map(|(_, m)| m)),
                match (s, rows::batch_tails(r)) {
                    (None, _) => String::new(),
                    (Some(_), true) => "batch-means".into(),
                    (Some(_), false) => "operations".into(),
                },
            ];
            let _ = writeln!(out, "{}", fields.join(","));
        }
    }
    out
}

/// CSV, one row per result.
#[derive(Debug, Clone, Copy)]
pub struct Csv;

impl crate::Export for Csv {
    fn render(&self, run: &Run) -> String {
        render(run)
    }
}
