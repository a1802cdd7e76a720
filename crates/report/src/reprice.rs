//! The `dyno gas --blocks` table, in every output format: each operation's
//! time inside each client (per operation, less its glue), in gas at the
//! anchor, beside every compute schedule's price. The figures are the
//! lab's (`dyno_format::reprice::Pricing`); this module only lays them out.

use std::fmt::Write as _;

use dyno_format::reprice::{Pricing, Row};

use crate::Format;
use crate::columns::{aligned, md_table};
use crate::units::{duration, sig3};

/// Render in `format`.
pub fn render(p: &Pricing, format: Format) -> String {
    match format {
        Format::Table => text(p),
        Format::Markdown => markdown(p),
        Format::Csv => csv(p),
        Format::Json => {
            let mut s = serde_json::to_string_pretty(p).expect("a pricing serializes");
            s.push('\n');
            s
        }
    }
}

use crate::units::duration_ci as time;

fn headers(p: &Pricing) -> Vec<String> {
    let mut h: Vec<String> = [
        "series",
        "level",
        "impl",
        "time",
        "n",
        "per op [95% CI]",
        "robust",
        "R²",
        "p",
        "rule",
        "×library",
        "×ecrecover [95% CI]",
    ]
    .map(String::from)
    .to_vec();
    h.push(format!("gas @ {} MGas/s", sig3(p.anchor_mgas)));
    h.extend(p.schedules.iter().map(|s| s.name.clone()));
    h
}

fn cells(r: &Row) -> Vec<String> {
    let block = r.level == "block";
    let mut c = vec![
        r.id.clone(),
        r.level.clone(),
        r.client.clone(),
        r.time.clone(),
        r.n.to_string(),
        format!("{}{}", time(&r.ns), if r.net { "" } else { " (glue in)" }),
        r.robust_ns.map_or("-".into(), |e| duration(e.value)),
        r.r_squared.map_or("-".into(), |v| format!("{v:.3}")),
        r.p.map_or("-".into(), |v| format!("{v:.1e}")),
        match (block, r.kept) {
            (false, _) => "-",
            (true, true) => "kept",
            (true, false) => "fails",
        }
        .into(),
        r.vs_library.map_or("-".into(), |v| format!("{v:.2}")),
        anchor_cell(r),
        format!(
            "{} [{}, {}]",
            sig3(r.gas.value),
            sig3(r.gas.lower),
            sig3(r.gas.upper)
        ),
    ];
    for price in &r.prices {
        c.push(price.map_or("-".into(), |g| {
            format!("{g} ×{:.2}", r.gas.value / g.max(1) as f64)
        }));
    }
    c
}

/// A block row's ratio to ECRECOVER in the same client, round by round:
/// its mean, 95% interval and rounds, marked where the interval is wider
/// than the target.
fn anchor_cell(r: &Row) -> String {
    let Some(a) = &r.anchor else {
        return "-".into();
    };
    let n = a.rounds.len();
    match a.interval {
        Some([lo, hi]) => format!(
            "{} [{}, {}] ({n} rounds{})",
            sig3(a.ratio),
            sig3(lo),
            sig3(hi),
            if a.reached { "" } else { ", wide" }
        ),
        None => format!("{} ({n} round)", sig3(a.ratio)),
    }
}

fn footer(p: &Pricing) -> Vec<String> {
    let mut lines = vec![
        "level: library = the library called directly (its time per call); bytecode = an EVM's loop (a precompile's call less the loop's no-op control; an opcode's sequence with its DUPs and POP, marked glue in); block = a client's blocks; ×library: per op over the time of the library that client or EVM calls (geth's own precompiles, revm's backends), called directly".into(),
        "per op: the slope of block time on the block's operation count, by non-negative least squares, less the control series' slope (the same loop without the operation) in the same client and time; intervals 95%, the difference's half-widths in quadrature; robust: the same from Theil-Sen slopes".into(),
        "time: new_payload is engine_newPayload from dyno's side; client_execution and client_total the client's own slow-block log (timing.execution_ms, total_ms)".into(),
        format!(
            "×ecrecover: a block row's per op over ECRECOVER's, each less its own glue, both in the same client in the same round (every client takes every round in turn); the mean across rounds and its 95% t-interval; wide: the interval's half-width is over ±{:.0}% of the ratio",
            dyno_format::reprice::ANCHOR_TARGET * 100.0
        ),
        "rule: the repricing EIPs keep a fit with R² > 0.5 and the count's p < 0.05; a fit that fails is shown, not dropped".into(),
        format!(
            "gas @ {0} MGas/s = per op × {1}; each schedule column: its price of one operation, × the measured gas over it",
            sig3(p.anchor_mgas),
            p.anchor_mgas / 1000.0
        ),
    ];
    for s in &p.schedules {
        lines.push(format!("{}: {} ({})", s.name, s.status, s.source));
    }
    let failing = p
        .rows
        .iter()
        .filter(|r| r.level == "block" && !r.kept)
        .count();
    lines.push(format!(
        "{} rows, {failing} failing the rule; run {}",
        p.rows.len(),
        p.run_id
    ));
    lines
}

/// The joint fits: each operation at all its parameters in one client.
fn joint(p: &Pricing) -> Option<(Vec<String>, Vec<Vec<String>>)> {
    if p.joint.is_empty() {
        return None;
    }
    let mut header: Vec<String> = [
        "operation",
        "impl",
        "time",
        "n",
        "parameters",
        "per op [95% CI]",
        "per unit [95% CI]",
        "R²",
        "p (unit)",
        "rule",
    ]
    .map(String::from)
    .to_vec();
    header.push(format!("gas @ {}: base + per unit", sig3(p.anchor_mgas)));
    header.extend(p.schedules.iter().map(|s| s.name.clone()));
    let rows =
        p.joint
            .iter()
            .map(|j| {
                let mut c = vec![
                    j.op.clone(),
                    j.client.clone(),
                    j.time.clone(),
                    j.n.to_string(),
                    j.series
                        .iter()
                        .map(|(_, u)| u.to_string())
                        .collect::<Vec<_>>()
                        .join(","),
                    crate::units::coefficient(&j.per_op_ns),
                    crate::units::coefficient(&j.per_unit_ns),
                    format!("{:.3}", j.r_squared),
                    format!("{:.1e}", j.per_unit_ns.p),
                    if j.kept { "kept" } else { "fails" }.into(),
                    format!(
                        "{} + {}",
                        sig3(j.gas_base.value),
                        sig3(j.gas_per_unit.value)
                    ),
                ];
                c.extend(j.prices.iter().map(|pr| {
                    pr.map_or("-".into(), |(b, u)| format!("{} + {}", sig3(b), sig3(u)))
                }));
                c
            })
            .collect();
    Some((header, rows))
}

const JOINT_NOTE: &str = "joint: each operation's blocks at all its parameters in one client, time = intercept + per op × count + per unit × count × parameter (NNLS, the repricing EIPs' form), each block's glue (its control's time a loop turn) taken off first; the rule on the per-unit coefficient; a schedule's base + per unit where its prices lie on a line in the parameter";

/// The peer's table beside dyno's, each figure over ECRECOVER's in the
/// same client.
fn compared(p: &Pricing) -> Option<(Vec<String>, Vec<Vec<String>>)> {
    if p.compared.is_empty() {
        return None;
    }
    let mut clients: Vec<&str> = Vec::new();
    for c in &p.compared {
        for (name, _) in &c.ours {
            if !clients.contains(&name.as_str()) {
                clients.push(name);
            }
        }
    }
    let mut header: Vec<String> = ["series", "peer client", "peer gas", "peer ÷ its ECRECOVER"]
        .map(String::from)
        .to_vec();
    header.extend(clients.iter().map(|c| format!("{c} ÷ its ECRECOVER")));
    let rows = p
        .compared
        .iter()
        .map(|c| {
            let mut cells = vec![
                c.id.clone(),
                c.peer_client.clone(),
                sig3(c.peer_gas),
                format!("{:.3}", c.peer_ratio),
            ];
            for client in &clients {
                cells.push(
                    c.ours
                        .iter()
                        .find(|(n, _)| n == client)
                        .map_or("-".into(), |(_, r)| format!("{r:.3}")),
                );
            }
            cells
        })
        .collect();
    Some((header, rows))
}

fn text(p: &Pricing) -> String {
    let mut out = String::new();
    let rows: Vec<Vec<String>> = p.rows.iter().map(cells).collect();
    aligned(&headers(p), &rows, &mut out);
    if let Some((header, rows)) = joint(p) {
        out.push_str("\neach operation over its parameters (joint fit):\n");
        aligned(&header, &rows, &mut out);
        let _ = writeln!(out, "{JOINT_NOTE}");
    }
    if let Some((header, rows)) = compared(p) {
        out.push_str("\nbeside a peer's table (--compare):\n");
        aligned(&header, &rows, &mut out);
    }
    out.push('\n');
    for l in footer(p) {
        let _ = writeln!(out, "{l}");
    }
    out
}

fn markdown(p: &Pricing) -> String {
    let mut out = String::new();
    md_table(&headers(p), p.rows.iter().map(cells), &mut out);
    if let Some((header, rows)) = joint(p) {
        out.push_str("\nEach operation over its parameters (joint fit):\n\n");
        md_table(&header, rows.into_iter(), &mut out);
        let _ = writeln!(out, "\n{JOINT_NOTE}.");
    }
    if let Some((header, rows)) = compared(p) {
        out.push_str("\nBeside a peer's table (`--compare`):\n\n");
        md_table(&header, rows.into_iter(), &mut out);
    }
    out.push('\n');
    for l in footer(p) {
        let _ = writeln!(out, "- {l}");
    }
    out
}

fn csv(p: &Pricing) -> String {
    let mut out = String::from(
        "series,level,implementation,time,n,ns,ns_lower,ns_upper,net_of_glue,robust_ns,r_squared,p,kept,vs_library,gas,gas_lower,gas_upper,vs_ecrecover,vs_ecrecover_lower,vs_ecrecover_upper,rounds",
    );
    for s in &p.schedules {
        let _ = write!(out, ",{}_gas", crate::csv::quote(&s.name));
    }
    out.push('\n');
    let opt = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
    for r in &p.rows {
        let mut f = vec![
            crate::csv::quote(&r.id),
            r.level.clone(),
            crate::csv::quote(&r.client),
            r.time.clone(),
            r.n.to_string(),
            r.ns.value.to_string(),
            r.ns.lower.to_string(),
            r.ns.upper.to_string(),
            r.net.to_string(),
            opt(r.robust_ns.map(|e| e.value)),
            opt(r.r_squared),
            opt(r.p),
            r.kept.to_string(),
            opt(r.vs_library),
            r.gas.value.to_string(),
            r.gas.lower.to_string(),
            r.gas.upper.to_string(),
            opt(r.anchor.as_ref().map(|a| a.ratio)),
            opt(r.anchor.as_ref().and_then(|a| a.interval).map(|i| i[0])),
            opt(r.anchor.as_ref().and_then(|a| a.interval).map(|i| i[1])),
            r.anchor
                .as_ref()
                .map_or(String::new(), |a| a.rounds.len().to_string()),
        ];
        f.extend(
            r.prices
                .iter()
                .map(|g| g.map_or(String::new(), |g| g.to_string())),
        );
        let _ = writeln!(out, "{}", f.join(","));
    }
    out
}
