//! Every view in every format it has, rendered from the real runs in
//! `tests/data` and compared byte for byte with a golden file in
//! `tests/golden/`. A changed character anywhere fails its test.
//! `DYNO_BLESS=1 cargo test -p dyno-report --test golden` rewrites them
//! after an intended change; review the diff.

use std::path::PathBuf;

use dyno_format::history::{BaselineRow, HistoryPoint, RunRow};
use dyno_report::catalog::{Listed, ListedClient, Status};
use dyno_report::gas::GasTable;
use dyno_report::{Format, compare, delta, history, load, memory};

mod fixtures;

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// The first difference between `actual` and the golden file `name`, or
/// `None` when they are equal.
fn difference(name: &str, actual: &str) -> Option<String> {
    let path = golden_dir().join(name);
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if actual == expected {
        return None;
    }
    let line = actual
        .lines()
        .zip(expected.lines())
        .position(|(a, e)| a != e)
        .unwrap_or(actual.lines().count().min(expected.lines().count()));
    Some(format!(
        "{name} differs from its golden file at line {}:\n  got:      {:?}\n  expected: {:?}\n\
         (DYNO_BLESS=1 cargo test -p dyno-report --test golden to accept; review the diff)",
        line + 1,
        actual.lines().nth(line),
        expected.lines().nth(line)
    ))
}

/// A rendering that must equal a fixture file exactly (the JSON formats
/// write the document they were read from): the fixture is its golden.
fn same_as_fixture(fixture: &str, actual: &str) {
    let path = fixtures::data().join(fixture);
    let expected = std::fs::read_to_string(&path).unwrap();
    assert!(
        actual == expected,
        "rendering {fixture} as JSON does not give the file back"
    );
}

fn check(name: &str, actual: &str) {
    if std::env::var_os("DYNO_BLESS").is_some_and(|v| !v.is_empty()) {
        std::fs::create_dir_all(golden_dir()).unwrap();
        std::fs::write(golden_dir().join(name), actual).unwrap();
        return;
    }
    if let Some(d) = difference(name, actual) {
        panic!("{d}");
    }
}

#[test]
fn one_changed_character_is_a_difference() {
    let micro = fixtures::run("micro.json");
    let text = dyno_report::render(&micro, Format::Table, false);
    assert_eq!(difference("bench.txt", &text), None);
    for at in [0, text.len() / 2, text.len() - 2] {
        let mut changed = text.clone().into_bytes();
        changed[at] = if changed[at] == b'#' { b'%' } else { b'#' };
        let changed = String::from_utf8_lossy(&changed).into_owned();
        assert!(difference("bench.txt", &changed).is_some(), "byte {at}");
    }
    assert!(difference("bench.txt", &(text + "\n")).is_some());
}

#[test]
fn bench_table_in_every_format() {
    let micro = fixtures::run("micro.json");
    check(
        "bench.txt",
        &dyno_report::render(&micro, Format::Table, false),
    );
    check(
        "bench-colour.txt",
        &dyno_report::render(&micro, Format::Table, true),
    );
    check(
        "bench.md",
        &dyno_report::render(&micro, Format::Markdown, false),
    );
    check(
        "bench.csv",
        &dyno_report::render(&micro, Format::Csv, false),
    );
    same_as_fixture(
        "micro.json",
        &dyno_report::render(&micro, Format::Json, false),
    );
}

#[test]
fn cross_implementation_and_memory_in_every_format() {
    let run = fixtures::run("ximpl.json");
    let tables = compare::tables(&run);
    assert!(!tables.is_empty(), "the fixture has several runtimes");
    check("cross-implementation.txt", &compare::render_text(&tables));
    check(
        "cross-implementation.md",
        &compare::render_markdown(&tables),
    );
    check("memory.txt", &memory::render_text(&run));
    check("memory.md", &memory::render_markdown(&run));
    // The whole run too: both views inside the bench table and Markdown.
    check(
        "ximpl.txt",
        &dyno_report::render(&run, Format::Table, false),
    );
    check(
        "ximpl.md",
        &dyno_report::render(&run, Format::Markdown, false),
    );
}

#[test]
fn delta_in_every_format() {
    let old = fixtures::run("micro-rerun-1.json");
    let new = fixtures::run("micro-rerun-2.json");
    let c = dyno_gate::compare(&old, &new, "old", "new", &dyno_gate::Options::default()).unwrap();
    check("delta.txt", &delta::text(&c, false));
    check("delta-colour.txt", &delta::text(&c, true));
    check("delta.md", &delta::markdown(&c));
    check(
        "delta.json",
        &(serde_json::to_string_pretty(&c).unwrap() + "\n"),
    );
}

#[test]
fn gas_in_every_format() {
    let p = fixtures::gas_priced();
    let table = GasTable {
        fork: &p.fork,
        factor: p.factor,
        second_anchor: None,
        anchor_ns: p.anchor_ns,
        noop_ns: p.noop_ns,
        rows: &p.rows,
        run_id: &p.run_id,
    };
    for (name, format) in [
        ("gas.txt", Format::Table),
        ("gas.md", Format::Markdown),
        ("gas.csv", Format::Csv),
    ] {
        check(name, &dyno_report::gas::render(&table, format));
    }
    same_as_fixture(
        "gas-priced.json",
        &dyno_report::gas::render(&table, Format::Json),
    );
}

#[test]
fn a_fleet_run_with_its_workers_in_every_format() {
    let run = fixtures::run("load/fleet.json");
    let table = load::table(&run);
    assert!(table.contains("w1 (vm, 2 cores)") && table.contains("+24.989 ± 0.125 ms"));
    check("load-fleet.txt", &table);
    check("load-fleet.md", &load::markdown(&run));
    same_as_fixture("load/fleet.json", &run.to_json());
}

#[test]
fn load_in_every_format() {
    let run = fixtures::run("load/load.json");
    check("load.txt", &load::table(&run));
    check("load.md", &load::markdown(&run));
    same_as_fixture("load/load.json", &run.to_json());
}

#[test]
fn exports() {
    let run = fixtures::run("ximpl.json");
    check("bmf.json", &dyno_report::bmf::render(&run));
    check("gobench.txt", &dyno_report::gobench::render(&run));
}

#[test]
fn html_page() {
    check("report.html", &fixtures::page());
}

#[test]
fn history_views_in_every_format() {
    let runs = [
        RunRow {
            id: "20261122T134041Z-072f45".into(),
            started_at: "2026-11-22T13:40:41Z".into(),
            complete: true,
            git_commit: Some("9c239004d03d".into()),
            cpu_model: "Intel(R) Xeon(R) Processor".into(),
            command: "dyno run --quick hash/keccak256".into(),
            results: 12,
            load: 0,
        },
        RunRow {
            id: "20261122T133928Z-23a87f".into(),
            started_at: "2026-11-22T13:39:28Z".into(),
            complete: false,
            git_commit: None,
            cpu_model: "Intel(R) Xeon(R) Processor".into(),
            command: "dyno load --txs 300".into(),
            results: 0,
            load: 1,
        },
    ];
    check("history-runs.txt", &history::runs_text(&runs));
    check("history-runs.json", &history::json(&runs));
    let points = [HistoryPoint {
        run_id: "20261122T134041Z-072f45".into(),
        started_at: "2026-11-22T13:40:41Z".into(),
        git_commit: Some("9c239004d03d".into()),
        implementation: "tiny-keccak".into(),
        runtime: "rust".into(),
        p50_ns: 212.5,
        p95_ns: 230.0,
        p99_ns: 251.25,
        ci_low_ns: 210.0,
        ci_high_ns: 215.0,
        n: 40,
    }];
    check("history-points.txt", &history::points_text(&points));
    check("history-points.json", &history::json(&points));
    let baselines = [BaselineRow {
        name: "main".into(),
        versions: 2,
        updated_at: "2026-11-22T14:00:00Z".into(),
        latest_reason: "new CI machine".into(),
        run_id: "20261122T134041Z-072f45".into(),
    }];
    check("baselines.txt", &history::baselines_text(&baselines));
    let b = dyno_format::baseline::Baseline {
        dyno_baseline: dyno_format::baseline::BASELINE_FORMAT,
        name: "main".into(),
        versions: vec![dyno_format::baseline::BaselineVersion {
            version: 1,
            created_at: "2026-11-22T14:00:00Z".into(),
            reason: "first baseline".into(),
            changes: vec!["12 benchmarks".into()],
            run: fixtures::run("ximpl.json"),
        }],
    };
    check("baseline.txt", &history::baseline_text(&b));
    // `baseline show --json` is the baseline document itself.
    let back = dyno_format::baseline::Baseline::parse(&b.to_json(), std::path::Path::new("-"));
    assert_eq!(back.unwrap().versions[0].run, b.versions[0].run);
}

#[test]
fn catalog_view() {
    let rows = [
        Listed {
            id: "hash/keccak256/32B".into(),
            implementation: "tiny-keccak".into(),
            baseline: true,
            version: "2.0.2".into(),
            target: Some(("p50".into(), 1_000.0)),
            threshold: 0.2,
            default: true,
            runtime: "rust".into(),
            status: Status::BuiltIn,
        },
        Listed {
            id: "hash/keccak256/32B".into(),
            implementation: "geth".into(),
            baseline: false,
            version: "v1.17.8".into(),
            target: Some(("p50".into(), 1_000.0)),
            threshold: 0.2,
            default: true,
            runtime: "go".into(),
            status: Status::Missing("dyno setup go".into()),
        },
        Listed {
            id: "pow/hashimoto-light/epoch0".into(),
            implementation: "dyno-ethash".into(),
            baseline: false,
            version: "?".into(),
            target: None,
            threshold: 0.25,
            default: false,
            runtime: "rust".into(),
            status: Status::BuiltIn,
        },
    ];
    check("list.txt", &dyno_report::catalog::text(&rows));
    let clients = [
        ListedClient {
            name: "geth".into(),
            uses: vec!["replay --client geth".into(), "load --node geth".into()],
            fork: Some("osaka".into()),
            version: Some("1.17.8-stable".into()),
            status: Status::Installed,
        },
        ListedClient {
            name: "mosquitto".into(),
            uses: vec!["load --fleet (the MQTT broker)".into()],
            fork: None,
            version: None,
            status: Status::Missing("dyno setup mosquitto".into()),
        },
    ];
    check(
        "list-clients.txt",
        &dyno_report::catalog::clients_text(&clients),
    );
}
