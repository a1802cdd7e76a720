//! Trends over runs: one benchmark's P50 across the runs given or the
//! history, and its chart.

use std::fmt::Write as _;

use super::*;

/// One benchmark's P50 over several runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Trend {
    /// The benchmark id.
    pub id: String,
    /// The implementation's label (`k256`, `geth (go)`).
    pub implementation: String,
    /// One point per run, oldest first.
    pub points: Vec<TrendPoint>,
}

/// One run's figure in a [`Trend`].
#[derive(Debug, Clone, PartialEq)]
pub struct TrendPoint {
    /// The run's id.
    pub run_id: String,
    /// When the run started (RFC 3339).
    pub started_at: String,
    /// The commit dyno was built from.
    pub git_commit: Option<String>,
    /// Median time per operation.
    pub p50_ns: f64,
    /// Lower bound of the median's 95% CI.
    pub ci_low_ns: f64,
    /// Upper bound of the median's 95% CI.
    pub ci_high_ns: f64,
    /// Samples.
    pub n: usize,
}

/// The trends of `runs` (give them oldest first): one per benchmark id and
/// implementation timed in at least two of them. Wrong or untimed results
/// are left out of a trend.
pub fn trends(runs: &[&Run]) -> Vec<Trend> {
    let mut out: Vec<Trend> = Vec::new();
    for run in runs {
        for r in &run.results {
            let Some(s) = r
                .stats
                .as_ref()
                .filter(|_| r.verification.status != VerificationStatus::Failed)
            else {
                continue;
            };
            if !s.p50.is_finite() {
                continue;
            }
            let implementation = crate::compare::label(r);
            let point = TrendPoint {
                run_id: run.run.id.clone(),
                started_at: run.run.started_at.clone(),
                git_commit: run.run.git_commit.clone(),
                p50_ns: s.p50,
                ci_low_ns: s.median_ci.lower,
                ci_high_ns: s.median_ci.upper,
                n: s.n,
            };
            match out
                .iter_mut()
                .find(|t| t.id == r.id && t.implementation == implementation)
            {
                Some(t) => t.points.push(point),
                None => out.push(Trend {
                    id: r.id.clone(),
                    implementation,
                    points: vec![point],
                }),
            }
        }
    }
    out.retain(|t| t.points.len() >= 2);
    out
}

impl Page {
    pub(super) fn trend(&mut self, t: &Trend) {
        let pts: Vec<TrendPx> = t
            .points
            .iter()
            .map(|p| {
                let commit = p.git_commit.as_deref().map(|c| shorten(c, 12));
                TrendPx {
                    x_label: p
                        .started_at
                        .replace('T', " ")
                        .trim_end_matches('Z')
                        .to_string(),
                    x_sub: commit.clone().unwrap_or_else(|| p.run_id.clone()),
                    tip: format!(
                        "run {} · commit {} · {}: P50 {}, 95% CI {} – {}, n = {}",
                        p.run_id,
                        commit.as_deref().unwrap_or("unknown"),
                        p.started_at,
                        units::duration(p.p50_ns),
                        units::duration(p.ci_low_ns),
                        units::duration(p.ci_high_ns),
                        p.n
                    ),
                    y: p.p50_ns,
                    lo: p.ci_low_ns,
                    hi: p.ci_high_ns,
                }
            })
            .collect();
        let title = format!(
            "{} · {}: P50 over {} run{}",
            t.id,
            t.implementation,
            t.points.len(),
            if t.points.len() == 1 { "" } else { "s" }
        );
        let _ = write!(
            self.body,
            "<figure class=\"fig half\"><figcaption><h3>{} <span class=\"muted\">{}</span></h3></figcaption>",
            esc(&t.id),
            esc(&t.implementation)
        );
        if pts.iter().any(|p| p.y.is_finite() && p.y > 0.0) {
            self.body
                .push_str(&charts::trend_chart(&title, &pts, charts::HALF));
        } else {
            self.body
                .push_str("<p class=\"muted\">No timed point to draw.</p>");
        }
        self.body.push_str("</figure>");
    }
}
