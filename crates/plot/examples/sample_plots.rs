//! Writes sample plots of a synthetic load run (20 000 transactions at
//! 500 tx/s, a queue building up, blocks every second, finalized lagging)
//! and times a 100 000-transaction render.
//!
//! `cargo run --release -p dyno-plot --example sample_plots [DIR]`
//! (DIR defaults to a `dyno-plot-sample` folder in the temp directory).

#[path = "../tests/support/mod.rs"]
mod support;

use std::path::PathBuf;
use std::time::Instant;

use dyno_plot::{Format, LoadPlots, PlotKind, TxPoint};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args_os().nth(1).map_or_else(
        || std::env::temp_dir().join("dyno-plot-sample"),
        PathBuf::from,
    );

    let run = support::run(20_000, 500.0);
    let plots = LoadPlots {
        title: "geth 1.17.8 · transfer · fixed 500 tx/s",
        txs: &run.txs,
        head: &run.head,
        safe: &run.safe,
        finalized: &run.finalized,
        throughput: &run.throughput,
        target_rate: Some(500.0),
        blocks: &run.blocks,
        node: &run.node,
    };
    let start = Instant::now();
    let written = dyno_plot::write_plots(&plots, &dir, "sample", &Format::ALL)?;
    println!(
        "20 000 txs: wrote {} files in {:?}",
        written.len(),
        start.elapsed()
    );
    for path in &written {
        println!("  {}", path.display());
    }

    let big = support::run(100_000, 500.0);
    let plots = LoadPlots {
        title: "100 000 transactions at 500 tx/s",
        txs: &big.txs,
        head: &big.head,
        safe: &big.safe,
        finalized: &big.finalized,
        throughput: &big.throughput,
        target_rate: Some(500.0),
        blocks: &big.blocks,
        node: &big.node,
    };
    for kind in PlotKind::ALL {
        let start = Instant::now();
        let png = dyno_plot::render_png(kind, &plots)?;
        let png_time = start.elapsed();
        let start = Instant::now();
        let svg = dyno_plot::render_svg(kind, &plots)?;
        let svg_time = start.elapsed();
        println!(
            "100 000 txs, {:<10}: PNG {:>8.1?} ({} KiB), SVG {:>8.1?} ({} KiB)",
            kind.name(),
            png_time,
            png.len() / 1024,
            svg_time,
            svg.len() / 1024
        );
    }
    let start = Instant::now();
    let written = dyno_plot::write_plots(&plots, &dir, "sample-100k", &Format::ALL)?;
    println!(
        "100 000 txs: wrote {} files in {:?}",
        written.len(),
        start.elapsed()
    );

    // Edge cases, to look at: nothing at all; every transaction failed; a
    // narrow latency range (linear axes) without safe or finalized blocks.
    dyno_plot::write_plots(&LoadPlots::default(), &dir, "edge-empty", &[Format::Png])?;
    let failed: Vec<TxPoint> = (0..200)
        .map(|i| TxPoint {
            t_s: f64::from(i) * 0.05,
            latency_ms: None,
            ok: false,
            block: None,
        })
        .collect();
    let all_failed = LoadPlots {
        title: "every transaction rejected",
        txs: &failed,
        head: &run.head[..10],
        ..LoadPlots::default()
    };
    dyno_plot::write_plots(&all_failed, &dir, "edge-failed", &[Format::Png])?;
    let narrow: Vec<TxPoint> = (0..3000)
        .map(|i| TxPoint {
            t_s: f64::from(i) / 100.0,
            latency_ms: (i % 997 != 5).then(|| 800.0 + f64::from((i * 7919) % 400)),
            ok: i % 499 != 3,
            block: None,
        })
        .collect();
    let linear = LoadPlots {
        title: "narrow latency range · 100 tx/s",
        txs: &narrow,
        head: &run.head[..30],
        throughput: &run.throughput[..30],
        target_rate: Some(100.0),
        ..LoadPlots::default()
    };
    dyno_plot::write_plots(&linear, &dir, "edge-linear", &[Format::Png])?;
    println!("wrote edge cases to {}", dir.display());
    Ok(())
}
