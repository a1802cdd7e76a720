//! Block replays for people (`dyno replay`): per id and client, dyno's
//! `engine_newPayload` latency (P50 with its confidence interval, P95,
//! P99, max, n), the forkchoice update, MGas/s over the id's blocks (gas /
//! time), and the client's own breakdown (the medians of its slow-block
//! log's timings); then, for an A/B, each id's paired comparison.
//! Terminal columns and Markdown from the same rows.

use dyno_format::replay::Comparison;
use dyno_format::{BenchResult, Run};

use crate::columns::Columns;
use crate::units;

/// The client's breakdown columns: header and the log field (geth's name).
const PARTS: [(&str, &str); 5] = [
    ("client total", "timing.total_ms"),
    ("execution", "timing.execution_ms"),
    ("state read", "timing.state_read_ms"),
    ("state hash", "timing.state_hash_ms"),
    ("commit", "timing.commit_ms"),
];

/// Whether `run` holds replay results.
pub fn has_replay(run: &Run) -> bool {
    run.results.iter().any(|r| !r.blocks.is_empty())
}

fn ms(x: f64) -> String {
    units::duration(x * 1e6)
}

fn header() -> Vec<String> {
    let mut h: Vec<String> = [
        "id",
        "client",
        "n",
        "newPayload P50 [95% CI]",
        "P95",
        "P99",
        "max",
        "forkchoice P50",
        "MGas/s",
    ]
    .map(String::from)
    .to_vec();
    h.extend(PARTS.iter().map(|(name, _)| format!("{name} P50")));
    h.push("note".into());
    h
}

fn row(r: &BenchResult) -> Vec<String> {
    let mut c = vec![
        r.id.clone(),
        format!("{} {}", r.implementation.name, r.implementation.version),
    ];
    match &r.stats {
        Some(s) => {
            c.push(s.n.to_string());
            c.push(format!(
                "{} [{} – {}]",
                units::duration(s.p50),
                units::duration(s.median_ci.lower),
                units::duration(s.median_ci.upper)
            ));
            c.extend([s.p95, s.p99, s.max].map(units::duration));
        }
        None => {
            c.push("0".into());
            c.extend(["–"; 4].map(String::from));
        }
    }
    // An in-process replay (revm) makes no forkchoice call.
    let fc: Vec<f64> = r.blocks.iter().map(|b| b.forkchoice_ns as f64).collect();
    c.push(if fc.iter().all(|&x| x == 0.0) {
        "–".into()
    } else {
        dyno_stats::median(&fc).map_or("–".into(), units::duration)
    });
    c.push(
        r.parameters
            .get("mgas_per_s")
            .and_then(serde_json::Value::as_f64)
            .map_or("–".into(), units::sig3),
    );
    for (_, path) in PARTS {
        let xs: Vec<f64> = r.blocks.iter().filter_map(|b| b.logged(path)).collect();
        c.push(dyno_stats::median(&xs).map_or("–".into(), ms));
    }
    let logged = r.blocks.iter().filter(|b| b.client_log.is_some()).count();
    let mut note = Vec::new();
    if let Some(m) = &r.verification.mismatch {
        note.push(format!("WRONG: {}: {}", m.case, m.actual));
    }
    if let Some(why) = &r.incomplete_reason {
        note.push(format!("incomplete: {}", crate::one_line(why)));
    }
    if logged == 0 && !r.blocks.is_empty() {
        note.push("no client log".into());
    } else if logged < r.blocks.len() {
        note.push(format!(
            "client log for {logged} of {} blocks",
            r.blocks.len()
        ));
    }
    c.push(note.join("; "));
    c
}

fn comparison_header() -> Vec<String> {
    [
        "id",
        "A",
        "B",
        "B vs A",
        "interval",
        "pairs (B vs A each)",
        "verdict",
    ]
    .map(String::from)
    .to_vec()
}

fn pct(x: f64) -> String {
    format!("{:+.1}%", x * 100.0)
}

fn comparison_row(c: &Comparison) -> Vec<String> {
    vec![
        c.id.clone(),
        c.a.clone(),
        c.b.clone(),
        pct(c.delta),
        format!("[{}, {}]", pct(c.delta_low), pct(c.delta_high)),
        c.pair_log_ratios
            .iter()
            .map(|r| pct(r.exp() - 1.0))
            .collect::<Vec<_>>()
            .join(" "),
        c.verdict.clone(),
    ]
}

fn client_header() -> Vec<String> {
    [
        "client",
        "set",
        "fork",
        "run",
        "blocks",
        "wall",
        "CPU (cores)",
        "RSS peak",
        "read",
        "written",
        "own metrics",
    ]
    .map(String::from)
    .to_vec()
}

fn client_row(c: &dyno_format::replay::ClientRun) -> Vec<String> {
    let dash = || "–".to_string();
    vec![
        format!("{} {}", c.implementation, c.version),
        c.set.clone(),
        c.fork.clone().unwrap_or_else(dash),
        c.run.to_string(),
        c.blocks.to_string(),
        units::duration(c.wall_s * 1e9),
        c.cpu_s.map_or_else(dash, |s| {
            format!(
                "{} ({:.2})",
                units::duration(s * 1e9),
                if c.wall_s > 0.0 { s / c.wall_s } else { 0.0 }
            )
        }),
        c.rss_peak_bytes
            .map_or_else(dash, |b| units::bytes(b as f64)),
        c.io_read_bytes
            .map_or_else(dash, |b| units::bytes(b as f64)),
        c.io_write_bytes
            .map_or_else(dash, |b| units::bytes(b as f64)),
        match &c.metrics_missing {
            Some(why) => format!("none: {why}"),
            None => format!("{} series changed", c.metrics.len()),
        },
    ]
}

/// The clients of a run without an A/B, in the order they replayed:
/// more than one, or none.
fn side_by_side_clients(run: &Run) -> Vec<&str> {
    if !run.comparisons.is_empty() {
        return Vec::new();
    }
    let mut names: Vec<&str> = Vec::new();
    for r in replay_results(run) {
        if !names.contains(&r.implementation.name.as_str()) {
            names.push(&r.implementation.name);
        }
    }
    if names.len() < 2 { Vec::new() } else { names }
}

/// One column group per client: its newPayload P50 with the interval,
/// MGas/s, and its own execution time where its log has one; then each
/// other client's P50 over the first's (a ratio of medians, not a paired
/// comparison: the clients replayed one after another).
fn side_by_side(run: &Run, names: &[&str]) -> Vec<Vec<String>> {
    let results = replay_results(run);
    let of = |name: &str, id: &str| {
        results
            .iter()
            .find(|r| r.implementation.name == name && r.id == id)
            .copied()
    };
    let logged = |name: &str| {
        results.iter().any(|r| {
            r.implementation.name == name && r.blocks.iter().any(|b| b.client_log.is_some())
        })
    };
    let mut header = vec!["id".to_string()];
    for name in names {
        header.push(format!("{name} P50 [95% CI]"));
        header.push(format!("{name} MGas/s"));
        if logged(name) {
            header.push(format!("{name} execution P50"));
        }
    }
    for name in &names[1..] {
        header.push(format!("{name} / {}", names[0]));
    }
    let mut rows = vec![header];
    let mut ids: Vec<&str> = Vec::new();
    for r in &results {
        if !ids.contains(&r.id.as_str()) {
            ids.push(&r.id);
        }
    }
    for id in ids {
        let mut row = vec![id.to_string()];
        for name in names {
            let r = of(name, id);
            row.push(r.and_then(|r| r.stats.as_ref()).map_or("–".into(), |s| {
                format!(
                    "{} [{} – {}]",
                    units::duration(s.p50),
                    units::duration(s.median_ci.lower),
                    units::duration(s.median_ci.upper)
                )
            }));
            row.push(
                r.and_then(|r| r.parameters.get("mgas_per_s"))
                    .and_then(serde_json::Value::as_f64)
                    .map_or("–".into(), units::sig3),
            );
            if logged(name) {
                let xs: Vec<f64> = r
                    .map(|r| {
                        r.blocks
                            .iter()
                            .filter_map(|b| b.logged("timing.execution_ms"))
                            .collect()
                    })
                    .unwrap_or_default();
                row.push(dyno_stats::median(&xs).map_or("–".into(), ms));
            }
        }
        let p50 = |name: &str| of(name, id).and_then(|r| r.stats.as_ref()).map(|s| s.p50);
        for name in &names[1..] {
            row.push(match (p50(name), p50(names[0])) {
                (Some(x), Some(base)) if base > 0.0 => format!("{:.2}×", x / base),
                _ => "–".into(),
            });
        }
        rows.push(row);
    }
    rows
}

fn replay_results(run: &Run) -> Vec<&BenchResult> {
    run.results
        .iter()
        .filter(|r| !r.blocks.is_empty() || r.id.starts_with("client/"))
        .collect()
}

fn explain(run: &Run) -> Vec<String> {
    let mut lines = vec![
        "newPayload: engine_newPayloadV4 from dyno's side (first byte sent to last byte read), one sample per block; MGas/s = the blocks' gas / their newPayload time.".to_string(),
        "client …: the medians of the client's own per-block log (geth --debug.logslowblock 0; its field names: timing.total_ms, execution_ms, state_read_ms, state_hash_ms, commit_ms).".to_string(),
    ];
    if !run.clients.is_empty() {
        lines.push("client processes: from its first answer to the last block, read from /proc: CPU time (cores = CPU / wall), the kernel's peak RSS, bytes read from and written to storage; its own Prometheus series that changed are in the JSON (`clients[].metrics`).".to_string());
    }
    if !side_by_side_clients(run).is_empty() {
        lines.push("side by side: each client's P50 over the first's is a ratio of medians of runs made one after another, not a paired comparison (`--against` pairs two clients in ABBA runs).".to_string());
    }
    if let Some(c) = run.comparisons.first() {
        lines.push(format!(
            "B vs A: per pair of runs ({}), the median over the id's blocks of B's time / A's; the interval is Student's t over the pairs, at {:.2}% for each of the {} ids so that all hold together (Bonferroni); a difference under {} is none.",
            c.order,
            c.level * 100.0,
            run.comparisons.len(),
            pct(c.floor).trim_start_matches('+')
        ));
    }
    lines
}

/// A replay's tables, each with its heading and its header row first:
/// the results, then (if any) the A/B and the client processes. Every
/// format renders these.
pub(crate) fn tables(run: &Run) -> Vec<(&'static str, Vec<Vec<String>>)> {
    let mut out = Vec::new();
    let mut rows = vec![header()];
    rows.extend(replay_results(run).into_iter().map(row));
    out.push(("Block replay", rows));
    let names = side_by_side_clients(run);
    if !names.is_empty() {
        out.push(("The clients side by side", side_by_side(run, &names)));
    }
    if !run.comparisons.is_empty() {
        let mut rows = vec![comparison_header()];
        rows.extend(run.comparisons.iter().map(comparison_row));
        out.push(("A/B", rows));
    }
    if !run.clients.is_empty() {
        let mut rows = vec![client_header()];
        rows.extend(run.clients.iter().map(client_row));
        out.push(("The client processes", rows));
    }
    out
}

/// The terminal table.
pub fn table(run: &Run) -> String {
    let mut out = String::new();
    for (i, (_, rows)) in tables(run).iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let cols = Columns::fit(rows.iter().map(Vec::as_slice));
        out.extend(rows.iter().map(|r| cols.line(r) + "\n"));
    }
    out.push('\n');
    out.extend(explain(run).into_iter().map(|l| l + "\n"));
    out
}

fn md_table(rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    let line = |cells: &[String]| format!("{}\n", dyno_format::escape::markdown_row(cells));
    out.push_str(&line(&rows[0]));
    out.push_str(&line(&vec!["---".to_string(); rows[0].len()]));
    for r in &rows[1..] {
        out.push_str(&line(r));
    }
    out
}

/// Markdown: the same tables.
pub fn markdown(run: &Run) -> String {
    let mut out = String::new();
    for (i, (heading, rows)) in tables(run).iter().enumerate() {
        let level = if i == 0 { "##" } else { "\n###" };
        out.push_str(&format!("{level} {heading}\n\n"));
        out.push_str(&md_table(rows));
    }
    out.push('\n');
    out.extend(explain(run).into_iter().map(|l| l + "\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use dyno_format::fixture;
    use dyno_format::replay::Block;

    fn block(number: u64, ns: u64, execution_ms: Option<f64>) -> Block {
        Block {
            run: 0,
            number,
            hash: format!("0x{number:064x}"),
            gas_used: 30_000_000,
            transactions: 10,
            new_payload_ns: ns,
            forkchoice_ns: 1_000_000,
            round: None,
            client_log: execution_ms.map(|e| {
                serde_json::json!({"timing": {"execution_ms": e, "state_read_ms": 1.0,
                    "state_hash_ms": 2.0, "commit_ms": 3.0, "total_ms": e + 6.0}})
            }),
        }
    }

    #[test]
    fn the_table_shows_dynos_latency_beside_the_clients_breakdown() {
        let mut r = fixture::result("client/newpayload/30M-full", "geth", None);
        r.blocks = vec![
            block(1, 40_000_000, Some(30.0)),
            block(2, 50_000_000, Some(34.0)),
            block(3, 60_000_000, None),
        ];
        let per_op: Vec<f64> = r.blocks.iter().map(|b| b.new_payload_ns as f64).collect();
        r.stats = dyno_stats::summarize(&per_op);
        r.parameters
            .insert("mgas_per_s".into(), serde_json::json!(600.0));
        let run = fixture::run("20261126T101500Z-t", vec![r]);
        let t = table(&run);
        let row = t
            .lines()
            .find(|l| l.starts_with("client/newpayload/30M-full"))
            .unwrap();
        // n, the P50 from the samples, the forkchoice P50, MGas/s.
        for want in ["geth 1.0.0", " 3 ", "50.0 ms", "1.00 ms", "600"] {
            assert!(row.contains(want), "{want:?} in {row}");
        }
        // The client's medians over the two blocks it logged: total 38,
        // execution 32, then 1, 2, 3 ms; and the block it did not.
        for want in ["38.0 ms", "32.0 ms", "client log for 2 of 3 blocks"] {
            assert!(row.contains(want), "{want:?} in {row}");
        }
        assert!(!t.contains("B vs A"), "no A/B without comparisons");
        let md = markdown(&run);
        assert!(md.starts_with("## Block replay"));
        assert!(
            md.contains("| client/newpayload/30M-full | geth 1.0.0 | 3 |"),
            "{md}"
        );
    }

    #[test]
    fn two_clients_get_a_column_each_side_by_side() {
        let result = |client: &str, ms: u64, log: bool| {
            let mut r = fixture::result("client/newpayload/30M-full", client, None);
            r.blocks = (1..=3)
                .map(|n| block(n, ms * 1_000_000, log.then_some(ms as f64 - 5.0)))
                .collect();
            let xs: Vec<f64> = r.blocks.iter().map(|b| b.new_payload_ns as f64).collect();
            r.stats = dyno_stats::summarize(&xs);
            r
        };
        let run = fixture::run(
            "20261129T101500Z-t",
            vec![result("geth", 50, true), result("ethereumjs", 2000, false)],
        );
        let md = markdown(&run);
        let side = md
            .split("### The clients side by side")
            .nth(1)
            .expect("a side-by-side table for two clients");
        let header = side.lines().find(|l| l.starts_with("| id")).unwrap();
        assert_eq!(
            header,
            "| id | geth P50 [95% CI] | geth MGas/s | geth execution P50 | ethereumjs P50 [95% CI] \
             | ethereumjs MGas/s | ethereumjs / geth |"
        );
        let row = side
            .lines()
            .find(|l| l.starts_with("| client/newpayload/30M-full"))
            .unwrap();
        // geth's own execution median (45 ms) and the ratio of the P50s.
        for want in ["50.0 ms", "45.0 ms", "2.00 s", "40.00×"] {
            assert!(row.contains(want), "{want:?} in {row}");
        }
        assert!(md.contains("no client log"), "{md}");
        // One client: no side-by-side table.
        let one = fixture::run("20261129T101500Z-u", vec![result("geth", 50, true)]);
        assert!(!markdown(&one).contains("side by side"));
    }
}
