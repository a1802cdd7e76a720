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

/// A duration given in nanoseconds: `12.3 ns`, `4.56 µs`, `1.23 ms`, `2.00 s`.
pub fn duration(ns: f64) -> String {
    if !ns.is_finite() {
        return "-".into();
    }
    let (value, unit) = if ns.abs() < 1e3 {
        (ns, "ns")
    } else if ns.abs() < 1e6 {
        (ns / 1e3, "µs")
    } else if ns.abs() < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    format!("{} {unit}", sig3(value))
}

/// A rate: `950`, `12.3k`, `4.56M`, `1.20G` (per second).
pub fn rate(per_sec: f64) -> String {
    if !per_sec.is_finite() {
        return "-".into();
    }
    let (value, suffix) = if per_sec < 1e3 {
        (per_sec, "")
    } else if per_sec < 1e6 {
        (per_sec / 1e3, "k")
    } else if per_sec < 1e9 {
        (per_sec / 1e6, "M")
    } else {
        (per_sec / 1e9, "G")
    };
    format!("{}{suffix}", sig3(value))
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
        assert_eq!(duration(4_560.0), "4.56 µs");
        assert_eq!(duration(1_234_567.0), "1.23 ms");
        assert_eq!(duration(2.0e9), "2.00 s");
        assert_eq!(duration(0.52), "0.520 ns");
        assert_eq!(duration(f64::NAN), "-");
    }

    #[test]
    fn rates_counts_and_bytes() {
        assert_eq!(rate(950.0), "950");
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
