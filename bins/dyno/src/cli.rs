//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod gas;
mod gate;
mod load;
mod manage;
mod replay;
mod report;
mod run;
mod setup;
mod worker;
pub(crate) use gas::*;
pub(crate) use gate::*;
pub(crate) use load::*;
pub(crate) use manage::*;
pub(crate) use replay::*;
pub(crate) use report::*;
pub(crate) use run::*;
pub(crate) use setup::*;
pub(crate) use worker::*;

const EXAMPLES: &str = "\
Examples:
  dyno run --quick                     every default suite, fast (~1 min)
  dyno run hash                        ids containing \"hash\"
  dyno run 'crypto/secp256k1-*' --impl k256,libsecp256k1
  dyno run rlp --format csv > rlp.csv  data on stdout, messages on stderr
  dyno list trie                       what would run, with targets
  dyno list --installed                every implementation that runs here now
  dyno run crypto --impl all           Rust, Go, Java, Python and Node side by side
  dyno setup && dyno doctor            install the other runtimes' adapters, list them
  dyno gas --quick                     every precompile: time against gas (~1 min)
  dyno gas --anchor 60mgas --factor 3  add a 60 MGas/s column; flag beyond 3x
  dyno setup geth && dyno load         end-to-end load into a temporary geth dev node

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
    /// Folder of benchmark specs (*.toml). Default: $DYNO_SPECS, else
    /// ./specs, else the one dyno was built with.
    #[arg(long, global = true, value_name = "DIR")]
    pub(crate) specs: Option<PathBuf>,

    /// Folder of test vectors. Default: $DYNO_VECTORS, else ./vectors, else
    /// the one dyno was built with.
    #[arg(long, global = true, value_name = "DIR")]
    pub(crate) vectors: Option<PathBuf>,

    /// When to colour output: auto colours a terminal unless NO_COLOR is set
    /// or TERM=dumb.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub(crate) color: ColorChoice,

    /// The run history: a SQLite file, or a `postgres://user:pass@host/db`
    /// URL a team shares. Default: $DYNO_STORE, else
    /// $DYNO_DATA/history.sqlite, else $XDG_DATA_HOME/dyno/history.sqlite,
    /// else ~/.local/share/dyno/history.sqlite.
    #[arg(long, global = true, value_name = "PATH|URL")]
    pub(crate) store: Option<String>,

    /// Do not save runs to the history (their JSON is still written).
    /// Also set by DYNO_NO_STORE=1 (or true, yes, on; 0, false, no, off
    /// leave it off).
    #[arg(long, global = true)]
    pub(crate) no_store: bool,

    /// An adapter folder that lives anywhere (a team's own implementation;
    /// `dyno adapter new` writes one), used beside dyno's own adapters;
    /// repeatable. Also DYNO_ADAPTERS, a `:`-separated list of folders.
    /// `dyno setup --adapter DIR` installs it.
    #[arg(long = "adapter", global = true, value_name = "DIR")]
    pub(crate) adapters: Vec<PathBuf>,
}

impl Global {
    /// The flags behind the lab's paths.
    pub(crate) fn flags(&self) -> dyno_lab::paths::Flags {
        dyno_lab::paths::Flags {
            specs: self.specs.clone(),
            vectors: self.vectors.clone(),
            store: self.store.clone(),
            no_store: self.no_store,
            adapters: self.adapters.clone(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl From<ColorChoice> for dyno_report::color::Choice {
    fn from(c: ColorChoice) -> Self {
        match c {
            ColorChoice::Auto => Self::Auto,
            ColorChoice::Always => Self::Always,
            ColorChoice::Never => Self::Never,
        }
    }
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// List the benchmarks the specs define: ids, implementations (baseline
    /// marked *), targets and thresholds.
    List(ListArgs),
    /// Verify, then measure benchmarks, print a table and write results as
    /// JSON and Markdown.
    Run(RunArgs),
    /// Measure every precompile directly and from EVM bytecode, and set
    /// its time against its gas: calculated gas (ns x 3000 / ns of
    /// ECRECOVER), MGas/s, and a flag where the two disagree; with
    /// --blocks, each operation's cost inside a real client.
    Gas(GasArgs),
    /// Install the other runtimes' adapters (Go, Java, Python, Node) with
    /// their pinned dependencies into dyno's cache folder
    /// ($DYNO_CACHE, else $XDG_CACHE_HOME/dyno, else ~/.cache/dyno).
    Setup(SetupArgs),
    /// List every runtime: installed or not, its version and flags, its
    /// libraries, the implementations and ids it runs, and what one
    /// protocol round trip costs.
    Doctor(DoctorArgs),
    /// End-to-end load against a real node: start a temporary dev node (or
    /// target any RPC URL), pre-sign transactions, send them on a schedule,
    /// follow each one to finality, and report throughput, latency
    /// percentiles and plots.
    Load(Box<LoadArgs>),
    /// Block processing on a real client: play the consensus client and
    /// feed dyno's blocks to geth (or any Engine-API client) with
    /// engine_newPayload and engine_forkchoiceUpdated, timing both, beside
    /// the client's own per-block breakdown; A/B two clients in ABBA runs.
    Replay(Box<ReplayArgs>),
    /// Compare two builds of the same benchmarks side by side in one run:
    /// short rounds of each alternate (ABBA), so the host's noise hits both
    /// alike, and each benchmark gets a verdict from the paired ratios;
    /// exit 1 on a regression.
    Ab(Box<AbArgs>),
    /// Serve this dyno's own benchmarks over the adapter protocol on stdin
    /// and stdout (what `dyno ab` starts on each side).
    Worker(WorkerArgs),
    /// Be a load worker of a fleet: wait on an MQTT broker for `dyno load
    /// --fleet`, then send this machine's share of its load.
    Join(JoinArgs),
    /// Bring your own implementation: write a new adapter folder from a
    /// template (`new`), or check that one speaks the protocol (`check`).
    Adapter(AdapterArgs),
    /// Execution clients: check that dyno drives one correctly (`check`)
    /// before trusting a replay of it.
    Client(ClientArgs),
    /// Named, versioned baselines kept in the history: save one from a run,
    /// list them, show one, export or import it as a JSON file.
    Baseline(BaselineArgs),
    /// Check a run against a baseline: one verdict per benchmark (improved,
    /// regressed, ~, insufficient data), exit 1 on a confirmed regression.
    Check(Box<CheckArgs>),
    /// Compare two runs in the benchstat style: median ± CI, delta, p, n.
    Compare(CompareArgs),
    /// Write reports: one self-contained HTML file, a Markdown PR comment,
    /// or exports (CSV, JSON, Bencher's BMF, Go's benchmark format).
    Report(ReportArgs),
    /// The run history: list saved runs, show one id's trend, or import
    /// result files.
    History(HistoryArgs),
    /// Print a shell completion script for dyno's commands and flags.
    Completions(CompletionsArgs),
    /// Print dyno's manual page (roff), or write one page per command.
    Man(ManArgs),
    /// Internal (`run --instructions`): run one benchmark under callgrind.
    #[command(name = "__count", hide = true)]
    Count(CountArgs),
}

/// `dyno help [COMMAND] --help` means `dyno help [COMMAND]` (clap's help
/// subcommand takes no flags of its own).
pub(crate) fn help_args(
    args: impl IntoIterator<Item = std::ffi::OsString>,
) -> Vec<std::ffi::OsString> {
    let args: Vec<_> = args.into_iter().collect();
    if args.get(1).is_some_and(|a| a == "help") {
        let mut kept: Vec<_> = args[..2].to_vec();
        kept.extend(
            args[2..]
                .iter()
                .filter(|a| *a != "--help" && *a != "-h")
                .cloned(),
        );
        return kept;
    }
    args
}

#[cfg(test)]
mod help_tests {
    use super::*;

    #[test]
    fn help_takes_help() {
        let os = |v: &[&str]| v.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        assert_eq!(
            help_args(os(&["dyno", "help", "--help"])),
            os(&["dyno", "help"])
        );
        assert_eq!(
            help_args(os(&["dyno", "help", "run", "-h"])),
            os(&["dyno", "help", "run"])
        );
        assert_eq!(
            help_args(os(&["dyno", "run", "--help"])),
            os(&["dyno", "run", "--help"])
        );
    }
}
