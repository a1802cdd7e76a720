//! Renders dyno results for people and programs: an aligned terminal table,
//! Markdown, CSV and JSON. One file per format; the row model they share
//! (grouping by id, the baseline ratio, notes) lives in `rows`. `gas` lays
//! out the `dyno gas` view in all four.

pub mod bmf;
pub mod catalog;
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
mod rows;
pub use rows::one_line;
pub mod table;
pub mod units;

/// An output format for `dyno run --format`.
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

/// Render `run` in `format`; `color` applies to the table only.
pub fn render(run: &dyno_format::Run, format: Format, color: bool) -> String {
    match format {
        Format::Table => table::render(run, color),
        Format::Markdown => markdown::render(run),
        Format::Json => json::render(run),
        Format::Csv => csv::render(run),
    }
}

#[cfg(test)]
mod tests;
