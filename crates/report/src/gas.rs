//! The `dyno gas` table, in every output format: aligned text, Markdown,
//! CSV and JSON. The figures come from `dyno_price::precompile` (the rows are `dyno_format::gas`); this module
//! only lays them out.

use std::fmt::Write as _;

use dyno_format::gas::{Anchor, Estimate, Row};
use serde::Serialize;

use crate::Format;
use crate::units::{duration, sig3};

/// A priced table and what it was priced against.
#[derive(Debug, Clone, Serialize)]
pub struct GasTable<'a> {
    /// The fork whose schedule gave nominal gas.
    pub fork: &'a str,
    /// The mispricing factor.
    pub factor: f64,
    /// The second anchor, if one was chosen.
    #[serde(serialize_with = "anchor_text")]
    pub second_anchor: Option<Anchor>,
    /// The anchor's time (ECRECOVER, ns).
    pub anchor_ns: Estimate,
    /// The no-op loop's slope (ns), subtracted from bytecode times.
    pub noop_ns: Option<Estimate>,
    /// The rows, in precompile order.
    pub rows: &'a [Row],
    /// The run the figures came from.
    pub run_id: &'a str,
}

fn anchor_text<S: serde::Serializer>(a: &Option<Anchor>, s: S) -> Result<S::Ok, S::Error> {
    match a {
        Some(a) => s.serialize_str(&a.to_string()),
        None => s.serialize_none(),
    }
}

/// Render in `format`.
pub fn render(t: &GasTable<'_>, format: Format) -> String {
    match format {
        Format::Table => text(t),
        Format::Markdown => markdown(t),
        Format::Csv => csv(t),
        Format::Json => {
            let mut s = serde_json::to_string_pretty(t).expect("a gas table serializes");
            s.push('\n');
            s
        }
    }
}

fn headers(t: &GasTable<'_>) -> Vec<String> {
    let mut h: Vec<String> = [
        "precompile / opcode",
        "input",
        "nominal gas",
        "ns direct",
        "ns bytecode [95% CI]",
        "calc gas [95% CI]",
        "bytecode gas [95% CI]",
    ]
    .map(String::from)
    .to_vec();
    if let Some(a) = t.second_anchor {
        h.push(format!("gas @ {a}"));
    }
    h.extend(["MGas/s", "pricing"].map(String::from));
    h
}

/// Gas to three significant figures, whole numbers from 100 up.
fn gas(v: f64) -> String {
    if v.is_finite() { sig3(v) } else { "-".into() }
}

fn with_ci(e: &Estimate) -> String {
    if e.lower == e.upper {
        gas(e.value)
    } else {
        format!("{} [{}–{}]", gas(e.value), gas(e.lower), gas(e.upper))
    }
}

/// A difference of two times (a bytecode call beyond its control), with
/// its interval always, and `≈0` where that interval includes zero: the
/// call is not told apart from the control.
pub(crate) fn net_time(e: &Estimate) -> String {
    let zero = if e.spans_zero() { " ≈0" } else { "" };
    format!(
        "{} [{}, {}]{zero}",
        duration(e.value),
        duration(e.lower),
        duration(e.upper)
    )
}

fn time(e: &Estimate) -> String {
    let half = (e.upper - e.lower) / 2.0;
    if e.value > 0.0 && half > 0.0 {
        format!("{} ±{:.0}%", duration(e.value), 100.0 * half / e.value)
    } else {
        duration(e.value)
    }
}

fn cells(t: &GasTable<'_>, r: &Row) -> Vec<String> {
    let name = if r.address.is_empty() {
        r.name.clone()
    } else {
        format!("{} ({})", r.name, r.address)
    };
    let mut c = vec![
        name,
        r.input.clone(),
        r.nominal_gas.to_string(),
        time(&r.direct_ns),
        r.bytecode_ns.as_ref().map_or("-".into(), net_time),
        with_ci(&r.calculated_gas),
        r.bytecode_gas.as_ref().map_or("-".into(), with_ci),
    ];
    if t.second_anchor.is_some() {
        c.push(r.second.as_ref().map_or("-".into(), with_ci));
    }
    c.push(format!("{:.1}", r.mgas_per_s.value));
    c.push(match r.flag {
        Some(f) if r.nominal_gas == 0 => format!("{} (free)", f.as_str()),
        Some(f) => format!(
            "{} ×{:.1}",
            f.as_str(),
            r.calculated_gas.value / r.nominal_gas as f64
        ),
        None => String::new(),
    });
    c
}

fn footer(t: &GasTable<'_>) -> Vec<String> {
    let mut lines = vec![
        format!(
            "nominal gas: the {} schedule for precompiles, revm's (Osaka) for opcode sequences; calculated gas = ns × 3000 / ns(ECRECOVER) = ns × 3000 / {}, interval carried through",
            t.fork,
            time(&t.anchor_ns)
        ),
        format!(
            "MGas/s = nominal gas / ns direct; flagged where calculated gas is more than {}× nominal (underpriced) or less than 1/{} (overpriced)",
            t.factor, t.factor
        ),
    ];
    if t.rows.iter().any(|r| r.bytecode_ns.is_some()) {
        let paired = t.rows.iter().filter(|r| r.bytecode_paired).count();
        let noop = t.noop_ns.as_ref().map_or(String::new(), |n| {
            format!(" (the no-op loop alone: {})", time(n))
        });
        let with = t.rows.iter().filter(|r| r.bytecode_ns.is_some()).count();
        let how = if paired == with {
            format!("each paired with that control timed beside every sample{noop}")
        } else {
            format!(
                "{paired} of {with} paired with that control timed beside every sample, the rest against the no-op loop's own result{noop}"
            )
        };
        lines.push(format!(
            "ns bytecode = one STATICCALL in revm beyond the same loop calling IDENTITY with no input, {how}; ≈0: its interval includes zero, not told apart from the control"
        ));
        lines.push(
            "bytecode gas = ns bytecode × 3000 / ns bytecode(ECRECOVER), every precompile timed through the EVM".into(),
        );
    }
    let flagged = t.rows.iter().filter(|r| r.flag.is_some()).count();
    lines.push(format!(
        "{} inputs, {flagged} flagged; run {}",
        t.rows.len(),
        t.run_id
    ));
    lines
}

fn text(t: &GasTable<'_>) -> String {
    let headers = headers(t);
    let rows: Vec<Vec<String>> = t.rows.iter().map(|r| cells(t, r)).collect();
    let columns = crate::columns::Columns::fit(
        std::iter::once(headers.as_slice()).chain(rows.iter().map(Vec::as_slice)),
    );
    let line = |cells: &[String]| columns.line(cells);
    let mut out = String::new();
    let _ = writeln!(out, "{}", line(&headers));
    let mut last: Option<&Row> = None;
    for (r, cells) in t.rows.iter().zip(&rows) {
        if let Some(prev) = last {
            if prev.kind != r.kind {
                let _ = writeln!(
                    out,
                    "\n{}s: one sequence each (see `sequence` in the results), timed in revm",
                    r.kind
                );
            } else if prev.name != r.name && r.kind == "precompile" {
                out.push('\n');
            }
        }
        last = Some(r);
        let _ = writeln!(out, "{}", line(cells));
    }
    out.push('\n');
    for l in footer(t) {
        let _ = writeln!(out, "{l}");
    }
    out
}

fn markdown(t: &GasTable<'_>) -> String {
    let headers = headers(t);
    let mut out = String::new();
    let _ = writeln!(out, "| {} |", headers.join(" | "));
    let align: Vec<&str> = (0..headers.len())
        .map(|i| {
            if i < 2 || i + 1 == headers.len() {
                "---"
            } else {
                "---:"
            }
        })
        .collect();
    let _ = writeln!(out, "|{}|", align.join("|"));
    for r in t.rows {
        let _ = writeln!(out, "{}", dyno_format::escape::markdown_row(&cells(t, r)));
    }
    out.push('\n');
    for l in footer(t) {
        let _ = writeln!(out, "- {l}");
    }
    out
}

fn csv(t: &GasTable<'_>) -> String {
    let mut out = String::from(
        "kind,name,address,input,nominal_gas,direct_ns,direct_ns_lower,direct_ns_upper,bytecode_ns,bytecode_ns_lower,bytecode_ns_upper,bytecode_paired,calculated_gas,calculated_gas_lower,calculated_gas_upper,bytecode_gas,bytecode_gas_lower,bytecode_gas_upper,second_anchor_gas,mgas_per_s,pricing\n",
    );
    let num = |v: f64| format!("{v}");
    for r in t.rows {
        let b = r.bytecode_ns.as_ref();
        let bg = r.bytecode_gas.as_ref();
        let fields = [
            r.kind.clone(),
            r.name.clone(),
            r.address.clone(),
            crate::csv::quote(&r.input),
            r.nominal_gas.to_string(),
            num(r.direct_ns.value),
            num(r.direct_ns.lower),
            num(r.direct_ns.upper),
            b.map_or(String::new(), |e| num(e.value)),
            b.map_or(String::new(), |e| num(e.lower)),
            b.map_or(String::new(), |e| num(e.upper)),
            b.map_or(String::new(), |_| r.bytecode_paired.to_string()),
            num(r.calculated_gas.value),
            num(r.calculated_gas.lower),
            num(r.calculated_gas.upper),
            bg.map_or(String::new(), |e| num(e.value)),
            bg.map_or(String::new(), |e| num(e.lower)),
            bg.map_or(String::new(), |e| num(e.upper)),
            r.second.map_or(String::new(), |e| num(e.value)),
            num(r.mgas_per_s.value),
            r.flag.map_or("", |f| f.as_str()).to_string(),
        ];
        let _ = writeln!(out, "{}", fields.join(","));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use dyno_format::gas::Pricing;

    fn table_rows() -> Vec<Row> {
        let e = |v: f64, h: f64| Estimate {
            value: v,
            lower: v - h,
            upper: v + h,
        };
        vec![
            Row {
                kind: "precompile".into(),
                name: "ecrecover".into(),
                address: "0x1".into(),
                input: "ValidKey".into(),
                nominal_gas: 3000,
                direct_ns: e(30_000.0, 300.0),
                bytecode_ns: Some(e(31_000.0, 600.0)),
                bytecode_paired: true,
                calculated_gas: Estimate::exact(3000.0),
                bytecode_gas: Some(Estimate::exact(3000.0)),
                second: Some(e(1800.0, 18.0)),
                mgas_per_s: e(100.0, 1.0),
                flag: None,
            },
            Row {
                kind: "precompile".into(),
                name: "bn254-pairing".into(),
                address: "0x8".into(),
                input: "one_point".into(),
                nominal_gas: 79_000,
                direct_ns: e(3e6, 3e4),
                bytecode_ns: Some(Estimate {
                    value: -12.0,
                    lower: -40.0,
                    upper: 16.0,
                }),
                bytecode_paired: true,
                calculated_gas: e(300_000.0, 6000.0),
                bytecode_gas: Some(Estimate {
                    value: -1.16,
                    lower: -3.9,
                    upper: 1.6,
                }),
                second: None,
                mgas_per_s: e(26.3, 0.3),
                flag: Some(Pricing::Under),
            },
        ]
    }

    fn gas_table(rows: &[Row]) -> GasTable<'_> {
        GasTable {
            fork: "osaka",
            factor: 2.0,
            second_anchor: Some(Anchor::Throughput(60.0)),
            anchor_ns: Estimate::exact(30_000.0),
            noop_ns: Some(Estimate::exact(150.0)),
            rows,
            run_id: "r1",
        }
    }

    #[test]
    fn every_format_shows_every_row_and_the_flag() {
        let rows = table_rows();
        let t = gas_table(&rows);
        let text = render(&t, Format::Table);
        assert!(text.contains("ecrecover (0x1)") && text.contains("bn254-pairing (0x8)"));
        assert!(text.contains("underpriced ×3.8"), "{text}");
        assert!(text.contains("gas @ 60 MGas/s"), "{text}");
        assert!(text.contains("300000 [294000–306000]"), "{text}");
        // A negative bytecode time keeps its interval and says it is not
        // told apart from zero; a positive one keeps its interval too.
        assert!(text.contains("-12.0 ns [-40.0 ns, 16.0 ns] ≈0"), "{text}");
        assert!(text.contains("31.0 µs [30.4 µs, 31.6 µs]"), "{text}");
        assert!(!text.contains("31.0 µs [30.4 µs, 31.6 µs] ≈0"), "{text}");
        assert!(text.contains("-1.16 [-3.90–1.60]"), "{text}");
        assert!(
            text.contains("with no input, each paired with that control"),
            "{text}"
        );
        let md = render(&t, Format::Markdown);
        assert_eq!(md.lines().filter(|l| l.starts_with("| ")).count(), 3);
        let csv = render(&t, Format::Csv);
        assert_eq!(csv.lines().count(), 3);
        assert!(csv.lines().nth(2).unwrap().ends_with(",underpriced"));
        assert!(
            csv.lines().nth(2).unwrap().contains(",-12,-40,16,true,"),
            "{csv}"
        );
        let json: serde_json::Value = serde_json::from_str(&render(&t, Format::Json)).unwrap();
        assert_eq!(json["rows"][1]["flag"], "underpriced");
        assert_eq!(json["second_anchor"], "60 MGas/s");
        assert_eq!(json["rows"][0]["calculated_gas"]["value"], 3000.0);
    }
}
