//! One self-contained HTML page for a set of runs: a summary, percentile
//! tables, a bar chart per benchmark family, calculated against nominal
//! gas, the load lab's plots and tables, and trends over runs.
//!
//! The page loads nothing: the CSS and a few lines of script are inline,
//! every chart is inline SVG drawn here (see `html/svg.rs` and
//! `html/charts.rs`), and a Content-Security-Policy forbids any fetch.
//! Every string from the data is escaped. A wrong result (verification
//! failed) reads WRONG wherever it appears and is never shown as a time.

use std::fmt::Write as _;
use std::path::Path;

use dyno_format::gas::{Pricing as Flag, Row as GasRow};
use dyno_format::load::{LatencyStats, LoadResult};
use dyno_format::{BenchResult, Run, VerificationStatus};

use crate::units;

mod assets;
mod charts;
mod svg;

use assets::{CSS, SCRIPT};
use charts::{Bar, BarValue, GasPoint, PALETTE, Pricing, TrendPx, shorten};
use svg::esc;

/// Everything one page shows.
#[derive(Debug, Clone)]
pub struct HtmlInput<'a> {
    /// The page's title.
    pub title: String,
    /// When the page was made, as the caller wants it shown (RFC 3339).
    pub generated_at: String,
    /// The runs, each with what was derived from it.
    pub runs: Vec<RunInput<'a>>,
    /// P50 over runs, one chart each (see [`trends`]).
    pub trends: Vec<Trend>,
}

/// One run and what goes with it.
#[derive(Debug, Clone)]
pub struct RunInput<'a> {
    /// The run.
    pub run: &'a Run,
    /// The priced gas table, for a run that holds precompile results.
    pub gas: Option<GasInput>,
    /// The load plots as `(caption, svg text)` (see [`load_svgs`]).
    pub load_svgs: Vec<(String, String)>,
}

/// A run's gas table, priced by `dyno_evm::pricing::price_run`.
#[derive(Debug, Clone)]
pub struct GasInput {
    /// The priced rows.
    pub rows: Vec<GasRow>,
    /// The fork whose schedule gave nominal gas.
    pub fork: String,
    /// The mispricing factor the rows were flagged with.
    pub factor: f64,
    /// Results that could not be priced, with the reason.
    pub left_out: Vec<String>,
}

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

/// The SVG plots of each load result in `run`, read from `dir` (the
/// folder of the run's JSON) as `(caption, svg text)`, in the order the
/// result's `files` numbers them. A file that is missing or unreadable
/// gives a caption saying so and empty text; never an error. The XML
/// prolog and namespace declarations are stripped so the text inlines.
pub fn load_svgs(run: &Run, dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for l in &run.load {
        let mut plots: Vec<(u64, &String)> = l
            .files
            .iter()
            .filter_map(|(k, v)| {
                let n = k.strip_prefix("plot")?.parse::<u64>().ok()?;
                v.to_ascii_lowercase().ends_with(".svg").then_some((n, v))
            })
            .collect();
        plots.sort();
        for (_, name) in plots {
            let what = plot_kind(name);
            let caption = format!("{} · {what} ({name})", load_label(l));
            if name.contains('/') || name.contains('\\') || name.starts_with('.') {
                out.push((
                    format!("{caption}: not read (not a plain file name)"),
                    String::new(),
                ));
                continue;
            }
            match std::fs::read_to_string(dir.join(name)) {
                Ok(text) => match clean_svg(&text) {
                    Ok(svg) => out.push((caption, svg)),
                    Err(why) => {
                        out.push((format!("{caption}: not inlined ({why})"), String::new()))
                    }
                },
                Err(e) => out.push((format!("{caption}: could not be read ({e})"), String::new())),
            }
        }
    }
    out
}

fn plot_kind(name: &str) -> &'static str {
    let n = name.to_ascii_lowercase();
    if n.ends_with("-latency.svg") {
        "latency over the run"
    } else if n.ends_with("-throughput.svg") {
        "throughput"
    } else if n.ends_with("-histogram.svg") {
        "latency histogram"
    } else {
        "plot"
    }
}

fn load_label(l: &LoadResult) -> String {
    format!("{} ({}-signed) · {}", l.node.name, l.signer, l.id)
}

/// SVG text made fit to inline: from the root `<svg` to its end, without
/// namespace declarations. Refuses anything that could fetch or run.
fn clean_svg(text: &str) -> Result<String, &'static str> {
    let start = text.find("<svg").ok_or("no <svg> element")?;
    let end = text
        .rfind("</svg>")
        .map(|i| i + "</svg>".len())
        .ok_or("no </svg> end tag")?;
    if end <= start {
        return Err("no <svg> element");
    }
    let mut s = text[start..end].to_string();
    // Namespace declarations are implied for inline SVG in HTML.
    let mut from = 0;
    while let Some(found) = s[from..].find(" xmlns") {
        let i = from + found;
        // ` xmlns="…"` or ` xmlns:name='…'`, nothing else.
        let rest = &s[i + " xmlns".len()..];
        let name_len = rest.strip_prefix(':').map_or(0, |r| {
            1 + r.chars().take_while(char::is_ascii_alphanumeric).count()
        });
        let after = &rest[name_len..];
        let quote = match after.as_bytes() {
            [b'=', q @ (b'"' | b'\''), ..] => *q as char,
            _ => {
                from = i + 1;
                continue;
            }
        };
        let Some(close) = after[2..].find(quote) else {
            break;
        };
        let end = i + " xmlns".len() + name_len + 2 + close + 1;
        s.replace_range(i..end, "");
        from = i;
    }
    let lower = s.to_ascii_lowercase();
    for bad in [
        "<script",
        "<foreignobject",
        "<image",
        "<iframe",
        "http:",
        "https:",
        "javascript:",
        "@import",
        " on",
    ] {
        if bad == " on" {
            // Event handler attributes: ` onload=`, ` onclick=`...
            let mut from = 0;
            while let Some(i) = lower[from..].find(" on") {
                let at = from + i + 3;
                let word: String = lower[at..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphabetic())
                    .collect();
                if !word.is_empty() && lower[at + word.len()..].trim_start().starts_with('=') {
                    return Err("it has event handlers");
                }
                from = at;
            }
        } else if lower.contains(bad) {
            return Err("it refers to outside resources or scripts");
        }
    }
    Ok(s)
}

/// Give an inlined plot the chart class, an accessible label and a title,
/// and a viewBox so it scales.
fn decorate_svg(svg: &str, caption: &str) -> Option<String> {
    let svg = clean_svg(svg).ok()?;
    // The end of the root start tag, outside quotes.
    let mut quote: Option<char> = None;
    let mut end = None;
    for (i, c) in svg.char_indices().skip(4) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '>') => {
                end = Some(i);
                break;
            }
            _ => {}
        }
    }
    let end = end?;
    let self_closing = svg[..end].ends_with('/');
    let tag_end = if self_closing { end - 1 } else { end };
    let mut tag = svg[4..tag_end].to_string();
    let lower = tag.to_ascii_lowercase();
    if !lower.contains("viewbox") {
        let attr = |name: &str| -> Option<f64> {
            let key = format!(" {name}=\"");
            let i = tag.find(&key)? + key.len();
            let v: String = tag[i..]
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            v.parse().ok()
        };
        if let (Some(w), Some(h)) = (attr("width"), attr("height")) {
            tag.push_str(&format!(" viewBox=\"0 0 {} {}\"", svg::num(w), svg::num(h)));
        }
    }
    let class = if lower.contains(" class=\"") {
        tag = tag.replacen(" class=\"", " class=\"chart plot ", 1);
        String::new()
    } else {
        " class=\"chart plot\"".to_string()
    };
    let c = esc(caption);
    let body = if self_closing {
        String::from("</svg>")
    } else {
        svg[end + 1..].to_string()
    };
    Some(format!(
        "<svg{tag}{class} role=\"img\" aria-label=\"{c}\"><title>{c}</title>{body}"
    ))
}

/// The page.
pub fn render(input: &HtmlInput<'_>) -> String {
    let mut page = Page::default();
    let runs = &input.runs;
    let multi = runs.len() > 1;

    page.section_summary(runs);
    if runs.iter().any(|r| !r.run.results.is_empty()) {
        page.open("percentiles", "Percentiles");
        page.push(
            "<p class=\"lede\">Time per operation for each benchmark and implementation. \
             The 95% confidence interval is that of the median; <b>*</b> marks the baseline \
             an id's other implementations are compared with (“vs *” is P50 / baseline P50).</p>",
        );
        for ri in runs.iter().filter(|r| !r.run.results.is_empty()) {
            page.percentile_table(ri.run, multi);
        }
        page.close();
    }
    let families: Vec<(&Run, Vec<Family<'_>>)> = runs
        .iter()
        .map(|ri| (ri.run, families(ri.run)))
        .filter(|(_, f)| !f.is_empty())
        .collect();
    if !families.is_empty() {
        page.open("families", "By family");
        page.push(
            "<p class=\"lede\">One chart per benchmark family (the id without its input): \
             bars at the P50, whiskers over the 95% CI of the median, a log axis where the \
             values span more than two decades. Hover a bar for the figures.</p>",
        );
        for (run, fams) in &families {
            if multi {
                page.run_heading(run);
            }
            page.push("<div class=\"grid\">");
            // Small charts pair up; an odd one out spans the row.
            let small: Vec<usize> = fams
                .iter()
                .enumerate()
                .filter(|(_, f)| f.results.len() <= SMALL_FAMILY)
                .map(|(i, _)| i)
                .collect();
            let lone = (small.len() % 2 == 1).then(|| small[small.len() - 1]);
            for (i, f) in fams.iter().enumerate() {
                page.family_chart(run, f, Some(i) == lone);
            }
            page.push("</div>");
        }
        page.close();
    }
    if runs
        .iter()
        .any(|r| r.gas.as_ref().is_some_and(|g| !g.rows.is_empty()))
    {
        page.open("gas", "Calculated vs nominal gas");
        for ri in runs {
            if let Some(g) = ri.gas.as_ref().filter(|g| !g.rows.is_empty()) {
                page.gas(ri.run, g, multi);
            }
        }
        page.close();
    }
    if runs
        .iter()
        .any(|r| !r.run.load.is_empty() || !r.load_svgs.is_empty())
    {
        page.open("load", "Load");
        for ri in runs {
            if !ri.run.load.is_empty() || !ri.load_svgs.is_empty() {
                page.load(ri, multi);
            }
        }
        page.close();
    }
    if runs.iter().any(|r| !crate::memory::rows(r.run).is_empty()) {
        page.open("memory", "Memory");
        page.push(
            "<p class=\"lede\">Peak RSS of the process each benchmark ran in (dyno's own, or the \
             worker's), over its verification, warm-up and measurement; GC during the timed runs. \
             Limits: peak under 2 GB, GC overhead under 5%.</p>",
        );
        for ri in runs {
            let rows = crate::memory::rows(ri.run);
            if rows.is_empty() {
                continue;
            }
            if multi {
                page.run_heading(ri.run);
            }
            page.memory(&rows);
        }
        page.close();
    }
    if !input.trends.is_empty() {
        page.open("trends", "Trends");
        page.push(
            "<p class=\"lede\">P50 per run, oldest first, with the 95% CI of the median as a band. \
             Hover a point for its run id and commit.</p>",
        );
        page.push("<div class=\"grid\">");
        for t in &input.trends {
            page.trend(t);
        }
        page.push("</div>");
        page.close();
    }
    page.finish(input)
}

/// The page under construction: its sections and table of contents.
#[derive(Debug, Default)]
struct Page {
    body: String,
    toc: Vec<(String, String)>,
    charts: usize,
}

impl Page {
    fn push(&mut self, s: &str) {
        self.body.push_str(s);
    }

    fn open(&mut self, id: &str, title: &str) {
        self.toc.push((id.to_string(), title.to_string()));
        let _ = write!(self.body, "<section id=\"{id}\"><h2>{}</h2>", esc(title));
    }

    fn close(&mut self) {
        self.body.push_str("</section>");
    }

    fn chart_id(&mut self) -> String {
        self.charts += 1;
        format!("c{}", self.charts)
    }

    fn memory(&mut self, rows: &[crate::memory::MemRow]) {
        let _ = write!(
            self.body,
            "<div class=\"scroll\"><table class=\"num\"><thead><tr><th>id</th><th>implementation</th>{}</tr></thead><tbody>",
            crate::memory::HEADERS
                .iter()
                .map(|h| format!("<th>{h}</th>"))
                .collect::<String>()
        );
        for r in rows {
            let _ = write!(
                self.body,
                "<tr><td><code>{}</code></td><td>{}</td>{}<td>{}</td></tr>",
                esc(&r.id),
                esc(&r.implementation),
                r.cells()
                    .iter()
                    .map(|c| format!("<td>{}</td>", esc(c)))
                    .collect::<String>(),
                r.verdict(("<b>", "</b>"))
            );
        }
        self.push("</tbody></table></div>");
    }

    fn run_heading(&mut self, run: &Run) {
        let _ = write!(
            self.body,
            "<h3 class=\"run\">Run <code>{}</code> <span class=\"muted\">{}</span></h3>",
            esc(&run.run.id),
            esc(&run.run.started_at)
        );
    }

    fn section_summary(&mut self, runs: &[RunInput<'_>]) {
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

    fn run_card(&mut self, ri: &RunInput<'_>) {
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

    fn percentile_table(&mut self, run: &Run, multi: bool) {
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
                        let _ = write!(
                            self.body,
                            "<td><b>{}</b></td><td>{}</td><td>{}</td><td>{}</td><td>{} <span class=\"muted small\">{}</span></td>\
                             <td>{}</td><td>{}</td><td>{}</td><td>{target}</td><td class=\"note\">{note}</td></tr>",
                            d(s.p50),
                            d(s.p95),
                            d(s.p99),
                            d(s.max),
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
        self.body.push_str("</table></div></details>");
    }

    fn family_chart(&mut self, run: &Run, f: &Family<'_>, wide: bool) {
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

    fn gas(&mut self, run: &Run, g: &GasInput, multi: bool) {
        if multi {
            self.run_heading(run);
        }
        let factor = if g.factor.is_finite() && g.factor > 1.0 {
            g.factor
        } else {
            2.0
        };
        let _ = write!(
            self.body,
            "<p class=\"lede\">Calculated gas = ns × 3000 / ns(ECRECOVER): what each input would cost if \
             gas paid for time at ECRECOVER's rate. Nominal gas is the {} schedule's price. \
             A point above the band is underpriced (slower than its gas pays for), below it overpriced; \
             the band is ×{} either side of y = x. Whiskers: 95% interval of calculated gas.</p>",
            esc(&g.fork),
            esc(&units::sig3(factor))
        );
        let mut points = Vec::new();
        let mut off_axis = Vec::new();
        for r in &g.rows {
            let name = row_name(r);
            let plotted = r.nominal_gas > 0
                && r.calculated_gas.value.is_finite()
                && r.calculated_gas.value > 0.0;
            if !plotted {
                off_axis.push(format!("{name} {}", r.input));
                continue;
            }
            let nominal = r.nominal_gas as f64;
            let ratio = r.calculated_gas.value / nominal;
            let pricing = match r.flag {
                Some(Flag::Under) => Pricing::Under,
                Some(Flag::Over) => Pricing::Over,
                None if ratio > factor => Pricing::Under,
                None if ratio < 1.0 / factor => Pricing::Over,
                None => Pricing::Within,
            };
            points.push(GasPoint {
                label: format!("{} {}", r.name, shorten(&r.input, 16)),
                tip: format!(
                    "{name} {}: nominal {} gas, calculated {} [{}–{}] (×{}), {} direct, {} MGas/s",
                    r.input,
                    r.nominal_gas,
                    units::sig3(r.calculated_gas.value),
                    units::sig3(r.calculated_gas.lower),
                    units::sig3(r.calculated_gas.upper),
                    units::sig3(ratio),
                    units::duration(r.direct_ns.value),
                    units::sig3(r.mgas_per_s.value)
                ),
                nominal,
                calc: r.calculated_gas.value,
                lo: r.calculated_gas.lower,
                hi: r.calculated_gas.upper,
                pricing,
                opcode: r.kind == "opcode",
            });
        }
        let uid = format!("clip-{}", self.chart_id());
        let title = format!(
            "Calculated against nominal gas, log–log, {} (run {})",
            g.fork, run.run.id
        );
        let _ = write!(
            self.body,
            "<figure class=\"fig\">{}</figure>",
            charts::gas_scatter(&title, &uid, &points, factor)
        );
        if !off_axis.is_empty() {
            let _ = write!(
                self.body,
                "<p class=\"muted small\">Not on the log axes (zero gas or no time): {}</p>",
                esc(&off_axis.join(", "))
            );
        }
        self.body.push_str(
            "<div class=\"scroll\"><table class=\"num\"><thead><tr><th>precompile / opcode</th><th>input</th>\
             <th>nominal gas</th><th>ns direct</th><th>ns bytecode</th><th>calculated gas [95% CI]</th>\
             <th>calc / nominal</th><th>MGas/s</th><th class=\"txt\">pricing</th></tr></thead><tbody>",
        );
        for r in &g.rows {
            let ratio = if r.nominal_gas > 0 {
                units::sig3(r.calculated_gas.value / r.nominal_gas as f64)
            } else {
                "-".into()
            };
            let flag = match r.flag {
                Some(f) if r.nominal_gas == 0 => {
                    format!("<span class=\"badge bad\">{} (free)</span>", f.as_str())
                }
                Some(Flag::Under) => "<span class=\"badge bad\">underpriced</span>".into(),
                Some(Flag::Over) => "<span class=\"badge info\">overpriced</span>".into(),
                None => String::new(),
            };
            let _ = write!(
                self.body,
                "<tr><td class=\"txt\">{}</td><td class=\"txt\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"txt\">{flag}</td></tr>",
                esc(&row_name(r)),
                esc(&r.input),
                r.nominal_gas,
                esc(&time_ci(&r.direct_ns)),
                esc(&r.bytecode_ns.as_ref().map_or("-".into(), time_ci)),
                esc(&gas_ci(&r.calculated_gas)),
                esc(&ratio),
                esc(&units::rate(r.mgas_per_s.value)),
            );
        }
        self.body.push_str("</tbody></table></div>");
        if !g.left_out.is_empty() {
            let _ = write!(
                self.body,
                "<p class=\"muted small\">Not priced: {}</p>",
                esc(&g.left_out.join("; "))
            );
        }
    }

    fn load(&mut self, ri: &RunInput<'_>, multi: bool) {
        if multi {
            self.run_heading(ri.run);
        }
        for l in &ri.run.load {
            self.load_result(l);
        }
        if !ri.load_svgs.is_empty() {
            self.body.push_str("<div class=\"plots\">");
            for (caption, text) in &ri.load_svgs {
                match decorate_svg(text, caption) {
                    Some(svg) => {
                        let _ = write!(
                            self.body,
                            "<figure class=\"plot\">{svg}<figcaption>{}</figcaption></figure>",
                            esc(caption)
                        );
                    }
                    None => {
                        let _ = write!(
                            self.body,
                            "<p class=\"muted small\">Plot not shown: {}</p>",
                            esc(caption)
                        );
                    }
                }
            }
            self.body.push_str("</div>");
        }
    }

    fn load_result(&mut self, l: &LoadResult) {
        let c = &l.counts;
        let _ = write!(
            self.body,
            "<h3>{} <span class=\"muted\">{}</span></h3>",
            esc(&load_label(l)),
            esc(&l.node.version)
        );
        if !l.complete {
            let _ = write!(
                self.body,
                "<p><span class=\"badge warn\">INCOMPLETE</span> {}</p>",
                esc(&crate::one_line(
                    l.incomplete_reason.as_deref().unwrap_or("cut short")
                ))
            );
        }
        let t = &l.throughput;
        let g = &l.generator;
        let _ = write!(
            self.body,
            "<div class=\"scroll\"><table class=\"num\"><thead><tr><th>schedule</th><th>planned</th><th>submitted</th><th>accepted</th>\
             <th>rejected</th><th>included</th><th>safe</th><th>finalized</th><th>pending</th><th>dropped</th><th>reverted</th>\
             <th>sustained tx/s</th><th>average tx/s</th><th>peak 1 s</th><th>sent tx/s</th></tr></thead><tbody><tr>\
             <td class=\"txt\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td><b>{}</b></td><td>{}</td><td>{}</td><td>{}</td></tr></tbody></table></div>",
            esc(&l.schedule),
            l.planned,
            c.submitted,
            c.accepted,
            flag_count(c.rejected),
            c.included,
            c.safe,
            c.finalized,
            flag_count(c.pending),
            flag_count(c.dropped),
            flag_count(c.reverted),
            esc(&units::sig3(t.sustained)),
            esc(&units::sig3(t.average)),
            esc(&units::sig3(t.peak_1s)),
            esc(&units::sig3(t.sent_average)),
        );
        let stages = ["accepted", "included", "safe", "finalized"];
        let mut names: Vec<&str> = stages
            .iter()
            .copied()
            .filter(|s| l.latency.contains_key(*s))
            .collect();
        names.extend(
            l.latency
                .keys()
                .map(String::as_str)
                .filter(|k| !stages.contains(k)),
        );
        if !names.is_empty() {
            self.body.push_str(
                "<div class=\"scroll\"><table class=\"num\"><thead><tr><th>latency from intended send</th><th>n</th>\
                 <th>P50</th><th>P90</th><th>P95</th><th>P99</th><th>P99.9</th><th>max</th><th>mean</th><th>P50 95% CI</th></tr></thead><tbody>",
            );
            for name in names {
                if let Some(s) = l.latency.get(name) {
                    self.latency_row(name, s);
                }
            }
            self.latency_row("generator lag", &g.lag);
            self.body.push_str("</tbody></table></div>");
        }
        let mut facts: Vec<String> = Vec::new();
        if let Some(cs) = &l.chain_scan {
            facts.push(format!(
                "chain scan of blocks {}–{}: {} found, {}",
                cs.from_block,
                cs.to_block,
                cs.found,
                if cs.matches {
                    "matches the count included".to_string()
                } else {
                    "does NOT match the count included".to_string()
                }
            ));
        }
        if let Some(b) = &l.block_summary {
            facts.push(format!(
                "{} blocks · {} mean tx per block (max {}) · {}% mean gas fill · {} s median interval",
                b.blocks,
                units::sig3(b.mean_txs),
                b.max_txs,
                units::sig3(b.mean_gas_fill * 100.0),
                units::sig3(b.median_interval_s)
            ));
        }
        if let Some(r) = &l.resources {
            facts.push(format!(
                "node CPU {}% mean, {}% max (of one core) · RSS {} peak",
                units::sig3(r.cpu_mean_pct),
                units::sig3(r.cpu_max_pct),
                units::bytes(r.rss_max_bytes as f64)
            ));
        }
        facts.push(format!(
            "generator: {} connections · {}% of sends later than {} ms{}{}",
            g.connections,
            units::sig3(g.late_fraction * 100.0),
            units::sig3(g.lag_threshold_ms),
            g.self_test_rate
                .map(|r| format!(" · null-sink ceiling {} req/s", units::rate(r)))
                .unwrap_or_default(),
            if g.saturated {
                " · SATURATED: the generator, not the node, set the pace"
            } else {
                ""
            }
        ));
        if let Some(s) = &l.signing {
            facts.push(format!(
                "pre-signing: {} tx/s serial, {} tx/s on {} threads",
                units::rate(s.serial_tx_per_s),
                units::rate(s.parallel_tx_per_s),
                s.threads
            ));
        }
        facts.push(format!("duration {} s", units::sig3(l.duration_s)));
        facts.extend(
            l.notes
                .iter()
                .map(|n| format!("note: {}", crate::one_line(n))),
        );
        self.body.push_str("<ul class=\"facts-list\">");
        for f in facts {
            let _ = write!(self.body, "<li>{}</li>", esc(&f));
        }
        self.body.push_str("</ul>");
    }

    fn latency_row(&mut self, name: &str, s: &LatencyStats) {
        let m = |v: f64| esc(&units::duration(v * 1e6));
        let _ = write!(
            self.body,
            "<tr><td class=\"txt\">{}</td><td>{}</td><td><b>{}</b></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(name),
            s.n,
            m(s.p50),
            m(s.p90),
            m(s.p95),
            m(s.p99),
            m(s.p999),
            m(s.max),
            m(s.mean),
            s.p50_ci
                .as_ref()
                .map(|i| format!("{} – {}", m(i.lower), m(i.upper)))
                .unwrap_or_else(|| "-".into())
        );
    }

    fn trend(&mut self, t: &Trend) {
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

    fn finish(self, input: &HtmlInput<'_>) -> String {
        let mut out = String::with_capacity(self.body.len() + 12_000);
        let title = esc(&input.title);
        let _ = write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <meta name=\"color-scheme\" content=\"light dark\">\
             <title>{title}</title><style>{CSS}</style></head><body>\
             <header class=\"top\"><h1>{title}</h1><p class=\"muted\">Generated {} by dyno · {} run{}</p><nav>",
            esc(&input.generated_at),
            input.runs.len(),
            if input.runs.len() == 1 { "" } else { "s" }
        );
        for (id, name) in &self.toc {
            let _ = write!(out, "<a href=\"#{id}\">{}</a>", esc(name));
        }
        out.push_str("</nav></header><main>");
        out.push_str(&self.body);
        out.push_str(
            "</main><footer class=\"muted small\">Every result was checked against a test vector before it was timed; \
             WRONG marks one that was not. Times are per operation; CI is the distribution-free 95% confidence \
             interval of the median. This page is self-contained: it loads nothing.</footer>",
        );
        out.push_str(SCRIPT);
        out.push_str("</body></html>\n");
        out
    }
}

/// A family with at most this many results gets a half-width chart.
const SMALL_FAMILY: usize = 8;

/// A run with more results than this shows its table folded.
const FOLD_TABLE: usize = 80;

/// Results of a run by family, in first-seen order.
#[derive(Debug)]
struct Family<'a> {
    name: &'a str,
    results: Vec<&'a BenchResult>,
}

/// `group/op` of `group/op/input`.
fn family_of(id: &str) -> &str {
    id.rsplit_once('/').map_or(id, |(f, _)| f)
}

fn input_of(id: &str) -> &str {
    id.rsplit_once('/').map_or("", |(_, i)| i)
}

/// The families with at least one timed result (the harness's own
/// benchmarks left out).
fn families(run: &Run) -> Vec<Family<'_>> {
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
struct Counts {
    results: usize,
    measured: usize,
    verified: usize,
    wrong: usize,
    not_run: usize,
    incomplete: usize,
    targets: usize,
    met: usize,
    missed: usize,
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

fn mismatch_text(r: &BenchResult) -> Option<String> {
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
fn range(lo: f64, hi: f64) -> String {
    let (a, b) = (units::duration(lo), units::duration(hi));
    match (a.split_once(' '), b.split_once(' ')) {
        (Some((x, ua)), Some((y, ub))) if ua == ub => format!("{x} – {y} {ub}"),
        _ => format!("{a} – {b}"),
    }
}

fn target_cell(r: &BenchResult) -> String {
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
fn legend(labels: &[String]) -> String {
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

fn gib(bytes: u64) -> String {
    let g = bytes as f64 / (1024.0 * 1024.0 * 1024.0);
    if g >= 1.0 {
        format!("{} GiB", units::sig3(g))
    } else {
        units::bytes(bytes as f64)
    }
}

fn row_name(r: &GasRow) -> String {
    if r.address.is_empty() {
        r.name.clone()
    } else {
        format!("{} ({})", r.name, r.address)
    }
}

fn time_ci(e: &dyno_format::gas::Estimate) -> String {
    let half = (e.upper - e.lower) / 2.0;
    if e.value > 0.0 && half > 0.0 && half.is_finite() {
        format!(
            "{} ±{:.0}%",
            units::duration(e.value),
            100.0 * half / e.value
        )
    } else {
        units::duration(e.value)
    }
}

fn gas_ci(e: &dyno_format::gas::Estimate) -> String {
    let g = |v: f64| {
        if v.is_finite() {
            units::sig3(v)
        } else {
            "-".into()
        }
    };
    if e.lower == e.upper {
        g(e.value)
    } else {
        format!("{} [{}–{}]", g(e.value), g(e.lower), g(e.upper))
    }
}

fn flag_count(n: u64) -> String {
    if n > 0 {
        format!("<b class=\"bad-text\">{n}</b>")
    } else {
        "0".into()
    }
}

#[cfg(test)]
mod tests;
