//! A base-10 log axis with 1-2-5 labels.
//!
//! plotters' own log axis labels only whole decades at most, puts no tick
//! below the first decade inside the range, and repeats every decade
//! among its light points (so decade labels are drawn twice).

use std::ops::Range;

use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter};

use crate::style;

/// A log-scaled axis over a positive range.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LogAxis {
    lo: f64,
    hi: f64,
}

impl LogAxis {
    /// An axis from `lo` to `hi`; both are forced positive and apart.
    pub(crate) fn new(lo: f64, hi: f64) -> Self {
        let lo = if lo.is_finite() && lo > 0.0 { lo } else { 1e-3 };
        let hi = if hi.is_finite() && hi > lo * 1.0001 {
            hi
        } else {
            lo * 10.0
        };
        Self { lo, hi }
    }

    /// `m × 10^k` for every `m` in `mantissas` that falls in the range.
    fn ticks(&self, mantissas: &[f64]) -> Vec<f64> {
        let first = self.lo.log10().floor() as i32;
        let last = self.hi.log10().ceil() as i32;
        let (lo, hi) = (self.lo * (1.0 - 1e-9), self.hi * (1.0 + 1e-9));
        (first..=last)
            .flat_map(|k| mantissas.iter().map(move |m| m * 10f64.powi(k)))
            .filter(|v| (lo..=hi).contains(v))
            .collect()
    }
}

impl Ranged for LogAxis {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let v = if value.is_finite() && *value > 0.0 {
            *value
        } else {
            self.lo
        };
        let (a, b) = (self.lo.log10(), self.hi.log10());
        let f = ((v.log10() - a) / (b - a)).clamp(-1.0, 2.0);
        limit.0 + (f64::from(limit.1 - limit.0) * f).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        let max = hint.max_num_points().max(2);
        let bold = [&[1.0, 2.0, 5.0][..], &[1.0, 3.0][..], &[1.0][..]]
            .into_iter()
            .map(|m| self.ticks(m))
            .find(|t| t.len() <= max && t.len() >= 2)
            .unwrap_or_else(|| self.ticks(&[1.0]));
        if !hint.weight().allow_light_points() {
            return bold;
        }
        let light = self.ticks(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
        if light.len() <= max { light } else { bold }
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

impl ValueFormatter<f64> for LogAxis {
    fn format(value: &f64) -> String {
        style::fmt_tick(*value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bold_ticks_are_1_2_5() {
        let a = LogAxis::new(3.0, 4000.0);
        assert_eq!(
            a.key_points(20usize),
            vec![5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0]
        );
        // Fewer points allowed: 1-3, then decades.
        assert_eq!(
            a.key_points(7usize),
            vec![3.0, 10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0]
        );
        assert_eq!(a.key_points(3usize), vec![10.0, 100.0, 1000.0]);
    }

    #[test]
    fn maps_monotonically_and_safely() {
        let a = LogAxis::new(1.0, 1000.0);
        assert_eq!(a.map(&1.0, (0, 300)), 0);
        assert_eq!(a.map(&10.0, (0, 300)), 100);
        assert_eq!(a.map(&1000.0, (0, 300)), 300);
        assert_eq!(a.map(&0.0, (0, 300)), 0);
        assert_eq!(a.map(&f64::NAN, (0, 300)), 0);
        let b = LogAxis::new(5.0, 5.0);
        assert_eq!(b.range(), 5.0..50.0);
    }
}
