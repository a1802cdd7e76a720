//! The op-isolation section (`dyno gas --blocks`): for every series, its
//! blocks' time against their operation count in each client, with the
//! NNLS fit the per-operation figure comes from, and a table of the fits.

use std::fmt::Write as _;

use dyno_format::reprice::{Fit, block_ns};

use super::charts::{CountSeries, count_chart};
use super::*;

/// Whether `run` holds op-isolation results.
pub(super) fn has_reprice(run: &Run) -> bool {
    run.results.iter().any(|r| r.reprice.is_some())
}

fn time_name(time: &str) -> &str {
    match time {
        "new_payload" => "newPayload",
        "client_execution" => "own execution",
        _ => "own total",
    }
}

fn fit_label(who: &str, f: &Fit) -> String {
    format!(
        "{who} {}: {}/op{}, R² {:.2}{}",
        time_name(&f.time),
        units::duration(f.per_op_ns.value),
        f.net_per_op_ns
            .map(|n| format!(" ({} less the glue)", units::duration(n.value)))
            .unwrap_or_default(),
        f.r_squared,
        if f.kept { "" } else { ", fails the rule" }
    )
}

impl Page {
    pub(super) fn reprice(&mut self, run: &Run, multi: bool) {
        if multi {
            self.run_heading(run);
        }
        let mut ids: Vec<&str> = Vec::new();
        for r in run.results.iter().filter(|r| r.reprice.is_some()) {
            if !ids.contains(&r.id.as_str()) {
                ids.push(&r.id);
            }
        }
        let mut rows = vec![
            [
                "series",
                "client",
                "time",
                "blocks",
                "per op",
                "95% CI",
                "less glue",
                "R²",
                "p",
                "rule",
            ]
            .map(String::from)
            .to_vec(),
        ];
        self.push("<div class=\"grid\">");
        for id in &ids {
            let mut series = Vec::new();
            for (c, r) in run
                .results
                .iter()
                .filter(|r| r.id == *id && r.reprice.is_some())
                .enumerate()
            {
                let iso = r.reprice.as_ref().expect("filtered");
                let who = r.implementation.name.as_str();
                // newPayload for every client; the client's own execution
                // time beside it where its log has one (dashed).
                for time in ["new_payload", "client_execution"] {
                    let Some(f) = iso.fit(time) else { continue };
                    let points: Vec<(f64, f64, String)> = r
                        .samples
                        .iter()
                        .enumerate()
                        .filter_map(|(k, s)| {
                            let ns = block_ns(r, k, time)?;
                            let tip = format!(
                                "{who} {}: block {}, {} operations, {}",
                                time_name(time),
                                r.blocks.get(k).map_or(0, |b| b.number),
                                s.iters,
                                units::duration(ns)
                            );
                            Some((s.iters as f64, ns, tip))
                        })
                        .collect();
                    series.push(CountSeries {
                        label: fit_label(who, f),
                        colour: c,
                        dashed: time != "new_payload",
                        points,
                        fit: Some((f.intercept_ns.value, f.per_op_ns.value)),
                    });
                }
                for f in &iso.fits {
                    rows.push(vec![
                        id.trim_start_matches("reprice/").to_string(),
                        who.to_string(),
                        time_name(&f.time).to_string(),
                        f.n.to_string(),
                        units::duration(f.per_op_ns.value),
                        format!(
                            "{} – {}",
                            units::duration(f.per_op_ns.lower),
                            units::duration(f.per_op_ns.upper)
                        ),
                        f.net_per_op_ns
                            .map_or("-".into(), |n| units::duration(n.value)),
                        format!("{:.3}", f.r_squared),
                        format!("{:.1e}", f.per_op_ns.p),
                        if f.kept { "kept" } else { "fails" }.to_string(),
                    ]);
                }
            }
            if series.is_empty() {
                continue;
            }
            let title = format!("{id}: block time against operations");
            let _ = write!(
                self.body,
                "<figure class=\"fig half\"><figcaption><h3>{}</h3></figcaption>{}</figure>",
                esc(id.trim_start_matches("reprice/")),
                count_chart(&title, &series, charts::HALF)
            );
        }
        self.push("</div>");
        if rows.len() > 1 {
            self.text_table(&rows, |k, _| k < 3 || k == 9);
        }
    }
}
