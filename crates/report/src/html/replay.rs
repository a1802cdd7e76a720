//! The Block replay section (`dyno replay`): the table of
//! [`crate::replay`], then per result a strip of its blocks in the order
//! sent, each bar the block's `engine_newPayload` time with the client's
//! own breakdown stacked inside it (execution, state read, state hash,
//! commit, and the rest: what dyno saw beyond the client's total), and
//! for an A/B each id's paired effects: the pairs' estimates, their mean
//! and its interval, against zero.

use std::fmt::Write as _;

use dyno_format::replay::Comparison;

use super::charts::{FULL, ForestRow, forest_chart};
use super::svg::{Scale, Svg, tick_duration};
use super::*;

/// The stacked parts: label, the client's field, and the fill class.
const PARTS: [(&str, &str, &str); 4] = [
    ("execution", "timing.execution_ms", "f0"),
    ("state read", "timing.state_read_ms", "f1"),
    ("state hash", "timing.state_hash_ms", "f2"),
    ("commit", "timing.commit_ms", "f3"),
];
/// The rest of the newPayload time.
const REST: (&str, &str) = ("rest of newPayload", "f5");

impl Page {
    pub(super) fn replay(&mut self, run: &Run, multi: bool) {
        if multi {
            self.run_heading(run);
        }
        for (_, rows) in crate::replay::tables(run) {
            // The id and the client read as text, the figures as numbers.
            self.text_table(&rows, |k, _| k < 2);
        }
        let legend: String = PARTS
            .iter()
            .map(|(name, _, class)| (name, class))
            .chain([(&REST.0, &REST.1)])
            .map(|(name, class)| {
                format!(
                    "<span><i class=\"sw b{}\"></i>{}</span>",
                    &class[1..],
                    esc(name)
                )
            })
            .collect();
        let _ = write!(
            self.body,
            "<p class=\"lede\">Each block in the order sent: the bar is dyno's \
             <code>engine_newPayload</code> time, the client's own breakdown stacked inside \
             it. Hover a bar for the block, its gas and MGas/s.</p><div class=\"legend\">{legend}</div>"
        );
        self.push("<div class=\"grid\">");
        for r in run.results.iter().filter(|r| !r.blocks.is_empty()) {
            let svg = strip(r);
            let _ = write!(
                self.body,
                "<figure class=\"fig full\">{svg}<figcaption><code>{}</code> · {}</figcaption></figure>",
                esc(&r.id),
                esc(&r.implementation.name)
            );
        }
        self.push("</div>");
        if !run.comparisons.is_empty() {
            self.push(
                "<h3>A/B: paired effects</h3><p class=\"lede\">Per id, B's time relative to \
                 A's: each pair of runs' estimate (the median over the id's blocks), their mean \
                 and its interval (Student's t over the pairs, simultaneous over the ids).</p>",
            );
            let svg = forest(&run.comparisons);
            let _ = write!(self.body, "<figure class=\"fig full\">{svg}</figure>");
        }
    }
}

/// One result's blocks as stacked bars.
fn strip(r: &BenchResult) -> String {
    let (w, h) = (FULL, 240.0);
    let (left, right, top, bottom) = (70.0, 10.0, 10.0, 30.0);
    let max = r
        .blocks
        .iter()
        .map(|b| b.new_payload_ns as f64)
        .fold(0.0, f64::max);
    let y = Scale::linear(0.0, max, h - bottom, top);
    let mut s = Svg::new(w, h, &format!("{} blocks of {}", r.blocks.len(), r.id));
    for t in y.ticks() {
        let py = y.px(t);
        s.line(left, py, w - right, py, "grid");
        s.text(left - 6.0, py + 4.0, "end", "tick", &tick_duration(t));
    }
    let n = r.blocks.len().max(1) as f64;
    let slot = (w - left - right) / n;
    let bar = (slot * 0.8).max(1.0);
    for (i, b) in r.blocks.iter().enumerate() {
        let x = left + slot * i as f64 + (slot - bar) / 2.0;
        let total = b.new_payload_ns as f64;
        let tip_head = format!(
            "block {} (run {}): newPayload {}, {} gas, {} txs{}",
            b.number,
            b.run,
            units::duration(total),
            b.gas_used,
            b.transactions,
            if b.gas_used > 0 {
                format!(", {} MGas/s", units::sig3(b.mgas_per_s()))
            } else {
                String::new()
            }
        );
        let mut base = 0.0;
        for (name, path, class) in PARTS {
            let Some(ms) = b.logged(path) else { continue };
            let ns = ms * 1e6;
            let (y0, y1) = (y.px(base), y.px((base + ns).min(total)));
            let tip = format!("{tip_head}; {name} {}", units::duration(ns));
            s.rect(x, y1, bar, y0 - y1, class, Some(&tip));
            base = (base + ns).min(total);
        }
        let (y0, y1) = (y.px(base), y.px(total));
        let tip = format!("{tip_head}; {} {}", REST.0, units::duration(total - base));
        s.rect(x, y1, bar, y0 - y1, REST.1, Some(&tip));
    }
    s.line(left, h - bottom, w - right, h - bottom, "axis");
    s.text(
        (left + w - right) / 2.0,
        h - 8.0,
        "middle",
        "axis-title",
        "blocks in the order sent (runs one after another)",
    );
    s.finish()
}

/// Every comparison on one relative axis.
fn forest(cs: &[Comparison]) -> String {
    let pct = |x: f64| x * 100.0;
    let rows: Vec<ForestRow> = cs
        .iter()
        .map(|c| ForestRow {
            label: c.id.clone(),
            points: c
                .pair_log_ratios
                .iter()
                .map(|r| {
                    let d = r.exp() - 1.0;
                    (d, format!("a pair: {:+.1}%", pct(d)))
                })
                .collect(),
            delta: c.delta,
            low: c.delta_low,
            high: c.delta_high,
            class: match c.verdict.as_str() {
                "slower" => "pt-under",
                "faster" => "pt-over",
                _ => "trend-pt",
            },
            tip: format!(
                "{}: {:+.1}% [{:+.1}%, {:+.1}%], {}",
                c.id,
                pct(c.delta),
                pct(c.delta_low),
                pct(c.delta_high),
                c.verdict
            ),
        })
        .collect();
    forest_chart(
        "B against A, per id",
        &rows,
        "B's newPayload time relative to A's",
    )
}
