//! dyno list's, run's and count's flags, and the formats a run is written in.

use super::*;

pub(crate) const LIST_HELP: &str = "\
Every implementation of every id, in every runtime, and the clients and
nodes dyno drives: each `built in`, `installed`, or with the `dyno setup`
command that installs it. An adapter's implementations come from its
offers.json (docs/adapter-protocol.md), so they are listed before it is
installed.

Examples:
  dyno list                            everything, installed or not
  dyno list keccak                     one id family, every runtime
  dyno list --impl go                  what the Go adapter (go-ethereum) runs
  dyno list --installed                only what runs now
  dyno list crypto --impl rust,java    two runtimes";

#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// Only ids matching this: a group (`hash`), a substring (`keccak`) or a glob
    /// (`hash/*/32B`); several separated by commas. Without it, every suite
    /// whose spec says `default = true`.
    pub(crate) filter: Option<String>,

    /// Fast settings for a smoke run: 50 ms warm-up (at least 3
    /// iterations), 100 ms of samples, at least 5 samples, 3 fit sizes.
    #[arg(long)]
    pub(crate) quick: bool,

    /// Which implementations: names (`k256,geth,noble`), runtimes (`rust`,
    /// `go`, `java`, `python`, `node`), or `all`. Default: rust. Other
    /// runtimes need `dyno setup` first; one that is missing or fails to
    /// start is skipped with a one-line reason.
    #[arg(long = "impl", value_name = "NAME,...", value_delimiter = ',')]
    pub(crate) impls: Option<Vec<String>>,

    #[command(flatten)]
    pub(crate) output: Output,

    /// Exit 1 if any benchmark misses its spec target.
    #[arg(long)]
    pub(crate) fail_on_target: bool,

    /// Also count instructions per operation of the in-process Rust
    /// benchmarks under valgrind's callgrind (needs valgrind): exact and
    /// repeatable where time is not; compare with `dyno check --metric
    /// instructions`.
    #[arg(long)]
    pub(crate) instructions: bool,
}

/// The hidden `__count` command: build, verify and warm up one benchmark,
/// then run it inside the counted region (under callgrind).
#[derive(Debug, Args)]
pub(crate) struct CountArgs {
    /// The benchmark id.
    #[arg(long)]
    pub(crate) id: String,
    /// The built-in implementation.
    #[arg(long = "impl", value_name = "NAME")]
    pub(crate) implementation: String,
    /// Iterations of one counted run (repeat for several).
    #[arg(long, value_name = "N")]
    pub(crate) iters: Vec<u64>,
    /// Count one iteration, print `calibrated CASES`, read N from stdin,
    /// then count N and 2N iterations.
    #[arg(long, conflicts_with = "iters")]
    pub(crate) calibrate: bool,
}

/// Sampling, result file, stdout format and progress: shared by `run` and
/// `gas`.
#[derive(Debug, Args)]
pub(crate) struct Output {
    /// At least this many samples per benchmark (default 10, or 5 with
    /// --quick; 5 to 1000000). Past 10000 the run takes that many.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(5..=1_000_000))]
    pub(crate) samples: Option<u32>,

    /// Write the JSON result here (and Markdown beside it, as .md).
    /// Default: dyno-results/<run-id>.json.
    #[arg(long, short, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,

    /// What to print on stdout.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub(crate) format: OutputFormat,

    /// No progress on stderr.
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum OutputFormat {
    Table,
    Markdown,
    Json,
    Csv,
}

impl From<OutputFormat> for dyno_report::Format {
    fn from(f: OutputFormat) -> Self {
        match f {
            OutputFormat::Table => Self::Table,
            OutputFormat::Markdown => Self::Markdown,
            OutputFormat::Json => Self::Json,
            OutputFormat::Csv => Self::Csv,
        }
    }
}
