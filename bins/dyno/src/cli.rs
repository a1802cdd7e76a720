//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

const EXAMPLES: &str = "\
Examples:
  dyno run --quick                     every default suite, fast (~1 min)
  dyno run hash                        ids containing \"hash\"
  dyno run 'crypto/secp256k1-*' --impl k256,libsecp256k1
  dyno run rlp --format csv > rlp.csv  data on stdout, messages on stderr
  dyno list trie                       what would run, with targets

Exit codes: 0 ok; 1 a wrong result, or a missed target with --fail-on-target;
2 a usage or runtime error.";

/// dyno: a performance lab for Ethereum-style blockchain software.
///
/// Every benchmark checks its output against a test vector before it is
/// timed; results carry raw samples, P50/P95/P99/max with a 95% confidence
/// interval, allocations, and the machine they came from.
#[derive(Debug, Parser)]
#[command(name = "dyno", version, after_help = EXAMPLES)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,

    #[command(flatten)]
    pub(crate) global: Global,
}

/// Options shared by every command.
#[derive(Debug, Args)]
pub(crate) struct Global {
    /// Folder of benchmark specs (*.toml). Default: ./specs, else the one
    /// dyno was built with.
    #[arg(long, global = true, env = "DYNO_SPECS", value_name = "DIR")]
    pub(crate) specs: Option<PathBuf>,

    /// Folder of test vectors. Default: ./vectors, else the one dyno was
    /// built with.
    #[arg(long, global = true, env = "DYNO_VECTORS", value_name = "DIR")]
    pub(crate) vectors: Option<PathBuf>,

    /// When to colour output: auto colours a terminal unless NO_COLOR is set
    /// or TERM=dumb.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub(crate) color: ColorChoice,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// List the benchmarks the specs define: ids, implementations (baseline
    /// marked *), targets and thresholds.
    List(ListArgs),
    /// Verify, then measure benchmarks, print a table and write results as
    /// JSON and Markdown.
    Run(RunArgs),
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// Only ids matching this: a substring (`keccak`) or a glob
    /// (`hash/*/32B`); several separated by commas.
    pub(crate) filter: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// Only ids matching this: a substring (`keccak`) or a glob
    /// (`hash/*/32B`); several separated by commas. Without it, every suite
    /// whose spec says `default = true`.
    pub(crate) filter: Option<String>,

    /// Fast settings for a smoke run: 50 ms warm-up, 100 ms of samples, at
    /// least 5 samples.
    #[arg(long)]
    pub(crate) quick: bool,

    /// Only these implementations (comma-separated), e.g. `k256,sha2`.
    #[arg(long = "impl", value_name = "NAME,...", value_delimiter = ',')]
    pub(crate) impls: Option<Vec<String>>,

    /// At least this many samples per benchmark (default 10, or 5 with
    /// --quick; never fewer than 5).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(5..))]
    pub(crate) samples: Option<u32>,

    /// Write the JSON result here (and Markdown beside it, as .md).
    /// Default: dyno-results/<run-id>.json.
    #[arg(long, short, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,

    /// What to print on stdout.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub(crate) format: OutputFormat,

    /// Exit 1 if any benchmark misses its spec target.
    #[arg(long)]
    pub(crate) fail_on_target: bool,

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
