//! The `dyno gas --state` table, in every output format: each access at
//! each state size and cache state against every schedule, then how each
//! grows with the state. The figures are `dyno_price::state`'s (the rows
//! are `dyno_format::state`); this module only lays them out.

use std::fmt::Write as _;

use dyno_format::gas::Pricing;
use dyno_format::state::{StatePricing, StateRow, StateTrend};

use crate::Format;
use crate::columns::{aligned, md_table};
use crate::units::sig3;

/// Render in `format`.
pub fn render(p: &StatePricing, format: Format) -> String {
    match format {
        Format::Table => text(p),
        Format::Markdown => markdown(p),
        Format::Csv => csv(p),
        Format::Json => {
            let mut s = serde_json::to_string_pretty(p).expect("a state pricing serializes");
            s.push('\n');
            s
        }
    }
}

fn gas(v: f64) -> String {
    if v.is_finite() { sig3(v) } else { "-".into() }
}

use crate::units::duration_ci as time;

fn headers(p: &StatePricing) -> Vec<String> {
    let mut h: Vec<String> = [
        "access",
        "accounts",
        "page cache",
        "impl",
        "per access [95% CI]",
        "disk reads",
        "calc gas",
    ]
    .map(String::from)
    .to_vec();
    h.push(format!("gas @ {} MGas/s", p.throughput_mgas));
    h.extend(p.schedules.iter().map(|s| s.name.clone()));
    h.push("pricing".into());
    h
}

fn cells(p: &StatePricing, r: &StateRow) -> Vec<String> {
    let mut c = vec![
        r.access.clone(),
        r.accounts.to_string(),
        r.cache.clone(),
        r.implementation.clone(),
        time(&r.ns),
        r.disk_reads.map_or("-".into(), |d| format!("{d:.2}")),
        gas(r.calculated_gas.value),
        gas(r.throughput_gas.value),
    ];
    for s in &p.schedules {
        c.push(
            r.nominal
                .iter()
                .find(|n| n.schedule == s.name)
                .map_or("-".into(), |n| {
                    format!(
                        "{} ×{}",
                        n.gas,
                        ratio(r.calculated_gas.value / n.gas.max(1) as f64)
                    )
                }),
        );
    }
    c.push(flags(p, r));
    c
}

/// A ratio to two significant figures.
fn ratio(x: f64) -> String {
    if x >= 10.0 {
        format!("{x:.0}")
    } else if x >= 1.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// `underpriced: osaka, eip-8038`, `overpriced: every schedule`, or both
/// lists; empty where no schedule is flagged.
fn flags(p: &StatePricing, r: &StateRow) -> String {
    let mut out = Vec::new();
    for kind in [Pricing::Under, Pricing::Over] {
        let names: Vec<&str> = r
            .nominal
            .iter()
            .filter(|n| n.pricing == Some(kind))
            .map(|n| n.schedule.as_str())
            .collect();
        if names.is_empty() {
            continue;
        }
        let which = if names.len() == p.schedules.len() && names.len() > 1 {
            "every schedule".to_string()
        } else {
            names.join(", ")
        };
        out.push(format!("{}: {which}", kind.as_str()));
    }
    out.join("; ")
}

fn trend_cells(t: &StateTrend) -> Vec<String> {
    vec![
        t.access.clone(),
        t.cache.clone(),
        t.implementation.clone(),
        format!(
            "{:.3} [{:.3}, {:.3}]",
            t.exponent.value, t.exponent.lower, t.exponent.upper
        ),
        t.sizes
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", "),
    ]
}

const TREND_HEADERS: [&str; 5] = [
    "access",
    "page cache",
    "impl",
    "exponent [95% CI]",
    "accounts fitted",
];

fn footer(p: &StatePricing) -> Vec<String> {
    let mut lines = vec![
        format!(
            "calc gas = ns × 3000 / ns(ECRECOVER) = ns × 3000 / {}; gas @ {} MGas/s = ns × {}; the time includes the loop (revm's loop gas is in the JSON)",
            time(&p.anchor_ns),
            p.throughput_mgas,
            p.throughput_mgas / 1000.0
        ),
        format!(
            "schedule columns: each schedule's price of the access alone (docs/state.md, \"Gas\") × calc gas / that price; flagged where calc gas is more than {}× it (underpriced) or under 1/{} (overpriced)",
            p.factor, p.factor
        ),
    ];
    for s in &p.schedules {
        lines.push(format!("{}: {} ({})", s.name, s.status, s.source));
    }
    lines.push(
        "exponent: the slope of ln(ns) on ln(accounts), ns ∝ accounts^exponent; its interval is Student t on n − 2 degrees of freedom".into(),
    );
    let flagged = p
        .rows
        .iter()
        .filter(|r| r.nominal.iter().any(|n| n.pricing.is_some()))
        .count();
    lines.push(format!(
        "{} rows, {flagged} flagged; run {}",
        p.rows.len(),
        p.run_id
    ));
    lines
}

fn text(p: &StatePricing) -> String {
    let mut out = String::new();
    let rows: Vec<Vec<String>> = p.rows.iter().map(|r| cells(p, r)).collect();
    aligned(&headers(p), &rows, &mut out);
    out.push_str("\ngrowth with the state:\n");
    let trends: Vec<Vec<String>> = p.trends.iter().map(trend_cells).collect();
    aligned(&TREND_HEADERS.map(String::from), &trends, &mut out);
    out.push('\n');
    for l in footer(p) {
        let _ = writeln!(out, "{l}");
    }
    out
}

fn markdown(p: &StatePricing) -> String {
    let mut out = String::new();
    md_table(&headers(p), p.rows.iter().map(|r| cells(p, r)), &mut out);
    out.push('\n');
    md_table(
        &TREND_HEADERS.map(String::from),
        p.trends.iter().map(trend_cells),
        &mut out,
    );
    out.push('\n');
    for l in footer(p) {
        let _ = writeln!(out, "- {l}");
    }
    out
}

fn csv(p: &StatePricing) -> String {
    let mut out = String::from(
        "access,accounts,cache,implementation,ns,ns_lower,ns_upper,disk_reads,loop_gas,calculated_gas,calculated_gas_lower,calculated_gas_upper,throughput_gas",
    );
    for s in &p.schedules {
        let _ = write!(out, ",{0}_gas,{0}_pricing", crate::csv::quote(&s.name));
    }
    out.push('\n');
    for r in &p.rows {
        let mut f = vec![
            r.access.clone(),
            r.accounts.to_string(),
            r.cache.clone(),
            crate::csv::quote(&r.implementation),
            r.ns.value.to_string(),
            r.ns.lower.to_string(),
            r.ns.upper.to_string(),
            r.disk_reads.map_or(String::new(), |d| d.to_string()),
            r.loop_gas.map_or(String::new(), |g| g.to_string()),
            r.calculated_gas.value.to_string(),
            r.calculated_gas.lower.to_string(),
            r.calculated_gas.upper.to_string(),
            r.throughput_gas.value.to_string(),
        ];
        for s in &p.schedules {
            match r.nominal.iter().find(|n| n.schedule == s.name) {
                Some(n) => {
                    f.push(n.gas.to_string());
                    f.push(n.pricing.map_or(String::new(), |x| x.as_str().into()));
                }
                None => f.extend([String::new(), String::new()]),
            }
        }
        let _ = writeln!(out, "{}", f.join(","));
    }
    out
}

#[cfg(test)]
mod tests {
    use dyno_format::state::{Nominal, ScheduleName};

    use super::*;
    use dyno_format::gas::Estimate;

    fn pricing() -> StatePricing {
        let e = |v: f64| Estimate {
            value: v,
            lower: v * 0.9,
            upper: v * 1.1,
        };
        StatePricing {
            run_id: "r1".into(),
            anchor_ns: e(27_000.0),
            throughput_mgas: 60.0,
            factor: 2.0,
            schedules: vec![ScheduleName {
                name: "osaka".into(),
                status: "in force".into(),
                source: "EIP-2929".into(),
            }],
            rows: vec![StateRow {
                access: "sload-cold".into(),
                accounts: 1_000_000,
                cache: "evicted".into(),
                implementation: "revm".into(),
                ns: e(48_000.0),
                loop_gas: Some(2164),
                calculated_gas: e(5_333.0),
                throughput_gas: e(2_880.0),
                disk_reads: Some(1.12),
                nominal: vec![Nominal {
                    schedule: "osaka".into(),
                    gas: 2100,
                    pricing: Some(Pricing::Under),
                }],
            }],
            trends: vec![StateTrend {
                access: "sload-cold".into(),
                cache: "evicted".into(),
                implementation: "revm".into(),
                exponent: Estimate {
                    value: 0.4,
                    lower: -1.0,
                    upper: 1.8,
                },
                sizes: vec![10_000, 100_000, 1_000_000],
            }],
        }
    }

    #[test]
    fn every_format_carries_the_row_its_flag_and_the_trend() {
        let p = pricing();
        let text = render(&p, Format::Table);
        assert!(
            text.contains("sload-cold") && text.contains("1000000"),
            "{text}"
        );
        assert!(
            text.contains("2100 ×2.5") && text.contains("underpriced: osaka"),
            "{text}"
        );
        assert!(text.contains("0.400 [-1.000, 1.800]"), "{text}");
        assert!(text.contains("gas @ 60 MGas/s"), "{text}");
        let md = render(&p, Format::Markdown);
        assert!(
            md.contains("| sload-cold | 1000000 | evicted | revm |"),
            "{md}"
        );
        assert_eq!(ratio(0.046), "0.05");
        assert_eq!(ratio(2.54), "2.5");
        assert_eq!(ratio(37.4), "37");
        let csv = render(&p, Format::Csv);
        let mut lines = csv.lines();
        assert!(lines.next().unwrap().ends_with(",osaka_gas,osaka_pricing"));
        assert!(
            lines.next().unwrap().ends_with(",2100,underpriced"),
            "{csv}"
        );
        let json: serde_json::Value = serde_json::from_str(&render(&p, Format::Json)).unwrap();
        assert_eq!(json["rows"][0]["nominal"][0]["pricing"], "underpriced");
        assert_eq!(json["trends"][0]["sizes"][2], 1_000_000);
    }
}
