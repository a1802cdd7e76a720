//! The Bencher Metric Format and Go benchmark format exporters, on two
//! recorded dyno runs (`exports-data/`, trimmed to four ids) and on
//! synthetic results, plus an end-to-end run of the pinned `benchstat`
//! (`tools/benchstat`) on the Go format.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use dyno_format::*;
use dyno_report::{bmf, compare, gobench};
use serde_json::Value;

// ---------------------------------------------------------------- fixtures

/// Recorded before (the full run is dyno-results/20261122T022246Z-2130cf.json).
const OLD: &str = "20261122T022246Z-2130cf-trimmed.json";
/// Recorded after, on the same machine, with the same ids.
const NEW: &str = "20261122T134041Z-2ebb76-trimmed.json";

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/exports-data")
        .join(name)
}

fn recorded(name: &str) -> Run {
    Run::read(&data(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// A passed result with three samples of one operation each (90, 100 and
/// 130 ns), its median's CI spanning them.
fn result(id: &str, name: &str, runtime: &str, baseline: bool) -> BenchResult {
    let mut r = fixture::result(id, name, Some(100.0));
    r.implementation.runtime = runtime.into();
    r.baseline = baseline;
    r.mode = Some(Mode::Single);
    r.verification.cases = 4;
    r.samples = [90, 100, 130].map(|ns| Sample { iters: 1, ns }).to_vec();
    let stats = r.stats.as_mut().unwrap();
    stats.n = 3;
    stats.median_ci = Interval {
        lower: 90.0,
        upper: 130.0,
        level: 0.75,
    };
    r
}

/// A run on the recorded machine holding `results`.
fn run_of(results: Vec<BenchResult>) -> Run {
    let mut run = recorded(OLD);
    run.results = results;
    run
}

// ------------------------------------------------- format checks (shared)

/// Bencher's published JSON Schema for BMF (draft-07), as documented in
/// Bencher's reference for the Bencher Metric Format.
const BMF_SCHEMA: &str = r#"{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "patternProperties": {
    ".+": {
      "type": "object",
      "patternProperties": {
        ".+": {
          "type": "object",
          "properties": {
            "value": { "type": "number" },
            "lower_value": { "type": "number" },
            "upper_value": { "type": "number" }
          },
          "required": ["value"]
        }
      }
    }
  }
}"#;

/// Parse BMF text and check it against Bencher's schema and the stricter
/// rules dyno keeps: finite numbers, both bounds or none, lower <= value <=
/// upper, names under 1024 characters and measure slugs under 64.
fn check_bmf(text: &str) -> BTreeMap<String, BTreeMap<String, Value>> {
    let doc: Value = serde_json::from_str(text).expect("BMF is JSON");
    let schema: Value = serde_json::from_str(BMF_SCHEMA).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errs: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errs.is_empty(), "{errs:#?}");
    let doc: BTreeMap<String, BTreeMap<String, Value>> = serde_json::from_value(doc).unwrap();
    for (bench, measures) in &doc {
        assert!(
            !bench.is_empty() && bench.chars().count() <= 1024,
            "{bench}"
        );
        assert!(!measures.is_empty(), "{bench} has no measures");
        for (slug, metric) in measures {
            assert!(
                !slug.is_empty()
                    && slug.len() <= 64
                    && slug
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{slug} is not a slug"
            );
            let obj = metric.as_object().unwrap();
            for key in obj.keys() {
                assert!(
                    ["value", "lower_value", "upper_value"].contains(&key.as_str()),
                    "{bench}/{slug}: unexpected key {key}"
                );
            }
            let num = |k: &str| obj.get(k).map(|v| v.as_f64().expect("a number"));
            let value = num("value").unwrap();
            assert!(value.is_finite(), "{bench}/{slug}");
            match (num("lower_value"), num("upper_value")) {
                (None, None) => {}
                (Some(lo), Some(hi)) => {
                    assert!(lo.is_finite() && hi.is_finite(), "{bench}/{slug}");
                    assert!(
                        lo <= value && value <= hi,
                        "{bench}/{slug}: {lo} {value} {hi}"
                    );
                }
                other => panic!("{bench}/{slug}: one bound only: {other:?}"),
            }
        }
    }
    doc
}

/// One parsed benchmark line.
#[derive(Debug)]
struct Line {
    name: String,
    iters: u64,
    /// unit -> value
    values: BTreeMap<String, f64>,
}

/// Parse Go benchmark format by the rules of the design document
/// (golang.org/design/14313-benchmark-format): configuration lines
/// `key: value` (key starts lower case, has no space or upper case),
/// `Unit` metadata lines, and benchmark lines of an even number (>= 4) of
/// white-space separated fields: a name starting `Benchmark` plus an upper
/// case letter, an iteration count, then value/unit pairs.
fn parse_gobench(text: &str) -> (BTreeMap<String, String>, Vec<String>, Vec<Line>) {
    let mut config = BTreeMap::new();
    let mut units = Vec::new();
    let mut lines = Vec::new();
    for l in text.lines() {
        if let Some(rest) = l.strip_prefix("Benchmark") {
            let first = rest.chars().next().expect("a name after Benchmark");
            assert!(first.is_uppercase(), "{l}");
            let f: Vec<&str> = l.split_whitespace().collect();
            assert!(f.len() >= 4 && f.len().is_multiple_of(2), "{l}");
            let iters: u64 = f[1].parse().expect("iteration count");
            assert!(iters >= 1, "{l}");
            let mut values = BTreeMap::new();
            for pair in f[2..].chunks(2) {
                let v: f64 = pair[0].parse().expect("a number");
                assert!(v.is_finite(), "{l}");
                assert!(values.insert(pair[1].to_string(), v).is_none(), "{l}");
            }
            lines.push(Line {
                name: f[0].to_string(),
                iters,
                values,
            });
        } else if let Some(rest) = l.strip_prefix("Unit ") {
            units.push(rest.to_string());
        } else {
            let (k, v) = l.split_once(": ").expect("a configuration line");
            assert!(k.starts_with(|c: char| c.is_lowercase()), "{l}");
            assert!(
                !k.chars().any(|c| c.is_whitespace() || c.is_uppercase()),
                "{l}"
            );
            assert!(!v.trim().is_empty(), "{l}");
            config.insert(k.to_string(), v.to_string());
        }
    }
    (config, units, lines)
}

// ------------------------------------------------------------------- BMF

/// A fitted result the scheduler interrupted (recorded here: modexp in
/// bytecode mode, one 100-call sample took 63.5 ms), whose OLS slope came
/// out negative: every view shows the robust slope, about 10 µs.
#[test]
fn every_view_shows_the_robust_slope_not_a_negative_ols_one() {
    let mut r =
        dyno_format::fixture::result("precompile-bytecode/modexp/x", "revm", Some(10_000.0));
    r.mode = Some(dyno_format::Mode::LinearFit);
    r.samples = dyno_format::fixture::interrupted_fit_samples();
    let interval = |lower, upper| dyno_stats::Interval {
        lower,
        upper,
        level: 0.95,
    };
    r.fit = Some(dyno_stats::LinearFit {
        slope: -4_820.0,
        intercept: 0.0,
        slope_ci: interval(-38_000.0, 28_000.0),
        intercept_ci: interval(0.0, 0.0),
        r_squared: 0.01,
        n: 12,
    });
    let ns = compare::per_op_ns(&r).unwrap();
    assert!((9_000.0..12_000.0).contains(&ns), "{ns}");
    let run = dyno_format::fixture::run("r", vec![r]);
    let doc = check_bmf(&bmf::render(&run));
    let lat = doc["precompile-bytecode/modexp/x::revm"]["latency"]["value"]
        .as_f64()
        .unwrap();
    assert_eq!(lat, ns);
    let csv = dyno_report::csv::render(&run);
    let row: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    let slope_col = dyno_report::csv::COLUMNS
        .iter()
        .position(|c| *c == "slope_ns")
        .unwrap();
    assert_eq!(row[slope_col].parse::<f64>().unwrap(), ns);
}

#[test]
fn bmf_of_a_recorded_run_has_every_result_with_latency_and_throughput() {
    let run = recorded(OLD);
    let text = bmf::render(&run);
    let doc = check_bmf(&text);
    assert_eq!(doc.len(), run.results.len());
    for r in &run.results {
        let name = format!("{}::{}", r.id, r.implementation.name);
        let m = doc.get(&name).unwrap_or_else(|| panic!("{name} missing"));
        let lat = m["latency"]["value"].as_f64().unwrap();
        // the time every other dyno view compares: the robust slope, else the P50
        assert_eq!(Some(lat), compare::per_op_ns(r), "{name}");
        let thr = m["throughput"]["value"].as_f64().unwrap();
        assert!((thr * lat / 1e9 - 1.0).abs() < 1e-12, "{name}");
        // bounds are the slope's interval or the median's, always present here
        let e = compare::per_op(r).unwrap();
        let (lo, hi) = (e.lower, e.upper);
        if r.fit.is_none() {
            let s = r.stats.as_ref().unwrap();
            assert_eq!((lo, hi), (s.median_ci.lower, s.median_ci.upper));
        }
        assert_eq!(m["latency"]["lower_value"].as_f64(), Some(lo), "{name}");
        assert_eq!(m["latency"]["upper_value"].as_f64(), Some(hi), "{name}");
        assert_eq!(m["throughput"]["lower_value"].as_f64(), Some(1e9 / hi));
        assert_eq!(m["throughput"]["upper_value"].as_f64(), Some(1e9 / lo));
        // allocations are counted on every recorded result, exactly
        let a = r.allocations.as_ref().unwrap();
        assert_eq!(m["allocations"]["value"].as_f64(), Some(a.allocs_per_op));
        assert_eq!(m["allocated-bytes"]["value"].as_f64(), Some(a.bytes_per_op));
        assert!(m["allocations"].get("lower_value").is_none());
        assert!(!m.contains_key("instructions"), "not counted in this run");
    }
    // the baseline carries its implementation too
    assert!(doc.contains_key("hash/keccak256/32B::tiny-keccak"));
    assert!(!doc.contains_key("hash/keccak256/32B"));
}

#[test]
fn bmf_is_deterministic_with_sorted_keys() {
    let run = recorded(NEW);
    let text = bmf::render(&run);
    assert_eq!(text, bmf::render(&run));
    assert!(text.ends_with("}\n"));
    // benchmark names appear in sorted order in the text, whatever the run order
    let mut reversed = run.clone();
    reversed.results.reverse();
    assert_eq!(text, bmf::render(&reversed));
    let names: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("  \"") && l.ends_with("{"))
        .map(|l| l.trim().trim_end_matches(": {").trim_matches('"'))
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    assert_eq!(names.len(), 9);
    // measures sorted within a benchmark
    let first = &text[text.find("::alloy-rlp").unwrap()..];
    let pos = |k: &str| first.find(&format!("\"{k}\"")).unwrap();
    assert!(pos("allocated-bytes") < pos("allocations"));
    assert!(pos("allocations") < pos("latency"));
    assert!(pos("latency") < pos("throughput"));
}

#[test]
fn bmf_leaves_out_wrong_and_untimed_results() {
    let mut untimed = result("hash/sha256/32B", "ring", "rust", false);
    untimed.stats = None;
    untimed.samples.clear();
    let run = run_of(vec![
        result("hash/sha256/32B", "sha2", "rust", true),
        fixture::wrong(result("hash/sha256/32B", "bad", "rust", false)),
        untimed,
    ]);
    let doc = check_bmf(&bmf::render(&run));
    assert_eq!(
        doc.keys().collect::<Vec<_>>(),
        ["hash/sha256/32B::sha2"],
        "a wrong result is never a timing"
    );
    // nothing left: an empty object, still valid BMF
    let none = run_of(vec![fixture::wrong(result("a/b/c", "x", "rust", true))]);
    assert_eq!(bmf::render(&none), "{}\n");
    check_bmf(&bmf::render(&none));
}

#[test]
fn bmf_names_other_runtimes_and_adds_counted_measures() {
    let mut geth = result("precompile/ecrecover/ValidKey", "geth", "go", false);
    geth.instructions = Some(Instructions {
        per_op: 123_456.5,
        iters: [10, 20],
        counts: [1, 2],
        tool: "callgrind".into(),
    });
    geth.allocations = Some(Allocations {
        allocs_per_op: 0.0,
        bytes_per_op: 0.0,
        iters: 100,
    });
    let run = run_of(vec![
        result("precompile/ecrecover/ValidKey", "k256", "rust", true),
        geth,
    ]);
    let doc = check_bmf(&bmf::render(&run));
    let g = &doc["precompile/ecrecover/ValidKey::geth (go)"];
    assert_eq!(g["instructions"], serde_json::json!({ "value": 123456.5 }));
    assert_eq!(g["allocations"], serde_json::json!({ "value": 0.0 }));
    assert_eq!(g["allocated-bytes"], serde_json::json!({ "value": 0.0 }));
    let k = &doc["precompile/ecrecover/ValidKey::k256"];
    assert_eq!(
        k.keys().map(String::as_str).collect::<Vec<_>>(),
        ["latency", "throughput"]
    );
    assert_eq!(
        k["latency"],
        serde_json::json!({ "value": 100.0, "lower_value": 90.0, "upper_value": 130.0 })
    );
}

#[test]
fn bmf_drops_bounds_that_do_not_bracket_and_falls_back_from_a_bad_slope() {
    let mut odd = result("a/b/c", "x", "rust", true);
    odd.stats.as_mut().unwrap().median_ci.upper = f64::NAN;
    let mut bad_fit = result("a/b/d", "x", "rust", true);
    bad_fit.fit = Some(LinearFit {
        slope: -1.0,
        intercept: 0.0,
        slope_ci: Interval {
            lower: -2.0,
            upper: 0.0,
            level: 0.95,
        },
        intercept_ci: Interval {
            lower: 0.0,
            upper: 0.0,
            level: 0.95,
        },
        r_squared: 0.1,
        n: 3,
    });
    let mut outside = result("a/b/e", "x", "rust", true);
    outside.stats.as_mut().unwrap().median_ci.lower = 101.0;
    let doc = check_bmf(&bmf::render(&run_of(vec![odd, bad_fit, outside])));
    assert_eq!(
        doc["a/b/c::x"]["latency"],
        serde_json::json!({ "value": 100.0 })
    );
    assert_eq!(
        doc["a/b/c::x"]["throughput"],
        serde_json::json!({ "value": 1e7 })
    );
    // a non-positive slope is not a time: the P50 and its interval
    assert_eq!(
        doc["a/b/d::x"]["latency"],
        serde_json::json!({ "value": 100.0, "lower_value": 90.0, "upper_value": 130.0 })
    );
    assert_eq!(
        doc["a/b/e::x"]["latency"],
        serde_json::json!({ "value": 100.0 })
    );
}

// --------------------------------------------------------------- gobench

#[test]
fn gobench_of_a_recorded_run_has_one_line_per_raw_sample() {
    let run = recorded(OLD);
    let text = gobench::render(&run);
    let (config, units, lines) = parse_gobench(&text);
    assert_eq!(config["goos"], "linux");
    assert_eq!(config["goarch"], "amd64");
    assert_eq!(config["pkg"], "dyno");
    assert_eq!(config["cpu"], "Intel(R) Xeon(R) Processor");
    assert!(text.starts_with("goos: linux\ngoarch: amd64\npkg: dyno\ncpu: "));
    assert_eq!(units, ["B/op assume=exact", "allocs/op assume=exact"]);
    let total: usize = run.results.iter().map(|r| r.samples.len()).sum();
    assert_eq!(lines.len(), total);
    // every sample, in order, exactly: iterations and ns / iterations
    let mut it = lines.iter();
    for r in &run.results {
        let name = format!("{}-2", gobench::name(r));
        let a = r.allocations.as_ref().unwrap();
        for s in &r.samples {
            let l = it.next().unwrap();
            assert_eq!(l.name, name);
            assert_eq!(l.iters, s.iters);
            assert_eq!(l.values["ns/op"], s.per_op(), "{name}: exact round trip");
            assert_eq!(l.values["B/op"], a.bytes_per_op);
            assert_eq!(l.values["allocs/op"], a.allocs_per_op);
            assert_eq!(l.values.len(), 3);
        }
    }
    assert!(text.contains("\nBenchmarkHash/keccak256/32B/impl=tiny-keccak-2\t2182\t"));
    assert!(text.contains("\nBenchmarkTrie/state-root/10000/impl=triehash-2\t1\t"));
    // a fitted result keeps its raw per-op times (see the module doc)
    let fitted = &run.results[0];
    assert!(fitted.fit.is_some());
    let raw_median = fitted.stats.as_ref().unwrap().p50;
    let mut ns: Vec<f64> = lines
        .iter()
        .filter(|l| l.name.starts_with(&gobench::name(fitted)))
        .map(|l| l.values["ns/op"])
        .collect();
    ns.sort_by(f64::total_cmp);
    let mid = ns.len() / 2;
    let median = (ns[mid - 1] + ns[mid]) / 2.0;
    assert!(
        (median / raw_median - 1.0).abs() < 1e-12,
        "{median} {raw_median}"
    );
}

#[test]
fn gobench_names_keep_ids_recognisable() {
    let r = result("hash/keccak256/32B", "tiny-keccak", "rust", true);
    assert_eq!(
        gobench::name(&r),
        "BenchmarkHash/keccak256/32B/impl=tiny-keccak"
    );
    let r = result("precompile/ecrecover/ValidKey", "geth", "go", false);
    assert_eq!(
        gobench::name(&r),
        "BenchmarkPrecompile/ecrecover/ValidKey/impl=geth@go"
    );
    // white space, control characters and `=` become `_`; `/` too in the implementation
    let r = result("my group/op\tx/n=3 B", "my impl/v=2", "node", false);
    assert_eq!(
        gobench::name(&r),
        "BenchmarkMy_group/op_x/n_3_B/impl=my_impl_v_2@node"
    );
    // an id that does not start with a letter
    let r = result("1inch/swap/x", "a", "", false);
    assert_eq!(gobench::name(&r), "BenchmarkX1inch/swap/x/impl=a");
    let r = result("_x/y/z", "a", "rust", false);
    assert_eq!(gobench::name(&r), "BenchmarkX_x/y/z/impl=a");
    let r = result("Up/y/z", "a", "rust", false);
    assert_eq!(gobench::name(&r), "BenchmarkUp/y/z/impl=a");
    // and every such name makes lines Go's format accepts
    let run = run_of(vec![
        result("my group/op\tx/n=3 B", "my impl/v=2", "node", false),
        result("1inch/swap/x", "a b", "", false),
    ]);
    let (_, _, lines) = parse_gobench(&gobench::render(&run));
    assert_eq!(lines.len(), 6);
    assert_eq!(
        lines[0].name,
        "BenchmarkMy_group/op_x/n_3_B/impl=my_impl_v_2@node-2"
    );
    assert_eq!(lines[3].name, "BenchmarkX1inch/swap/x/impl=a_b-2");
}

#[test]
fn gobench_leaves_out_wrong_results_and_empty_samples() {
    let mut zero = result("a/b/c", "z", "rust", false);
    zero.samples.push(Sample { iters: 0, ns: 5 });
    let run = run_of(vec![
        result("a/b/c", "ok", "rust", true),
        fixture::wrong(result("a/b/c", "bad", "rust", false)),
        zero,
    ]);
    let text = gobench::render(&run);
    assert!(
        !text.contains("impl=bad"),
        "a wrong result is never a timing"
    );
    let (_, units, lines) = parse_gobench(&text);
    assert!(units.is_empty(), "no counts, no unit metadata");
    assert_eq!(lines.len(), 6);
    assert!(lines.iter().all(|l| l.values.len() == 1));
    assert_eq!(
        lines.iter().map(|l| l.values["ns/op"]).collect::<Vec<_>>(),
        [90.0, 100.0, 130.0, 90.0, 100.0, 130.0]
    );
}

#[test]
fn gobench_adds_count_columns_when_counted() {
    let mut counted = result("rlp/encode/x", "alloy-rlp", "rust", true);
    counted.samples = vec![Sample { iters: 3, ns: 1000 }, Sample { iters: 7, ns: 2000 }];
    counted.allocations = Some(Allocations {
        allocs_per_op: 1.5,
        bytes_per_op: 77.625,
        iters: 100,
    });
    counted.instructions = Some(Instructions {
        per_op: 4321.25,
        iters: [10, 20],
        counts: [1, 2],
        tool: "callgrind".into(),
    });
    let plain = result("rlp/encode/x", "rlp", "rust", false);
    let text = gobench::render(&run_of(vec![counted, plain]));
    let (_, units, lines) = parse_gobench(&text);
    assert_eq!(
        units,
        [
            "B/op assume=exact",
            "allocs/op assume=exact",
            "instructions/op assume=exact"
        ]
    );
    assert!(text.contains(
        "BenchmarkRlp/encode/x/impl=alloy-rlp-2\t3\t333.3333333333333 ns/op\t77.625 B/op\t1.5 allocs/op\t4321.25 instructions/op\n"
    ));
    assert_eq!(lines[1].values["ns/op"], 2000.0 / 7.0);
    assert_eq!(lines[1].values["allocs/op"], 1.5);
    assert_eq!(lines[2].values.keys().collect::<Vec<_>>(), ["ns/op"]);
}

#[test]
fn gobench_header_uses_go_names() {
    assert_eq!(gobench::goarch("x86_64"), "amd64");
    assert_eq!(gobench::goarch("aarch64"), "arm64");
    assert_eq!(gobench::goarch("i686"), "386");
    assert_eq!(gobench::goarch("riscv64"), "riscv64");
    assert_eq!(gobench::goos("Debian GNU/Linux 12 (bookworm)"), "linux");
    assert_eq!(gobench::goos("linux"), "linux");
    assert_eq!(gobench::goos("macos"), "darwin");
    assert_eq!(gobench::goos("windows"), "windows");
    let mut run = run_of(vec![]);
    run.environment.arch = "aarch64".into();
    run.environment.cpu_model = "Apple M2\n(test)".into();
    run.environment.cores = 8;
    run.environment.os = "macos".into();
    run.results = vec![result("a/b/c", "x", "rust", true)];
    let text = gobench::render(&run);
    assert!(text.starts_with("goos: darwin\ngoarch: arm64\npkg: dyno\ncpu: Apple M2 (test)\n"));
    assert!(text.contains("\nBenchmarkA/b/c/impl=x-8\t1\t90 ns/op\n"));
    run.environment.cpu_model = String::new();
    assert!(!gobench::render(&run).contains("cpu:"));
}

// ------------------------------------------------------ benchstat, for real

/// The pinned benchstat, built once per test binary from tools/benchstat
/// with the committed go.sum; `None` (after a loud notice) if Go is not
/// installed, except in CI, where that fails.
fn benchstat() -> Option<&'static Path> {
    static BIN: OnceLock<Option<PathBuf>> = OnceLock::new();
    BIN.get_or_init(|| {
        let go = Command::new("go").arg("version").output();
        if !go.as_ref().is_ok_and(|o| o.status.success()) {
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!("`go` is required in CI to check the gobench export with benchstat: {go:?}");
            }
            // straight to stderr: the test harness captures `eprintln!`
            let _ = std::io::stderr().write_all(
                b"\n\
                  ************************************************************\n\
                  SKIPPED: `go` is not installed, so the Go benchmark export was\n\
                  not checked with the real benchstat (tools/benchstat).\n\
                  Install Go 1.26+ to run this check; in CI (CI=true) it fails.\n\
                  ************************************************************\n",
            );
            return None;
        }
        let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/benchstat");
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("benchstat-pinned");
        std::fs::create_dir_all(&dir).unwrap();
        let bin = dir.join("benchstat");
        let out = Command::new("go")
            .args(["build", "-mod=readonly", "-o"])
            .arg(&bin)
            .arg("golang.org/x/perf/cmd/benchstat")
            .current_dir(&tools)
            .output()
            .expect("go runs");
        assert!(
            out.status.success(),
            "building benchstat in {}: {}",
            tools.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        Some(bin)
    })
    .as_deref()
}

/// A fresh folder for one test's files.
fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("exports")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Run benchstat in `dir` with `args`; its stdout. Fails on a non-zero exit
/// or anything on stderr (benchstat reports format errors there).
fn run_benchstat(bin: &Path, dir: &Path, args: &[&str]) -> String {
    let out = Command::new(bin)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("benchstat runs");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "benchstat {args:?}: {stderr}\n{stdout}"
    );
    assert!(
        stderr.trim().is_empty(),
        "benchstat {args:?} complained: {stderr}"
    );
    eprintln!("$ benchstat {}\n{stdout}", args.join(" "));
    stdout
}

/// benchstat's SI number (`535.0n`, `3.072m`, `1.000`) as a plain number.
fn si(s: &str) -> f64 {
    let (num, scale) = match s.chars().last().unwrap() {
        'n' => (&s[..s.len() - 1], 1e-9),
        'µ' => (&s[..s.len() - 'µ'.len_utf8()], 1e-6),
        'm' => (&s[..s.len() - 1], 1e-3),
        'k' => (&s[..s.len() - 1], 1e3),
        'M' => (&s[..s.len() - 1], 1e6),
        'G' => (&s[..s.len() - 1], 1e9),
        'i' => panic!("binary prefix in {s}"),
        _ => (s, 1.0),
    };
    num.parse::<f64>().unwrap_or_else(|e| panic!("{s}: {e}")) * scale
}

#[test]
fn benchstat_compares_two_recorded_runs() {
    let Some(bin) = benchstat() else { return };
    let (old, new) = (recorded(OLD), recorded(NEW));
    let dir = scratch("ab");
    std::fs::write(dir.join("old.txt"), gobench::render(&old)).unwrap();
    std::fs::write(dir.join("new.txt"), gobench::render(&new)).unwrap();
    let out = run_benchstat(bin, &dir, &["old.txt", "new.txt"]);

    // one table, with the shared configuration above it
    assert!(
        out.starts_with("goos: linux\ngoarch: amd64\npkg: dyno\ncpu: Intel(R) Xeon(R) Processor\n")
    );
    assert!(out.contains("sec/op"), "{out}");
    assert!(out.contains("vs base"), "{out}");
    let start = out.find("sec/op").unwrap();
    let end = start + out[start..].find("\ngeomean").expect("a geomean line");
    let time_table = &out[start..end];
    for r in &old.results {
        let name = format!("{}-2", gobench::name(r));
        let name = name.strip_prefix("Benchmark").unwrap();
        let row = time_table
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no row for {name} in\n{out}"));
        // `<old> ± x%  <new> ± y%  <change or ~> (p=... n=...)`
        let f: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(f[2], "±", "{row}");
        assert_eq!(row.matches('±').count(), 2, "{row}");
        // `(p=0.021 n=170)`; benchstat leaves out a p-value that rounds to 0
        assert!(row.contains("(p=") || row.contains("(n="), "{row}");
        // benchstat's centre is the median of the raw per-op times: dyno's P50
        let p50 = r.stats.as_ref().unwrap().p50 * 1e-9;
        let centre = si(f[1]);
        assert!(
            (centre / p50 - 1.0).abs() < 1e-3,
            "{name}: benchstat {centre} vs dyno P50 {p50}"
        );
        let n = format!("n={}", r.samples.len());
        let n_of = new
            .results
            .iter()
            .find(|x| x.id == r.id && x.implementation.name == r.implementation.name)
            .map(|x| x.samples.len())
            .unwrap();
        let n_both = format!("n={}+{}", r.samples.len(), n_of);
        assert!(row.contains(&n) || row.contains(&n_both), "{row}");
    }
    assert!(time_table.contains("(p="), "{out}");
    let geomean = out.lines().find(|l| l.starts_with("geomean")).unwrap();
    assert!(geomean.contains('%'), "{geomean}");
    // the exact per-op counts get their own tables, without a test
    assert!(out.contains("B/op"), "{out}");
    assert!(out.contains("allocs/op"), "{out}");
}

#[test]
fn gobench_puts_each_ids_baseline_first() {
    // recorded with `rlp` before the baseline `alloy-rlp`
    let run = recorded(NEW);
    let order: Vec<&str> = run
        .results
        .iter()
        .filter(|r| r.id == "rlp/encode/tiny-account")
        .map(|r| r.implementation.name.as_str())
        .collect();
    assert_eq!(order, ["rlp", "alloy-rlp"]);
    let (_, _, lines) = parse_gobench(&gobench::render(&run));
    let mut names: Vec<&str> = Vec::new();
    for l in &lines {
        if names.last() != Some(&l.name.as_str()) {
            names.push(&l.name);
        }
    }
    assert_eq!(
        names,
        [
            "BenchmarkHash/keccak256/32B/impl=tiny-keccak-2",
            "BenchmarkHash/keccak256/32B/impl=sha3-2",
            "BenchmarkHash/keccak256/32B/impl=keccak-asm-2",
            "BenchmarkRlp/encode/tiny-account/impl=alloy-rlp-2",
            "BenchmarkRlp/encode/tiny-account/impl=rlp-2",
            "BenchmarkTrie/state-root/1000/impl=alloy-trie-2",
            "BenchmarkTrie/state-root/1000/impl=triehash-2",
            "BenchmarkTrie/state-root/10000/impl=alloy-trie-2",
            "BenchmarkTrie/state-root/10000/impl=triehash-2",
        ]
    );
}

#[test]
fn benchstat_sets_implementations_against_the_baseline() {
    let Some(bin) = benchstat() else { return };
    let dir = scratch("impl");
    let run = recorded(NEW);
    std::fs::write(dir.join("run.txt"), gobench::render(&run)).unwrap();
    let out = run_benchstat(
        bin,
        &dir,
        &["-table", ".fullname", "-col", "/impl", "run.txt"],
    );
    // one table per id, headed `.fullname: Hash/keccak256/32B-2`; its
    // first column, the base of every comparison, is dyno's baseline
    for r in run.results.iter().filter(|r| r.baseline) {
        let name = gobench::name(r);
        let id = name.strip_prefix("Benchmark").unwrap();
        let id = id.split("/impl=").next().unwrap();
        let heading = format!(".fullname: {id}-2\n");
        let at = out
            .find(&heading)
            .unwrap_or_else(|| panic!("no table {heading:?} in\n{out}"));
        let table: Vec<&str> = out[at..].lines().collect();
        let first = table[1].split('│').nth(1).unwrap().trim();
        assert_eq!(first, r.implementation.name, "{}", table[1]);
        let others = run
            .results
            .iter()
            .filter(|x| x.id == r.id && !x.baseline)
            .count();
        let row = table[3];
        assert!(row.starts_with(&format!("{id}-2 ")), "{row}");
        assert_eq!(row.matches('±').count(), 1 + others, "{row}");
        assert_eq!(row.matches("n=").count(), others, "{row}");
    }
}
