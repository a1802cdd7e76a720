//! Strings from files are hostile: a name in a Result file, a peer's CSV
//! or a raw record is written through these at every format boundary, so
//! it cannot forge a Markdown row, a spreadsheet formula, a docs marker or
//! a terminal escape sequence.

/// One Markdown table cell: `\` and `|` escaped (so no cell splits in
/// two), line breaks as spaces (so no row or heading begins), other
/// control characters dropped, and a `<` that would open an HTML tag or
/// comment (a docs `<!-- figures -->` marker) written `&lt;`. Markup
/// added around the escaped text (`**`, backticks) keeps its meaning.
pub fn markdown_cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str("\\\\"),
            '|' => out.push_str("\\|"),
            '\r' | '\n' => {
                if c == '\r' && chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push(' ');
            }
            '<' if chars.peek().is_some_and(|n| {
                n.is_ascii_alphabetic() || *n == '!' || *n == '/' || *n == '?'
            }) =>
            {
                out.push_str("&lt;");
            }
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// A Markdown table row of escaped cells: `| a | b |`.
pub fn markdown_row<S: AsRef<str>>(cells: &[S]) -> String {
    let cells: Vec<String> = cells.iter().map(|c| markdown_cell(c.as_ref())).collect();
    format!("| {} |", cells.join(" | "))
}

/// One CSV field (RFC 4180): quoted when it holds a comma, a quote or a
/// line break; and a text that a spreadsheet would run as a formula
/// (starting `=`, `+`, `-`, `@`, a tab or a carriage return, and not a
/// number) is written with a leading `'`, as OWASP advises.
pub fn csv_field(s: &str) -> String {
    let formula =
        s.starts_with(['=', '+', '-', '@', '\t', '\r']) && s.trim().parse::<f64>().is_err();
    let s = if formula {
        format!("'{s}")
    } else {
        s.to_string()
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

/// Text for a terminal: control characters (an escape sequence's ESC, a
/// carriage return that rewrites a line) shown as `?`.
pub fn terminal(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_string();
    }
    s.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_cannot_forge_a_markdown_row_a_heading_or_a_marker() {
        let forged = "geth | 0.01 ms | fastest |\n| evil | 1 ms\n## Heading <!-- /figures -->";
        let row = markdown_row(&[forged, "2"]);
        // One line, two cells: every `|` of the name escaped.
        assert!(!row.contains('\n'), "{row}");
        let unescaped = row.replace("\\|", "");
        assert_eq!(unescaped.matches('|').count(), 3, "{row}");
        assert!(!row.contains("<!--"), "{row}");
        assert!(row.contains("&lt;!-- /figures --> |"), "{row}");
        // An escaped pipe in the name does not become a real one.
        assert_eq!(markdown_cell("a\\|b"), "a\\\\\\|b");
        // Ordinary text and markup around it are kept.
        assert_eq!(markdown_cell("< 1% of 2 µs"), "< 1% of 2 µs");
        assert_eq!(markdown_cell("**regressed** +3%"), "**regressed** +3%");
        assert_eq!(markdown_cell("a\r\nb\u{1b}[31m"), "a b[31m");
    }

    #[test]
    fn a_csv_field_is_never_a_formula_and_numbers_stay_numbers() {
        assert_eq!(csv_field("=cmd|' /C calc'!A0"), "'=cmd|' /C calc'!A0");
        assert_eq!(csv_field("@SUM(1)"), "'@SUM(1)");
        assert_eq!(csv_field("+1+cmd"), "'+1+cmd");
        assert_eq!(csv_field("-1.5"), "-1.5");
        assert_eq!(csv_field("-2e-3"), "-2e-3");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("=1,2"), "\"'=1,2\"");
        assert_eq!(csv_field("say \"x\""), "\"say \"\"x\"\"\"");
    }

    #[test]
    fn control_characters_do_not_reach_a_terminal() {
        assert_eq!(terminal("geth\u{1b}[2J\rok"), "geth?[2J?ok");
        assert_eq!(terminal("plain"), "plain");
    }
}
