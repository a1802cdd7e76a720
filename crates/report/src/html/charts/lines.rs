//! Line and forest charts: a benchmark's trend, intervals set side by side, sizes and counts over a run.

use super::*;

/// One run in a trend.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TrendPx {
    /// Tick label (the date).
    pub(crate) x_label: String,
    /// Second tick line (the commit or run id).
    pub(crate) x_sub: String,
    /// Hover text.
    pub(crate) tip: String,
    /// P50, ns.
    pub(crate) y: f64,
    /// CI lower bound, ns.
    pub(crate) lo: f64,
    /// CI upper bound, ns.
    pub(crate) hi: f64,
}

/// P50 over runs, in run order, with the CI of the median as a band.
pub(crate) fn trend_chart(title: &str, pts: &[TrendPx], width: f64) -> String {
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
pub(crate) struct ForestRow {
    pub(crate) label: String,
    /// The units the estimate is made of (a pair of runs, a pass), each
    /// with its tooltip.
    pub(crate) points: Vec<(f64, String)>,
    pub(crate) delta: f64,
    pub(crate) low: f64,
    pub(crate) high: f64,
    /// The estimate's class (its verdict's colour).
    pub(crate) class: &'static str,
    pub(crate) tip: String,
}

/// Rows of relative changes on one axis around zero (clipped to what they
/// need, at most ±100%): each row's units as small dots, its interval as a
/// bar, its estimate as a large dot.
pub(crate) fn forest_chart(title: &str, rows: &[ForestRow], axis: &str) -> String {
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

pub(crate) fn shorten(s: &str, max: usize) -> String {
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
pub(crate) struct SizeSeries {
    /// In the legend: `revm, warm`.
    pub(crate) label: String,
    /// Colour index into the palette.
    pub(crate) colour: usize,
    /// Dashed (the evicted page cache).
    pub(crate) dashed: bool,
    /// `(size, value, lower, upper, tip)`, in size order.
    pub(crate) points: Vec<(f64, f64, f64, f64, String)>,
}

/// Cost against size on log–log axes: one line per series, each point
/// with its 95% interval, a legend under the plot.
pub(crate) fn size_chart(title: &str, series: &[SizeSeries], width: f64) -> String {
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
pub(crate) fn line_class(colour: usize, dashed: bool) -> String {
    format!(
        "size-line l{}{}",
        colour % PALETTE,
        if dashed { " dashed" } else { "" }
    )
}

/// The grid, ticks and axes of a plot in `(l, r, t, b, width, height)`,
/// durations up the y axis and counts along x, with their titles.
pub(crate) fn frame(
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
pub(crate) struct CountSeries {
    /// In the legend: `geth newPayload: 3.10 µs/op, R² 0.99`.
    pub(crate) label: String,
    pub(crate) colour: usize,
    /// Dashed fit line (the client's own execution time).
    pub(crate) dashed: bool,
    /// `(count, ns, tip)`, one per block.
    pub(crate) points: Vec<(f64, f64, String)>,
    /// The fit: `intercept + slope × count`, ns.
    pub(crate) fit: Option<(f64, f64)>,
}

/// Block time against the block's operation count on linear axes from
/// zero: each block a point, each series' fit a line over the counts it
/// spans, a legend under the plot.
pub(crate) fn count_chart(title: &str, series: &[CountSeries], width: f64) -> String {
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
