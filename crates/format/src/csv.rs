//! CSV as RFC 4180 writes it, read: fields in double quotes may hold
//! commas, line breaks and doubled quotes (`""`), which is how dyno's own
//! CSV ([`crate::escape::csv_field`]) and every spreadsheet write them. A
//! byte-order mark at the start (Excel's "CSV UTF-8") is dropped. Each
//! record keeps the line it starts on, so a message can name it.

/// One record: the line it starts on (1-based) and its fields, each
/// unquoted and trimmed of the spaces around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub line: usize,
    pub fields: Vec<String>,
}

/// Why a text is not CSV.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CsvError {
    #[error("line {line}: a quoted field opened here is never closed (a \" missing)")]
    Unclosed { line: usize },
    #[error(
        "line {line}: text after a closing quote ({found:?}); inside quotes write a quote as \"\""
    )]
    AfterQuote { line: usize, found: char },
}

/// The records of `text`, blank lines skipped.
pub fn records(text: &str) -> Result<Vec<Record>, CsvError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    let mut line = 1;
    while chars.peek().is_some() {
        let start = line;
        let mut fields = Vec::new();
        let mut field = String::new();
        let mut quoted = false;
        loop {
            match chars.next() {
                None => {
                    fields.push(finish(&field, quoted));
                    break;
                }
                Some('"') if field.trim().is_empty() && !quoted => {
                    quoted = true;
                    field.clear();
                    let opened = line;
                    loop {
                        match chars.next() {
                            None => return Err(CsvError::Unclosed { line: opened }),
                            Some('"') if chars.peek() == Some(&'"') => {
                                chars.next();
                                field.push('"');
                            }
                            Some('"') => break,
                            Some(c) => {
                                if c == '\n' {
                                    line += 1;
                                }
                                field.push(c);
                            }
                        }
                    }
                    // Only spaces may follow, up to the next comma or line.
                    while let Some(&c) = chars.peek() {
                        match c {
                            ',' | '\n' | '\r' => break,
                            ' ' | '\t' => {
                                chars.next();
                            }
                            other => return Err(CsvError::AfterQuote { line, found: other }),
                        }
                    }
                }
                Some(',') => {
                    fields.push(finish(&field, quoted));
                    field.clear();
                    quoted = false;
                }
                Some('\r') if chars.peek() == Some(&'\n') => {}
                Some('\n') => {
                    line += 1;
                    fields.push(finish(&field, quoted));
                    break;
                }
                Some(c) => field.push(c),
            }
        }
        let blank = fields.len() == 1 && fields[0].is_empty();
        if !blank {
            out.push(Record {
                line: start,
                fields,
            });
        }
    }
    Ok(out)
}

/// A quoted field as it was written; an unquoted one trimmed.
fn finish(field: &str, quoted: bool) -> String {
    if quoted {
        field.to_string()
    } else {
        field.trim().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(text: &str) -> Vec<Vec<String>> {
        records(text)
            .unwrap()
            .into_iter()
            .map(|r| r.fields)
            .collect()
    }

    #[test]
    fn quotes_commas_breaks_and_doubled_quotes_are_read_as_rfc_4180_writes_them() {
        let text = "a,b,c\r\n\"x, y\",\"say \"\"hi\"\"\",\"two\nlines\"\n\n plain , \"\" ,\n";
        let r = records(text).unwrap();
        assert_eq!(r.len(), 3);
        assert_eq!(r[0].fields, ["a", "b", "c"]);
        assert_eq!(r[1].fields, ["x, y", "say \"hi\"", "two\nlines"]);
        assert_eq!((r[1].line, r[2].line), (2, 5));
        assert_eq!(r[2].fields, ["plain", "", ""]);
    }

    #[test]
    fn a_byte_order_mark_is_dropped_and_what_dyno_writes_reads_back() {
        assert_eq!(fields("\u{feff}operation,gas\n"), [["operation", "gas"]]);
        let hostile = ["=cmd|x", "a,b", "q\"uote", "line\nbreak"];
        let row: Vec<String> = hostile
            .iter()
            .map(|f| crate::escape::csv_field(f))
            .collect();
        let back = fields(&row.join(","));
        // A formula is written with a leading quote mark, kept as data.
        assert_eq!(back[0][1..], hostile[1..]);
        assert!(back[0][0].ends_with("=cmd|x"));
    }

    #[test]
    fn a_quote_never_closed_or_text_after_one_names_its_line() {
        assert_eq!(
            records("a\n\"open,b\nc\n"),
            Err(CsvError::Unclosed { line: 2 })
        );
        assert_eq!(
            records("a\n\"x\"y,b\n"),
            Err(CsvError::AfterQuote {
                line: 2,
                found: 'y'
            })
        );
    }
}
