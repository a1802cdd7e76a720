//! Load-lab results for people: a terminal summary and Markdown, from the
//! same rows. One block per node and signing mode, then a side-by-side
//! table when a run holds several.

use std::fmt::Write as _;

use dyno_format::Run;
use dyno_format::load::{LatencyStats, LoadResult};

/// Stages in the order a transaction reaches them.
const STAGES: [&str; 4] = ["accepted", "included", "safe", "finalized"];

fn ms(x: f64) -> String {
    if x >= 10_000.0 {
        format!("{:.1} s", x / 1e3)
    } else if x >= 100.0 {
        format!("{x:.0} ms")
    } else if x >= 1.0 {
        format!("{x:.1} ms")
    } else {
        format!("{:.0} µs", x * 1e3)
    }
}

fn label(r: &LoadResult) -> String {
    format!("{} ({}-signed)", r.node.name, r.signer)
}

/// `(name, value)` lines describing one result.
fn facts(r: &LoadResult) -> Vec<(String, String)> {
    let c = &r.counts;
    let mut v = vec![
        (
            "node".into(),
            format!("{} · {}", r.node.version, r.node.url),
        ),
        (
            "load".into(),
            format!(
                "{} txs · {} · {} accounts · {}",
                r.planned,
                r.workload
                    .iter()
                    .map(|(k, w)| format!("{k}={w}"))
                    .collect::<Vec<_>>()
                    .join(" "),
                r.accounts,
                r.schedule
            ),
        ),
        (
            "transactions".into(),
            format!(
                "{} submitted · {} accepted · {} rejected · {} included · {} finalized · {} pending · {} dropped{}{}",
                c.submitted,
                c.accepted,
                c.rejected,
                c.included,
                c.finalized,
                c.pending,
                c.dropped,
                when_some(c.not_sent, " · {} not sent"),
                when_some(c.reverted, " · {} reverted"),
            ),
        ),
    ];
    if !c.rejected_by_class.is_empty() {
        v.push((
            "rejections".into(),
            c.rejected_by_class
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(" · "),
        ));
    }
    if let Some(s) = &r.chain_scan {
        v.push((
            "chain scan".into(),
            format!(
                "{} of this run's transactions in blocks {}..={} — {}",
                s.found,
                s.from_block,
                s.to_block,
                if s.matches {
                    "matches the included count"
                } else {
                    "DISAGREES with the included count"
                }
            ),
        ));
    }
    if let Some((line, problems)) = onchain_line(r) {
        v.push(("on chain".into(), line));
        for p in problems {
            v.push(("WRONG".into(), p));
        }
    }
    let t = &r.throughput;
    v.push((
        "throughput".into(),
        format!(
            "sustained {:.0} tx/s · peak 1 s {:.0} · average {:.0} · sent {:.0} tx/s",
            t.sustained, t.peak_1s, t.average, t.sent_average
        ),
    ));
    let g = &r.generator;
    v.push((
        "generator".into(),
        format!(
            "{}send lag P50 {} P99 {} max {} · {:.2}% late (> {:.0} ms){}{}",
            if g.saturated { "SATURATED · " } else { "" },
            ms(g.lag.p50),
            ms(g.lag.p99),
            ms(g.lag.max),
            g.late_fraction * 100.0,
            g.lag_threshold_ms,
            g.intended_rate.map_or(String::new(), |x| format!(
                " · asked {x:.0} tx/s, sent {:.0}",
                g.achieved_send_rate
            )),
            g.self_test_rate.map_or(String::new(), |x| format!(
                " · ceiling {x:.0} req/s (null sink)"
            )),
        ),
    ));
    if let Some(s) = &r.signing {
        v.push((
            "pre-signing".into(),
            format!(
                "{:.0} tx/s serial ({:.1} µs/tx) = {:.0}% of bare libsecp256k1 signing ({:.0}/s) · {:.0} tx/s on {} threads ({:.0} per core)",
                s.serial_tx_per_s,
                s.serial_us_per_tx,
                s.fraction_of_libsecp256k1 * 100.0,
                s.libsecp256k1_sign_per_s,
                s.parallel_tx_per_s,
                s.threads,
                s.per_core_tx_per_s
            ),
        ));
    }
    if let Some(b) = &r.block_summary {
        v.push((
            "blocks".into(),
            format!(
                "{} · {:.1} of this run's txs per loaded block (max {}) · gas fill {:.0}% · interval {:.1} s",
                b.blocks,
                b.mean_txs,
                b.max_txs,
                b.mean_gas_fill * 100.0,
                b.median_interval_s
            ),
        ));
    }
    if let Some(line) = blob_line(r) {
        v.push(("blob gas".into(), line));
    }
    if let Some(res) = &r.resources {
        v.push((
            "node process".into(),
            format!(
                "CPU mean {:.0}% max {:.0}% of a core · RSS max {:.0} MiB",
                res.cpu_mean_pct,
                res.cpu_max_pct,
                res.rss_max_bytes as f64 / 1048576.0
            ),
        ));
    }
    if let Some(line) = node_metrics_line(r) {
        v.push(("node metrics".into(), line));
    }
    if !r.complete {
        v.push((
            "INCOMPLETE".into(),
            r.incomplete_reason.clone().unwrap_or_default(),
        ));
    }
    for n in &r.notes {
        v.push(("note".into(), n.clone()));
    }
    v
}

/// The on-chain check in a line, and its problems (each a WRONG row).
pub(crate) fn onchain_line(r: &LoadResult) -> Option<(String, Vec<String>)> {
    let oc = r.onchain.as_ref()?;
    let types = oc
        .by_type
        .iter()
        .map(|(t, n)| format!("type {t} {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut line = format!(
        "{} {} included transactions checked ({types})",
        if oc.failures == 0 { "all" } else { "WRONG:" },
        oc.checked
    );
    if oc.blob_txs > 0 {
        line.push_str(&format!(
            " · {} blob txs, {} blobs, {} blob gas",
            oc.blob_txs, oc.blobs, oc.blob_gas_used
        ));
    }
    if oc.delegations > 0 {
        line.push_str(&format!(" · {} delegations", oc.delegations));
    }
    if oc.slots > 0 {
        line.push_str(&format!(" · {} slots read back", oc.slots));
    }
    line.push_str(&when_some(oc.failures, " · {} check(s) failed"));
    Some((line, oc.problems.clone()))
}

/// The blocks with blobs in a line: how many, how full, the blob base fee.
pub(crate) fn blob_line(r: &LoadResult) -> Option<String> {
    let per_blob = 131_072.0;
    let used: Vec<(u64, Option<u128>)> = r
        .blocks
        .iter()
        .filter_map(|b| {
            b.blob_gas_used
                .filter(|g| *g > 0)
                .map(|g| (g, b.blob_base_fee))
        })
        .collect();
    if used.is_empty() {
        return None;
    }
    let most = used.iter().map(|u| u.0).max().unwrap_or(0);
    let total: u64 = used.iter().map(|u| u.0).sum();
    let fees: Vec<u128> = used.iter().filter_map(|u| u.1).collect();
    Some(format!(
        "{} blocks with blobs · {:.1} blobs per such block (max {:.0}){}",
        used.len(),
        total as f64 / per_blob / used.len() as f64,
        most as f64 / per_blob,
        match (fees.iter().min(), fees.iter().max()) {
            (Some(lo), Some(hi)) => format!(" · blob base fee {lo}..{hi} wei"),
            _ => String::new(),
        }
    ))
}

/// The node's metrics in a line: the scrapes and a few peaks.
pub(crate) fn node_metrics_line(r: &LoadResult) -> Option<String> {
    let m = r.node_metrics.as_ref()?;
    let peak = |name: &str| {
        m.series
            .get(name)
            .and_then(|pts| pts.iter().map(|p| p[1]).reduce(f64::max))
    };
    let mut line = format!(
        "{} scrapes every {:.1} s of {} series{}",
        m.scrapes,
        m.interval_s,
        m.metrics,
        when_some(m.failed, " ({} failed)")
    );
    if let Some(x) = peak("txpool pending") {
        line.push_str(&format!(" · txpool pending max {x:.0}"));
    }
    if let Some(x) = peak("blob pool transactions").filter(|x| *x > 0.0) {
        line.push_str(&format!(" · blob pool max {x:.0} txs"));
    }
    if let Some(x) = peak("block insert P50 ms") {
        line.push_str(&format!(" · block insert P50 max {x:.1} ms"));
    }
    if let Some(x) = peak("db write bytes /s") {
        line.push_str(&format!(" · db write max {:.1} MB/s", x / 1e6));
    }
    Some(line)
}

/// `template` with `{}` replaced by `n`, or nothing when `n` is 0.
fn when_some(n: u64, template: &str) -> String {
    if n > 0 {
        template.replacen("{}", &n.to_string(), 1)
    } else {
        String::new()
    }
}

/// Latency rows: stage, n, P50 [CI], P90, P99, P99.9, max.
fn latency_rows(r: &LoadResult) -> Vec<[String; 7]> {
    STAGES
        .iter()
        .chain(["rejected"].iter())
        .filter_map(|s| r.latency.get(*s).map(|l| (s, l)))
        .filter(|(_, l)| l.n > 0)
        .map(|(s, l): (&&str, &LatencyStats)| {
            [
                s.to_string(),
                l.n.to_string(),
                match &l.p50_ci {
                    Some(ci) => format!("{} [{}, {}]", ms(l.p50), ms(ci.lower), ms(ci.upper)),
                    None => ms(l.p50),
                },
                ms(l.p90),
                ms(l.p99),
                ms(l.p999),
                ms(l.max),
            ]
        })
        .collect()
}

const FLEET_HEAD: [&str; 7] = [
    "worker",
    "end",
    "sent / planned",
    "included",
    "send tx/s",
    "lag P50 / P99",
    "ceiling · clock",
];

/// A fleet run's workers, one row each: how each ended, its share, its
/// send lag, its null-sink ceiling and its clock against the
/// orchestrator's.
fn fleet_rows(f: &dyno_format::load::FleetInfo) -> Vec<[String; 7]> {
    f.workers
        .iter()
        .map(|w| {
            let clock = w.clock_before.map_or("clock unknown".into(), |c| {
                format!("{:+.3} ± {:.3} ms", c.offset_ms, c.uncertainty_ms)
            });
            [
                format!("{} ({}, {} cores)", w.name, w.host, w.cores),
                w.end.clone(),
                format!("{} / {}", w.sent, w.planned),
                w.included.to_string(),
                format!("{:.0}", w.sent_rate),
                format!("{} / {}", ms(w.lag.p50), ms(w.lag.p99)),
                match w.self_test_rate {
                    Some(x) => format!("{x:.0} req/s · {clock}"),
                    None => clock,
                },
            ]
        })
        .collect()
}

fn fleet_title(f: &dyno_format::load::FleetInfo) -> String {
    format!(
        "fleet · {} workers on {}{} · percentiles above from every worker's raw records, merged",
        f.workers.len(),
        f.broker,
        f.self_test_total.map_or(String::new(), |t| format!(
            " · ceiling {t:.0} req/s, all at once"
        ))
    )
}

const LATENCY_HEAD: [&str; 7] = [
    "from intended send to",
    "n",
    "P50 [95% CI]",
    "P90",
    "P99",
    "P99.9",
    "max",
];

fn aligned(rows: &[[String; 7]], head: &[&str; 7]) -> String {
    let mut w = head.map(|h| h.chars().count());
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let mut s = String::from("  ");
        for (i, c) in cells.iter().enumerate() {
            let pad = w[i] - c.chars().count();
            if i == 0 {
                s.push_str(c);
                s.push_str(&" ".repeat(pad));
            } else {
                s.push_str("  ");
                s.push_str(&" ".repeat(pad));
                s.push_str(c);
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(head.to_vec());
    for r in rows {
        out.push_str(&line(r.iter().map(String::as_str).collect()));
    }
    out
}

/// The side-by-side comparison: one row per node and signer.
fn comparison(run: &Run) -> Vec<[String; 7]> {
    run.load
        .iter()
        .map(|r| {
            let inc = r.latency.get("included");
            [
                label(r),
                format!("{:.0}", r.throughput.sustained),
                format!("{:.0}", r.throughput.peak_1s),
                inc.map_or("-".into(), |l| ms(l.p50)),
                inc.map_or("-".into(), |l| ms(l.p99)),
                format!("{}/{}", r.counts.included, r.counts.submitted),
                r.resources
                    .as_ref()
                    .map_or("-".into(), |x| format!("{:.0}%", x.cpu_mean_pct)),
            ]
        })
        .collect()
}

const COMPARE_HEAD: [&str; 7] = [
    "node",
    "sustained tx/s",
    "peak tx/s",
    "incl. P50",
    "incl. P99",
    "included",
    "node CPU",
];

/// One eth_getLogs study: a row per size.
fn logs_rows(l: &dyno_format::read::LogsStudy) -> Vec<[String; 7]> {
    l.sizes
        .iter()
        .map(|s| {
            [
                s.logs.to_string(),
                format!(
                    "{} B{}",
                    s.response_bytes,
                    if s.over_limit { " (over limit)" } else { "" }
                ),
                ms(s.latency.p50),
                ms(s.latency.p99),
                ms(s.parse_raw_ns / 1e6),
                ms(s.parse_typed_ns / 1e6),
                format!("{:.2}", s.typed_over_raw),
            ]
        })
        .collect()
}

const LOGS_HEAD: [&str; 7] = [
    "logs",
    "response",
    "getLogs P50",
    "P99",
    "parse raw",
    "parse typed",
    "typed/raw",
];

/// One read load: a row per method.
fn read_rows(r: &dyno_format::read::ReadLoad) -> Vec<[String; 7]> {
    r.per_method
        .iter()
        .map(|(m, s)| {
            [
                m.clone(),
                format!("{} ({} errors)", s.n, s.errors),
                match &s.latency.p50_ci {
                    Some(ci) => {
                        format!("{} [{}, {}]", ms(s.latency.p50), ms(ci.lower), ms(ci.upper))
                    }
                    None => ms(s.latency.p50),
                },
                ms(s.latency.p90),
                ms(s.latency.p99),
                ms(s.latency.p999),
                ms(s.latency.max),
            ]
        })
        .collect()
}

const READ_HEAD: [&str; 7] = ["method", "n", "P50 [95% CI]", "P90", "P99", "P99.9", "max"];

fn read_title(r: &dyno_format::read::ReadLoad) -> String {
    format!(
        "reads · {} · {} · asked {} req/s, sent {:.0}, lag P99 {}",
        r.node.name,
        r.schedule,
        r.intended_rate.map_or("max".into(), |x| format!("{x:.0}")),
        r.achieved_rate,
        ms(r.lag.p99)
    )
}

fn logs_title(l: &dyno_format::read::LogsStudy) -> String {
    format!(
        "eth_getLogs · {} · limit {} B · {} calls per size",
        l.node.name, l.body_limit_bytes, l.repeats
    )
}

/// The terminal summary.
pub fn table(run: &Run) -> String {
    let mut out = String::new();
    for l in &run.logs {
        let _ = writeln!(out, "{}", logs_title(l));
        out.push_str(&aligned(&logs_rows(l), &LOGS_HEAD));
        for n in &l.notes {
            let _ = writeln!(out, "  note: {n}");
        }
        out.push('\n');
    }
    for r in &run.reads {
        let _ = writeln!(out, "{}", read_title(r));
        out.push_str(&aligned(&read_rows(r), &READ_HEAD));
        for n in &r.notes {
            let _ = writeln!(out, "  note: {n}");
        }
        out.push('\n');
    }
    for r in &run.load {
        let _ = writeln!(out, "{} · {}", r.id, label(r));
        let facts = facts(r);
        let w = facts
            .iter()
            .map(|(k, _)| k.chars().count())
            .max()
            .unwrap_or(0);
        for (k, v) in facts {
            let _ = writeln!(out, "  {k:<w$}  {v}");
        }
        out.push_str(&aligned(&latency_rows(r), &LATENCY_HEAD));
        if let Some(f) = &r.fleet {
            let _ = writeln!(out, "  {}", fleet_title(f));
            out.push_str(&aligned(&fleet_rows(f), &FLEET_HEAD));
        }
        out.push('\n');
    }
    if run.load.len() > 1 {
        out.push_str("side by side\n");
        out.push_str(&aligned(&comparison(run), &COMPARE_HEAD));
    }
    out
}

fn md_table(rows: &[[String; 7]], head: &[&str; 7]) -> String {
    let mut s = format!("| {} |\n|{}\n", head.join(" | "), "---|".repeat(7));
    for r in rows {
        let _ = writeln!(s, "{}", dyno_format::escape::markdown_row(r));
    }
    s
}

/// Markdown, for a PR comment or a notebook.
pub fn markdown(run: &Run) -> String {
    let mut out = format!(
        "# dyno load · {}\n\n{} · {} cores · {}\n\n",
        run.run.id, run.environment.cpu_model, run.environment.cores, run.environment.os
    );
    if run.load.len() > 1 {
        out.push_str("## Side by side\n\n");
        out.push_str(&md_table(&comparison(run), &COMPARE_HEAD));
        out.push('\n');
    }
    for l in &run.logs {
        let _ = writeln!(out, "## {}\n", logs_title(l));
        out.push_str(&md_table(&logs_rows(l), &LOGS_HEAD));
        for n in &l.notes {
            let _ = writeln!(out, "\n> {n}");
        }
        out.push('\n');
    }
    for r in &run.reads {
        let _ = writeln!(out, "## {}\n", read_title(r));
        out.push_str(&md_table(&read_rows(r), &READ_HEAD));
        out.push('\n');
    }
    for r in &run.load {
        let _ = writeln!(out, "## `{}` · {}\n", r.id, label(r));
        for (k, v) in facts(r) {
            let _ = writeln!(out, "- **{k}**: {v}");
        }
        out.push('\n');
        out.push_str(&md_table(&latency_rows(r), &LATENCY_HEAD));
        if let Some(f) = &r.fleet {
            let _ = writeln!(out, "\n{}\n", fleet_title(f));
            out.push_str(&md_table(&fleet_rows(f), &FLEET_HEAD));
        }
        let plots: Vec<&String> = r
            .files
            .iter()
            .filter(|(k, v)| k.starts_with("plot") && v.ends_with(".svg"))
            .map(|(_, v)| v)
            .collect();
        for p in plots {
            let _ = writeln!(out, "\n![{p}]({p})");
        }
        out.push('\n');
    }
    out
}
