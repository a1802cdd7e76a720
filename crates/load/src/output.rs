//! Files beside the result JSON: the per-transaction CSV (the raw data,
//! with the intended, sent and reply times a CCF-style plot needs), the
//! node's metrics as scraped (a JSON line per scrape) and the plots.

use std::io::Write;
use std::path::{Path, PathBuf};

use dyno_plot::{BlockGas, BlockMark, Format, LoadPlots, NodeSeries, ThroughputPoint, TxPoint};

use crate::drive::Outcome;
use crate::record::{Mark, TxRecord};

/// Write the records as CSV to `path` (a new file renamed into place:
/// [`dyno_format::destination::write_new`]).
pub fn write_csv(records: &[TxRecord], path: &Path) -> std::io::Result<()> {
    dyno_format::destination::write_new(path, |f| {
        writeln!(f, "{}", TxRecord::CSV_HEADER)?;
        for r in records {
            writeln!(f, "{}", r.csv_row())?;
        }
        Ok(())
    })
}

fn marks(m: &[Mark]) -> Vec<BlockMark> {
    m.iter()
        .map(|m| BlockMark {
            t_s: m.t_ns as f64 / 1e9,
            number: m.number,
        })
        .collect()
}

/// The plot data of an outcome.
#[derive(Debug)]
pub struct PlotData {
    title: String,
    txs: Vec<TxPoint>,
    head: Vec<BlockMark>,
    safe: Vec<BlockMark>,
    finalized: Vec<BlockMark>,
    throughput: Vec<ThroughputPoint>,
    target_rate: Option<f64>,
    blocks: Vec<BlockGas>,
    node: Vec<NodeSeries>,
}

impl PlotData {
    /// Gather what the plots show.
    pub fn of(o: &Outcome) -> Self {
        let r = &o.result;
        let title = format!(
            "{} · {} · {}-signed · {}",
            r.node
                .version
                .split('/')
                .take(2)
                .collect::<Vec<_>>()
                .join("/"),
            r.workload.keys().cloned().collect::<Vec<_>>().join("+"),
            r.signer,
            r.schedule
        );
        let txs = o
            .records
            .iter()
            .filter(|t| t.sent_ns.is_some())
            .map(|t| TxPoint {
                t_s: t.intended_ns as f64 / 1e9,
                latency_ms: t
                    .included_ns
                    .map(|i| i.saturating_sub(t.intended_ns) as f64 / 1e6),
                ok: t.error_class.is_none(),
                block: t.block,
            })
            .collect();
        let throughput = r
            .throughput
            .windows
            .iter()
            .map(|w| ThroughputPoint {
                t_s: w[0],
                sent_per_s: w[1],
                included_per_s: w[2],
            })
            .collect();
        Self {
            title,
            txs,
            head: marks(&o.head),
            safe: marks(&o.safe),
            finalized: marks(&o.finalized),
            throughput,
            target_rate: r.generator.intended_rate,
            blocks: r
                .blocks
                .iter()
                .map(|b| BlockGas {
                    number: b.number,
                    t_s: b.seen_s,
                    gas_used: b.gas_used,
                    gas_limit: b.gas_limit,
                })
                .collect(),
            node: r
                .node_metrics
                .iter()
                .flat_map(|m| m.series.iter())
                .map(|(name, pts)| NodeSeries {
                    name: name.clone(),
                    points: pts.iter().map(|p| (p[0], p[1])).collect(),
                })
                .collect(),
        }
    }

    /// The borrowed view the plotter takes.
    pub fn view(&self) -> LoadPlots<'_> {
        LoadPlots {
            title: &self.title,
            txs: &self.txs,
            head: &self.head,
            safe: &self.safe,
            finalized: &self.finalized,
            throughput: &self.throughput,
            target_rate: self.target_rate,
            blocks: &self.blocks,
            node: &self.node,
        }
    }
}

/// Write the CSV and the plots (SVG and PNG) for an outcome as
/// `<stem>.csv` and `<stem>-<plot>.<ext>` in `dir`; record their names in
/// the result's `files`. Plot failures are returned, not fatal.
pub fn write_files(o: &mut Outcome, dir: &Path, stem: &str) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let csv = dir.join(format!("{stem}.csv"));
    write_csv(&o.records, &csv).map_err(|e| format!("{}: {e}", csv.display()))?;
    let mut written = vec![csv.clone()];
    o.result.files.insert("csv".into(), file_name(&csv));
    if let Some(s) = o.scraped.as_ref().filter(|s| !s.points.is_empty()) {
        let path = dir.join(format!("{stem}-metrics.jsonl.gz"));
        crate::scrape::write_jsonl_gz(s, &path).map_err(|e| format!("{}: {e}", path.display()))?;
        o.result.files.insert("metrics".into(), file_name(&path));
        written.push(path);
    }
    let data = PlotData::of(o);
    let plots = dyno_plot::write_plots(&data.view(), dir, stem, &Format::ALL)
        .map_err(|e| format!("plots for {stem}: {e}"))?;
    for (i, p) in plots.iter().enumerate() {
        o.result.files.insert(format!("plot{i}"), file_name(p));
    }
    written.extend(plots);
    Ok(written)
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}
