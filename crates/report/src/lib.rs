//! Renders dyno results for people and programs: an aligned terminal table,
//! Markdown, CSV and JSON. One file per format; the row model they share
//! (grouping by id, the baseline ratio, notes) lives in `rows`. `gas` lays
//! out the `dyno gas` view in all four.

pub mod bmf;
pub mod catalog;
pub mod color;
mod columns;
pub mod compare;
pub mod csv;
pub mod delta;
pub mod gas;
pub mod gobench;
pub mod history;
pub mod html;
pub mod json;
pub mod load;
pub mod markdown;
pub mod memory;
pub mod paired;
pub mod replay;
pub mod reprice;
mod rows;
pub mod state_gas;
pub use rows::one_line;
pub mod table;
pub mod units;

/// One way to write a run out: each format lives in its own file
/// (`table`, `markdown`, `csv`, `json`, `bmf`, `gobench`) and renders through
/// this trait, as hyperfine's exporters do.
pub trait Export {
    /// The run in this format.
    fn render(&self, run: &dyno_format::Run) -> String;

    /// Why the format holds one run only, if it does: a caller with several
    /// runs says this instead of concatenating documents.
    fn one_run_only(&self) -> Option<&'static str> {
        None
    }
}

/// The formats every view has (a run, the gas table): the exports that
/// only a run has (`bmf::Bmf`, `gobench::Gobench`) are exporters too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Aligned text for a terminal.
    Table,
    /// Markdown tables.
    Markdown,
    /// The result document.
    Json,
    /// One row per result.
    Csv,
}

impl Format {
    /// The format's exporter; `color` applies to the table only.
    pub fn exporter(self, color: bool) -> Box<dyn Export> {
        match self {
            Self::Table => Box::new(table::Table { color }),
            Self::Markdown => Box::new(markdown::Markdown),
            Self::Json => Box::new(json::Json),
            Self::Csv => Box::new(csv::Csv),
        }
    }
}

/// Render `run` in `format`; `color` applies to the table only.
pub fn render(run: &dyno_format::Run, format: Format, color: bool) -> String {
    format.exporter(color).render(run)
}

#[cfg(test)]
mod tests;
