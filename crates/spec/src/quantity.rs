//! Durations (`1ms`, `0.1 ms`, `250us`), thresholds (`20%`, `0.2`) and target
//! statistics, as written in specs.

use crate::TargetSpec;

pub use dyno_stats::Stat;

/// A duration such as `1ms`, `0.1 ms`, `250us`, `250µs`, `500ns`, `2s`, in ns.
pub fn parse_duration_ns(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num.replace('_', "").parse().map_err(|_| {
        format!("{text:?} is not a duration (write e.g. \"1ms\", \"250us\", \"0.5s\")")
    })?;
    let scale = match unit.trim() {
        "ns" => 1.0,
        "us" | "µs" | "μs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "" => return Err(format!("{text:?} has no unit (write e.g. \"{num}ms\")")),
        other => {
            return Err(format!(
                "unknown unit {other:?} in {text:?} (use ns, us, ms or s)"
            ));
        }
    };
    if value <= 0.0 || !value.is_finite() {
        return Err(format!("{text:?} must be a positive duration"));
    }
    Ok(value * scale)
}

/// A threshold written `"20%"` or `0.2`; must lie in (0, 10].
pub fn parse_threshold(v: &toml::Value) -> Result<f64, String> {
    let fraction = match v {
        toml::Value::String(s) => {
            let pct = s
                .trim()
                .strip_suffix('%')
                .ok_or_else(|| format!("{s:?} is not a percentage (write e.g. \"20%\" or 0.2)"))?;
            pct.trim()
                .parse::<f64>()
                .map_err(|_| format!("{s:?} is not a percentage (write e.g. \"20%\")"))?
                / 100.0
        }
        toml::Value::Float(f) => *f,
        toml::Value::Integer(i) => *i as f64,
        other => {
            return Err(format!(
                "expected \"20%\" or 0.2, found {}",
                other.type_str()
            ));
        }
    };
    if !(fraction > 0.0 && fraction <= 10.0) {
        return Err(format!(
            "{fraction} is outside (0, 10]; a threshold is a relative slowdown such as \"20%\""
        ));
    }
    Ok(fraction)
}

/// `{ p50 = "1ms" }`: exactly one statistic and its limit.
pub(crate) fn parse_target(t: &toml::Table) -> Result<TargetSpec, String> {
    let valid = || {
        Stat::ALL
            .iter()
            .map(|s| s.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut iter = t.iter();
    let (Some((key, value)), None) = (iter.next(), iter.next()) else {
        return Err(format!(
            "give exactly one statistic and its limit, e.g. {{ p50 = \"1ms\" }} (statistics: {})",
            valid()
        ));
    };
    let stat = Stat::from_name(key)
        .ok_or_else(|| format!("unknown statistic {key:?} (use one of {})", valid()))?;
    let text = value
        .as_str()
        .ok_or_else(|| format!("{key} must be a duration string such as \"1ms\""))?;
    Ok(TargetSpec {
        stat,
        limit_ns: parse_duration_ns(text)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_in_every_unit() {
        assert_eq!(parse_duration_ns("1ms").unwrap(), 1e6);
        assert_eq!(parse_duration_ns("0.1 ms").unwrap(), 1e5);
        assert_eq!(parse_duration_ns("250us").unwrap(), 250e3);
        assert_eq!(parse_duration_ns("250µs").unwrap(), 250e3);
        assert_eq!(parse_duration_ns("500ns").unwrap(), 500.0);
        assert_eq!(parse_duration_ns("2s").unwrap(), 2e9);
        assert_eq!(parse_duration_ns("1_000ns").unwrap(), 1000.0);
        assert!(parse_duration_ns("5").unwrap_err().contains("no unit"));
        assert!(
            parse_duration_ns("5 min")
                .unwrap_err()
                .contains("unknown unit")
        );
        assert!(parse_duration_ns("ms").is_err());
        assert!(parse_duration_ns("0ms").is_err());
    }

    #[test]
    fn thresholds_as_percent_or_fraction() {
        assert_eq!(
            parse_threshold(&toml::Value::String("20%".into())).unwrap(),
            0.2
        );
        assert_eq!(parse_threshold(&toml::Value::Float(0.05)).unwrap(), 0.05);
        assert!(parse_threshold(&toml::Value::String("20".into())).is_err());
        assert!(parse_threshold(&toml::Value::Float(-0.1)).is_err());
        assert!(parse_threshold(&toml::Value::Boolean(true)).is_err());
    }

    #[test]
    fn targets_name_one_statistic() {
        let t: toml::Table = toml::from_str("p95 = \"2ms\"").unwrap();
        assert_eq!(
            parse_target(&t).unwrap(),
            TargetSpec {
                stat: Stat::P95,
                limit_ns: 2e6
            }
        );
        let two: toml::Table = toml::from_str("p95 = \"2ms\"\np50 = \"1ms\"").unwrap();
        assert!(parse_target(&two).unwrap_err().contains("exactly one"));
        let bad: toml::Table = toml::from_str("p90 = \"2ms\"").unwrap();
        assert!(
            parse_target(&bad)
                .unwrap_err()
                .contains("unknown statistic")
        );
    }
}
