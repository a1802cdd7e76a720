//! The terminal table: one block per id, implementations in rows, the
//! baseline marked `*` and first, colour only when asked for.

use std::fmt::Write as _;

use dyno_format::Run;

use crate::rows::{self, HEADERS};

const RED: &str = "\x1b[31m";
const YELLOW: &str = "\x1b[33m";
const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const RESET: &str = "\x1b[0m";

/// One table line: id (first row of a block only), cells, gas rate, note,
/// and whether the result was wrong.
type Line = (String, [String; 10], Option<String>, Option<String>, bool);

/// Render `run` as an aligned text table. `color` adds ANSI colour (the
/// caller decides: a terminal, no `NO_COLOR`, `TERM` not `dumb`).
pub fn render(run: &Run, color: bool) -> String {
    let paint = |code: &str, s: &str| {
        if color {
            format!("{code}{s}{RESET}")
        } else {
            s.to_string()
        }
    };
    let blocks = rows::blocks(run);
    // Each line: id column, 10 cells, optional note.
    let mut lines: Vec<Line> = Vec::new();
    for b in &blocks {
        for (k, row) in b.rows.iter().enumerate() {
            let id = if k == 0 {
                b.id.to_string()
            } else {
                String::new()
            };
            let failed = row.result.verification.status == dyno_format::VerificationStatus::Failed;
            lines.push((
                id,
                rows::cells(row),
                rows::gas_text(row.result),
                rows::note(row.result),
                failed,
            ));
        }
    }
    let mut width = [0usize; 11];
    for (i, h) in HEADERS.iter().enumerate() {
        width[i] = h.chars().count();
    }
    for (id, cells, ..) in &lines {
        width[0] = width[0].max(id.chars().count());
        for (i, c) in cells.iter().enumerate() {
            width[i + 1] = width[i + 1].max(c.chars().count());
        }
    }
    let pad = |s: &str, w: usize, left: bool| {
        let n = w.saturating_sub(s.chars().count());
        if left {
            format!("{s}{}", " ".repeat(n))
        } else {
            format!("{}{s}", " ".repeat(n))
        }
    };

    let mut out = String::new();
    let header: Vec<String> = HEADERS
        .iter()
        .enumerate()
        .map(|(i, h)| pad(h, width[i], i < 2))
        .collect();
    let _ = writeln!(out, "{}", paint(BOLD, header.join("  ").trim_end()));
    let mut group = "";
    for (id, cells, gas, note, failed) in &lines {
        if !id.is_empty() {
            let g = id.split('/').next().unwrap_or("");
            if g != group && !group.is_empty() {
                out.push('\n');
            }
            group = g;
        }
        let mut parts = vec![pad(id, width[0], true)];
        parts.extend(
            cells
                .iter()
                .enumerate()
                .map(|(i, c)| pad(c, width[i + 1], i == 0)),
        );
        let mut line = parts.join("  ").trim_end().to_string();
        if let Some(g) = gas {
            line = format!("{line}  {g}");
        }
        if let Some(n) = note {
            line = format!("{line}  {}", paint(if *failed { RED } else { YELLOW }, n));
        }
        let _ = writeln!(out, "{line}");
    }
    let failed = run
        .results
        .iter()
        .filter(|r| r.verification.status == dyno_format::VerificationStatus::Failed)
        .count();
    let compared = crate::compare::tables(run);
    if !compared.is_empty() {
        let _ = write!(
            out,
            "\n{}\n{}",
            paint(BOLD, "Side by side, per family:"),
            crate::compare::render_text(&compared)
        );
    }
    out.push_str(&crate::memory::render_text(run));
    let _ = writeln!(
        out,
        "\n{}",
        paint(
            DIM,
            &format!(
                "* baseline for its id; \"vs *\" is P50 / baseline P50; ±CI is the half-width of the 95% CI of the median.\n{}",
                rows::environment_line(run)
            )
        )
    );
    if rows::any_batch_tails(run) {
        let _ = writeln!(out, "{}", paint(DIM, rows::BATCH_NOTE));
    }
    if rows::any_allocations(run) {
        let _ = writeln!(out, "{}", paint(DIM, rows::ALLOC_NOTE));
    }
    if let Some(h) = rows::harness_line(run) {
        let _ = writeln!(out, "{}", paint(DIM, &format!("harness overhead: {h}")));
    }
    if failed > 0 {
        let _ = writeln!(
            out,
            "{}",
            paint(
                RED,
                &format!("{failed} benchmark(s) returned a wrong result and were not timed")
            )
        );
    }
    if !run.run.complete {
        let reason = run
            .run
            .incomplete_reason
            .as_deref()
            .unwrap_or("stopped early");
        let _ = writeln!(
            out,
            "{}",
            paint(YELLOW, &format!("INCOMPLETE RUN: {reason}"))
        );
    }
    out
}

/// The aligned text table, with or without ANSI colour.
#[derive(Debug, Clone, Copy)]
pub struct Table {
    pub color: bool,
}

impl crate::Export for Table {
    fn render(&self, run: &Run) -> String {
        render(run, self.color)
    }
}
