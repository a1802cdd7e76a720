//! A small kit for drawing SVG by hand: escaping, number formatting that
//! never prints `NaN`, linear and log scales with readable ticks, and a
//! string builder for the few shapes the charts use.
//!
//! Everything here writes SVG meant to be inlined in an HTML page: no XML
//! prolog, no namespace declarations, colours through CSS classes (so the
//! page's light and dark palettes apply).

use std::fmt::Write as _;

/// Escape text for HTML and SVG content and attribute values.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters have no place in a page; keep tabs and
            // newlines, drop the rest.
            c if c.is_control() && c != '\n' && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

/// A coordinate: at most two decimals, no trailing zeros, and `0` for
/// anything non-finite so no `NaN` or `inf` ever reaches the output.
pub(crate) fn num(x: f64) -> String {
    if !x.is_finite() {
        return "0".into();
    }
    // Keep coordinates in a range any renderer handles.
    let x = x.clamp(-1e6, 1e6);
    let s = format!("{x:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" || s.is_empty() {
        "0".into()
    } else {
        s.to_string()
    }
}

/// Drop trailing zeros of a formatted number inside a unit string:
/// `1.00 µs` → `1 µs`, `2.50k` → `2.5k`.
fn trim_zeros(s: &str) -> String {
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .unwrap_or(s.len());
    let (n, rest) = s.split_at(end);
    if n.contains('.') {
        let n = n.trim_end_matches('0').trim_end_matches('.');
        format!("{n}{rest}")
    } else {
        s.to_string()
    }
}

/// A tick label for a duration in nanoseconds: `1 µs`, `250 ns`, `1.5 ms`.
pub(crate) fn tick_duration(ns: f64) -> String {
    trim_zeros(&crate::units::duration(ns))
}

/// A tick label for a plain quantity: `100`, `1k`, `2.5M`.
pub(crate) fn tick_count(v: f64) -> String {
    if v.abs() < 1.0 && v != 0.0 {
        return trim_zeros(&crate::units::sig3(v));
    }
    trim_zeros(&crate::units::rate(v))
}

/// Rough width in pixels of `s` set in the page's sans-serif face at
/// `size` pixels: enough to keep labels apart, not a layout engine.
pub(crate) fn text_width(s: &str, size: f64) -> f64 {
    let mut w = 0.0;
    for c in s.chars() {
        w += match c {
            'i' | 'j' | 'l' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | ' ' | 'I' | 'f' | 't'
            | 'r' | '(' | ')' | '[' | ']' | '/' | '-' => 0.36,
            'm' | 'w' | 'M' | 'W' | '@' | '%' => 0.9,
            c if c.is_ascii_uppercase() => 0.7,
            c if c.is_ascii_digit() => 0.62,
            _ => 0.58,
        };
    }
    w * size
}

/// Width of `s` in a monospace face at `size` pixels.
pub(crate) fn mono_width(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * 0.61 * size
}

/// `s` in a monospace face, cut with an ellipsis to fit in `max_px`.
pub(crate) fn fit_mono(s: &str, size: f64, max_px: f64) -> String {
    let max = (max_px / (0.61 * size)).floor().max(1.0) as usize;
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max - 1).collect();
        out.push('…');
        out
    }
}

/// `s`, cut with an ellipsis to fit in `max_px` at `size` pixels.
pub(crate) fn fit_text(s: &str, size: f64, max_px: f64) -> String {
    if text_width(s, size) <= max_px {
        return s.to_string();
    }
    let mut out: String = s.chars().collect();
    while !out.is_empty() && text_width(&out, size) + text_width("…", size) > max_px {
        out.pop();
    }
    out.push('…');
    out
}

/// A mapping from data values to one pixel axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Scale {
    /// Domain start (for a log scale, > 0).
    pub(crate) lo: f64,
    /// Domain end.
    pub(crate) hi: f64,
    /// Pixel position of `lo`.
    pub(crate) from: f64,
    /// Pixel position of `hi`.
    pub(crate) to: f64,
    /// Logarithmic (base 10) rather than linear.
    pub(crate) log: bool,
}

impl Scale {
    /// A linear scale over `[lo, hi]` widened to round tick values; a
    /// degenerate or non-finite domain becomes something drawable.
    pub(crate) fn linear(lo: f64, hi: f64, from: f64, to: f64) -> Self {
        let (mut lo, mut hi) = finite_pair(lo, hi, 0.0, 1.0);
        if hi - lo <= f64::EPSILON * hi.abs().max(1.0) {
            let pad = if hi == 0.0 { 1.0 } else { hi.abs() * 0.1 };
            lo -= pad;
            hi += pad;
        }
        let step = nice_step((hi - lo) / 5.0);
        Self {
            lo: (lo / step).floor() * step,
            hi: (hi / step).ceil() * step,
            from,
            to,
            log: false,
        }
    }

    /// A log scale over `[lo, hi]` (both > 0), widened to whole decades.
    pub(crate) fn log(lo: f64, hi: f64, from: f64, to: f64) -> Self {
        let lo = if lo.is_finite() && lo > 0.0 { lo } else { 1.0 };
        let hi = if hi.is_finite() && hi > 0.0 {
            hi
        } else {
            lo * 10.0
        };
        let (lo, hi) = if hi < lo { (hi, lo) } else { (lo, hi) };
        let mut a = lo.log10().floor();
        let mut b = hi.log10().ceil();
        if b <= a {
            b = a + 1.0;
        }
        // Keep the exponent in f64's comfortable range.
        a = a.clamp(-300.0, 300.0);
        b = b.clamp(a + 1.0, 301.0);
        Self {
            lo: 10f64.powf(a),
            hi: 10f64.powf(b),
            from,
            to,
            log: true,
        }
    }

    /// Where `v` falls, in pixels (values outside the domain extrapolate;
    /// non-positive values on a log scale sit at the domain's start).
    pub(crate) fn px(&self, v: f64) -> f64 {
        let t = if self.log {
            if v.is_nan() || v <= 0.0 {
                0.0
            } else {
                (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
            }
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        let t = if t.is_finite() {
            t.clamp(-10.0, 10.0)
        } else {
            0.0
        };
        self.from + t * (self.to - self.from)
    }

    /// Tick positions: round values for a linear scale, decades (with 2
    /// and 5 between when the domain spans few decades) for a log scale.
    pub(crate) fn ticks(&self) -> Vec<f64> {
        self.ticks_max(9)
    }

    /// [`Scale::ticks`] with at most about `max` ticks on a log scale
    /// (every other decade, or every third, when they would crowd).
    pub(crate) fn ticks_max(&self, max: usize) -> Vec<f64> {
        if self.log {
            let a = self.lo.log10().round() as i32;
            let b = self.hi.log10().round() as i32;
            let decades = (b - a).max(1);
            let max = max.max(2) as f64;
            let every = ((decades as f64 + 1.0) / max).ceil().max(1.0) as i32;
            let mut out = Vec::new();
            for e in a..=b {
                if (e - a) % every != 0 {
                    continue;
                }
                let base = 10f64.powi(e);
                out.push(base);
                if decades <= 2 && e < b {
                    out.push(2.0 * base);
                    out.push(5.0 * base);
                }
            }
            out
        } else {
            let step = nice_step((self.hi - self.lo) / 5.0);
            let mut out = Vec::new();
            let mut k = (self.lo / step).ceil();
            while k * step <= self.hi + step * 1e-9 && out.len() < 50 {
                let v = k * step;
                // Snap values like 0.30000000000000004.
                out.push(if v.abs() < step * 1e-9 { 0.0 } else { v });
                k += 1.0;
            }
            out
        }
    }
}

fn finite_pair(lo: f64, hi: f64, dlo: f64, dhi: f64) -> (f64, f64) {
    let lo = if lo.is_finite() { lo } else { dlo };
    let hi = if hi.is_finite() { hi } else { dhi };
    if hi < lo { (hi, lo) } else { (lo, hi) }
}

/// 1, 2 or 5 × a power of ten, at least `raw`.
fn nice_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let e = raw.log10().floor();
    let base = 10f64.powf(e);
    let f = raw / base;
    let m = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * base
}

/// An SVG document under construction.
#[derive(Debug)]
pub(crate) struct Svg {
    out: String,
}

impl Svg {
    /// Start a chart `w` × `h` pixels with an accessible title (shown on
    /// hover) and label.
    pub(crate) fn new(w: f64, h: f64, title: &str) -> Self {
        let mut out = String::new();
        let _ = write!(
            out,
            "<svg class=\"chart\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"{t}\"><title>{t}</title>",
            w = num(w),
            h = num(h),
            t = esc(title)
        );
        Self { out }
    }

    /// Append raw markup (already escaped).
    pub(crate) fn raw(&mut self, s: &str) {
        self.out.push_str(s);
    }

    /// A line.
    pub(crate) fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, class: &str) {
        let _ = write!(
            self.out,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" class=\"{class}\"/>",
            num(x1),
            num(y1),
            num(x2),
            num(y2)
        );
    }

    /// A rectangle, optionally with a hover title.
    pub(crate) fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, class: &str, tip: Option<&str>) {
        let _ = write!(
            self.out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"{class}\"",
            num(x),
            num(y),
            num(w.max(0.0)),
            num(h.max(0.0))
        );
        self.close(tip);
    }

    /// A circle, optionally with a hover title.
    pub(crate) fn circle(&mut self, cx: f64, cy: f64, r: f64, class: &str, tip: Option<&str>) {
        let _ = write!(
            self.out,
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" class=\"{class}\"",
            num(cx),
            num(cy),
            num(r)
        );
        self.close(tip);
    }

    fn close(&mut self, tip: Option<&str>) {
        match tip {
            Some(t) => {
                let _ = write!(self.out, "><title>{}</title></{}>", esc(t), self.last_tag());
            }
            None => self.out.push_str("/>"),
        }
    }

    fn last_tag(&self) -> &'static str {
        let open = self.out.rfind('<').map_or("", |i| &self.out[i..]);
        if open.starts_with("<rect") {
            "rect"
        } else if open.starts_with("<circle") {
            "circle"
        } else {
            "path"
        }
    }

    /// A path through `points` (`close` joins the last to the first).
    pub(crate) fn path(&mut self, points: &[(f64, f64)], close: bool, class: &str) {
        if points.is_empty() {
            return;
        }
        let mut d = String::new();
        for (i, (x, y)) in points.iter().enumerate() {
            let _ = write!(
                d,
                "{}{},{}",
                if i == 0 { "M" } else { "L" },
                num(*x),
                num(*y)
            );
        }
        if close {
            d.push('Z');
        }
        let _ = write!(self.out, "<path d=\"{d}\" class=\"{class}\"/>");
    }

    /// Text at (`x`, `y`); `anchor` is `start`, `middle` or `end`.
    pub(crate) fn text(&mut self, x: f64, y: f64, anchor: &str, class: &str, s: &str) {
        let _ = write!(
            self.out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"{anchor}\" class=\"{class}\">{}</text>",
            num(x),
            num(y),
            esc(s)
        );
    }

    /// Text rotated -90° about (`x`, `y`), for a vertical axis title.
    pub(crate) fn vtext(&mut self, x: f64, y: f64, class: &str, s: &str) {
        let _ = write!(
            self.out,
            "<text x=\"{x}\" y=\"{y}\" text-anchor=\"middle\" class=\"{class}\" transform=\"rotate(-90 {x} {y})\">{}</text>",
            esc(s),
            x = num(x),
            y = num(y),
        );
    }

    /// A horizontal error bar from `x1` to `x2` at `y` with caps.
    pub(crate) fn hbar_error(&mut self, x1: f64, x2: f64, y: f64, cap: f64) {
        self.line(x1, y, x2, y, "err");
        self.line(x1, y - cap, x1, y + cap, "err");
        self.line(x2, y - cap, x2, y + cap, "err");
    }

    /// A vertical error bar from `y1` to `y2` at `x` with caps.
    pub(crate) fn vbar_error(&mut self, x: f64, y1: f64, y2: f64, cap: f64) {
        self.line(x, y1, x, y2, "err");
        self.line(x - cap, y1, x + cap, y1, "err");
        self.line(x - cap, y2, x + cap, y2, "err");
    }

    /// Finish the document.
    pub(crate) fn finish(mut self) -> String {
        self.out.push_str("</svg>");
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            esc("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(esc("a\u{0}b\nc"), "ab\nc");
    }

    #[test]
    fn numbers_are_always_finite() {
        assert_eq!(num(f64::NAN), "0");
        assert_eq!(num(f64::INFINITY), "0");
        assert_eq!(num(1.5), "1.5");
        assert_eq!(num(2.0), "2");
        assert_eq!(num(-0.001), "0");
        assert_eq!(num(1e12), "1000000");
    }

    #[test]
    fn tick_labels_drop_zeros() {
        assert_eq!(tick_duration(1000.0), "1 µs");
        assert_eq!(tick_duration(2500.0), "2.5 µs");
        assert_eq!(tick_duration(100.0), "100 ns");
        assert_eq!(tick_count(1e6), "1M");
        assert_eq!(tick_count(250.0), "250");
    }

    #[test]
    fn long_labels_are_cut_to_fit() {
        assert_eq!(fit_text("short", 12.0, 100.0), "short");
        let cut = fit_text("invalid-public-key-x-param-errors", 12.0, 80.0);
        assert!(
            cut.ends_with('…') && text_width(&cut, 12.0) <= 80.0,
            "{cut}"
        );
        assert_eq!(fit_text("abc", 12.0, 0.0), "…");
    }

    #[test]
    fn linear_ticks_are_round() {
        let s = Scale::linear(0.0, 7.3, 0.0, 100.0);
        assert_eq!(s.lo, 0.0);
        assert_eq!(s.hi, 8.0);
        assert_eq!(s.ticks(), vec![0.0, 2.0, 4.0, 6.0, 8.0]);
        assert_eq!(s.px(4.0), 50.0);
        let flat = Scale::linear(5.0, 5.0, 0.0, 100.0);
        assert!(flat.hi > flat.lo);
        let bad = Scale::linear(f64::NAN, f64::INFINITY, 0.0, 1.0);
        assert!(bad.px(0.5).is_finite());
    }

    #[test]
    fn log_ticks_are_decades() {
        let s = Scale::log(3.0, 4000.0, 0.0, 300.0);
        assert_eq!(s.lo, 1.0);
        assert_eq!(s.hi, 10_000.0);
        assert_eq!(s.ticks(), vec![1.0, 10.0, 100.0, 1000.0, 10_000.0]);
        assert_eq!(s.px(100.0), 150.0);
        assert_eq!(s.px(0.0), 0.0);
        assert_eq!(s.px(f64::NAN), 0.0);
        let wide = Scale::log(10.0, 1e8, 0.0, 1.0);
        assert_eq!(wide.ticks_max(4), vec![10.0, 1e3, 1e5, 1e7]);
        let narrow = Scale::log(20.0, 80.0, 0.0, 1.0);
        assert_eq!(narrow.ticks(), vec![10.0, 20.0, 50.0, 100.0]);
        let bad = Scale::log(-1.0, f64::NAN, 0.0, 1.0);
        assert!(bad.hi > bad.lo && bad.lo > 0.0);
    }

    #[test]
    fn shapes_with_titles_close_their_tags() {
        let mut s = Svg::new(10.0, 10.0, "t<1>");
        s.rect(0.0, 0.0, 1.0, 1.0, "f0", Some("a&b"));
        s.circle(1.0, 1.0, 1.0, "f1", Some("c"));
        s.circle(1.0, 1.0, 1.0, "f1", None);
        let out = s.finish();
        assert!(out.contains("<title>a&amp;b</title></rect>"));
        assert!(out.contains("<title>c</title></circle>"));
        assert!(out.contains("aria-label=\"t&lt;1&gt;\""));
        assert!(out.ends_with("</svg>"));
    }
}
