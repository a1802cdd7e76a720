//! dyno check's and compare's flags: the gate between two runs.

use super::*;

pub(crate) const CHECK_HELP: &str = "\
A benchmark is REGRESSED only when its change is statistically significant (a
two-sided Mann-Whitney U test of the per-op sample times, Holm-adjusted over
every benchmark compared, family-wise alpha 0.05) AND the ratio of medians is
beyond its threshold (the spec's, 20% by default). A flagged benchmark is
then measured again, up to 3 more times some seconds apart (--remeasure,
--remeasure-gap): a slower build is slower every time, a busy machine is not.
Only a regression seen in every pass exits 1. When the baseline came from
another machine, every time is divided by ECRECOVER measured in the same run
first, and the output says so. Instruction counts (--metric instructions)
repeat exactly, so they are not measured again.

Examples:
  dyno check --baseline main                 measure the baseline's ids now, then check
  dyno check --baseline main run.json        check a saved run
  dyno check --baseline baselines/main.json  a committed baseline file
  dyno check --baseline main --format markdown > comment.md
  dyno check --baseline main --metric instructions   callgrind counts, not times

Exit codes: 0 no confirmed regression; 1 a confirmed regression or a wrong
result; 2 a usage or runtime error.";

#[derive(Debug, Args)]
#[command(after_help = CHECK_HELP)]
pub(crate) struct CheckArgs {
    /// A baseline name in the history, or a baseline (or result) JSON file.
    #[arg(long, value_name = "NAME|FILE")]
    pub(crate) baseline: String,

    /// The run to check (a result file or a run id). Without it, the
    /// baseline's benchmarks are measured now, with its settings.
    pub(crate) run: Option<String>,

    /// Regression threshold for every benchmark (0.2 = 20%), instead of
    /// each spec's.
    #[arg(long, value_name = "FRACTION")]
    pub(crate) threshold: Option<f64>,

    /// Family-wise significance level.
    #[arg(long, default_value_t = dyno_gate::DEFAULT_ALPHA, value_name = "ALPHA")]
    pub(crate) alpha: f64,

    /// Divide times by a reference measured in the same run: auto (when
    /// the machines differ), always, never.
    #[arg(long, value_enum, default_value_t = NormalizeArg::Auto)]
    pub(crate) normalize: NormalizeArg,

    /// The reference operation for normalisation.
    #[arg(long, default_value = dyno_gate::DEFAULT_REFERENCE, value_name = "ID")]
    pub(crate) reference: String,

    /// What to compare: wall time per op, or callgrind instruction counts.
    #[arg(long, value_enum, default_value_t = MetricArg::Time)]
    pub(crate) metric: MetricArg,

    /// How many times to measure a flagged benchmark again; it stays
    /// regressed only while every pass says so. 0: the first pass decides.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub(crate) remeasure: u32,

    /// The least time from the start of one re-measure to the next, so the
    /// passes see the machine at different moments.
    #[arg(long, default_value_t = 15, value_name = "SECONDS")]
    pub(crate) remeasure_gap: u64,

    /// Same as --remeasure 0.
    #[arg(long)]
    pub(crate) no_remeasure: bool,

    /// What to print on stdout.
    #[arg(long, value_enum, default_value_t = DeltaFormat::Table)]
    pub(crate) format: DeltaFormat,

    /// No progress on stderr.
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum NormalizeArg {
    Auto,
    Always,
    Never,
}

impl From<NormalizeArg> for dyno_gate::Normalize {
    fn from(n: NormalizeArg) -> Self {
        match n {
            NormalizeArg::Auto => Self::Auto,
            NormalizeArg::Always => Self::Always,
            NormalizeArg::Never => Self::Never,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum MetricArg {
    Time,
    Instructions,
}

impl From<MetricArg> for dyno_gate::Metric {
    fn from(m: MetricArg) -> Self {
        match m {
            MetricArg::Time => Self::Time,
            MetricArg::Instructions => Self::Instructions,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum DeltaFormat {
    Table,
    Markdown,
    Json,
}

pub(crate) const COMPARE_HELP: &str = "\
Each side shows the median per-op time ± the half-width of its 95% CI (as a %
of the median); delta is the change of the median with the bootstrap 95% CI
of the ratio; p is the Mann-Whitney U test's, Holm-adjusted over the rows,
and n the samples on each side. `~` means no significant change (alpha 0.05).
Warnings are numbered footnotes. The geomean row summarises every row with
both sides.

Examples:
  dyno compare dyno-results/a.json dyno-results/b.json
  dyno compare latest~1 latest          the two newest runs in the history
  dyno compare <run-id> <run-id> --format markdown";

#[derive(Debug, Args)]
#[command(after_help = COMPARE_HELP)]
pub(crate) struct CompareArgs {
    /// The old run: a result file, a run id, `latest` or `latest~N`.
    pub(crate) old: String,
    /// The new run.
    pub(crate) new: String,
    /// Significance level.
    #[arg(long, default_value_t = dyno_gate::DEFAULT_ALPHA, value_name = "ALPHA")]
    pub(crate) alpha: f64,
    /// Divide by a reference measured in the same run: auto, always, never.
    #[arg(long, value_enum, default_value_t = NormalizeArg::Auto)]
    pub(crate) normalize: NormalizeArg,
    /// What to print.
    #[arg(long, value_enum, default_value_t = DeltaFormat::Table)]
    pub(crate) format: DeltaFormat,
}

impl CheckArgs {
    /// The check these flags ask for.
    pub(crate) fn request(&self) -> dyno_lab::check::Request<'_> {
        dyno_lab::check::Request {
            baseline: &self.baseline,
            run: self.run.as_deref(),
            opts: dyno_gate::Options {
                alpha: self.alpha,
                threshold: self.threshold,
                normalize: self.normalize.into(),
                reference: self.reference.clone(),
                metric: self.metric.into(),
                ..dyno_gate::Options::default()
            },
            remeasure: if self.no_remeasure { 0 } else { self.remeasure },
            gap: std::time::Duration::from_secs(self.remeasure_gap),
            quiet: self.quiet,
        }
    }
}
