//! The report's charts, drawn as inline SVG: horizontal bars with error
//! bars (one chart per benchmark family), calculated against nominal gas on
//! log–log axes, and a line over runs with a confidence band.
//!
//! Each function takes plain numbers and labels, so it can be tested
//! without a run; colours come from CSS classes the page defines.

use super::svg::{
    Scale, Svg, fit_mono, fit_text, mono_width, num, text_width, tick_count, tick_duration,
};

mod lines;
mod scatter;
pub(super) use lines::*;
pub(super) use scatter::*;

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
