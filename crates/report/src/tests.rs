//! Snapshot tests: every format rendered from one made-up run (a wrong
//! result, a missed target, a quoted name) and compared with a golden file
//! in `tests/golden/synthetic-*` (the real runs' are in `tests/golden.rs`).
//! `DYNO_BLESS=1 cargo test -p dyno-report` rewrites the golden files after
//! an intended change; review the diff.

use std::path::PathBuf;

use dyno_format::*;

use super::*;

/// A result with allocations counted; `None` is a wrong answer (no timings).
fn result(id: &str, imp: &str, baseline: bool, p50: Option<f64>) -> BenchResult {
    let mut r = fixture::result(id, imp, p50);
    r.baseline = baseline;
    r.allocations = p50.map(|_| Allocations {
        allocs_per_op: 2.0,
        bytes_per_op: 1536.0,
        iters: 100,
    });
    if p50.is_none() {
        r = fixture::wrong(r);
    }
    r
}

fn fixture() -> Run {
    let mut slow = result(
        "crypto/secp256k1-recover/valid",
        "k256",
        false,
        Some(52_000.0),
    );
    slow.target = Some(fixture::missed(50_000.0));
    let mut run = fixture::run(
        "20261122T101500Z-test",
        vec![
            result("hash/keccak256/32B", "sha3", false, Some(250.0)),
            result("hash/keccak256/32B", "tiny-keccak", true, Some(200.0)),
            result("hash/keccak256/32B", "broken, \"quoted\"", false, None),
            result(
                "crypto/secp256k1-recover/valid",
                "libsecp256k1",
                true,
                Some(26_000.0),
            ),
            slow,
        ],
    );
    run.harness = Some(Harness {
        empty_iteration_ns: 0.8,
        fit: None,
    });
    run
}

fn check(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("synthetic-{name}"));
    if std::env::var_os("DYNO_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} missing: run with DYNO_BLESS=1", path.display()));
    assert_eq!(
        actual, expected,
        "{name} differs from its snapshot (DYNO_BLESS=1 to accept)"
    );
}

#[test]
fn table_snapshot() {
    check("table.txt", &render(&fixture(), Format::Table, false));
}

#[test]
fn markdown_snapshot() {
    check("report.md", &render(&fixture(), Format::Markdown, false));
}

#[test]
fn csv_snapshot() {
    check("results.csv", &render(&fixture(), Format::Csv, false));
}

#[test]
fn json_is_the_result_document() {
    let run = fixture();
    let text = render(&run, Format::Json, false);
    assert_eq!(Run::parse(&text, std::path::Path::new("-")).unwrap(), run);
}

#[test]
fn the_baseline_comes_first_with_ratios_against_it() {
    let run = fixture();
    let blocks = rows::blocks(&run);
    assert_eq!(blocks.len(), 2);
    let k = &blocks[0];
    assert_eq!(k.rows[0].result.implementation.name, "tiny-keccak");
    assert_eq!(k.rows[0].ratio, Some(1.0));
    assert_eq!(k.rows[1].ratio, Some(1.25));
    assert_eq!(k.rows[2].ratio, None, "a wrong result has no ratio");
}

#[test]
fn colour_only_when_asked() {
    let plain = render(&fixture(), Format::Table, false);
    assert!(!plain.contains('\x1b'));
    let coloured = render(&fixture(), Format::Table, true);
    assert!(coloured.contains("\x1b[31m"), "wrong results are red");
}

#[test]
fn an_incomplete_run_says_so() {
    let mut run = fixture();
    run.run.complete = false;
    run.run.incomplete_reason = Some("interrupted (Ctrl-C)".into());
    assert!(render(&run, Format::Table, false).contains("INCOMPLETE RUN: interrupted (Ctrl-C)"));
    assert!(render(&run, Format::Markdown, false).contains("**INCOMPLETE**"));
}

#[test]
fn gas_per_op_shows_as_mgas_per_second() {
    let mut run = fixture();
    // 1 000 gas in the P50 of 2 µs is 500 MGas/s.
    let mut r = result("evm/tx/x", "revm", true, Some(2_000.0));
    r.parameters.insert("gas_per_op".into(), 1000.into());
    run.results.push(r);
    assert!(table::render(&run, false).contains("500 MGas/s (1000 gas/op)"));
    assert!(markdown::render(&run).contains("500 MGas/s (1000 gas/op)"));
    let csv = crate::csv::render(&run);
    assert!(
        csv.lines()
            .last()
            .unwrap()
            .ends_with(",1000,500,batch-means"),
        "{csv}"
    );
}

#[test]
fn the_memory_section_judges_peak_rss_and_gc_against_the_limits() {
    let mut run = fixture();
    assert!(!markdown::render(&run).contains("## Memory"));
    let mut small = result("hash/keccak256/32B", "geth", true, Some(100.0));
    small
        .parameters
        .insert("rss_peak_bytes".into(), 30_000_000.into());
    small.parameters.insert("gc_count".into(), 3.into());
    small
        .parameters
        .insert("gc_overhead_pct".into(), 1.5.into());
    let mut big = result("db/get/single", "rocksdb", true, Some(2_000.0));
    big.parameters
        .insert("rss_peak_bytes".into(), 2_500_000_000u64.into());
    let mut busy = result("rlp/decode/large-body", "web3j", false, Some(9_000.0));
    busy.parameters.insert("gc_overhead_pct".into(), 7.0.into());
    busy.parameters
        .insert("heap_peak_bytes".into(), 3_000_000_000u64.into());
    run.results.extend([small, big, busy]);
    let rows = memory::rows(&run);
    assert_eq!(rows.len(), 3);
    assert!(rows[0].over.is_empty());
    assert_eq!(rows[1].over, ["peak memory over 2 GB"]);
    assert_eq!(rows[2].over, ["heap over 2 GB", "GC over 5%"]);
    let md = markdown::render(&run);
    assert!(md.contains("## Memory"), "{md}");
    assert!(md.contains("| 1.50% | yes |"), "{md}");
    // the terminal shows the section only for the mem suite's scenarios
    assert!(!table::render(&run, false).contains("Memory:"));
    let mut scenario = result("mem/state-root/100000", "alloy-trie", true, Some(5e8));
    scenario
        .parameters
        .insert("rss_peak_bytes".into(), 150_000_000u64.into());
    scenario
        .parameters
        .insert("rss_start_bytes".into(), 50_000_000u64.into());
    run.results.push(scenario);
    let text = table::render(&run, false);
    let line = text
        .lines()
        .find(|l| l.starts_with("mem/state-root/100000") && l.contains("yes"))
        .unwrap_or_else(|| panic!("no memory row in {text}"));
    assert!(
        line.contains("143 MiB") && line.contains("95.4 MiB"),
        "{line}"
    );
    assert!(md.contains("**no**: peak memory over 2 GB"), "{md}");
    let html = html::render(&html::HtmlInput {
        title: "memory".into(),
        generated_at: "2026-11-24T00:00:00Z".into(),
        runs: vec![html::RunInput {
            run: &run,
            gas: None,
            load_svgs: Vec::new(),
        }],
        trends: Vec::new(),
    });
    assert!(html.contains("<section id=\"memory\">"));
    assert!(html.contains("<b>no</b>: heap over 2 GB, GC over 5%"));
}

#[test]
fn a_storage_engine_states_its_durability_and_settings_once() {
    let mut run = fixture();
    for op in ["get", "put"] {
        let mut r = result(&format!("db/{op}/single"), "rocksdb", true, Some(2_000.0));
        r.parameters
            .insert("durability".into(), "WAL on, no fsync".into());
        r.parameters
            .insert("engine_settings".into(), "block cache 256 MiB".into());
        r.parameters
            .insert("library".into(), "librocksdb-sys 0.19.0+11.8.1".into());
        run.results.push(r);
    }
    let md = markdown::render(&run);
    let line = "- rocksdb 1.0.0 (rust), librocksdb-sys 0.19.0+11.8.1: WAL on, no fsync; block cache 256 MiB";
    assert_eq!(md.matches(line).count(), 1, "{md}");
    assert!(!markdown::render(&fixture()).contains("WAL"));
}
