//! The page from synthetic runs: escaping, self-containedness, each section
//! present exactly when its data is, no `NaN` in any chart, and WRONG for a
//! failed verification.

use dyno_format::gas::{Estimate, Pricing as Flag, Row as GasRow};
use dyno_format::*;

use super::load::{clean_svg, decorate_svg};
use super::*;

fn stats(p50: f64) -> Summary {
    fixture::summary(p50, 40)
}

fn result(id: &str, imp: &str, baseline: bool, p50: Option<f64>) -> BenchResult {
    let mut r = fixture::result(id, imp, p50);
    r.baseline = baseline;
    r.verification.status = VerificationStatus::Passed;
    r
}

fn wrong(id: &str, imp: &str) -> BenchResult {
    let mut r = fixture::wrong(fixture::result(id, imp, None));
    r.verification.mismatch.as_mut().unwrap().actual = "0xbb<b>".into();
    r
}

fn run() -> Run {
    let mut slow = result(
        "crypto/secp256k1-recover/valid",
        "k256",
        false,
        Some(52_000.0),
    );
    slow.target = Some(fixture::missed(50_000.0));
    let mut nan = result("hash/keccak256/1KiB", "sha3", false, Some(f64::NAN));
    nan.ops_per_sec = Some(f64::INFINITY);
    let mut not_run = result("hash/keccak256/1KiB", "tiny-keccak", true, None);
    not_run.verification.status = VerificationStatus::NotRun;
    not_run.incomplete_reason = Some("stopped\nby Ctrl-C".into());
    let mut run = fixture::run(
        "20261122T101500Z-test",
        vec![
            result("hash/keccak256/32B", "sha3", false, Some(250.0)),
            result("hash/keccak256/32B", "tiny-keccak", true, Some(200.0)),
            result(
                "hash/keccak256/32B",
                "<script>alert(1)</script>",
                false,
                Some(300.0),
            ),
            wrong("hash/keccak256/32B", "broken, \"quoted\""),
            nan,
            not_run,
            result(
                "crypto/secp256k1-recover/valid",
                "libsecp256k1",
                true,
                Some(26_000.0),
            ),
            slow,
        ],
    );
    run.run.finished_at = None;
    run.run.complete = false;
    run.run.incomplete_reason = Some("interrupted <Ctrl-C>".into());
    run.run.command_line = vec!["dyno".into(), "run".into(), "'x'&\"y\"".into()];
    run.environment.cpu_model = "Test <CPU> & Co".into();
    run.environment
        .runtimes
        .insert("go".to_string(), "go1.25".to_string());
    run.harness = Some(Harness {
        empty_iteration_ns: 0.8,
        fit: None,
    });
    run
}

fn gas_row(name: &str, nominal: u64, calc: f64, flag: Option<Flag>) -> GasRow {
    GasRow {
        kind: "precompile".into(),
        name: name.into(),
        address: "0x1".into(),
        input: "in<put>".into(),
        nominal_gas: nominal,
        direct_ns: Estimate {
            value: calc * 17.0,
            lower: calc * 16.0,
            upper: calc * 18.0,
        },
        bytecode_ns: None,
        bytecode_paired: false,
        bytecode_gas: None,
        calculated_gas: Estimate {
            value: calc,
            lower: calc * 0.95,
            upper: calc * 1.05,
        },
        second: None,
        mgas_per_s: Estimate::exact(nominal as f64 / (calc * 17.0) * 1e3),
        flag,
    }
}

fn gas() -> GasInput {
    GasInput {
        rows: vec![
            gas_row("ecrecover", 3000, 3000.0, None),
            gas_row("sha256", 72, 8.0, Some(Flag::Over)),
            gas_row("bn254-pairing", 79_000, 180_000.0, Some(Flag::Under)),
            gas_row("blake2f", 0, 4.0, Some(Flag::Under)),
            gas_row("odd", 10, f64::NAN, None),
        ],
        fork: "osaka".into(),
        factor: 2.0,
        left_out: vec!["precompile/x/y: no input".into()],
    }
}

fn load_run() -> Run {
    let text = include_str!("../../tests/data/load/load.json");
    Run::parse(text, std::path::Path::new("load.json")).unwrap()
}

fn page(runs: Vec<RunInput<'_>>, trends: Vec<Trend>) -> String {
    render(&HtmlInput {
        title: "dyno <report>".into(),
        generated_at: "2026-11-22T12:00:00Z".into(),
        runs,
        trends,
    })
}

fn plain(run: &Run) -> RunInput<'_> {
    RunInput {
        run,
        gas: None,
        load_svgs: Vec::new(),
    }
}

/// The inline SVGs of a page.
fn svgs(html: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find("<svg") {
        let end = rest[i..].find("</svg>").map_or(rest.len(), |j| i + j + 6);
        out.push(&rest[i..end]);
        rest = &rest[end..];
    }
    out
}

/// The markup of `svg` without its text content.
fn tags(svg: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for c in svg.chars() {
        match c {
            '<' => {
                inside = true;
                out.push(c);
            }
            '>' => {
                inside = false;
                out.push(c);
            }
            c if inside => out.push(c),
            _ => {}
        }
    }
    out
}

#[test]
fn data_strings_are_escaped() {
    let r = run();
    let html = page(vec![plain(&r)], Vec::new());
    assert!(!html.contains("<script>alert(1)"), "raw markup from data");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.contains("Test &lt;CPU&gt; &amp; Co"));
    assert!(html.contains("broken, &quot;quoted&quot;"));
    assert!(html.contains("&#39;x&#39;&amp;&quot;y&quot;"));
    assert!(html.contains("<title>dyno &lt;report&gt;</title>"));
    assert!(html.contains("interrupted &lt;Ctrl-C&gt;"));
    assert!(!html.contains("0xbb<b>"));
    // One script only: the chart counter.
    assert_eq!(html.matches("<script").count(), 1);
}

#[test]
fn the_page_is_self_contained() {
    let r = run();
    let l = load_run();
    let svg = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/load/load-geth-client-latency.svg"),
    )
    .unwrap();
    let t = trends(&[&r, &r]);
    let html = page(
        vec![
            RunInput {
                run: &r,
                gas: Some(gas()),
                load_svgs: Vec::new(),
            },
            RunInput {
                run: &l,
                gas: None,
                load_svgs: vec![("latency".into(), svg)],
            },
        ],
        t,
    );
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
    ));
    let lower = html.to_ascii_lowercase();
    for bad in [
        "http://",
        "https://",
        "<link",
        "@import",
        "<iframe",
        "<img",
        "@font-face",
    ] {
        assert!(!lower.contains(bad), "found {bad}");
    }
    for (i, _) in lower.match_indices("src=") {
        assert!(
            lower[i + 4..]
                .trim_start_matches(['"', '\''])
                .starts_with("data:"),
            "a src that is not data: at {i}"
        );
    }
    for (i, _) in lower.match_indices("href=") {
        assert!(
            lower[i + 5..]
                .trim_start_matches(['"', '\''])
                .starts_with('#'),
            "a link out of the page at {i}"
        );
    }
    for (i, _) in lower.match_indices("url(") {
        assert!(
            lower[i + 4..].starts_with('#'),
            "a url() that is not a fragment"
        );
    }
}

#[test]
fn sections_appear_with_their_data_only() {
    let r = run();
    let html = page(vec![plain(&r)], Vec::new());
    for present in ["id=\"summary\"", "id=\"percentiles\"", "id=\"families\""] {
        assert!(html.contains(present), "{present} missing");
    }
    for absent in ["id=\"gas\"", "id=\"load\"", "id=\"trends\""] {
        assert!(!html.contains(absent), "{absent} without data");
    }

    let html = page(
        vec![RunInput {
            run: &r,
            gas: Some(gas()),
            load_svgs: Vec::new(),
        }],
        Vec::new(),
    );
    assert!(html.contains("id=\"gas\""));
    assert!(html.contains("Calculated against nominal gas"));
    assert!(html.contains("not on the log axes") || html.contains("Not on the log axes"));

    // An empty gas table is no section.
    let mut empty = gas();
    empty.rows.clear();
    let html = page(
        vec![RunInput {
            run: &r,
            gas: Some(empty),
            load_svgs: Vec::new(),
        }],
        Vec::new(),
    );
    assert!(!html.contains("id=\"gas\""));

    let l = load_run();
    let html = page(vec![plain(&l)], Vec::new());
    assert!(html.contains("id=\"load\""));
    assert!(html.contains("sustained tx/s"));
    assert!(html.contains("finalized"));
    assert!(
        !html.contains("id=\"percentiles\""),
        "a load run has no micro results"
    );
    assert!(!html.contains("id=\"families\""));

    let t = trends(&[&r, &r, &r]);
    assert!(!t.is_empty());
    let html = page(vec![plain(&r)], t);
    assert!(html.contains("id=\"trends\""));
    assert!(html.contains("trend-line"));

    // Nothing at all: a summary saying so, and no panic.
    let html = page(Vec::new(), Vec::new());
    assert!(html.contains("id=\"summary\""));
    assert!(html.contains("No runs"));
    assert!(!html.contains("id=\"percentiles\""));
}

#[test]
fn families_without_a_timed_result_get_no_chart() {
    let mut r = run();
    r.results = vec![wrong("hash/sha256/32B", "sha2")];
    let html = page(vec![plain(&r)], Vec::new());
    assert!(!html.contains("id=\"families\""));
    assert!(html.contains("id=\"percentiles\""));
    assert!(html.contains("WRONG"));
}

#[test]
fn no_nan_or_infinity_in_any_chart() {
    let mut r = run();
    // A timing with nothing but non-finite numbers and one with a zero CI.
    let mut inf = result(
        "hash/keccak256/1KiB",
        "keccak-asm",
        false,
        Some(f64::INFINITY),
    );
    inf.stats.as_mut().unwrap().median_ci.lower = f64::NEG_INFINITY;
    r.results.push(inf);
    r.results
        .push(result("rlp/encode/zero", "alloy-rlp", true, Some(0.0)));
    let mut t = trends(&[&r, &r]);
    t.push(Trend {
        id: "x/y/z".into(),
        implementation: "odd".into(),
        points: vec![
            TrendPoint {
                run_id: "a".into(),
                started_at: "2026-01-01T00:00:00Z".into(),
                git_commit: None,
                p50_ns: f64::NAN,
                ci_low_ns: f64::NAN,
                ci_high_ns: f64::INFINITY,
                n: 0,
            },
            TrendPoint {
                run_id: "b".into(),
                started_at: "2026-01-02T00:00:00Z".into(),
                git_commit: Some("c0ffee".into()),
                p50_ns: 10.0,
                ci_low_ns: f64::NAN,
                ci_high_ns: 12.0,
                n: 3,
            },
        ],
    });
    t.push(Trend {
        id: "empty".into(),
        implementation: "none".into(),
        points: Vec::new(),
    });
    let mut g = gas();
    g.factor = f64::NAN;
    let html = page(
        vec![RunInput {
            run: &r,
            gas: Some(g),
            load_svgs: vec![("nothing".into(), String::new())],
        }],
        t,
    );
    let all = svgs(&html);
    assert!(all.len() >= 5, "{} charts", all.len());
    for svg in all {
        let t = tags(svg).to_ascii_lowercase();
        assert!(!t.contains("nan"), "NaN in {svg}");
        assert!(!t.contains("inf"), "inf in {svg}");
        assert!(svg.starts_with("<svg class=\"chart"), "{svg}");
        assert!(svg.contains("<title>") && svg.contains("aria-label="));
    }
}

#[test]
fn a_failed_verification_reads_wrong_never_a_time() {
    let mut r = run();
    // Even with statistics left on it, a wrong result shows no time.
    let mut w = wrong("crypto/secp256k1-recover/valid", "bad-impl");
    w.stats = Some(stats(123_456.0));
    w.ops_per_sec = Some(8100.0);
    r.results.push(w);
    let html = page(vec![plain(&r)], trends(&[&r, &r]));
    assert!(html.contains("WRONG: 2 results differed from the test vector"));
    assert!(html.contains("wrong-cell"));
    assert!(html.contains("WRONG: output differed, not timed"));
    assert!(html.contains("expected 0xaa, got 0xbb&lt;b&gt;"));
    assert!(!html.contains("123 µs"), "the wrong result's time is shown");
    assert!(!html.contains("8.10k"), "the wrong result's rate is shown");
    assert!(html.contains("INCOMPLETE"));
    assert!(
        !trends(&[&r, &r])
            .iter()
            .any(|t| t.implementation == "bad-impl"),
        "a wrong result is in a trend"
    );
}

#[test]
fn trends_need_two_timed_runs() {
    let a = run();
    let mut b = run();
    b.run.id = "second".into();
    b.results.truncate(2);
    let t = trends(&[&a, &b]);
    assert_eq!(t.len(), 2, "{t:?}");
    assert!(t.iter().all(|t| t.points.len() == 2));
    assert_eq!(t[0].points[1].run_id, "second");
    assert!(trends(&[&a]).is_empty());
}

#[test]
fn load_plots_are_read_stripped_or_reported_missing() {
    let dir = tempfile::tempdir().unwrap();
    let mut l = load_run();
    let files = &mut l.load[0].files;
    files.insert("plot10".into(), "late.svg".into());
    files.insert("plot11".into(), "../escape.svg".into());
    let names: Vec<String> = files
        .iter()
        .filter(|(k, v)| k.starts_with("plot") && v.ends_with(".svg"))
        .map(|(_, v)| v.clone())
        .collect();
    let first = &l.load[0].files["plot0"];
    std::fs::write(
        dir.path().join(first),
        "<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n<svg width=\"10\" height=\"5\" xmlns=\"http://www.w3.org/2000/svg\"><rect width=\"1\" height=\"1\"/></svg>\n",
    )
    .unwrap();
    let got = load_svgs(&l, dir.path());
    assert_eq!(got.len(), names.len());
    assert!(got[0].1.starts_with("<svg width"), "{}", got[0].1);
    assert!(!got[0].1.contains("xmlns"));
    assert!(got[0].0.contains("latency"));
    assert!(got[1].0.contains("could not be read"), "{}", got[1].0);
    assert!(got[1].1.is_empty());
    assert!(
        got[got.len() - 2].0.contains("late.svg"),
        "plot10 sorts after plot4"
    );
    assert!(got[got.len() - 1].0.contains("not a plain file name"));

    let html = page(
        vec![RunInput {
            run: &l,
            gas: None,
            load_svgs: got,
        }],
        Vec::new(),
    );
    assert!(
        html.contains("<svg width=\"10\" height=\"5\" viewBox=\"0 0 10 5\" class=\"chart plot\"")
    );
    assert!(html.contains("Plot not shown"));
}

#[test]
fn outside_content_in_a_plot_is_refused() {
    for bad in [
        "<svg><script>alert(1)</script></svg>",
        "<svg><image href=\"https://x/y.png\"/></svg>",
        "<svg onload=\"alert(1)\"></svg>",
        "<svg><style>@import 'x.css';</style></svg>",
        "no svg here",
    ] {
        assert!(clean_svg(bad).is_err(), "{bad}");
        assert!(decorate_svg(bad, "c").is_none(), "{bad}");
    }
    assert!(clean_svg("<svg><text>only online</text></svg>").is_ok());
    assert_eq!(
        clean_svg(
            "<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink='http://www.w3.org/1999/xlink' width=\"2\"><text>a xmlns b</text></svg>"
        )
        .unwrap(),
        "<svg width=\"2\"><text>a xmlns b</text></svg>"
    );
}

/// A replay: two sides of one id, three blocks each (one without the
/// client's log), and their comparison.
fn replay_run() -> Run {
    let block = |run: u32, number: u64, ns: u64, logged: bool| dyno_format::replay::Block {
        run,
        number,
        hash: format!("0x{number:064x}"),
        gas_used: 30_000_000,
        transactions: 100,
        new_payload_ns: ns,
        forkchoice_ns: 500_000,
        round: None,
        client_log: logged.then(|| {
            serde_json::json!({"timing": {"execution_ms": 20.0, "state_read_ms": 5.0,
                "state_hash_ms": 3.0, "commit_ms": 2.0, "total_ms": 30.0}})
        }),
    };
    let side = |name: &str| {
        let mut r = result("client/newpayload/30M-full", name, false, Some(40e6));
        r.blocks = vec![
            block(0, 1, 40_000_000, true),
            block(0, 2, 42_000_000, true),
            block(0, 3, 39_000_000, false),
        ];
        r
    };
    let mut run = fixture::run(
        "20261126T101500Z-replay",
        vec![side("geth (A)"), side("geth (B)")],
    );
    run.comparisons = vec![dyno_format::replay::Comparison {
        id: "client/newpayload/30M-full".into(),
        a: "geth (A)".into(),
        b: "geth (B)".into(),
        order: "ABBAABBA".into(),
        pair_log_ratios: vec![0.01, -0.02, 0.005, 0.0],
        delta: -0.001,
        delta_low: -0.03,
        delta_high: 0.028,
        level: 0.95,
        floor: 0.01,
        verdict: "no difference".into(),
    }];
    run
}

#[test]
fn a_replay_gets_its_tables_a_strip_per_result_and_the_paired_effects() {
    let r = replay_run();
    let html = page(vec![plain(&r)], Vec::new());
    assert!(html.contains("id=\"replay\""));
    let section = &html[html.find("id=\"replay\"").unwrap()..];
    let section = &section[..section.find("</section>").unwrap()];
    // The results table and the A/B table, each with its own header.
    assert_eq!(section.matches("<thead>").count(), 2, "{section}");
    assert!(section.contains("no difference"));
    let charts = svgs(section);
    assert_eq!(charts.len(), 3, "a strip per result, one forest");
    // A logged block: four parts and the rest; the unlogged one: the rest.
    let strip = tags(charts[0]);
    assert_eq!(strip.matches("<rect").count(), 2 * 5 + 1, "{strip}");
    assert!(
        charts[0].contains("block 1 (run 0): newPayload 40.0 ms"),
        "{}",
        charts[0]
    );
    assert!(charts[0].contains("750 MGas/s"), "{}", charts[0]);
    // The forest: four pair estimates and the mean.
    assert_eq!(tags(charts[2]).matches("<circle").count(), 5);
    assert!(!section.contains("NaN"));
    // A run without replay results has no such section.
    let plain_run = run();
    assert!(!page(vec![plain(&plain_run)], Vec::new()).contains("id=\"replay\""));
}

#[test]
fn an_ab_run_gets_its_table_the_noise_and_each_benchmarks_passes() {
    use dyno_format::paired::{Paired, Pass};
    let pass = |statistic: f64| Pass {
        iterations: 4000,
        order: "ABBA".into(),
        base_ns: vec![1000.0, 1010.0],
        candidate_ns: vec![1250.0, 1262.0],
        log_ratios: vec![statistic, statistic],
        statistic,
    };
    let paired = |id: &str, verdict: &str| Paired {
        id: id.into(),
        implementation: "tiny-keccak".into(),
        base: "base: old/dyno".into(),
        candidate: "candidate: this dyno".into(),
        passes: [0.22, 0.23, 0.21, 0.22].map(pass).to_vec(),
        delta: 0.25,
        delta_low: 0.23,
        delta_high: 0.27,
        level: 0.95,
        p: 0.001,
        p_holm: 0.002,
        threshold: 0.05,
        min_detectable: Some(0.07),
        verdict: verdict.into(),
        note: None,
    };
    let mut r = dyno_format::fixture::run("ab", Vec::new());
    r.paired = vec![
        paired("hash/keccak256/1KiB", "regressed"),
        Paired {
            passes: Vec::new(),
            note: Some("WRONG on base".into()),
            ..paired("hash/keccak256/32B", "not compared")
        },
    ];
    let html = page(vec![plain(&r)], Vec::new());
    let section = &html[html.find("id=\"ab\"").expect("an A/B section")..];
    let section = &section[..section.find("</section>").unwrap()];
    assert!(section.contains("+25.0% [+23.0%, +27.0%]"), "{section}");
    assert!(section.contains("not compared: WRONG on base"), "{section}");
    let charts = svgs(section);
    assert_eq!(charts.len(), 1, "one forest of the compared benchmarks");
    // Four passes and the mean; the one not compared is not drawn.
    assert_eq!(tags(charts[0]).matches("<circle").count(), 5);
    assert!(charts[0].contains("pass 2: +25.9%"), "{}", charts[0]);
    assert!(!section.contains("NaN"));
    let plain_run = run();
    assert!(!page(vec![plain(&plain_run)], Vec::new()).contains("id=\"ab\""));
}

/// A run of two accesses at three sizes, warm and evicted: one chart per
/// access with a line per page-cache state, every size on the x axis, and
/// no state section for a run without state results.
#[test]
fn state_access_is_drawn_against_state_size() {
    let mut results = Vec::new();
    for access in ["sload-cold", "balance-cold"] {
        for (n, ns) in [(10_000u64, 900.0), (100_000, 1_000.0), (1_000_000, 1_100.0)] {
            results.push(result(
                &format!("state/{access}/{n}"),
                "revm",
                true,
                Some(ns),
            ));
            results.push(result(
                &format!("state/{access}/{n}-dropped"),
                "revm",
                true,
                Some(ns * 40.0),
            ));
        }
    }
    let r = fixture::run("s", results);
    let html = page(vec![plain(&r)], Vec::new());
    assert!(html.contains("id=\"state\""), "the section");
    let section = &html[html.find("id=\"state\"").unwrap()..];
    let charts: Vec<&str> = svgs(section)
        .into_iter()
        .filter(|s| s.contains("per access against accounts"))
        .collect();
    assert_eq!(charts.len(), 2, "one chart per access");
    for svg in charts {
        assert_eq!(
            svg.matches("class=\"size-line l").count(),
            4,
            "two lines, two legend keys"
        );
        assert_eq!(
            svg.matches("size-line l1 dashed").count(),
            2,
            "evicted is dashed"
        );
        for tick in ["10k", "100k", "1M"] {
            assert!(svg.contains(&format!(">{tick}<")), "x tick {tick}: {svg}");
        }
        assert!(svg.contains("revm, warm") && svg.contains("revm, evicted"));
        assert!(!svg.contains("NaN"));
    }
    let other = fixture::run(
        "o",
        vec![result("hash/keccak256/32B", "sha3", true, Some(50.0))],
    );
    assert!(!page(vec![plain(&other)], Vec::new()).contains("id=\"state\""));
}

/// An op-isolation series in two clients: one chart with each client's
/// blocks as points and its fit as a line, the client's own execution
/// time dashed, a failing fit marked, and the fits' table.
#[test]
fn op_isolation_blocks_are_drawn_against_their_count_with_each_fit() {
    use dyno_format::reprice::{Coefficient, Fit, Isolation};
    let coef = |v: f64| Coefficient {
        value: v,
        lower: v * 0.9,
        upper: v * 1.1,
        p: 1e-6,
    };
    let series = |client: &str, per_op: f64, kept: bool| {
        let mut r = result("reprice/sload/cold", client, false, Some(1000.0));
        r.samples = (1..=5)
            .map(|k| Sample {
                iters: 1000 * k,
                ns: 2_000_000 + (per_op * 1000.0 * k as f64) as u64,
            })
            .collect();
        r.blocks = (1..=5u64)
            .map(|k| dyno_format::replay::Block {
                run: 0,
                number: k,
                hash: format!("0x{k:064x}"),
                gas_used: 1,
                transactions: 1,
                new_payload_ns: 0,
                forkchoice_ns: 0,
                round: None,
                client_log: (client == "geth").then(|| {
                    serde_json::json!({"timing": {"execution_ms": per_op * k as f64 / 2000.0, "total_ms": 1.0}})
                }),
            })
            .collect();
        let fit = |time: &str, per: f64| Fit {
            time: time.into(),
            n: 5,
            intercept_ns: coef(2e6),
            per_op_ns: coef(per),
            r_squared: if kept { 0.99 } else { 0.3 },
            kept,
            robust_per_op_ns: Estimate::exact(per),
            net_per_op_ns: Some(Estimate::exact(per - 50.0)),
            net_robust_per_op_ns: None,
        };
        let mut fits = vec![fit("new_payload", per_op)];
        if client == "geth" {
            fits.push(fit("client_execution", per_op / 2.0));
        }
        r.reprice = Some(Isolation {
            op: "sload".into(),
            param: "cold".into(),
            units: None,
            control: Some("reprice/control/state-read".into()),
            fits,
            anchor: None,
        });
        r
    };
    let mut r = run();
    r.results = vec![series("geth", 3000.0, true), series("revm", 700.0, false)];
    let html = page(vec![plain(&r)], Vec::new());
    assert!(html.contains("id=\"reprice\""), "no section");
    let charts: Vec<&str> = svgs(&html)
        .into_iter()
        .filter(|s| s.contains("operations in the block"))
        .collect();
    assert_eq!(charts.len(), 1, "one chart a series");
    let t = tags(charts[0]);
    // 5 blocks a series: geth's newPayload and execution, revm's newPayload.
    assert_eq!(t.matches("<circle").count(), 15, "{t}");
    // A fit line each, and a legend line each; one pair dashed.
    assert!(t.matches("size-line").count() >= 6, "{t}");
    assert!(t.contains("dashed"));
    assert!(
        charts[0].contains("fails the rule"),
        "the failing fit is marked"
    );
    assert!(charts[0].contains("3.00 µs/op"), "{}", charts[0]);
    // The fits' table: three fits.
    assert!(html.contains("own execution"));
    assert_eq!(html.matches(">fails<").count(), 1);
    // A run without op-isolation series has no such section.
    let plain_run = run();
    assert!(!page(vec![plain(&plain_run)], Vec::new()).contains("id=\"reprice\""));
}
