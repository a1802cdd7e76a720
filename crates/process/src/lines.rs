//! Lines read from another process, each of a bounded length. A process
//! that never ends a line (or sends gigabytes in one) costs at most the
//! bound, never an allocation that aborts dyno.

use std::io::{BufRead, ErrorKind};

/// One line read by [`Lines`].
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A whole line, without its `\n` (or `\r\n`); invalid UTF-8 replaced.
    Whole(String),
    /// A line longer than the bound: its first `max` bytes (lossy UTF-8),
    /// returned as soon as they are read (the line may never end). The
    /// next read skips the rest of it first.
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

/// The lines of a stream, each of at most `max` bytes (see [`Line`]).
/// Reading holds at most `max` bytes of a line, however long it is.
#[derive(Debug)]
pub struct Lines<R> {
    r: R,
    max: usize,
    /// Inside a line that was cut: skip to its end first.
    skipping: bool,
}

/// Every line of `r`, each bounded by `max` bytes.
pub fn lines<R: BufRead>(r: R, max: usize) -> Lines<R> {
    Lines {
        r,
        max,
        skipping: false,
    }
}

impl<R: BufRead> Lines<R> {
    /// Skip the rest of a cut line; false at the end of the stream.
    fn skip_rest(&mut self) -> bool {
        while self.skipping {
            let chunk = match self.r.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(_) => return false,
            };
            if chunk.is_empty() {
                return false;
            }
            let (used, end) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            self.r.consume(used);
            self.skipping = !end;
        }
        true
    }
}

impl<R: BufRead> Iterator for Lines<R> {
    type Item = Line;

    /// The next line; `None` at the end of the stream (or on a read
    /// error: the stream is as good as closed).
    fn next(&mut self) -> Option<Line> {
        if !self.skip_rest() {
            return None;
        }
        let mut buf = Vec::new();
        let mut any = false;
        loop {
            let chunk = match self.r.fill_buf() {
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
            let room = self.max - buf.len();
            if part.len() > room {
                buf.extend_from_slice(&part[..room]);
                self.r.consume(room);
                self.skipping = true;
                return Some(Line::Cut(String::from_utf8_lossy(&buf).into_owned()));
            }
            buf.extend_from_slice(part);
            self.r.consume(used);
            if end {
                break;
            }
        }
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        Some(Line::Whole(String::from_utf8_lossy(&buf).into_owned()))
    }
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

    /// A stream that never ends and never sends a newline: the cut line
    /// comes back at once, holding the bound (the old `lines()` grew one
    /// line until the allocation failed).
    #[test]
    fn an_endless_line_comes_back_cut_at_once() {
        struct Endless;
        impl Read for Endless {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                buf.fill(b'y');
                Ok(buf.len())
            }
        }
        let mut l = lines(BufReader::with_capacity(8192, Endless), 1024);
        match l.next() {
            Some(Line::Cut(s)) => assert_eq!(s, "y".repeat(1024)),
            other => panic!("expected a cut line, got {other:?}"),
        }
    }
}
