//! The state section: each access kind's cost against state size, one
//! line per implementation and page-cache state.

use std::fmt::Write as _;

use dyno_format::gas::Estimate;

use super::*;

/// Whether `run` holds a timed state-access result.
pub(super) fn has_state(run: &Run) -> bool {
    run.results.iter().any(|r| point(r).is_some())
}

/// A state result's access, accounts, evicted flag and time.
fn point(r: &BenchResult) -> Option<(&str, u64, bool, Estimate)> {
    let mut parts = r.id.splitn(3, '/');
    let (Some("state"), Some(access), Some(input)) = (parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    let (n, evicted) = dyno_format::state::input_parts(input)?;
    Some((access, n, evicted, Estimate::of(r)?))
}

impl Page {
    pub(super) fn state(&mut self, run: &Run, multi: bool) {
        if multi {
            self.run_heading(run);
        }
        let points: Vec<(&str, u64, bool, Estimate, &str)> = run
            .results
            .iter()
            .filter_map(|r| {
                point(r).map(|(a, n, e, t)| (a, n, e, t, r.implementation.name.as_str()))
            })
            .collect();
        let mut accesses: Vec<&str> = Vec::new();
        let mut series_keys: Vec<(&str, bool)> = Vec::new();
        for (a, _, e, _, imp) in &points {
            if !accesses.contains(a) {
                accesses.push(a);
            }
            if !series_keys.contains(&(imp, *e)) {
                series_keys.push((imp, *e));
            }
        }
        series_keys.sort();
        self.push("<div class=\"grid\">");
        for access in accesses {
            let series: Vec<SizeSeries> = series_keys
                .iter()
                .enumerate()
                .filter_map(|(k, &(imp, evicted))| {
                    let mut pts: Vec<(f64, f64, f64, f64, String)> = points
                        .iter()
                        .filter(|p| p.0 == access && p.4 == imp && p.2 == evicted)
                        .map(|&(_, n, _, t, _)| {
                            let tip = format!(
                                "{access}, {n} accounts, {imp}, page cache {}: {} [{} – {}] per access",
                                if evicted { "evicted" } else { "warm" },
                                units::duration(t.value),
                                units::duration(t.lower),
                                units::duration(t.upper)
                            );
                            (n as f64, t.value, t.lower, t.upper, tip)
                        })
                        .collect();
                    if pts.is_empty() {
                        return None;
                    }
                    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                    Some(SizeSeries {
                        label: format!(
                            "{imp}, {}",
                            if evicted { "evicted" } else { "warm" }
                        ),
                        colour: k,
                        dashed: evicted,
                        points: pts,
                    })
                })
                .collect();
            let title = format!("{access}: per access against accounts, log–log");
            let _ = write!(
                self.body,
                "<figure class=\"fig half\"><figcaption><h3>{}</h3></figcaption>{}</figure>",
                esc(access),
                charts::size_chart(&title, &series, charts::HALF)
            );
        }
        self.push("</div>");
    }
}
