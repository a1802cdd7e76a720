//! The Memory section: peak RSS, heap, allocation and GC against the
//! limits.

use std::fmt::Write as _;

use super::*;

impl Page {
    pub(super) fn memory(&mut self, rows: &[crate::memory::MemRow]) {
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
}
