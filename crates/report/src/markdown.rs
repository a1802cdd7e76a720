//! Markdown: a report to read in a repository or paste into a PR comment.

use std::fmt::Write as _;

use dyno_format::Run;

use crate::rows::{self, HEADERS};

/// Render `run` as Markdown: a header with the environment, then one table
/// per group.
pub fn render(run: &Run) -> String {
    let mut out = String::new();
    let info = &run.run;
    let _ = writeln!(out, "# dyno run {}\n", info.id);
    let _ = writeln!(
        out,
        "- **when**: {}{}",
        info.started_at,
        if info.complete {
            ""
        } else {
            " — **INCOMPLETE**"
        }
    );
    if let Some(reason) = &info.incomplete_reason {
        let _ = writeln!(out, "- **stopped**: {reason}");
    }
    let _ = writeln!(out, "- **machine**: {}", rows::environment_line(run));
    let _ = writeln!(
        out,
        "- **dyno**: {}{}; `{}`",
        info.dyno_version,
        info.git_commit
            .as_ref()
            .map(|c| format!(" ({c})"))
            .unwrap_or_default(),
        info.command_line.join(" ")
    );
    if let Some(h) = rows::harness_line(run) {
        let _ = writeln!(out, "- **harness overhead**: {h}");
    }
    let _ = writeln!(
        out,
        "\n`*` marks each id's baseline; \"vs *\" is P50 / baseline P50; ±CI is the half-width of the 95% CI of the median.\n"
    );
    if rows::any_batch_tails(run) {
        let _ = writeln!(out, "{}\n", rows::BATCH_NOTE);
    }
    if rows::any_allocations(run) {
        let _ = writeln!(out, "{}\n", rows::ALLOC_NOTE);
    }

    let mut group = "";
    for b in rows::blocks(run) {
        let g = b.id.split('/').next().unwrap_or("");
        if g != group {
            group = g;
            let _ = writeln!(out, "\n## {g}\n");
            let setups = rows::setup_lines(run, g);
            for line in &setups {
                let _ = writeln!(out, "- {line}");
            }
            if !setups.is_empty() {
                out.push('\n');
            }
            let _ = writeln!(out, "| {} | note |", HEADERS.join(" | "));
            let align: Vec<&str> = HEADERS
                .iter()
                .enumerate()
                .map(|(i, _)| if i < 2 { ":--" } else { "--:" })
                .collect();
            let _ = writeln!(out, "|{}|:--|", align.join("|"));
        }
        for (k, row) in b.rows.iter().enumerate() {
            let id = if k == 0 {
                format!("`{}`", dyno_format::escape::markdown_cell(b.id))
            } else {
                String::new()
            };
            let cells = rows::cells(row).map(|c| dyno_format::escape::markdown_cell(&c));
            let note = dyno_format::escape::markdown_cell(
                &[rows::gas_text(row.result), rows::note(row.result)]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join("; "),
            );
            let _ = writeln!(out, "| {id} | {} | {note} |", cells.join(" | "));
        }
    }
    out.push_str(&crate::memory::render_markdown(run));
    if crate::replay::has_replay(run) {
        out.push('\n');
        out.push_str(&crate::replay::markdown(run));
    }
    if !run.paired.is_empty() {
        out.push('\n');
        out.push_str(&crate::paired::markdown(run));
    }
    let compared = crate::compare::tables(run);
    if !compared.is_empty() {
        let _ = writeln!(out, "\n## Side by side\n");
        out.push_str(&crate::compare::render_markdown(&compared));
    }
    out
}

/// Markdown, one table per group.
#[derive(Debug, Clone, Copy)]
pub struct Markdown;

impl crate::Export for Markdown {
    fn render(&self, run: &Run) -> String {
        render(run)
    }
}
