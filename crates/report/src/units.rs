//! Numbers for people: three significant figures and a unit chosen so that
//! nobody reads "µns/op" or "0.000012 s".

/// A time with its interval: `12.3 µs [11.9 µs, 12.8 µs]`.
pub fn duration_ci(e: &dyno_format::gas::Estimate) -> String {
    format!(
        "{} [{}, {}]",
        duration(e.value),
        duration(e.lower),
        duration(e.upper)
    )
}

/// A fit's coefficient in ns with its interval, or `0 (held at the
/// bound)` for one non-negative least squares held at zero (its [0, 0] is
/// no interval).
pub fn coefficient(c: &dyno_format::reprice::Coefficient) -> String {
    if c.held() {
        "0 (held at the bound)".into()
    } else {
        duration_ci(&c.estimate())
    }
}

/// A duration given in nanoseconds: `12.3 ns`, `4.56 µs`, `1.23 ms`, `2.00 s`.
pub fn duration(ns: f64) -> String {
    if !ns.is_finite() {
        return "-".into();
    }
    let (value, unit) = scaled(ns, &[(1.0, "ns"), (1e3, "µs"), (1e6, "ms"), (1e9, "s")]);
    format!("{value} {unit}")
}

/// A rate: `950`, `12.3k`, `4.56M`, `1.20G` (per second).
pub fn rate(per_sec: f64) -> String {
    if !per_sec.is_finite() {
        return "-".into();
    }
    let (value, suffix) = scaled(per_sec, &[(1.0, ""), (1e3, "k"), (1e6, "M"), (1e9, "G")]);
    format!("{value}{suffix}")
}

/// `v` in the largest of `units` (ascending by a thousand, the first 1) it reaches,
/// to three significant figures. The unit is chosen for the value as
/// shown: 999.6 ns is "1.00 µs", never "1000 ns".
fn scaled(v: f64, units: &[(f64, &'static str)]) -> (String, &'static str) {
    let pick = |x: f64| {
        units
            .iter()
            .rev()
            .find(|(div, _)| x.abs() >= *div)
            .unwrap_or(&units[0])
    };
    let (div, unit) = *pick(v);
    let shown = sig3(v / div);
    // Rounding may carry into the next unit, a thousand times this one
    // (999.6 -> "1000"): show the rounded value there (1.00).
    let rounded = shown.parse::<f64>().unwrap_or(0.0);
    match units.iter().position(|u| u.1 == unit) {
        Some(i) if rounded.abs() >= 1e3 && i + 1 < units.len() => {
            (sig3(rounded / 1e3), units[i + 1].1)
        }
        _ => (shown, unit),
    }
}

/// A count per operation: `0`, `3`, `2.5`, `1.2k`.
pub fn count(n: f64) -> String {
    if !n.is_finite() {
        "-".into()
    } else if n == 0.0 {
        "0".into()
    } else if n >= 1e3 {
        rate(n)
    } else if (n - n.round()).abs() < 0.005 {
        format!("{}", n.round() as u64)
    } else {
        sig3(n)
    }
}

/// Bytes: `0 B`, `512 B`, `1.50 KiB`, `2.00 MiB`.
pub fn bytes(n: f64) -> String {
    if !n.is_finite() {
        "-".into()
    } else if n < 1024.0 {
        format!("{} B", count(n))
    } else if n < 1024.0 * 1024.0 {
        format!("{} KiB", sig3(n / 1024.0))
    } else {
        format!("{} MiB", sig3(n / (1024.0 * 1024.0)))
    }
}

/// A ratio to the baseline: `1.00`, `0.52`, `12.3`.
pub fn ratio(r: f64) -> String {
    if !r.is_finite() {
        "-".into()
    } else {
        sig3(r).to_string()
    }
}

/// A percentage with one decimal: `±1.2%`.
pub fn plus_minus_pct(fraction: f64) -> String {
    if !fraction.is_finite() {
        "-".into()
    } else {
        format!("±{:.1}%", fraction * 100.0)
    }
}

/// Three significant figures (whole numbers from 100 up), without exponent
/// notation.
pub fn sig3(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 || a == 0.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_pick_a_unit() {
        assert_eq!(duration(12.34), "12.3 ns");
        assert_eq!(duration(999.0), "999 ns");
        // Rounded first, then given its unit: never "1000 ns".
        assert_eq!(duration(999.6), "1.00 µs");
        assert_eq!(duration(-999_700.0), "-1.00 ms");
        assert_eq!(duration(4_560.0), "4.56 µs");
        assert_eq!(duration(1_234_567.0), "1.23 ms");
        assert_eq!(duration(2.0e9), "2.00 s");
        assert_eq!(duration(0.52), "0.520 ns");
        assert_eq!(duration(f64::NAN), "-");
    }

    #[test]
    fn rates_counts_and_bytes() {
        assert_eq!(rate(950.0), "950");
        assert_eq!(rate(999_600.0), "1.00M");
        assert_eq!(rate(12_345.0), "12.3k");
        assert_eq!(rate(4_560_000.0), "4.56M");
        assert_eq!(count(0.0), "0");
        assert_eq!(count(3.0), "3");
        assert_eq!(count(2.5), "2.50");
        assert_eq!(count(1500.0), "1.50k");
        assert_eq!(bytes(512.0), "512 B");
        assert_eq!(bytes(1536.0), "1.50 KiB");
        assert_eq!(plus_minus_pct(0.0123), "±1.2%");
        assert_eq!(ratio(0.5234), "0.523");
    }
}
