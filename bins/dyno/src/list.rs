//! `dyno list`: what the specs define.

use std::fmt::Write as _;

use crate::cli::{Global, ListArgs};
use crate::{Outcome, load_specs, print_stdout};

pub(crate) fn list(global: &Global, args: &ListArgs) -> anyhow::Result<Outcome> {
    let (specs, catalog) = load_specs(global)?;
    if let Some(filter) = &args.filter {
        dyno_spec::check_filter(&specs, filter)?;
    }
    // With no filter, list everything, default suites or not.
    let filter = args.filter.as_deref().or(Some("*"));
    let entries = dyno_spec::plan(&specs, filter);
    if entries.is_empty() {
        anyhow::bail!(
            "no benchmark id matches {:?} (try `dyno list` for all ids)",
            args.filter.as_deref().unwrap_or("")
        );
    }
    let mut rows: Vec<[String; 5]> = Vec::new();
    for e in &entries {
        let version = catalog
            .iter()
            .find(|d| d.id() == e.workload && d.implementation == e.implementation)
            .map_or("?", |d| d.version);
        let star = if e.baseline { " *" } else { "" };
        let target = e
            .target
            .map(|t| format!("{} ≤ {}", t.stat, dyno_report::units::duration(t.limit_ns)))
            .unwrap_or_else(|| "-".into());
        let default = specs
            .iter()
            .find(|s| s.path == e.spec)
            .is_some_and(|s| s.default);
        rows.push([
            e.id.clone(),
            format!("{}{star}", e.implementation),
            version.to_string(),
            target,
            format!(
                "{:.0}%{}",
                e.threshold * 100.0,
                if default {
                    ""
                } else {
                    "  (not in default run)"
                }
            ),
        ]);
    }
    let headers = ["id", "impl", "version", "target", "threshold"];
    let mut width = headers.map(|h| h.chars().count());
    for r in &rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: [&str; 5]| {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            let pad = width[i].saturating_sub(c.chars().count());
            let _ = write!(s, "{c}{}  ", " ".repeat(pad));
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(headers);
    for r in &rows {
        out.push_str(&line([&r[0], &r[1], &r[2], &r[3], &r[4]]));
    }
    let ids: std::collections::BTreeSet<&str> = entries.iter().map(|e| e.id.as_str()).collect();
    print_stdout(&out)?;
    eprintln!(
        "{} ids, {} benchmarks; * marks each id's baseline implementation",
        ids.len(),
        entries.len()
    );
    Ok(Outcome::Ok)
}
