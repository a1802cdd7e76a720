//! Cross-implementation tables: one per family (`group/op`), inputs in
//! rows, implementations in columns, as the published cross-client
//! precompile tables are laid out. Shown when a run holds more than one
//! runtime. A wrong result reads `WRONG` and is left out of every ratio;
//! precompile families add go-ethereum's nominal gas and, per
//! implementation, calculated gas (ns × 3000 / that implementation's own
//! ECRECOVER ns).

use std::collections::BTreeSet;

use dyno_format::{BenchResult, Run, VerificationStatus};

use crate::units;

/// The id the calculated-gas anchor is measured on.
const ANCHOR_ID: &str = "precompile/ecrecover/ValidKey";
const ANCHOR_GAS: f64 = 3000.0;

/// One family's table.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// `group/op`.
    pub family: String,
    /// Column headers after `input` (and `gas` for precompiles).
    pub columns: Vec<String>,
    /// `input`, then `gas` if `with_gas`, then one cell per column.
    pub rows: Vec<Vec<String>>,
    /// True for precompile families: a nominal gas column, and calculated
    /// gas beside each time.
    pub with_gas: bool,
}

fn family(id: &str) -> &str {
    id.rsplit_once('/').map_or(id, |(f, _)| f)
}

fn input(id: &str) -> &str {
    id.rsplit_once('/').map_or("", |(_, i)| i)
}

/// `name (runtime)` for other runtimes, the name alone for Rust.
pub fn label(r: &BenchResult) -> String {
    if r.implementation.runtime == "rust" || r.implementation.runtime.is_empty() {
        r.implementation.name.clone()
    } else {
        format!("{} ({})", r.implementation.name, r.implementation.runtime)
    }
}

/// The time a comparison uses, with its 95% interval: where samples were
/// fitted against batch size (the intercept holds the per-sample
/// overheads), the Theil-Sen slope of the raw samples with Sen's interval
/// (one sample the scheduler held up can flip an OLS slope's sign:
/// decisions D9); else the P50 with the median's interval.
pub fn per_op(r: &BenchResult) -> Option<dyno_format::gas::Estimate> {
    if r.verification.status == VerificationStatus::Failed {
        return None;
    }
    let median = || {
        r.stats.as_ref().map(|s| dyno_format::gas::Estimate {
            value: s.p50,
            lower: s.median_ci.lower,
            upper: s.median_ci.upper,
        })
    };
    dyno_format::gas::Estimate::of(r)
        .filter(|e| e.value.is_finite() && e.value > 0.0)
        .or_else(median)
}

/// [`per_op`]'s value.
pub fn per_op_ns(r: &BenchResult) -> Option<f64> {
    per_op(r).map(|e| e.value)
}

/// The tables, or none if the run holds a single runtime.
pub fn tables(run: &Run) -> Vec<Table> {
    let runtimes: BTreeSet<&str> = run
        .results
        .iter()
        .map(|r| r.implementation.runtime.as_str())
        .collect();
    if runtimes.len() < 2 {
        return Vec::new();
    }
    let mut families: Vec<&str> = Vec::new();
    for r in &run.results {
        let f = family(&r.id);
        if !families.contains(&f) && r.group() != "harness" {
            families.push(f);
        }
    }
    let anchor = |imp: &str| {
        run.results
            .iter()
            .find(|r| r.id == ANCHOR_ID && label(r) == imp)
            .and_then(per_op_ns)
    };
    families
        .into_iter()
        .map(|fam| {
            let results: Vec<&BenchResult> = run
                .results
                .iter()
                .filter(|r| family(&r.id) == fam)
                .collect();
            let mut columns: Vec<String> = Vec::new();
            // Rust first, then the other runtimes in name order
            let mut order: Vec<&&BenchResult> = results.iter().collect();
            order.sort_by_key(|r| {
                (
                    r.implementation.runtime != "rust",
                    r.implementation.runtime.clone(),
                )
            });
            for r in order {
                let l = label(r);
                if !columns.contains(&l) {
                    columns.push(l);
                }
            }
            let with_gas = fam.starts_with("precompile/");
            let mut inputs: Vec<&str> = Vec::new();
            for r in &results {
                if !inputs.contains(&input(&r.id)) {
                    inputs.push(input(&r.id));
                }
            }
            let rows = inputs
                .iter()
                .map(|inp| {
                    let mut row = vec![inp.to_string()];
                    let of_input: Vec<&&BenchResult> =
                        results.iter().filter(|r| input(&r.id) == *inp).collect();
                    let gas = of_input.iter().find_map(|r| {
                        r.parameters
                            .get("geth_gas")
                            .and_then(serde_json::Value::as_f64)
                    });
                    if with_gas {
                        row.push(gas.map_or("-".into(), |g| format!("{g}")));
                    }
                    for col in &columns {
                        let cell = match of_input.iter().find(|r| &label(r) == col) {
                            None => "-".to_string(),
                            Some(r) if r.verification.status == VerificationStatus::Failed => {
                                "WRONG".to_string()
                            }
                            Some(r) => match per_op_ns(r) {
                                None => "failed".to_string(),
                                Some(ns) => {
                                    let mut c = units::duration(ns);
                                    if r.incomplete_reason.is_some() {
                                        c.push('!');
                                    }
                                    if with_gas && let Some(a) = anchor(col).filter(|a| *a > 0.0) {
                                        c = format!(
                                            "{c} ({} gas)",
                                            units::sig3(ns * ANCHOR_GAS / a)
                                        );
                                    }
                                    c
                                }
                            },
                        };
                        row.push(cell);
                    }
                    row
                })
                .collect();
            Table {
                family: fam.to_string(),
                columns,
                rows,
                with_gas,
            }
        })
        .collect()
}

/// The legend printed under the tables.
pub const LEGEND: &str = "ns per operation: the robust (Theil-Sen) slope where samples were fitted, else the P50; \
WRONG: the output differed from the vector (not timed, left out of comparisons); \
!: incomplete (the worker failed mid-run); (N gas): ns x 3000 / the same implementation's ECRECOVER ns";

/// Aligned text.
pub fn render_text(tables: &[Table]) -> String {
    let mut out = String::new();
    for t in tables {
        let mut header = vec![t.family.clone()];
        if t.with_gas {
            header.push("gas".into());
        }
        header.extend(t.columns.iter().cloned());
        let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
        for row in &t.rows {
            for (i, c) in row.iter().enumerate() {
                widths[i] = widths[i].max(c.chars().count());
            }
        }
        let line = |cells: &[String]| {
            cells
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let pad = " ".repeat(widths[i].saturating_sub(c.chars().count()));
                    if i == 0 {
                        format!("{c}{pad}")
                    } else {
                        format!("{pad}{c}")
                    }
                })
                .collect::<Vec<_>>()
                .join("  ")
        };
        out.push_str(&line(&header));
        out.push('\n');
        for row in &t.rows {
            out.push_str(&line(row));
            out.push('\n');
        }
        out.push('\n');
    }
    if !tables.is_empty() {
        out.push_str(LEGEND);
        out.push('\n');
    }
    out
}

/// GitHub-flavoured Markdown.
pub fn render_markdown(tables: &[Table]) -> String {
    let mut out = String::new();
    for t in tables {
        out.push_str(&format!("### {}\n\n", t.family));
        let mut header = vec!["input".to_string()];
        if t.with_gas {
            header.push("gas".into());
        }
        header.extend(t.columns.iter().cloned());
        out.push_str(&format!("{}\n", dyno_format::escape::markdown_row(&header)));
        out.push_str(&format!(
            "|{}\n",
            header
                .iter()
                .enumerate()
                .map(|(i, _)| if i == 0 { "---|" } else { "---:|" })
                .collect::<String>()
        ));
        for row in &t.rows {
            out.push_str(&format!("{}\n", dyno_format::escape::markdown_row(row)));
        }
        out.push('\n');
    }
    if !tables.is_empty() {
        out.push_str(&format!("_{LEGEND}_\n"));
    }
    out
}
