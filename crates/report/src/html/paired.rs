//! The A/B section (`dyno ab`): the interleaved comparison's table, as the
//! terminal shows it ([`crate::paired`]), then each benchmark's passes and
//! its interval on one axis against zero and the threshold, and the
//! machine's noise.

use std::fmt::Write as _;

use super::charts::{ForestRow, forest_chart};
use super::*;

impl Page {
    pub(super) fn paired(&mut self, run: &Run, multi: bool) {
        if multi {
            self.run_heading(run);
        }
        // The id, the implementation and the verdict read as text.
        self.text_table(&crate::paired::rows(run), |k, n| k < 2 || k + 1 == n);
        for line in crate::paired::explain(run) {
            let _ = write!(self.body, "<p class=\"muted small\">{}</p>", esc(&line));
        }
        let compared: Vec<ForestRow> = run
            .paired
            .iter()
            .filter(|p| p.verdict != "not compared")
            .map(|p| ForestRow {
                label: format!("{} · {}", p.id, p.implementation),
                points: p
                    .passes
                    .iter()
                    .enumerate()
                    .map(|(k, x)| {
                        let d = x.statistic.exp_m1();
                        (
                            d,
                            format!(
                                "pass {}: {:+.1}% over {} pairs of rounds",
                                k + 1,
                                100.0 * d,
                                x.log_ratios.len()
                            ),
                        )
                    })
                    .collect(),
                delta: p.delta,
                low: p.delta_low,
                high: p.delta_high,
                class: match p.verdict.as_str() {
                    "regressed" => "pt-under",
                    "improved" => "pt-over",
                    _ => "trend-pt",
                },
                tip: format!(
                    "{} on {}: {:+.1}% [{:+.1}%, {:+.1}%], {}",
                    p.id,
                    p.implementation,
                    100.0 * p.delta,
                    100.0 * p.delta_low,
                    100.0 * p.delta_high,
                    p.verdict
                ),
            })
            .collect();
        if !compared.is_empty() {
            self.push(
                "<p class=\"lede\">Per benchmark, B's time relative to A's: each pass's median \
                 ratio of paired rounds (small dots), their mean (the large dot, coloured by the \
                 verdict) and its 95% interval over the passes.</p>",
            );
            let svg = forest_chart(
                "B against A, per benchmark",
                &compared,
                "B's time relative to A's (interleaved rounds)",
            );
            let _ = write!(self.body, "<figure class=\"fig full\">{svg}</figure>");
        }
    }
}
