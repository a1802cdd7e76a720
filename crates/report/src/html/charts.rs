//! The report's charts, drawn as inline SVG: horizontal bars with error
//! bars (one chart per benchmark family), calculated against nominal gas on
//! log–log axes, and a line over runs with a confidence band.
//!
//! Each function takes plain numbers and labels, so it can be tested
//! without a run; colours come from CSS classes the page defines.

use super::svg::{
    Scale, Svg, fit_mono, fit_text, mono_width, num, text_width, tick_count, tick_duration,
};

/// Colours in the page's palette (`f0`..`f7`, `s0`..`s7`).
pub(super) const PALETTE: usize = 8;

/// Width in pixels of a chart that spans the page; the page scales
/// charts to their column, so this only sets the proportions.
pub(super) const FULL: f64 = 1280.0;
/// Width of a chart that shares a row with another.
pub(super) const HALF: f64 = 630.0;
const W: f64 = FULL;

/// What one bar shows.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum BarValue {
    /// A timing: P50 with the 95% CI of the median, in ns, and n.
    Timed {
        /// Median.
        p50: f64,
        /// CI lower bound.
        lo: f64,
        /// CI upper bound.
        hi: f64,
        /// Samples.
        n: usize,
    },
    /// The output was wrong: nothing was timed.
    Wrong,
    /// Nothing was timed, for this reason.
    NotTimed(String),
}

/// One bar of a family chart.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Bar {
    /// The input (the id's last part); bars of one input are drawn together.
    pub(super) group: String,
    /// The implementation's label.
    pub(super) label: String,
    /// Colour index.
    pub(super) series: usize,
    /// The figure.
    pub(super) value: BarValue,
}

/// Whether a timed value can be drawn.
fn drawable(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

/// A horizontal bar chart: one row per bar, grouped by input, the bar at
/// the P50 and a whisker over the CI, each labelled with its value. A log
/// axis is used when the values span more than two decades; the second
/// value says whether it was.
pub(super) fn bar_chart(title: &str, bars: &[Bar], width: f64) -> (String, bool) {
    let cw = if width.is_finite() {
        width.clamp(320.0, 4000.0)
    } else {
        FULL
    };
    let max_label = (cw * 0.3).min(280.0);
    let groups: Vec<&str> = {
        let mut g: Vec<&str> = Vec::new();
        for b in bars {
            if !g.contains(&b.group.as_str()) {
                g.push(&b.group);
            }
        }
        g
    };
    let labels: Vec<&str> = {
        let mut l: Vec<&str> = Vec::new();
        for b in bars {
            if !l.contains(&b.label.as_str()) {
                l.push(&b.label);
            }
        }
        l
    };
    let show_groups = groups.len() > 1 || groups.iter().any(|g| !g.is_empty());
    let show_labels = labels.len() > 1 || !show_groups;
    let gw = if show_groups {
        groups
            .iter()
            .map(|g| mono_width(g, 11.5))
            .fold(0.0, f64::max)
            .min(max_label)
            + 14.0
    } else {
        0.0
    };
    let lw = if show_labels {
        labels
            .iter()
            .map(|l| text_width(l, 12.0))
            .fold(0.0, f64::max)
            .min(max_label)
            + 12.0
    } else {
        0.0
    };
    let left = 10.0 + gw + lw;
    let right = cw - 78.0;

    // The domain: every drawable P50 and CI bound.
    let mut lo_v = f64::INFINITY;
    let mut hi_v: f64 = 0.0;
    for b in bars {
        if let BarValue::Timed { p50, lo, hi, .. } = b.value {
            for v in [p50, lo, hi] {
                if drawable(v) {
                    lo_v = lo_v.min(v);
                    hi_v = hi_v.max(v);
                }
            }
        }
    }
    let any = hi_v > 0.0 && lo_v.is_finite();
    let log = any && hi_v / lo_v > 100.0;
    let scale = if !any {
        Scale::linear(0.0, 1.0, left, right)
    } else if log {
        Scale::log(lo_v, hi_v, left, right)
    } else {
        Scale::linear(0.0, hi_v * 1.04, left, right)
    };

    const ROW: f64 = 19.0;
    const BAR: f64 = 13.0;
    const GAP: f64 = 9.0;
    let top = 8.0;
    let mut rows_h = 0.0;
    for (gi, g) in groups.iter().enumerate() {
        if gi > 0 {
            rows_h += GAP;
        }
        rows_h += ROW * bars.iter().filter(|b| b.group == *g).count() as f64;
    }
    let axis_y = top + rows_h + 6.0;
    let h = axis_y + 22.0;
    let mut s = Svg::new(cw, h, title);

    // Zebra bands behind every other input, then the grid.
    let mut y = top;
    for (gi, g) in groups.iter().enumerate() {
        if gi > 0 {
            y += GAP;
        }
        let n = bars.iter().filter(|b| b.group == *g).count() as f64;
        if gi % 2 == 1 {
            s.rect(2.0, y - 3.0, cw - 4.0, n * ROW + 6.0, "zebra", None);
        }
        y += n * ROW;
    }
    let room = ((right - left) / 56.0).floor() as usize;
    for t in scale.ticks_max(room) {
        let x = scale.px(t);
        s.line(x, top - 4.0, x, axis_y, "grid");
        s.text(x, axis_y + 15.0, "middle", "tick", &tick_duration(t));
    }
    s.line(left, top - 4.0, left, axis_y, "axis");
    s.line(left, axis_y, right, axis_y, "axis");

    let base = if log { scale.lo } else { 0.0 };
    let mut y = top;
    for (gi, g) in groups.iter().enumerate() {
        if gi > 0 {
            y += GAP;
        }
        let mut in_group: Vec<&Bar> = bars.iter().filter(|b| b.group == *g).collect();
        in_group.sort_by_key(|b| b.series);
        if show_groups {
            s.text(
                10.0,
                y + ROW / 2.0 + 4.0,
                "start",
                "group",
                &fit_mono(g, 11.5, gw - 14.0),
            );
        }
        for b in in_group {
            let mid = y + ROW / 2.0;
            if show_labels {
                s.text(
                    left - 8.0,
                    mid + 4.0,
                    "end",
                    "label",
                    &fit_text(&b.label, 12.0, lw - 12.0),
                );
            }
            let who = if g.is_empty() {
                b.label.clone()
            } else {
                format!("{g} · {}", b.label)
            };
            match &b.value {
                BarValue::Timed { p50, lo, hi, n } if drawable(*p50) => {
                    let x0 = scale.px(base);
                    let x1 = scale.px(*p50);
                    let tip = format!(
                        "{who}: P50 {}, 95% CI {} – {}, n = {n}",
                        crate::units::duration(*p50),
                        crate::units::duration(*lo),
                        crate::units::duration(*hi)
                    );
                    s.rect(
                        x0,
                        mid - BAR / 2.0,
                        (x1 - x0).max(1.0),
                        BAR,
                        &format!("f{}", b.series % PALETTE),
                        Some(&tip),
                    );
                    let mut end = x1;
                    if drawable(*lo) && drawable(*hi) && hi >= lo {
                        let (a, z) = (scale.px(*lo), scale.px(*hi));
                        s.hbar_error(a, z, mid, 4.0);
                        end = end.max(z);
                    }
                    s.text(
                        end + 5.0,
                        mid + 4.0,
                        "start",
                        "value",
                        &crate::units::duration(*p50),
                    );
                }
                BarValue::Wrong => {
                    s.rect(left + 1.0, mid - BAR / 2.0, 250.0, BAR, "wrong-bg", None);
                    s.text(
                        left + 6.0,
                        mid + 4.0,
                        "start",
                        "wrong",
                        "WRONG: output differed, not timed",
                    );
                }
                BarValue::NotTimed(why) => {
                    s.text(left + 6.0, mid + 4.0, "start", "muted", why);
                }
                BarValue::Timed { .. } => {
                    s.text(left + 6.0, mid + 4.0, "start", "muted", "no valid timing");
                }
            }
            y += ROW;
        }
    }
    (s.finish(), log)
}

/// Where a gas point sits against the factor band.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pricing {
    /// Within the band.
    Within,
    /// Calculated gas above the band: takes longer than its gas pays for.
    Under,
    /// Calculated gas below the band.
    Over,
}

/// One point of the gas scatter.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct GasPoint {
    /// A short label drawn beside the point where there is room.
    pub(super) label: String,
    /// The full description, on hover.
    pub(super) tip: String,
    /// Nominal gas (x).
    pub(super) nominal: f64,
    /// Calculated gas (y) and its interval.
    pub(super) calc: f64,
    /// Interval lower bound.
    pub(super) lo: f64,
    /// Interval upper bound.
    pub(super) hi: f64,
    /// The band it falls in.
    pub(super) pricing: Pricing,
    /// An opcode sequence rather than a precompile (drawn as a square).
    pub(super) opcode: bool,
}

#[derive(Debug, Clone, Copy)]
struct BoxPx {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl BoxPx {
    fn hits(&self, o: &BoxPx) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }
}

/// Calculated against nominal gas on log–log axes sharing one domain, with
/// the y = x line and the band within `factor` of it. Points that cannot
/// sit on a log axis (zero gas) must be left out by the caller.
pub(super) fn gas_scatter(title: &str, uid: &str, points: &[GasPoint], factor: f64) -> String {
    let factor = if factor.is_finite() && factor > 1.0 {
        factor
    } else {
        2.0
    };
    let (l, r, t, b) = (84.0, 24.0, 40.0, 58.0);
    let h = 640.0;
    let mut lo_v = f64::INFINITY;
    let mut hi_v: f64 = 0.0;
    for p in points {
        for v in [p.nominal, p.calc, p.lo, p.hi] {
            if drawable(v) {
                lo_v = lo_v.min(v);
                hi_v = hi_v.max(v);
            }
        }
    }
    if !(hi_v > 0.0 && lo_v.is_finite()) {
        lo_v = 1.0;
        hi_v = 10.0;
    }
    let xs = Scale::log(lo_v, hi_v, l, W - r);
    let ys = Scale::log(lo_v, hi_v, h - b, t);
    let mut s = Svg::new(W, h, title);
    s.raw(&format!(
        "<defs><clipPath id=\"{uid}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/></clipPath></defs>",
        num(l),
        num(t),
        num(W - r - l),
        num(h - b - t)
    ));
    // The grid and ticks.
    for v in xs.ticks() {
        let x = xs.px(v);
        s.line(x, t, x, h - b, "grid");
        s.text(x, h - b + 16.0, "middle", "tick", &tick_count(v));
    }
    for v in ys.ticks() {
        let y = ys.px(v);
        s.line(l, y, W - r, y, "grid");
        s.text(l - 6.0, y + 4.0, "end", "tick", &tick_count(v));
    }
    s.line(l, t, l, h - b, "axis");
    s.line(l, h - b, W - r, h - b, "axis");
    s.text(
        (l + W - r) / 2.0,
        h - 14.0,
        "middle",
        "axis-title",
        "nominal gas (fork schedule), log scale",
    );
    s.vtext(
        18.0,
        (t + h - b) / 2.0,
        "axis-title",
        "calculated gas = ns × 3000 / ns(ECRECOVER), log scale",
    );

    // The band and the y = x line, clipped to the plot area.
    let (a, z) = (xs.lo, xs.hi);
    s.raw(&format!("<g clip-path=\"url(#{uid})\">"));
    s.path(
        &[
            (xs.px(a), ys.px(a * factor)),
            (xs.px(z), ys.px(z * factor)),
            (xs.px(z), ys.px(z / factor)),
            (xs.px(a), ys.px(a / factor)),
        ],
        true,
        "band",
    );
    s.line(xs.px(a), ys.px(a), xs.px(z), ys.px(z), "diag");
    s.raw("</g>");
    s.text(
        xs.px(z) - 6.0,
        ys.px(z) + 16.0,
        "end",
        "muted",
        "y = x (priced as measured)",
    );

    // Legend along the top.
    let f = crate::units::sig3(factor);
    let legend: [(&str, String, bool); 4] = [
        ("pt-ok", format!("within ×{f}"), false),
        (
            "pt-under",
            format!("underpriced (calculated > {f}× nominal)"),
            false,
        ),
        (
            "pt-over",
            format!("overpriced (calculated < nominal / {f})"),
            false,
        ),
        ("pt-ok", "opcode sequence".to_string(), true),
    ];
    let mut x = l;
    for (class, text, square) in &legend {
        if *square {
            s.rect(x - 4.0, 14.0, 8.0, 8.0, class, None);
        } else {
            s.circle(x, 18.0, 4.5, class, None);
        }
        s.text(x + 9.0, 22.0, "start", "legend", text);
        x += text_width(text, 12.0) + 34.0;
    }
    s.rect(x - 6.0, 12.0, 16.0, 12.0, "band", None);
    s.text(x + 15.0, 22.0, "start", "legend", &format!("×{f} band"));

    // Whiskers, then markers, then labels where they fit.
    let placed: Vec<(f64, f64, &GasPoint)> = points
        .iter()
        .filter(|p| drawable(p.nominal) && drawable(p.calc))
        .map(|p| (xs.px(p.nominal), ys.px(p.calc), p))
        .collect();
    for (x, _, p) in &placed {
        if drawable(p.lo) && drawable(p.hi) && p.hi > p.lo {
            s.vbar_error(*x, ys.px(p.lo), ys.px(p.hi), 3.0);
        }
    }
    let mut taken: Vec<BoxPx> = Vec::new();
    for (x, y, p) in &placed {
        let class = match p.pricing {
            Pricing::Within => "pt-ok",
            Pricing::Under => "pt-under",
            Pricing::Over => "pt-over",
        };
        if p.opcode {
            s.rect(x - 4.0, y - 4.0, 8.0, 8.0, class, Some(&p.tip));
        } else {
            s.circle(*x, *y, 4.5, class, Some(&p.tip));
        }
        taken.push(BoxPx {
            x0: x - 5.0,
            y0: y - 5.0,
            x1: x + 5.0,
            y1: y + 5.0,
        });
    }
    // Label the mispriced points first, then the rest.
    let mut order: Vec<&(f64, f64, &GasPoint)> = placed.iter().collect();
    order.sort_by_key(|(_, _, p)| match p.pricing {
        Pricing::Under => 0,
        Pricing::Over => 1,
        Pricing::Within => 2,
    });
    let area = BoxPx {
        x0: l + 2.0,
        y0: t + 2.0,
        x1: W - r - 2.0,
        y1: h - b - 2.0,
    };
    for (x, y, p) in order {
        let w = text_width(&p.label, 10.5);
        let candidates = [
            (x + 7.0, y - 5.5, "start"),
            (x - 7.0, y - 5.5, "end"),
            (x + 5.0, y - 17.0, "start"),
            (x + 5.0, y + 6.0, "start"),
            (x - 5.0, y - 17.0, "end"),
            (x - 5.0, y + 6.0, "end"),
        ];
        for (cx, cy, anchor) in candidates {
            let bx = if anchor == "start" {
                BoxPx {
                    x0: cx,
                    y0: cy,
                    x1: cx + w,
                    y1: cy + 11.0,
                }
            } else {
                BoxPx {
                    x0: cx - w,
                    y0: cy,
                    x1: cx,
                    y1: cy + 11.0,
                }
            };
            let inside =
                bx.x0 >= area.x0 && bx.x1 <= area.x1 && bx.y0 >= area.y0 && bx.y1 <= area.y1;
            if inside && !taken.iter().any(|o| o.hits(&bx)) {
                s.text(cx, cy + 9.0, anchor, "pl", &p.label);
                taken.push(bx);
                break;
            }
        }
    }
    s.finish()
}

/// One run in a trend.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct TrendPx {
    /// Tick label (the date).
    pub(super) x_label: String,
    /// Second tick line (the commit or run id).
    pub(super) x_sub: String,
    /// Hover text.
    pub(super) tip: String,
    /// P50, ns.
    pub(super) y: f64,
    /// CI lower bound, ns.
    pub(super) lo: f64,
    /// CI upper bound, ns.
    pub(super) hi: f64,
}

/// P50 over runs, in run order, with the CI of the median as a band.
pub(super) fn trend_chart(title: &str, pts: &[TrendPx], width: f64) -> String {
    let tw = if width.is_finite() {
        width.clamp(320.0, 4000.0)
    } else {
        FULL
    };
    let (l, r, t, b) = (70.0, 30.0, 22.0, 44.0);
    let h = 260.0;
    let pts: Vec<&TrendPx> = pts.iter().filter(|p| drawable(p.y)).collect();
    let mut lo_v = f64::INFINITY;
    let mut hi_v = f64::NEG_INFINITY;
    for p in &pts {
        for v in [p.y, p.lo, p.hi] {
            if drawable(v) {
                lo_v = lo_v.min(v);
                hi_v = hi_v.max(v);
            }
        }
    }
    if !(lo_v.is_finite() && hi_v.is_finite()) {
        lo_v = 0.0;
        hi_v = 1.0;
    }
    let pad = (hi_v - lo_v).max(hi_v.abs() * 0.02) * 0.15;
    let ys = Scale::linear((lo_v - pad).max(0.0), hi_v + pad, h - b, t);
    let n = pts.len();
    let xpos = |i: usize| -> f64 {
        if n <= 1 {
            (l + tw - r) / 2.0
        } else {
            l + 40.0 + (tw - r - l - 80.0) * i as f64 / (n - 1) as f64
        }
    };
    let mut s = Svg::new(tw, h, title);
    for v in ys.ticks() {
        let y = ys.px(v);
        s.line(l, y, tw - r, y, "grid");
        s.text(l - 6.0, y + 4.0, "end", "tick", &tick_duration(v));
    }
    s.line(l, t, l, h - b, "axis");
    s.line(l, h - b, tw - r, h - b, "axis");
    s.vtext(16.0, (t + h - b) / 2.0, "axis-title", "P50 per operation");
    if ys.lo > 0.0 {
        s.text(
            l + 4.0,
            t - 8.0,
            "start",
            "muted",
            "the y axis does not start at zero",
        );
    }
    // The band: upper bounds left to right, lower bounds back.
    let mut band: Vec<(f64, f64)> = Vec::new();
    for (i, p) in pts.iter().enumerate() {
        let hi = if drawable(p.hi) { p.hi } else { p.y };
        band.push((xpos(i), ys.px(hi)));
    }
    for (i, p) in pts.iter().enumerate().rev() {
        let lo = if drawable(p.lo) { p.lo } else { p.y };
        band.push((xpos(i), ys.px(lo)));
    }
    if n > 1 {
        s.path(&band, true, "trend-band");
        let line: Vec<(f64, f64)> = pts
            .iter()
            .enumerate()
            .map(|(i, p)| (xpos(i), ys.px(p.y)))
            .collect();
        s.path(&line, false, "trend-line");
    }
    // Room for a date under every tick, or under every k-th.
    let fit = ((tw - l - r) / 150.0).floor().max(1.0) as usize;
    let every = n.div_ceil(fit).max(1);
    for (i, p) in pts.iter().enumerate() {
        let (x, y) = (xpos(i), ys.px(p.y));
        if n == 1 && drawable(p.lo) && drawable(p.hi) {
            s.vbar_error(x, ys.px(p.lo), ys.px(p.hi), 4.0);
        }
        s.circle(x, y, 4.5, "trend-pt", Some(&p.tip));
        if i % every == 0 || i + 1 == n {
            s.text(x, h - b + 17.0, "middle", "tick", &shorten(&p.x_label, 22));
            s.text(x, h - b + 32.0, "middle", "muted", &shorten(&p.x_sub, 22));
            if n <= fit {
                s.text(x, y - 10.0, "middle", "value", &crate::units::duration(p.y));
            }
        }
    }
    s.finish()
}

/// `s` cut to `max` characters with an ellipsis.
/// One row of a forest chart: relative changes (B / A - 1).
pub(super) struct ForestRow {
    pub(super) label: String,
    /// The units the estimate is made of (a pair of runs, a pass), each
    /// with its tooltip.
    pub(super) points: Vec<(f64, String)>,
    pub(super) delta: f64,
    pub(super) low: f64,
    pub(super) high: f64,
    /// The estimate's class (its verdict's colour).
    pub(super) class: &'static str,
    pub(super) tip: String,
}

/// Rows of relative changes on one axis around zero (clipped to what they
/// need, at most ±100%): each row's units as small dots, its interval as a
/// bar, its estimate as a large dot.
pub(super) fn forest_chart(title: &str, rows: &[ForestRow], axis: &str) -> String {
    let row = 26.0;
    let (left, right, top, bottom) = (260.0, 20.0, 10.0, 34.0);
    let h = top + bottom + row * rows.len() as f64;
    let w = FULL;
    let pct = |x: f64| x * 100.0;
    let span = rows
        .iter()
        .flat_map(|r| r.points.iter().map(|p| p.0).chain([r.low, r.high]))
        .map(|x| pct(x).abs())
        .filter(|x| x.is_finite())
        .fold(5.0, f64::max)
        .min(100.0);
    let x = Scale::linear(-span, span, left, w - right);
    let mut s = Svg::new(w, h, title);
    for t in x.ticks() {
        let px = x.px(t);
        s.line(
            px,
            top,
            px,
            h - bottom,
            if t == 0.0 { "axis" } else { "grid" },
        );
        s.text(
            px,
            h - bottom + 16.0,
            "middle",
            "tick",
            &format!("{}%", num(t)),
        );
    }
    let clip = |v: f64| x.px(pct(v).clamp(-span, span));
    for (i, r) in rows.iter().enumerate() {
        let mid = top + row * (i as f64 + 0.5);
        s.text(
            left - 8.0,
            mid + 4.0,
            "end",
            "label",
            &shorten(&r.label, 40),
        );
        s.hbar_error(clip(r.low), clip(r.high), mid, 6.0);
        for (d, tip) in &r.points {
            s.circle(clip(*d), mid, 3.0, "pt-ok", Some(tip));
        }
        s.circle(clip(r.delta), mid, 5.0, r.class, Some(&r.tip));
    }
    s.text(
        (left + w - right) / 2.0,
        h - 4.0,
        "middle",
        "axis-title",
        axis,
    );
    s.finish()
}

pub(super) fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
        out.push('…');
        out
    }
}

/// One line of a [`size_chart`]: an implementation under one condition.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct SizeSeries {
    /// In the legend: `revm, warm`.
    pub(super) label: String,
    /// Colour index into the palette.
    pub(super) colour: usize,
    /// Dashed (the evicted page cache).
    pub(super) dashed: bool,
    /// `(size, value, lower, upper, tip)`, in size order.
    pub(super) points: Vec<(f64, f64, f64, f64, String)>,
}

/// Cost against size on log–log axes: one line per series, each point
/// with its 95% interval, a legend under the plot.
pub(super) fn size_chart(title: &str, series: &[SizeSeries], width: f64) -> String {
    let tw = if width.is_finite() {
        width.clamp(320.0, 4000.0)
    } else {
        HALF
    };
    let legend_rows = series.len().div_ceil(2) as f64;
    let (l, r, t, b) = (70.0, 20.0, 24.0, 40.0 + 18.0 * legend_rows);
    let h = 240.0 + 18.0 * legend_rows;
    let all = || series.iter().flat_map(|s| s.points.iter());
    let (mut x_lo, mut x_hi, mut y_lo, mut y_hi) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for (x, y, lo, hi, _) in all() {
        if drawable(*x) {
            x_lo = x_lo.min(*x);
            x_hi = x_hi.max(*x);
        }
        for v in [y, lo, hi] {
            if drawable(*v) {
                y_lo = y_lo.min(*v);
                y_hi = y_hi.max(*v);
            }
        }
    }
    let xs = Scale::log(x_lo, x_hi, l + 10.0, tw - r - 10.0);
    let ys = Scale::log(y_lo, y_hi, h - b, t);
    let mut s = Svg::new(tw, h, title);
    frame(
        &mut s,
        (&xs, &ys),
        (l, r, t, b, tw, h),
        "per access",
        "x: accounts in the state",
    );
    for sr in series {
        let class = line_class(sr.colour, sr.dashed);
        let line: Vec<(f64, f64)> = sr
            .points
            .iter()
            .filter(|p| drawable(p.1))
            .map(|p| (xs.px(p.0), ys.px(p.1)))
            .collect();
        if line.len() > 1 {
            s.path(&line, false, &class);
        }
        for (x, y, lo, hi, tip) in &sr.points {
            if !drawable(*y) {
                continue;
            }
            if drawable(*lo) && drawable(*hi) {
                s.vbar_error(xs.px(*x), ys.px(*lo), ys.px(*hi), 3.0);
            }
            s.circle(
                xs.px(*x),
                ys.px(*y),
                4.0,
                &format!("f{}", sr.colour % PALETTE),
                Some(tip),
            );
        }
    }
    // The legend: two entries a row, under the axis labels.
    for (i, sr) in series.iter().enumerate() {
        let (col, row) = ((i % 2) as f64, (i / 2) as f64);
        let x = l + col * (tw - l - r) / 2.0;
        let y = h - b + 34.0 + 18.0 * row;
        s.line(
            x,
            y - 4.0,
            x + 22.0,
            y - 4.0,
            &line_class(sr.colour, sr.dashed),
        );
        s.text(x + 28.0, y, "start", "tick", &shorten(&sr.label, 40));
    }
    s.finish()
}

/// A line's classes: its palette colour, dashed or not.
fn line_class(colour: usize, dashed: bool) -> String {
    format!(
        "size-line l{}{}",
        colour % PALETTE,
        if dashed { " dashed" } else { "" }
    )
}

/// The grid, ticks and axes of a plot in `(l, r, t, b, width, height)`,
/// durations up the y axis and counts along x, with their titles.
fn frame(
    s: &mut Svg,
    (xs, ys): (&Scale, &Scale),
    (l, r, t, b, tw, h): (f64, f64, f64, f64, f64, f64),
    y_title: &str,
    x_note: &str,
) {
    for v in ys.ticks_max(6) {
        let y = ys.px(v);
        s.line(l, y, tw - r, y, "grid");
        s.text(l - 6.0, y + 4.0, "end", "tick", &tick_duration(v));
    }
    for v in xs.ticks_max(6) {
        let x = xs.px(v);
        s.line(x, t, x, h - b, "grid");
        s.text(x, h - b + 16.0, "middle", "tick", &tick_count(v));
    }
    s.line(l, t, l, h - b, "axis");
    s.line(l, h - b, tw - r, h - b, "axis");
    s.vtext(16.0, (t + h - b) / 2.0, "axis-title", y_title);
    s.text(tw - r, t - 2.0, "end", "muted", x_note);
}

/// One client's points and fit in a [`count_chart`].
#[derive(Debug, Clone, PartialEq)]
pub(super) struct CountSeries {
    /// In the legend: `geth newPayload: 3.10 µs/op, R² 0.99`.
    pub(super) label: String,
    pub(super) colour: usize,
    /// Dashed fit line (the client's own execution time).
    pub(super) dashed: bool,
    /// `(count, ns, tip)`, one per block.
    pub(super) points: Vec<(f64, f64, String)>,
    /// The fit: `intercept + slope × count`, ns.
    pub(super) fit: Option<(f64, f64)>,
}

/// Block time against the block's operation count on linear axes from
/// zero: each block a point, each series' fit a line over the counts it
/// spans, a legend under the plot.
pub(super) fn count_chart(title: &str, series: &[CountSeries], width: f64) -> String {
    let tw = if width.is_finite() {
        width.clamp(320.0, 4000.0)
    } else {
        HALF
    };
    let legend_rows = series.len() as f64;
    let (l, r, t, b) = (70.0, 20.0, 24.0, 40.0 + 18.0 * legend_rows);
    let h = 240.0 + 18.0 * legend_rows;
    let (mut x_hi, mut y_hi) = (0.0f64, 0.0f64);
    for sr in series {
        for (x, y, _) in &sr.points {
            if x.is_finite() && y.is_finite() {
                x_hi = x_hi.max(*x);
                y_hi = y_hi.max(*y);
            }
        }
    }
    let xs = Scale::linear(0.0, x_hi.max(1.0), l + 10.0, tw - r - 10.0);
    let ys = Scale::linear(0.0, y_hi.max(1.0), h - b, t);
    let mut s = Svg::new(tw, h, title);
    frame(
        &mut s,
        (&xs, &ys),
        (l, r, t, b, tw, h),
        "block time",
        "x: operations in the block",
    );
    for sr in series {
        for (x, y, tip) in &sr.points {
            if x.is_finite() && y.is_finite() {
                s.circle(
                    xs.px(*x),
                    ys.px(*y),
                    3.0,
                    &format!("f{}", sr.colour % PALETTE),
                    Some(tip),
                );
            }
        }
        let span = sr
            .points
            .iter()
            .map(|p| p.0)
            .filter(|x| x.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                (lo.min(x), hi.max(x))
            });
        if let Some((a, k)) = sr.fit
            && span.0 < span.1
        {
            let class = line_class(sr.colour, sr.dashed);
            let ends = [span.0, span.1].map(|x| (xs.px(x), ys.px(a + k * x)));
            s.path(&ends, false, &class);
        }
    }
    for (i, sr) in series.iter().enumerate() {
        let y = h - b + 34.0 + 18.0 * i as f64;
        s.line(
            l,
            y - 4.0,
            l + 22.0,
            y - 4.0,
            &line_class(sr.colour, sr.dashed),
        );
        s.text(l + 28.0, y, "start", "tick", &shorten(&sr.label, 90));
    }
    s.finish()
}
