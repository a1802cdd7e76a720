//! The `dyno list` view: what the specs define, one row per benchmark.

use std::fmt::Write as _;

use crate::units::duration;

/// One benchmark the specs define.
#[derive(Debug, Clone)]
pub struct Listed {
    pub id: String,
    pub implementation: String,
    /// The id's baseline implementation (marked `*`).
    pub baseline: bool,
    /// The implementation's version, `?` when no suite builds it.
    pub version: String,
    /// The spec's target: the statistic's name and its limit (ns).
    pub target: Option<(String, f64)>,
    /// The regression threshold, a fraction.
    pub threshold: f64,
    /// In the default run (its spec says `default = true`).
    pub default: bool,
}

/// Aligned columns: id, impl, version, target, threshold.
pub fn text(rows: &[Listed]) -> String {
    let cells: Vec<[String; 5]> = rows
        .iter()
        .map(|e| {
            let star = if e.baseline { " *" } else { "" };
            let target = e
                .target
                .as_ref()
                .map(|(stat, limit)| format!("{stat} ≤ {}", duration(*limit)))
                .unwrap_or_else(|| "-".into());
            let default = if e.default {
                ""
            } else {
                "  (not in default run)"
            };
            [
                e.id.clone(),
                format!("{}{star}", e.implementation),
                e.version.clone(),
                target,
                format!("{:.0}%{default}", e.threshold * 100.0),
            ]
        })
        .collect();
    let headers = ["id", "impl", "version", "target", "threshold"].map(String::from);
    let mut width = headers.clone().map(|h| h.chars().count());
    for r in &cells {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: &[String; 5]| {
        let mut s = String::new();
        for (c, w) in cells.iter().zip(width) {
            let pad = w.saturating_sub(c.chars().count());
            let _ = write!(s, "{c}{}  ", " ".repeat(pad));
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(&headers);
    for r in &cells {
        out.push_str(&line(r));
    }
    out
}
