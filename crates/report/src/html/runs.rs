//! Each run's card: the summary, the percentile table and a bar chart per
//! benchmark family.

use std::fmt::Write as _;

use super::*;

impl Page {
    pub(super) fn run_heading(&mut self, run: &Run) {
        let _ = write!(
            self.body,
            "<h3 class=\"run\">Run <code>{}</code> <span class=\"muted\">{}</span></h3>",
            esc(&run.run.id),
            esc(&run.run.started_at)
        );
    }

    pub(super) fn section_summary(&mut self, runs: &[RunInput<'_>]) {
        self.open("summary", "Summary");
        let wrong: Vec<(&Run, &BenchResult)> = runs
            .iter()
            .flat_map(|ri| {
                ri.run
                    .results
                    .iter()
                    .filter(|r| r.verification.status == VerificationStatus::Failed)
                    .map(move |r| (ri.run, r))
            })
            .collect();
        if !wrong.is_empty() {
            let _ = write!(
                self.body,
                "<div class=\"alert wrong-box\" role=\"alert\"><h3>WRONG: {} result{} differed from the test vector</h3>\
                 <p>These were not timed: a wrong answer has no speed.</p><ul>",
                wrong.len(),
                if wrong.len() == 1 { "" } else { "s" }
            );
            for (run, r) in &wrong {
                let _ = write!(
                    self.body,
                    "<li><span class=\"badge bad\">WRONG</span> <code>{}</code> · {}{}{}</li>",
                    esc(&r.id),
                    esc(&crate::compare::label(r)),
                    if runs.len() > 1 {
                        format!(" <span class=\"muted\">(run {})</span>", esc(&run.run.id))
                    } else {
                        String::new()
                    },
                    mismatch_text(r)
                        .map(|m| format!("<br><span class=\"mono small\">{}</span>", esc(&m)))
                        .unwrap_or_default()
                );
            }
            self.body.push_str("</ul></div>");
        }
        if runs.is_empty() {
            self.body
                .push_str("<p class=\"muted\">No runs were given to this report.</p>");
        }
        for ri in runs {
            self.run_card(ri);
        }
        self.close();
    }

    pub(super) fn run_card(&mut self, ri: &RunInput<'_>) {
        let run = ri.run;
        let info = &run.run;
        let e = &run.environment;
        let c = Counts::of(run);
        let status = if info.complete {
            "<span class=\"badge good\">complete</span>".to_string()
        } else {
            format!(
                "<span class=\"badge warn\">INCOMPLETE</span> <span class=\"warn-text\">{}</span>",
                esc(&crate::one_line(
                    info.incomplete_reason.as_deref().unwrap_or("stopped early")
                ))
            )
        };
        let _ = write!(
            self.body,
            "<article class=\"card\"><header><h3>Run <code>{}</code></h3>{status}</header>",
            esc(&info.id)
        );
        // Tiles: the counts a reader looks for first.
        self.body.push_str("<div class=\"tiles\">");
        let tile = |out: &mut String, n: String, what: &str, class: &str| {
            let _ = write!(
                out,
                "<div class=\"tile {class}\"><div class=\"n\">{}</div><div class=\"what\">{}</div></div>",
                esc(&n),
                esc(what)
            );
        };
        if c.results > 0 {
            tile(&mut self.body, c.results.to_string(), "results", "");
            tile(&mut self.body, c.measured.to_string(), "measured", "");
            tile(&mut self.body, c.verified.to_string(), "verified", "");
            tile(
                &mut self.body,
                c.wrong.to_string(),
                "WRONG",
                if c.wrong > 0 { "bad" } else { "quiet" },
            );
            if c.not_run > 0 {
                tile(&mut self.body, c.not_run.to_string(), "not run", "warn");
            }
            if c.targets > 0 {
                tile(&mut self.body, c.met.to_string(), "targets met", "good");
                tile(
                    &mut self.body,
                    c.missed.to_string(),
                    "targets missed",
                    if c.missed > 0 { "bad" } else { "quiet" },
                );
            }
        }
        for l in &run.load {
            tile(
                &mut self.body,
                format!("{}/{}", l.counts.included, l.planned),
                &format!("{} tx included", l.node.name),
                if l.counts.included < l.planned {
                    "warn"
                } else {
                    ""
                },
            );
            tile(
                &mut self.body,
                units::sig3(l.throughput.sustained),
                "tx/s sustained",
                "",
            );
            if let Some(inc) = l.latency.get("included") {
                tile(
                    &mut self.body,
                    units::duration(inc.p50 * 1e6),
                    "P50 to inclusion",
                    "",
                );
            }
        }
        self.body.push_str("</div><dl class=\"facts\">");
        let mut fact = |k: &str, v: String| {
            let _ = write!(self.body, "<dt>{}</dt><dd>{v}</dd>", esc(k));
        };
        fact(
            "when",
            format!(
                "{} → {}",
                esc(&info.started_at),
                esc(info.finished_at.as_deref().unwrap_or("not finished"))
            ),
        );
        fact(
            "dyno",
            format!(
                "{} · commit <code>{}</code>{}",
                esc(&info.dyno_version),
                esc(info.git_commit.as_deref().unwrap_or("unknown")),
                if info.settings.quick {
                    " · <span class=\"muted\">--quick</span>"
                } else {
                    ""
                }
            ),
        );
        if !info.command_line.is_empty() {
            fact(
                "command",
                format!("<code>{}</code>", esc(&info.command_line.join(" "))),
            );
        }
        fact(
            "machine",
            format!(
                "{} · {} cores · {} memory · {}",
                esc(&e.cpu_model),
                e.cores,
                esc(&gib(e.memory_bytes)),
                esc(&e.arch)
            ),
        );
        fact("os", format!("{} · kernel {}", esc(&e.os), esc(&e.kernel)));
        fact(
            "clock",
            format!(
                "{} · read {} · resolution {}",
                esc(&e.clock.source),
                esc(&units::duration(e.clock.read_cost_ns)),
                esc(&units::duration(e.clock.resolution_ns))
            ),
        );
        fact("rustc", esc(&e.rustc));
        if !e.runtimes.is_empty() {
            fact(
                "runtimes",
                e.runtimes
                    .iter()
                    .map(|(k, v)| format!("{} {}", esc(k), esc(v)))
                    .collect::<Vec<_>>()
                    .join(" · "),
            );
        }
        if c.results > 0 {
            fact(
                "benchmarks",
                format!(
                    "{} measured · {} verified · {} failed verification{}{}",
                    c.measured,
                    c.verified,
                    if c.wrong > 0 {
                        format!("<b class=\"bad-text\">{}</b>", c.wrong)
                    } else {
                        "0".into()
                    },
                    if c.not_run > 0 {
                        format!(" · {} not run", c.not_run)
                    } else {
                        String::new()
                    },
                    if c.incomplete > 0 {
                        format!(" · {} incomplete", c.incomplete)
                    } else {
                        String::new()
                    }
                ),
            );
        }
        for l in &run.load {
            fact(
                "load",
                format!(
                    "{} · {} · {} accounts · {} planned · {}{}",
                    esc(&load_label(l)),
                    esc(&l.node.version),
                    l.accounts,
                    l.planned,
                    esc(&l.schedule),
                    if l.complete {
                        String::new()
                    } else {
                        " · <b class=\"warn-text\">incomplete</b>".to_string()
                    }
                ),
            );
        }
        if c.targets > 0 {
            fact(
                "targets",
                format!(
                    "{} met · {}{}",
                    c.met,
                    if c.missed > 0 {
                        format!("<b class=\"bad-text\">{} missed</b>", c.missed)
                    } else {
                        "0 missed".into()
                    },
                    if c.targets > c.met + c.missed {
                        format!(" · {} not measured", c.targets - c.met - c.missed)
                    } else {
                        String::new()
                    }
                ),
            );
        }
        if let Some(h) = crate::rows::harness_line(run) {
            fact("harness overhead", esc(&h));
        }
        if let Some(g) = &ri.gas {
            fact(
                "gas",
                format!(
                    "{} priced rows · fork {} · flagged beyond ×{}",
                    g.rows.len(),
                    esc(&g.fork),
                    esc(&units::sig3(g.factor))
                ),
            );
        }
        self.body.push_str("</dl></article>");
    }

    pub(super) fn percentile_table(&mut self, run: &Run, multi: bool) {
        let blocks = crate::rows::blocks(run);
        let _ = write!(
            self.body,
            "<details{}><summary>{}{} results{}</summary><div class=\"scroll\"><table class=\"num\"><thead><tr>\
             <th>benchmark</th><th>implementation</th><th>P50</th><th>P95</th><th>P99</th><th>max</th>\
             <th>95% CI of median</th><th>n</th><th>ops/s</th><th>vs *</th><th class=\"txt\">target</th><th class=\"txt\">notes</th></tr></thead>",
            if run.results.len() > FOLD_TABLE {
                ""
            } else {
                " open"
            },
            if multi {
                format!("Run <code>{}</code> · ", esc(&run.run.id))
            } else {
                String::new()
            },
            run.results.len(),
            if run.results.len() > FOLD_TABLE {
                " <span class=\"muted\">(folded: click to open)</span>"
            } else {
                ""
            }
        );
        for b in &blocks {
            let _ = write!(self.body, "<tbody>");
            for (k, row) in b.rows.iter().enumerate() {
                let r = row.result;
                self.body.push_str("<tr>");
                if k == 0 {
                    let _ = write!(
                        self.body,
                        "<th scope=\"rowgroup\" rowspan=\"{}\" class=\"id\">{}</th>",
                        b.rows.len(),
                        esc(b.id).replace('/', "/<wbr>")
                    );
                }
                let _ = write!(
                    self.body,
                    "<td class=\"impl\">{}{} <span class=\"muted small\">{}</span></td>",
                    esc(&crate::compare::label(r)),
                    if r.baseline { " <b>*</b>" } else { "" },
                    esc(&r.implementation.version)
                );
                let target = target_cell(r);
                if r.verification.status == VerificationStatus::Failed {
                    let _ = write!(
                        self.body,
                        "<td colspan=\"8\" class=\"wrong-cell\"><span class=\"badge bad\">WRONG</span> output differed from the vector; not timed{}</td><td>{target}</td><td></td></tr>",
                        mismatch_text(r)
                            .map(|m| format!(
                                " <span class=\"mono small\">{}</span>",
                                esc(&shorten(&m, 240))
                            ))
                            .unwrap_or_default()
                    );
                    continue;
                }
                let note = crate::rows::note(r).map(|n| esc(&n)).unwrap_or_default();
                match r.stats.as_ref().filter(|s| s.p50.is_finite()) {
                    Some(s) => {
                        let d = |v: f64| esc(&units::duration(v));
                        let mark = if crate::rows::batch_tails(r) {
                            crate::rows::BATCH_MARK
                        } else {
                            ""
                        };
                        let t = |v: f64| format!("{}{mark}", d(v));
                        let _ = write!(
                            self.body,
                            "<td><b>{}</b></td><td>{}</td><td>{}</td><td>{}</td><td>{} <span class=\"muted small\">{}</span></td>\
                             <td>{}</td><td>{}</td><td>{}</td><td>{target}</td><td class=\"note\">{note}</td></tr>",
                            d(s.p50),
                            t(s.p95),
                            t(s.p99),
                            t(s.max),
                            esc(&range(s.median_ci.lower, s.median_ci.upper)),
                            esc(&units::plus_minus_pct(
                                (s.median_ci.upper - s.median_ci.lower) / 2.0 / s.p50
                            )),
                            s.n,
                            esc(&r.ops_per_sec.map_or_else(|| "-".into(), units::rate)),
                            esc(&row.ratio.map_or_else(|| "-".into(), units::ratio)),
                        );
                    }
                    None => {
                        let why = match r.verification.status {
                            VerificationStatus::NotRun => "not run",
                            _ if r.stats.is_some() => "no valid timing",
                            _ => "not timed",
                        };
                        let _ = write!(
                            self.body,
                            "<td colspan=\"8\" class=\"muted\">{why}</td><td>{target}</td><td class=\"note\">{note}</td></tr>"
                        );
                    }
                }
            }
            self.body.push_str("</tbody>");
        }
        self.body.push_str("</table></div>");
        if crate::rows::any_batch_tails(run) {
            let _ = write!(
                self.body,
                "<p class=\"muted small\">{}</p>",
                esc(crate::rows::BATCH_NOTE)
            );
        }
        self.body.push_str("</details>");
    }

    pub(super) fn family_chart(&mut self, run: &Run, f: &Family<'_>, wide: bool) {
        let mut labels: Vec<String> = Vec::new();
        // Baselines first, so an implementation keeps its colour.
        let mut ordered: Vec<&&BenchResult> = f.results.iter().collect();
        ordered.sort_by_key(|r| !r.baseline);
        for r in ordered {
            let l = crate::compare::label(r);
            if !labels.contains(&l) {
                labels.push(l);
            }
        }
        let bars: Vec<Bar> = f
            .results
            .iter()
            .map(|r| {
                let label = crate::compare::label(r);
                let series = labels.iter().position(|l| *l == label).unwrap_or(0);
                let value = if r.verification.status == VerificationStatus::Failed {
                    BarValue::Wrong
                } else if let Some(s) = &r.stats {
                    BarValue::Timed {
                        p50: s.p50,
                        lo: s.median_ci.lower,
                        hi: s.median_ci.upper,
                        n: s.n,
                    }
                } else {
                    BarValue::NotTimed(match r.verification.status {
                        VerificationStatus::NotRun => "not run".into(),
                        _ => "not timed".into(),
                    })
                };
                Bar {
                    group: input_of(&r.id).to_string(),
                    label,
                    series,
                    value,
                }
            })
            .collect();
        let title = format!(
            "{}: P50 per operation by input and implementation (run {})",
            f.name, run.run.id
        );
        // Small families share a row; large ones span the page.
        let (class, width) = if bars.len() <= SMALL_FAMILY && !wide {
            ("fig half", charts::HALF)
        } else {
            ("fig full", charts::FULL)
        };
        let (svg, log) = charts::bar_chart(&title, &bars, width);
        // The legend names the colours that are drawn.
        let timed: Vec<String> = labels
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let drawn = bars
                    .iter()
                    .any(|b| b.series == i && matches!(b.value, BarValue::Timed { .. }));
                if drawn { l.clone() } else { String::new() }
            })
            .collect();
        let _ = write!(
            self.body,
            "<figure class=\"{class}\"><figcaption><h3>{}</h3>{}{}</figcaption>{svg}</figure>",
            esc(f.name),
            legend(&timed),
            if log {
                "<span class=\"scale-note\">log scale</span>"
            } else {
                ""
            }
        );
    }
}

/// A family with at most this many results gets a half-width chart.
pub(super) const SMALL_FAMILY: usize = 8;

/// A run with more results than this shows its table folded.
pub(super) const FOLD_TABLE: usize = 80;

/// Results of a run by family, in first-seen order.
#[derive(Debug)]
pub(super) struct Family<'a> {
    pub(super) name: &'a str,
    pub(super) results: Vec<&'a BenchResult>,
}

/// `group/op` of `group/op/input`.
pub(super) fn family_of(id: &str) -> &str {
    id.rsplit_once('/').map_or(id, |(f, _)| f)
}

pub(super) fn input_of(id: &str) -> &str {
    id.rsplit_once('/').map_or("", |(_, i)| i)
}

/// The families with at least one timed result (the harness's own
/// benchmarks left out).
pub(super) fn families(run: &Run) -> Vec<Family<'_>> {
    let mut out: Vec<Family<'_>> = Vec::new();
    for r in run.results.iter().filter(|r| r.group() != "harness") {
        let name = family_of(&r.id);
        match out.iter_mut().find(|f| f.name == name) {
            Some(f) => f.results.push(r),
            None => out.push(Family {
                name,
                results: vec![r],
            }),
        }
    }
    out.retain(|f| {
        f.results.iter().any(|r| {
            r.verification.status != VerificationStatus::Failed
                && r.stats.as_ref().is_some_and(|s| s.p50.is_finite())
        })
    });
    out
}

/// How many results a run has of each kind.
#[derive(Debug, Default)]
pub(super) struct Counts {
    pub(super) results: usize,
    pub(super) measured: usize,
    pub(super) verified: usize,
    pub(super) wrong: usize,
    pub(super) not_run: usize,
    pub(super) incomplete: usize,
    pub(super) targets: usize,
    pub(super) met: usize,
    pub(super) missed: usize,
}

impl Counts {
    fn of(run: &Run) -> Self {
        let mut c = Counts {
            results: run.results.len(),
            ..Counts::default()
        };
        for r in &run.results {
            match r.verification.status {
                VerificationStatus::Passed => c.verified += 1,
                VerificationStatus::Failed => c.wrong += 1,
                VerificationStatus::NotRun => c.not_run += 1,
            }
            if r.stats.is_some() && r.verification.status != VerificationStatus::Failed {
                c.measured += 1;
            }
            if r.incomplete_reason.is_some() {
                c.incomplete += 1;
            }
            if let Some(t) = &r.target {
                c.targets += 1;
                match t.met {
                    Some(true) => c.met += 1,
                    Some(false) => c.missed += 1,
                    None => {}
                }
            }
        }
        c
    }
}

pub(super) fn mismatch_text(r: &BenchResult) -> Option<String> {
    r.verification.mismatch.as_ref().map(|m| {
        format!(
            "case {}: expected {}, got {}",
            shorten(&m.case, 80),
            shorten(&m.expected, 120),
            shorten(&m.actual, 120)
        )
    })
}

/// `1.20 – 1.30 µs`, or both units when they differ.
pub(super) fn range(lo: f64, hi: f64) -> String {
    let (a, b) = (units::duration(lo), units::duration(hi));
    match (a.split_once(' '), b.split_once(' ')) {
        (Some((x, ua)), Some((y, ub))) if ua == ub => format!("{x} – {y} {ub}"),
        _ => format!("{a} – {b}"),
    }
}

pub(super) fn target_cell(r: &BenchResult) -> String {
    let Some(t) = &r.target else {
        return String::new();
    };
    let what = format!("{} ≤ {}", t.stat, svg::tick_duration(t.limit_ns));
    let status = if r.verification.status == VerificationStatus::Failed {
        "<span class=\"badge bad\">WRONG</span>"
    } else {
        match t.met {
            Some(true) => "<span class=\"badge good\">met</span>",
            Some(false) => "<span class=\"badge bad\">missed</span>",
            None => "<span class=\"muted\">not measured</span>",
        }
    };
    format!("<span class=\"small\">{}</span> {status}", esc(&what))
}

/// Colour swatches for `labels` (by position; empty ones are skipped).
pub(super) fn legend(labels: &[String]) -> String {
    if labels.iter().filter(|l| !l.is_empty()).count() < 2 {
        return String::new();
    }
    let mut s = String::from("<div class=\"legend\">");
    for (i, l) in labels.iter().enumerate().filter(|(_, l)| !l.is_empty()) {
        let _ = write!(
            s,
            "<span><i class=\"sw b{}\"></i>{}</span>",
            i % PALETTE,
            esc(l)
        );
    }
    s.push_str("</div>");
    s
}

pub(super) fn gib(bytes: u64) -> String {
    let g = bytes as f64 / (1024.0 * 1024.0 * 1024.0);
    if g >= 1.0 {
        format!("{} GiB", units::sig3(g))
    } else {
        units::bytes(bytes as f64)
    }
}
