//! End-to-end tests: files written, PNGs valid, SVGs carrying the expected
//! axes, legends and series, and odd inputs drawn without error.

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use dyno_plot::{
    BlockMark, Format, HEIGHT, LoadPlots, PlotError, PlotKind, ThroughputPoint, TxPoint, WIDTH,
};

const TITLE: &str = "geth 1.17.8 · transfer · fixed 500 tx/s";

fn plots(run: &support::Run) -> LoadPlots<'_> {
    LoadPlots {
        title: TITLE,
        txs: &run.txs,
        head: &run.head,
        safe: &run.safe,
        finalized: &run.finalized,
        throughput: &run.throughput,
        target_rate: Some(500.0),
        blocks: &run.blocks,
        node: &run.node,
    }
}

/// Decodes a PNG, checking its signature; returns (width, height, RGB).
fn decode_png(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .expect("PNG header");
    let mut buf = vec![0; reader.output_buffer_size().expect("buffer size")];
    let info = reader.next_frame(&mut buf).expect("PNG frame");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

/// Number of dark (text-coloured) pixels in rows `y0..y1`.
fn dark_pixels(rgb: &[u8], y0: u32, y1: u32) -> usize {
    let row = WIDTH as usize * 3;
    rgb[y0 as usize * row..y1 as usize * row]
        .chunks(3)
        .filter(|p| p.iter().all(|&c| c < 100))
        .count()
}

/// `<polyline>` elements (the drawn series; the legend uses rectangles)
/// stroked in `colour` (`#RRGGBB`).
fn polylines(svg: &str, colour: &str) -> usize {
    svg.split("<polyline")
        .skip(1)
        .filter(|e| e.contains(&format!("stroke=\"{colour}\"")))
        .count()
}

/// The text of every `<text>` element, trimmed.
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|e| {
            let start = e.find('>')? + 1;
            let end = e.find("</text>")?;
            Some(e[start..end].trim().to_owned())
        })
        .collect()
}

fn assert_finite_svg(svg: &str) {
    assert!(svg.starts_with("<svg"), "not an SVG document");
    assert!(svg.trim_end().ends_with("</svg>"), "unterminated SVG");
    for bad in ["NaN", "inf"] {
        assert!(!svg.contains(bad), "SVG contains {bad}");
    }
}

const HEAD: &str = "#2CA02C";
const SAFE: &str = "#9467BD";
const FINALIZED: &str = "#222222";
const SENT: &str = "#1F77B4";
const INCLUDED: &str = "#2CA02C";

#[test]
fn writes_all_plots_in_both_formats() {
    let run = support::run(20_000, 500.0);
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("nested/plots");
    let written =
        dyno_plot::write_plots(&plots(&run), &out, "run1", &Format::ALL).expect("write plots");
    let names: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "run1-latency.svg",
            "run1-latency.png",
            "run1-throughput.svg",
            "run1-throughput.png",
            "run1-node.svg",
            "run1-node.png",
            "run1-histogram.svg",
            "run1-histogram.png",
            "run1-blocks.svg",
            "run1-blocks.png",
        ]
    );
    for path in &written {
        assert!(path.starts_with(&out));
        let bytes = std::fs::read(path).expect("read back");
        if path.extension().is_some_and(|e| e == "png") {
            let (w, h, rgb) = decode_png(&bytes);
            assert_eq!((w, h), (WIDTH, HEIGHT));
            // The title is drawn (with the embedded font, whatever fonts
            // the machine has) in the top rows.
            assert!(
                dark_pixels(&rgb, 0, 40) > 500,
                "{}: no title",
                path.display()
            );
        } else {
            assert_finite_svg(std::str::from_utf8(&bytes).expect("UTF-8 SVG"));
        }
    }
}

#[test]
fn format_subsets_and_duplicates() {
    let run = support::run(500, 100.0);
    let dir = tempfile::tempdir().expect("temp dir");
    let svg_only =
        dyno_plot::write_plots(&plots(&run), dir.path(), "a", &[Format::Svg, Format::Svg])
            .expect("write");
    assert_eq!(svg_only.len(), 5);
    assert!(svg_only.iter().all(|p| p.extension().unwrap() == "svg"));
    let none = dyno_plot::write_plots(&plots(&run), dir.path(), "b", &[]).expect("write");
    assert!(none.is_empty());
}

#[test]
fn invalid_stems_are_rejected() {
    let dir = tempfile::tempdir().expect("temp dir");
    for stem in ["", "a/b", "a\\b", ".."] {
        let err = dyno_plot::write_plots(&LoadPlots::default(), dir.path(), stem, &Format::ALL)
            .expect_err(stem);
        assert!(matches!(err, PlotError::InvalidStem(_)), "{stem}: {err}");
    }
}

#[test]
fn unwritable_directory_is_an_io_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"x").expect("write");
    let err = dyno_plot::write_plots(&LoadPlots::default(), &file, "s", &[Format::Svg])
        .expect_err("a file is not a directory");
    assert!(matches!(err, PlotError::Io { .. }), "{err}");
}

#[test]
fn latency_svg_has_axes_legend_and_block_lines() {
    let run = support::run(20_000, 500.0);
    let svg = dyno_plot::latency_svg(&plots(&run)).expect("render");
    assert_finite_svg(&svg);
    let texts = texts(&svg);
    for expected in [
        TITLE,
        "latency to inclusion (ms, log scale)",
        "intended send time (s since load start)",
        "block number",
        "head block",
        "safe block",
        "finalized block",
    ] {
        assert!(texts.iter().any(|t| t == expected), "missing {expected:?}");
    }
    let failed = run.txs.iter().filter(|t| !t.ok).count();
    let lost = run
        .txs
        .iter()
        .filter(|t| t.ok && t.latency_ms.is_none())
        .count();
    let included = run.txs.len() - failed - lost;
    assert!(failed > 0 && lost > 0);
    for expected in [
        format!("included (n = {included})"),
        format!("failed (n = {failed})"),
        format!("never included (n = {lost})"),
    ] {
        assert!(texts.contains(&expected), "missing {expected:?}");
    }
    // One step line per block series.
    assert_eq!(polylines(&svg, HEAD), 1);
    assert_eq!(polylines(&svg, SAFE), 1);
    assert_eq!(polylines(&svg, FINALIZED), 1);
    // Dots, deduplicated per pixel: many, but far fewer than transactions.
    let dots = svg.matches("<circle").count();
    assert!(dots > 500 && dots < included, "{dots} dots");
    assert!(svg.contains("font-family=\"sans-serif\""));
}

/// A short run whose finality comes long after its sends (a 3-second,
/// 3 000-transaction run against anvil finalized at 68 s): the latency
/// panel spans the sends, the block panel the whole run.
#[test]
fn the_latency_panel_spans_the_sends_and_finality_has_its_own() {
    let txs: Vec<TxPoint> = (0..3000)
        .map(|i| TxPoint {
            t_s: f64::from(i) / 1000.0,
            latency_ms: Some(1000.0 + f64::from(i % 7) * 100.0),
            ok: true,
            block: None,
        })
        .collect();
    let head: Vec<BlockMark> = (1..=5)
        .map(|n| BlockMark {
            t_s: f64::from(n as u32),
            number: n,
        })
        .collect();
    let finalized = [BlockMark {
        t_s: 68.0,
        number: 5,
    }];
    let p = LoadPlots {
        txs: &txs,
        head: &head,
        finalized: &finalized,
        ..LoadPlots::default()
    };
    let w = dyno_plot::latency_windows(&p);
    // the last send is at 2.999 s: the panel ends a small margin after it
    assert_eq!(w.sends.0, 0.0);
    assert!(w.sends.1 > 2.999 && w.sends.1 <= 3.3, "{:?}", w.sends);
    // the block panel reaches the finality at 68 s
    let (lo, hi) = w.blocks.expect("block marks");
    assert!(lo <= 0.0 && (68.0..70.0).contains(&hi), "{:?}", w.blocks);
    let svg = dyno_plot::latency_svg(&p).expect("render");
    assert_finite_svg(&svg);
    let texts = texts(&svg);
    for expected in [
        "intended send time (s since load start)",
        "time since load start (s); shaded: the send window",
        "block number",
    ] {
        assert!(texts.iter().any(|t| t == expected), "missing {expected:?}");
    }
    // the top panel's ticks stop at the send window; the bottom's reach 60
    assert!(texts.iter().any(|t| t == "3"), "no 3 s tick: {texts:?}");
    assert!(texts.iter().any(|t| t == "60"), "no 60 s tick: {texts:?}");
    // without block marks there is one panel, over the sends
    let alone = LoadPlots {
        txs: &txs,
        ..LoadPlots::default()
    };
    assert_eq!(dyno_plot::latency_windows(&alone).blocks, None);
}

#[test]
fn blocks_svg_has_a_box_per_block_pending_and_gas_against_the_limit() {
    let run = support::run(2_000, 200.0);
    let p = plots(&run);
    let boxes = dyno_plot::per_block(p.txs);
    let with_txs: std::collections::BTreeSet<u64> =
        run.txs.iter().filter_map(|t| t.block).collect();
    assert_eq!(boxes.len(), with_txs.len());
    assert!(
        boxes
            .iter()
            .all(|b| b.min <= b.p25 && b.p25 <= b.p50 && b.p50 <= b.p75 && b.p75 <= b.max)
    );
    // every included transaction leaves the pending count; the rest stay
    let pend = dyno_plot::pending(p.txs);
    let never = run
        .txs
        .iter()
        .filter(|t| t.ok && t.latency_ms.is_none())
        .count();
    assert_eq!(pend.last().map(|x| x.1), Some(never as i64));
    assert!(pend.iter().all(|x| x.1 >= 0));
    let svg = dyno_plot::blocks_svg(&p).expect("render");
    assert_finite_svg(&svg);
    let texts = texts(&svg);
    for expected in [
        "to inclusion (ms)",
        "pending",
        "gas (millions)",
        "pending transactions",
        "gas used",
        "gas limit",
    ] {
        assert!(texts.iter().any(|t| t == expected), "missing {expected:?}");
    }
    // one filled box per block with transactions, one bar per block seen
    let rects = svg.matches("<rect").count();
    assert!(rects >= boxes.len() + run.blocks.len(), "{rects} rects");
}

#[test]
fn latency_without_safe_or_finalized() {
    let run = support::run(2_000, 200.0);
    let p = LoadPlots {
        safe: &[],
        finalized: &[],
        ..plots(&run)
    };
    let svg = dyno_plot::latency_svg(&p).expect("render");
    let texts = texts(&svg);
    assert!(texts.iter().any(|t| t == "head block"));
    assert!(
        !texts
            .iter()
            .any(|t| t == "safe block" || t == "finalized block")
    );
    assert_eq!(polylines(&svg, HEAD), 1);
    assert_eq!(polylines(&svg, SAFE), 0);
    assert_eq!(polylines(&svg, FINALIZED), 0);
}

#[test]
fn narrow_latency_range_uses_a_linear_axis() {
    let txs: Vec<TxPoint> = (0..1000)
        .map(|i| TxPoint {
            t_s: f64::from(i) / 100.0,
            latency_ms: Some(900.0 + f64::from(i % 200)),
            ok: true,
            block: None,
        })
        .collect();
    let p = LoadPlots {
        txs: &txs,
        ..LoadPlots::default()
    };
    let latency = texts(&dyno_plot::latency_svg(&p).expect("render"));
    assert!(latency.iter().any(|t| t == "latency to inclusion (ms)"));
    // No block marks: no block axis.
    assert!(!latency.iter().any(|t| t == "block number"));
    let histogram = texts(&dyno_plot::histogram_svg(&p).expect("render"));
    assert!(histogram.iter().any(|t| t == "latency to inclusion (ms)"));
}

#[test]
fn throughput_svg_has_both_rates_and_target() {
    let run = support::run(20_000, 500.0);
    let svg = dyno_plot::throughput_svg(&plots(&run)).expect("render");
    assert_finite_svg(&svg);
    let texts = texts(&svg);
    for expected in [
        "time (s since load start)",
        "transactions per second (1 s windows)",
        "target 500 tx/s",
    ] {
        assert!(texts.iter().any(|t| t == expected), "missing {expected:?}");
    }
    assert!(texts.iter().any(|t| t.starts_with("sent/s (mean ")));
    assert!(texts.iter().any(|t| t.starts_with("included/s (mean ")));
    assert_eq!(polylines(&svg, SENT), 1);
    assert_eq!(polylines(&svg, INCLUDED), 1);
    // The dashed target line is drawn as dashes.
    assert!(polylines(&svg, "#505050") > 10);

    let no_target = dyno_plot::throughput_svg(&LoadPlots {
        target_rate: None,
        ..plots(&run)
    })
    .expect("render");
    assert!(!no_target.contains("target "));
    assert_eq!(polylines(&no_target, "#505050"), 0);
}

#[test]
fn histogram_svg_marks_percentiles() {
    let run = support::run(20_000, 500.0);
    let svg = dyno_plot::histogram_svg(&plots(&run)).expect("render");
    assert_finite_svg(&svg);
    let texts = texts(&svg);
    assert!(
        texts
            .iter()
            .any(|t| t == "latency to inclusion (ms, log scale)")
    );
    assert!(texts.iter().any(|t| t == "transactions per bin"));
    for p in ["P50", "P99"] {
        assert!(
            texts.iter().any(|t| t.starts_with(&format!("{p} = "))),
            "{p} legend"
        );
        assert!(
            texts
                .iter()
                .any(|t| t.starts_with(&format!("{p} ")) && t.ends_with(" ms"))
        );
    }
    // 60 bins, each a filled and an outlined rectangle, plus the background
    // and the legend swatches.
    assert!(svg.matches("<rect").count() > 60);
}

#[test]
fn percentiles_are_exact_for_known_data() {
    // 1..=100 ms: P50 = 50.5 ms, P99 = 99.01 ms (linear interpolation).
    let txs: Vec<TxPoint> = (1..=100)
        .map(|i| TxPoint {
            t_s: f64::from(i),
            latency_ms: Some(f64::from(i)),
            ok: true,
            block: None,
        })
        .collect();
    let p = LoadPlots {
        txs: &txs,
        ..LoadPlots::default()
    };
    let texts = texts(&dyno_plot::histogram_svg(&p).expect("render"));
    assert!(texts.iter().any(|t| t == "P50 = 50.5 ms"), "{texts:?}");
    assert!(texts.iter().any(|t| t == "P99 = 99.0 ms"), "{texts:?}");
}

/// Renders every plot in both formats, checking the outputs are sane.
fn render_all(p: &LoadPlots<'_>) -> Vec<String> {
    let mut svgs = Vec::new();
    for kind in PlotKind::ALL {
        let svg =
            dyno_plot::render_svg(kind, p).unwrap_or_else(|e| panic!("{} SVG: {e}", kind.name()));
        assert_finite_svg(&svg);
        let png =
            dyno_plot::render_png(kind, p).unwrap_or_else(|e| panic!("{} PNG: {e}", kind.name()));
        let (w, h, _) = decode_png(&png);
        assert_eq!((w, h), (WIDTH, HEIGHT));
        svgs.push(svg);
    }
    svgs
}

#[test]
fn empty_input() {
    let svgs = render_all(&LoadPlots::default());
    assert!(svgs[0].contains("no transactions"));
    assert!(svgs[1].contains("no throughput data"));
    assert!(svgs[2].contains("the node served none of these"));
    assert!(svgs[3].contains("no included transactions"));
}

#[test]
fn all_transactions_failed() {
    let txs: Vec<TxPoint> = (0..50)
        .map(|i| TxPoint {
            t_s: f64::from(i) * 0.1,
            latency_ms: None,
            ok: false,
            block: None,
        })
        .collect();
    let p = LoadPlots {
        title: "all failed",
        txs: &txs,
        ..LoadPlots::default()
    };
    let svgs = render_all(&p);
    assert!(texts(&svgs[0]).contains(&"failed (n = 50)".to_owned()));
    assert!(svgs[0].contains("no transaction was included"));
    assert!(svgs[3].contains("no included transactions"));
}

#[test]
fn single_points() {
    let txs = [TxPoint {
        t_s: 0.0,
        latency_ms: Some(250.0),
        ok: true,
        block: None,
    }];
    let head = [BlockMark {
        t_s: 0.5,
        number: 7,
    }];
    let throughput = [ThroughputPoint {
        t_s: 0.0,
        sent_per_s: 1.0,
        included_per_s: 1.0,
    }];
    let p = LoadPlots {
        title: "one",
        txs: &txs,
        head: &head,
        safe: &head,
        finalized: &head,
        throughput: &throughput,
        target_rate: Some(1.0),
        blocks: &[],
        node: &[],
    };
    render_all(&p);
}

#[test]
fn zero_width_ranges_and_zero_latency() {
    // Everything at one instant, every latency zero, one block number,
    // rates zero.
    let txs = vec![
        TxPoint {
            t_s: 3.0,
            latency_ms: Some(0.0),
            ok: true,
            block: None,
        };
        100
    ];
    let head = vec![
        BlockMark {
            t_s: 3.0,
            number: 0,
        };
        5
    ];
    let throughput = vec![
        ThroughputPoint {
            t_s: 3.0,
            sent_per_s: 0.0,
            included_per_s: 0.0,
        };
        3
    ];
    let p = LoadPlots {
        txs: &txs,
        head: &head,
        throughput: &throughput,
        target_rate: Some(0.0),
        ..LoadPlots::default()
    };
    render_all(&p);
}

#[test]
fn non_finite_and_out_of_range_values_are_skipped() {
    let txs = [
        TxPoint {
            t_s: f64::NAN,
            latency_ms: Some(1.0),
            ok: true,
            block: None,
        },
        TxPoint {
            t_s: 1.0,
            latency_ms: Some(f64::INFINITY),
            ok: true,
            block: None,
        },
        TxPoint {
            t_s: 2.0,
            latency_ms: Some(-5.0),
            ok: true,
            block: None,
        },
        TxPoint {
            t_s: f64::NEG_INFINITY,
            latency_ms: None,
            ok: false,
            block: None,
        },
        TxPoint {
            t_s: -2.0,
            latency_ms: Some(12.0),
            ok: true,
            block: None,
        },
        TxPoint {
            t_s: 4.0,
            latency_ms: Some(1e9),
            ok: true,
            block: None,
        },
    ];
    let head = [
        BlockMark {
            t_s: f64::NAN,
            number: 1,
        },
        BlockMark {
            t_s: 5.0,
            number: u64::MAX,
        },
        BlockMark {
            t_s: 1.0,
            number: 0,
        },
    ];
    let throughput = [
        ThroughputPoint {
            t_s: 0.0,
            sent_per_s: f64::NAN,
            included_per_s: -3.0,
        },
        ThroughputPoint {
            t_s: f64::INFINITY,
            sent_per_s: 1.0,
            included_per_s: 1.0,
        },
    ];
    let p = LoadPlots {
        title: "  odd <values> & \"quotes\"  ",
        txs: &txs,
        head: &head,
        throughput: &throughput,
        target_rate: Some(f64::NAN),
        ..LoadPlots::default()
    };
    let svgs = render_all(&p);
    assert!(svgs[0].contains("odd &lt;values&gt; &amp;"));
    assert!(texts(&svgs[0]).contains(&"included (n = 2)".to_owned()));
}

#[test]
fn unsorted_marks_and_long_titles() {
    let run = support::run(3_000, 300.0);
    let mut head = run.head.clone();
    head.reverse();
    let mut throughput = run.throughput.clone();
    throughput.reverse();
    let title = "reth 1.9.3 · a very long workload description that goes on · ".repeat(4);
    let p = LoadPlots {
        title: &title,
        head: &head,
        throughput: &throughput,
        ..plots(&run)
    };
    render_all(&p);
}

#[test]
fn rendering_is_deterministic() {
    let run = support::run(5_000, 500.0);
    for kind in PlotKind::ALL {
        let a = dyno_plot::render_png(kind, &plots(&run)).expect("render");
        let b = dyno_plot::render_png(kind, &plots(&run)).expect("render");
        assert!(a == b, "{} PNG differs between renders", kind.name());
        let a = dyno_plot::render_svg(kind, &plots(&run)).expect("render");
        let b = dyno_plot::render_svg(kind, &plots(&run)).expect("render");
        assert!(a == b, "{} SVG differs between renders", kind.name());
    }
}

#[test]
fn hundred_thousand_points_render_quickly() {
    let run = support::run(100_000, 500.0);
    let dir = tempfile::tempdir().expect("temp dir");
    let start = Instant::now();
    let written =
        dyno_plot::write_plots(&plots(&run), dir.path(), "big", &Format::ALL).expect("write");
    let elapsed = start.elapsed();
    assert_eq!(written.len(), 10);
    // Release builds take well under a second for all ten files; this
    // bound only catches pathological slowdowns in unoptimised test builds.
    assert!(elapsed < Duration::from_secs(20), "took {elapsed:?}");
    let svg = std::fs::metadata(dir.path().join("big-latency.svg")).expect("svg");
    assert!(svg.len() < 8 << 20, "latency SVG is {} bytes", svg.len());
}

#[test]
fn sample_plots_for_inspection() {
    // Writes the sample plots where a person can look at them:
    // DYNO_PLOT_SAMPLE_DIR if set, else a temp dir that is removed.
    let run = support::run(20_000, 500.0);
    let keep = std::env::var_os("DYNO_PLOT_SAMPLE_DIR");
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = keep.as_deref().map_or(tmp.path(), Path::new);
    let written = dyno_plot::write_plots(&plots(&run), dir, "sample", &Format::ALL).expect("write");
    assert!(written.iter().all(|p| p.exists()));
}

#[test]
fn the_node_plot_is_written_only_with_metrics_and_draws_each_series_in_its_colour() {
    let run = support::run(2_000, 200.0);
    let dir = tempfile::tempdir().expect("temp dir");
    let without = LoadPlots {
        node: &[],
        ..plots(&run)
    };
    let names: Vec<String> = dyno_plot::write_plots(&without, dir.path(), "a", &[Format::Svg])
        .expect("write")
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.contains("-node.")), "{names:?}");
    let svg = dyno_plot::node_svg(&plots(&run)).expect("render");
    assert_finite_svg(&svg);
    // txpool pending (orange) and block insert (brown) are drawn; the
    // legend names every series the run has.
    assert!(
        svg.contains("#FF7F0E") && svg.contains("#8C564B"),
        "colours"
    );
    let t = texts(&svg);
    for name in [
        "txpool pending",
        "block insert P50 ms",
        "sent /s",
        "db write bytes /s",
    ] {
        assert!(t.iter().any(|x| x == name), "{name} not in {t:?}");
    }
    assert!(
        !t.iter().any(|x| x == "txpool queued"),
        "a series the node did not serve"
    );
}
