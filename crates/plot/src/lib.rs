//! Plots for dyno's load lab: end-to-end transaction load against a node,
//! drawn in the style of CCF's performance documentation.
//!
//! The plots are drawn from one [`LoadPlots`] description of a run, each
//! as SVG (for the HTML report, which inlines them) and PNG (1200 × 700, for
//! everything else):
//!
//! 1. **Latency** ([`PlotKind::Latency`], `STEM-latency.*`): one dot per
//!    transaction, its latency to inclusion (ms) against its intended send
//!    time (s since load start). The latency axis is logarithmic when the
//!    included latencies span more than two decades, linear otherwise.
//!    Transactions that failed (rejected or errored) are drawn as red crosses,
//!    and those that were sent but never included as orange triangles, in a
//!    band above the highest latency. A second, right-hand axis carries block
//!    numbers, with step lines for the head, safe (when given) and finalized
//!    block the node reported over time: CCF's "local commit" and "global
//!    commit" lines.
//! 2. **Throughput** ([`PlotKind::Throughput`], `STEM-throughput.*`):
//!    transactions sent and included per 1 s window over time, with the
//!    schedule's target rate as a dashed reference line.
//! 3. **Histogram** ([`PlotKind::Histogram`], `STEM-histogram.*`): the
//!    distribution of included latencies, in log-spaced bins when they span
//!    more than two decades, with P50 and P99 marked as vertical lines.
//! 4. **Blocks** ([`PlotKind::Blocks`], `STEM-blocks.*`): time to inclusion
//!    per block (a box per block), pending transactions over time, and gas
//!    used per block against the limit.
//! 5. **Node** ([`PlotKind::Node`], `STEM-node.*`, only when the node served
//!    metrics): throughput beside the node's pool admissions, what its pool
//!    held, its block insert, execution and write times, and its database
//!    read and write rates, over one time axis.
//!
//! The three plots share one layout (title, a legend row under it, then the
//! chart) and the two time plots share one time axis, so that they line up
//! when shown one above the other.
//!
//! # Input handling
//!
//! Data in, files (or strings) out; nothing here panics on odd input. Empty
//! inputs draw empty axes with a "no data" note; non-finite times and
//! latencies, and negative latencies, are skipped; zero-width ranges are
//! widened; block marks and throughput windows need not be sorted. Large
//! inputs stay fast and small: markers that would land on the same output
//! pixel as one already drawn are drawn once, so 100 000 transactions render
//! in a fraction of a second and the SVG stays a few MB at most.
//!
//! # Fonts
//!
//! PNG text must not depend on the fonts installed on the machine (CI
//! machines may have none). All text is measured and drawn with **DejaVu
//! Sans 2.37** (regular and bold), embedded in the binary by the [`dejavu`]
//! crate and rasterised with [`ab_glyph`]: the plotters backends are wrapped
//! so that text layout (for SVG and PNG alike) and PNG glyph drawing go
//! through this crate rather than plotters' font code. That also gives
//! correctly spaced, kerned, anti-aliased text, which plotters' own ab_glyph
//! drawing does not. plotters is built without its `ttf` feature (font-kit
//! and fontconfig), with `ab_glyph`, and the same font is registered with it
//! as `sans-serif` in case any plotters code measures text itself.
//!
//! The DejaVu fonts are under the Bitstream Vera Fonts licence (a
//! permissive free licence: use, copy, modify, embed and redistribute, also
//! commercially; modified fonts must be renamed), glyphs from the Arev fonts
//! under the equivalent Arev licence, and the DejaVu changes are in the
//! public domain. The licence text ships in the `dejavu` crate as
//! `assets/dejavu-fonts-ttf-2.37/LICENSE`; the `dejavu` crate itself is
//! MIT/Apache-2.0.
//!
//! SVG `<text>` elements name only the generic `font-family="sans-serif"`,
//! so they render with whatever sans-serif font the viewer has; DejaVu Sans
//! is wider than most, so the layout measured with it leaves room for them.
//! The SVGs have a `viewBox`, so CSS can scale them when inlined.

#![warn(missing_docs)]

use std::path::{Path, PathBuf};

use plotters::prelude::*;

mod axis;
mod blocks;
mod error;
mod histogram;
mod latency;
mod node;
mod style;
mod text;
mod throughput;

pub use blocks::{BoxStats, pending, per_block};
pub use error::PlotError;
pub use latency::{Windows, windows as latency_windows};
pub use node::drawn_series as node_series;

/// Width of every plot, in pixels (PNG) or user units (SVG).
pub const WIDTH: u32 = 1200;
/// Height of every plot, in pixels (PNG) or user units (SVG).
pub const HEIGHT: u32 = 700;

/// One transaction of a load run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TxPoint {
    /// Intended send time, in seconds since the start of the load.
    pub t_s: f64,
    /// Latency from the intended send time to inclusion in a block, in
    /// milliseconds; `None` if the transaction was never included.
    pub latency_ms: Option<f64>,
    /// `false` if the transaction was rejected or its submission errored;
    /// such a transaction is drawn as a failure whatever its latency.
    pub ok: bool,
    /// The block it was included in, if it was.
    pub block: Option<u64>,
}

/// One block seen during the run: when, and how full.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockGas {
    /// The block number.
    pub number: u64,
    /// When dyno first saw it, in seconds since load start.
    pub t_s: f64,
    /// Gas used.
    pub gas_used: u64,
    /// The block's gas limit.
    pub gas_limit: u64,
}

/// One of the node's own metrics over the run (the load lab's name for it,
/// e.g. `txpool pending`), as `(t_s since load start, value)`.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeSeries {
    /// The name.
    pub name: String,
    /// The points, in time order.
    pub points: Vec<(f64, f64)>,
}

/// The moment dyno first saw a block number as the node's head (or safe, or
/// finalized) block.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockMark {
    /// When the block number was first seen, in seconds since load start.
    pub t_s: f64,
    /// The block number.
    pub number: u64,
}

/// Send and inclusion rates over one 1 s window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThroughputPoint {
    /// Time of the window, in seconds since load start.
    pub t_s: f64,
    /// Transactions sent in the window, per second.
    pub sent_per_s: f64,
    /// Transactions included in blocks in the window, per second.
    pub included_per_s: f64,
}

/// Everything the plots of one load run are drawn from.
#[derive(Debug, Clone, Copy, Default)]
pub struct LoadPlots<'a> {
    /// Title drawn above every plot, e.g. `"geth 1.17.8 · transfer · fixed
    /// 500 tx/s"`.
    pub title: &'a str,
    /// Every transaction sent, in any order.
    pub txs: &'a [TxPoint],
    /// Head block numbers as first seen; drawn as a step line.
    pub head: &'a [BlockMark],
    /// Safe block numbers as first seen; may be empty (then not drawn).
    pub safe: &'a [BlockMark],
    /// Finalized block numbers as first seen; may be empty (then not drawn).
    pub finalized: &'a [BlockMark],
    /// Send and inclusion rates per 1 s window.
    pub throughput: &'a [ThroughputPoint],
    /// The schedule's intended rate in transactions per second, drawn as a
    /// dashed reference line on the throughput plot when `Some`.
    pub target_rate: Option<f64>,
    /// Every block seen during the run, for the blocks plot's gas panel.
    pub blocks: &'a [BlockGas],
    /// The node's own metrics, for the node plot; empty when the node
    /// served none (then that plot is not written).
    pub node: &'a [NodeSeries],
}

/// An output file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Scalable vector graphics, text as `<text>` in a generic sans-serif.
    Svg,
    /// 1200 × 700 RGB PNG, text drawn with the embedded DejaVu Sans.
    Png,
}

impl Format {
    /// Both formats.
    pub const ALL: [Format; 2] = [Format::Svg, Format::Png];

    /// The file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Svg => "svg",
            Format::Png => "png",
        }
    }
}

/// One of the plots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlotKind {
    /// Per-transaction latency over time, with block progress.
    Latency,
    /// Sent and included transactions per second over time.
    Throughput,
    /// Latency histogram with P50 and P99.
    Histogram,
    /// Per block: time to inclusion (a box per block), pending
    /// transactions over time, and gas used against the limit.
    Blocks,
    /// The node's own metrics beside throughput: pool admissions and
    /// contents, block insert/execution/write times, database rates.
    Node,
}

impl PlotKind {
    /// Every plot, in the order [`write_plots`] writes them.
    pub const ALL: [PlotKind; 5] = [
        PlotKind::Latency,
        PlotKind::Throughput,
        PlotKind::Node,
        PlotKind::Histogram,
        PlotKind::Blocks,
    ];

    /// The name used in file names (`STEM-NAME.EXT`): `latency`,
    /// `throughput`, `node`, `histogram` or `blocks`.
    pub fn name(self) -> &'static str {
        match self {
            PlotKind::Latency => "latency",
            PlotKind::Throughput => "throughput",
            PlotKind::Histogram => "histogram",
            PlotKind::Blocks => "blocks",
            PlotKind::Node => "node",
        }
    }

    fn draw<DB: DrawingBackend>(
        self,
        root: &DrawingArea<DB, plotters::coord::Shift>,
        p: &LoadPlots<'_>,
    ) -> Result<(), PlotError> {
        match self {
            PlotKind::Latency => latency::draw(root, p),
            PlotKind::Throughput => throughput::draw(root, p),
            PlotKind::Histogram => histogram::draw(root, p),
            PlotKind::Blocks => blocks::draw(root, p),
            PlotKind::Node => node::draw(root, p),
        }
    }
}

/// Renders one plot as an SVG document.
pub fn render_svg(kind: PlotKind, p: &LoadPlots<'_>) -> Result<String, PlotError> {
    style::ensure_font()?;
    let mut out = String::new();
    {
        let backend = SVGBackend::with_string(&mut out, (WIDTH, HEIGHT));
        let root = text::TextBackend::measuring(backend).into_drawing_area();
        kind.draw(&root, p)?;
        root.present()
            .map_err(|e| style::render_error(kind.name(), e))?;
    }
    Ok(out)
}

/// Renders one plot as the bytes of a PNG file ([`WIDTH`] × [`HEIGHT`], RGB).
pub fn render_png(kind: PlotKind, p: &LoadPlots<'_>) -> Result<Vec<u8>, PlotError> {
    style::ensure_font()?;
    let mut pixels = vec![0u8; WIDTH as usize * HEIGHT as usize * 3];
    {
        let backend = BitMapBackend::with_buffer(&mut pixels, (WIDTH, HEIGHT));
        let root = text::TextBackend::rasterising(backend).into_drawing_area();
        kind.draw(&root, p)?;
        root.present()
            .map_err(|e| style::render_error(kind.name(), e))?;
    }
    let encode = |pixels: &[u8]| -> Result<Vec<u8>, png::EncodingError> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, WIDTH, HEIGHT);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(pixels)?;
        writer.finish()?;
        Ok(out)
    };
    encode(&pixels).map_err(|e| PlotError::Encode(Box::new(e)))
}

/// The latency plot as an SVG document: per-transaction latency over the
/// send window, and below it head, safe and finalized block numbers over
/// the whole run (finality included).
pub fn latency_svg(p: &LoadPlots<'_>) -> Result<String, PlotError> {
    render_svg(PlotKind::Latency, p)
}

/// The throughput plot as an SVG document: sent and included transactions
/// per second over time, with the target rate.
pub fn throughput_svg(p: &LoadPlots<'_>) -> Result<String, PlotError> {
    render_svg(PlotKind::Throughput, p)
}

/// The latency histogram as an SVG document, with P50 and P99 marked.
pub fn histogram_svg(p: &LoadPlots<'_>) -> Result<String, PlotError> {
    render_svg(PlotKind::Histogram, p)
}

/// The blocks plot as an SVG document: time to inclusion per block,
/// pending transactions over time, gas used per block against the limit.
pub fn blocks_svg(p: &LoadPlots<'_>) -> Result<String, PlotError> {
    render_svg(PlotKind::Blocks, p)
}

/// The node plot as an SVG document: the node's metrics beside throughput.
pub fn node_svg(p: &LoadPlots<'_>) -> Result<String, PlotError> {
    render_svg(PlotKind::Node, p)
}

/// Writes every plot ([`PlotKind::ALL`]) into `dir` (created if missing) as
/// `STEM-latency.EXT`, `STEM-throughput.EXT`, `STEM-node.EXT` (only when
/// the node served metrics), `STEM-histogram.EXT` and `STEM-blocks.EXT`
/// for each of `formats` (duplicates ignored), and returns the paths
/// written, plot by plot in that order.
///
/// `stem` must be non-empty and must not contain a path separator.
pub fn write_plots(
    p: &LoadPlots<'_>,
    dir: &Path,
    stem: &str,
    formats: &[Format],
) -> Result<Vec<PathBuf>, PlotError> {
    if stem.is_empty() || stem.contains(['/', '\\']) || stem == "." || stem == ".." {
        return Err(PlotError::InvalidStem(stem.to_owned()));
    }
    let mut unique: Vec<Format> = Vec::with_capacity(formats.len());
    for &f in formats {
        if !unique.contains(&f) {
            unique.push(f);
        }
    }
    std::fs::create_dir_all(dir).map_err(|source| PlotError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut written = Vec::with_capacity(PlotKind::ALL.len() * unique.len());
    for kind in PlotKind::ALL {
        if kind == PlotKind::Node && p.node.is_empty() {
            continue;
        }
        for &format in &unique {
            let path = dir.join(format!("{stem}-{}.{}", kind.name(), format.extension()));
            let bytes = match format {
                Format::Svg => render_svg(kind, p)?.into_bytes(),
                Format::Png => render_png(kind, p)?,
            };
            dyno_format::destination::write_new(&path, |w| std::io::Write::write_all(w, &bytes))
                .map_err(|source| PlotError::Io {
                    path: path.clone(),
                    source,
                })?;
            written.push(path);
        }
    }
    Ok(written)
}
