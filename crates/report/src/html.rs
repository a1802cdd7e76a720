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
mod gas;
mod load;
mod memory;
mod paired;
mod replay;
mod reprice;
mod runs;
mod state;
mod svg;
mod trend;

use gas::*;
use load::load_label;
pub use load::load_svgs;
use runs::*;
pub use trend::{Trend, TrendPoint, trends};

use assets::{CSS, SCRIPT};
use charts::{Bar, BarValue, GasPoint, PALETTE, Pricing, SizeSeries, TrendPx, shorten};
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

/// A run's gas table, priced by `dyno_price::precompile::price_run`.
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
    if runs.iter().any(|r| state::has_state(r.run)) {
        page.open("state", "State access against state size");
        page.push(
            "<p class=\"lede\">What one access costs as the generated state grows (docs/state.md), \
             log–log: one chart per access kind, a line per implementation and page-cache state \
             (dashed: the state's pages evicted before every sample). Points at the fit's slope, \
             whiskers over its 95% interval; hover a point for the figures.</p>",
        );
        for ri in runs.iter().filter(|r| state::has_state(r.run)) {
            page.state(ri.run, multi);
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
    if runs.iter().any(|r| reprice::has_reprice(r.run)) {
        page.open("reprice", "One operation inside a client");
        page.push(
            "<p class=\"lede\">Op-isolation blocks (<code>dyno gas --blocks</code>, docs/gas.md): \
             each block a point, its time against the operations it holds, in every client; the \
             line is the NNLS fit whose slope is the per-operation time (solid: dyno's \
             engine_newPayload; dashed: the client's own execution time from its slow-block \
             log). The control series (<code>reprice/control/…</code>) run the same loop without \
             the operation: their slope is the glue each series' figure is given less of. A fit \
             that fails the repricing EIPs' rule (R² &gt; 0.5, p &lt; 0.05) is drawn and marked, \
             not dropped. Hover a point for its block.</p>",
        );
        for ri in runs.iter().filter(|r| reprice::has_reprice(r.run)) {
            page.reprice(ri.run, multi);
        }
        page.close();
    }
    if runs.iter().any(|r| crate::replay::has_replay(r.run)) {
        page.open("replay", "Block replay");
        for ri in runs.iter().filter(|r| crate::replay::has_replay(r.run)) {
            page.replay(ri.run, multi);
        }
        page.close();
    }
    if runs.iter().any(|r| !r.run.paired.is_empty()) {
        page.open("ab", "A/B, interleaved");
        for ri in runs.iter().filter(|r| !r.run.paired.is_empty()) {
            page.paired(ri.run, multi);
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

    /// A table of text rows, the first the header; the cells whose column
    /// `text` says read as text, the rest as numbers.
    fn text_table(&mut self, rows: &[Vec<String>], text: impl Fn(usize, usize) -> bool) {
        self.push("<div class=\"scroll\"><table class=\"num\"><thead><tr>");
        for c in &rows[0] {
            let _ = write!(self.body, "<th>{}</th>", esc(c));
        }
        self.push("</tr></thead><tbody>");
        for r in &rows[1..] {
            self.push("<tr>");
            for (k, c) in r.iter().enumerate() {
                let class = if text(k, r.len()) {
                    " class=\"txt\""
                } else {
                    ""
                };
                let _ = write!(self.body, "<td{class}>{}</td>", esc(c));
            }
            self.push("</tr>");
        }
        self.push("</tbody></table></div>");
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

#[cfg(test)]
mod tests;
