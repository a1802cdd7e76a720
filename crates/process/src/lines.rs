//! Lines read from another process, each of a bounded length. A process
//! that never ends a line (or sends gigabytes in one) costs at most the
//! bound, never an allocation that aborts dyno.

use std::io::{BufRead, ErrorKind};

/// One line read by [`read_line`].
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A whole line, without its `\n` (or `\r\n`); invalid UTF-8 replaced.
    Whole(String),
    /// A line longer than the bound: its first `max` bytes (lossy UTF-8).
    /// The rest of it was read and dropped, so the next read starts at the
    /// next line.
    Cut(String),
}

impl Line {
    /// The text, whole or cut.
    pub fn into_text(self) -> String {
        match self {
            Line::Whole(s) | Line::Cut(s) => s,
        }
    }
}

/// Read the next line of at most `max` bytes from `r`; `None` at the end
/// of the stream (or on a read error: the stream is as good as closed).
/// A longer line is returned [`Line::Cut`] and the reader moves past it,
/// holding no more than `max` bytes of it at any time.
pub fn read_line(r: &mut impl BufRead, max: usize) -> Option<Line> {
    let mut buf = Vec::new();
    let mut cut = false;
    let mut any = false;
    loop {
        let chunk = match r.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        if chunk.is_empty() {
            if !any {
                return None;
            }
            break;
        }
        any = true;
        let (part, used, end) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], i + 1, true),
            None => (chunk, chunk.len(), false),
        };
        let room = max.saturating_sub(buf.len());
        if part.len() > room {
            cut = true;
        }
        buf.extend_from_slice(&part[..part.len().min(room)]);
        r.consume(used);
        if end {
            break;
        }
    }
    if !cut && buf.last() == Some(&b'\r') {
        buf.pop();
    }
    let text = String::from_utf8_lossy(&buf).into_owned();
    Some(if cut {
        Line::Cut(text)
    } else {
        Line::Whole(text)
    })
}

/// Every line of `r`, each cut at `max` bytes (see [`read_line`]).
pub fn lines<R: BufRead>(mut r: R, max: usize) -> impl Iterator<Item = Line> {
    std::iter::from_fn(move || read_line(&mut r, max))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Read};

    #[test]
    fn whole_lines_come_back_as_they_were() {
        let got: Vec<Line> = lines(&b"a\r\nbc\n\nlast"[..], 8).collect();
        assert_eq!(
            got,
            [
                Line::Whole("a".into()),
                Line::Whole("bc".into()),
                Line::Whole(String::new()),
                Line::Whole("last".into()),
            ]
        );
    }

    #[test]
    fn a_long_line_is_cut_and_the_next_one_read_whole() {
        let text = format!("{}\nnext\n", "x".repeat(100));
        // A small buffer, so the long line spans many reads.
        let r = BufReader::with_capacity(7, text.as_bytes());
        let got: Vec<Line> = lines(r, 10).collect();
        assert_eq!(got, [Line::Cut("x".repeat(10)), Line::Whole("next".into())]);
    }

    /// An endless stream with no newline: reading a line of it ends at
    /// the bound's memory, and a reader that gives up after a cut line
    /// returns (the old `lines()` would grow until the allocation failed).
    #[test]
    fn an_endless_line_costs_the_bound_not_all_memory() {
        struct Endless(u64);
        impl Read for Endless {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                if self.0 == 0 {
                    return Ok(0);
                }
                self.0 -= 1;
                buf.fill(b'y');
                Ok(buf.len())
            }
        }
        // 64 MiB of one line through a 8 KiB buffer, cut at 1 KiB.
        let mut r = BufReader::with_capacity(8192, Endless(8192));
        match read_line(&mut r, 1024) {
            Some(Line::Cut(s)) => assert_eq!(s.len(), 1024),
            other => panic!("expected a cut line, got {other:?}"),
        }
        assert_eq!(read_line(&mut r, 1024), None);
    }
}
