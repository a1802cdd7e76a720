//! Plain-text columns for the terminal: widths from every row, the first
//! two columns (id, implementation) and the last (a note or verdict)
//! left-aligned, the figures between them right-aligned.

use std::fmt::Write as _;

/// Column widths measured over a table's rows (the header among them).
#[derive(Debug, Clone)]
pub(crate) struct Columns {
    width: Vec<usize>,
}

impl Columns {
    /// Widths fitting every row.
    pub(crate) fn fit<'a>(rows: impl IntoIterator<Item = &'a [String]>) -> Self {
        let mut width: Vec<usize> = Vec::new();
        for row in rows {
            if width.len() < row.len() {
                width.resize(row.len(), 0);
            }
            for (w, c) in width.iter_mut().zip(row) {
                *w = (*w).max(dyno_format::escape::terminal(c).chars().count());
            }
        }
        Self { width }
    }

    /// One row, padded and joined by two spaces, without trailing blanks.
    pub(crate) fn line(&self, cells: &[String]) -> String {
        let parts: Vec<String> = cells
            .iter()
            .zip(&self.width)
            .enumerate()
            .map(|(i, (c, &w))| {
                let c = dyno_format::escape::terminal(c);
                let pad = " ".repeat(w.saturating_sub(c.chars().count()));
                if i < 2 || i + 1 == cells.len() {
                    format!("{c}{pad}")
                } else {
                    format!("{pad}{c}")
                }
            })
            .collect();
        parts.join("  ").trim_end().to_string()
    }
}

/// `rows` under `headers` as aligned text.
pub(crate) fn aligned(headers: &[String], rows: &[Vec<String>], out: &mut String) {
    let columns = Columns::fit(std::iter::once(headers).chain(rows.iter().map(Vec::as_slice)));
    let _ = writeln!(out, "{}", columns.line(headers));
    for r in rows {
        let _ = writeln!(out, "{}", columns.line(r));
    }
}

/// `rows` under `headers` as a Markdown table.
pub(crate) fn md_table(
    headers: &[String],
    rows: impl Iterator<Item = Vec<String>>,
    out: &mut String,
) {
    let _ = writeln!(out, "{}", dyno_format::escape::markdown_row(headers));
    let _ = writeln!(out, "|{}|", vec!["---"; headers.len()].join("|"));
    for r in rows {
        let _ = writeln!(out, "{}", dyno_format::escape::markdown_row(&r));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_the_last_column_left_figures_right() {
        let rows = [
            vec!["id".to_string(), "impl".into(), "ns".into(), "note".into()],
            vec!["a/b".to_string(), "x".into(), "1234".into(), "ok".into()],
        ];
        let c = Columns::fit(rows.iter().map(Vec::as_slice));
        assert_eq!(c.line(&rows[0]), "id   impl    ns  note");
        assert_eq!(c.line(&rows[1]), "a/b  x     1234  ok");
    }
}
