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
    /// Measure every precompile directly and from EVM bytecode, and set
    /// its time against its gas: calculated gas (ns x 3000 / ns of
    /// ECRECOVER), MGas/s, and a flag where the two disagree.
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
}

const LOAD_HELP: &str = "\
Schedules (--rate):
  500                          open loop, 500 tx/s
  ramp:100..2000/30s           rising linearly over 30 s, then holding 2000
  steps:500/10s,1000/10s       500 tx/s for 10 s, then 1000 tx/s (the last holds)
  max  |  max:64               as fast as possible, 256 (or 64) requests in flight

Latency is measured from each transaction's intended send time, so a node (or a
generator) that falls behind cannot hide its queue. Before every run the generator
measures its own ceiling against a built-in null JSON-RPC sink; a run whose sends
fell behind schedule is flagged \"generator saturated\".

Writes dyno-results/<run>-load.json (schema v1, `load` section), a per-transaction
CSV per node and signer, and latency/throughput/histogram plots (SVG and PNG).

Examples:
  dyno setup geth                       build the pinned geth once
  dyno load                             2000 transfers at 500 tx/s into a temporary geth
  dyno load --txs 20000 --rate 1000     the acceptance run
  dyno load --node geth,anvil,hardhat   the same pre-signed load on three dev nodes
  dyno load --workload mix              transfers, ERC-20, storage writes and deployments
  dyno load --signer both               client-signed against node-signed, one report
  dyno load --rpc http://127.0.0.1:8545 --funder-key 0x...   any running node
  dyno load --self-test                 only the generator's null-sink ceiling
  dyno load --txs 0 --logs 100,1000,5000,20000 --reads 5000
                                        the read path: eth_getLogs sizes, then a read load

Exit codes: 0 ok; 1 a wrong result (a node returned another hash, or the chain
scan disagrees with the tracker); 2 a usage or runtime error, or a run cut short
(its partial data is saved and marked incomplete).";

#[derive(Debug, Args)]
#[command(after_help = LOAD_HELP)]
pub(crate) struct LoadArgs {
    /// Dev nodes to start, comma-separated: geth, anvil, hardhat. Several
    /// run one after another on the same pre-signed load.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "geth",
        value_name = "NAME"
    )]
    pub(crate) node: Vec<String>,

    /// Target a running node at this HTTP JSON-RPC URL instead.
    #[arg(long, value_name = "URL", conflicts_with = "node_cmd")]
    pub(crate) rpc: Option<String>,

    /// Start another client from this shell command line; `{datadir}` and
    /// `{port}` are filled in. Its RPC is `--node-url`.
    #[arg(long, value_name = "CMD")]
    pub(crate) node_cmd: Option<String>,

    /// The RPC URL of a `--node-cmd` client.
    #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:{port}")]
    pub(crate) node_url: String,

    /// Transactions to send.
    #[arg(long, default_value_t = 2000, value_name = "N")]
    pub(crate) txs: usize,

    /// The schedule (see below).
    #[arg(long, default_value = "500", value_name = "SCHEDULE")]
    pub(crate) rate: String,

    /// Sending accounts (deterministic keys from --seed).
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub(crate) accounts: usize,

    /// transfer, erc20, store, deploy, or a mix named in specs/load/mixes.toml
    /// (`mix` is its default mix).
    #[arg(long, default_value = "transfer", value_name = "NAME")]
    pub(crate) workload: String,

    /// Who signs: client (eth_sendRawTransaction of pre-signed
    /// transactions), node (eth_sendTransaction from its unlocked account),
    /// or both, one after the other, in one report.
    #[arg(long, default_value = "client", value_name = "WHO")]
    pub(crate) signer: String,

    /// Seconds between blocks of a started dev node.
    #[arg(long, default_value_t = 1, value_name = "S")]
    pub(crate) block_time: u64,

    /// Seed of the account keys.
    #[arg(long, default_value = "dyno-load", value_name = "TEXT")]
    pub(crate) seed: String,

    /// maxPriorityFeePerGas, gwei.
    #[arg(long, default_value_t = 1.0, value_name = "GWEI")]
    pub(crate) tip_gwei: f64,

    /// maxFeePerGas, gwei. Default: max(100, 10 × the base fee) + tip.
    #[arg(long, value_name = "GWEI")]
    pub(crate) max_fee_gwei: Option<f64>,

    /// Keep-alive connections to the node.
    #[arg(long, default_value_t = 16, value_name = "N")]
    pub(crate) connections: usize,

    /// Most requests in flight under an open-loop schedule; reaching it
    /// shows as generator lag.
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    pub(crate) max_in_flight: usize,

    /// A send later than this behind its schedule counts as late; over 1%
    /// late flags the run "generator saturated".
    #[arg(long, default_value_t = 10.0, value_name = "MS")]
    pub(crate) lag_threshold_ms: f64,

    /// Seconds to wait for inclusion after the last send.
    #[arg(long, default_value_t = 60, value_name = "S")]
    pub(crate) inclusion_timeout: u64,

    /// Seconds to wait for the finalized tag to pass the last inclusion
    /// (0: do not wait).
    #[arg(long, default_value_t = 120, value_name = "S")]
    pub(crate) finality_timeout: u64,

    /// Milliseconds between the tracker's polls of the head.
    #[arg(long, default_value_t = 100, value_name = "MS")]
    pub(crate) poll_ms: u64,

    /// A funded private key (hex) for targets without an unlocked account.
    #[arg(
        long,
        env = "DYNO_FUNDER_KEY",
        value_name = "HEX",
        hide_env_values = true
    )]
    pub(crate) funder_key: Option<String>,

    /// Signing threads (0: every core).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub(crate) threads: usize,

    /// The read path: emit this many ERC-20 Transfer logs per size (e.g.
    /// 100,1000,5000,20000), query each set with eth_getLogs, and report
    /// response bytes, latency, and typed against raw parse time. Runs on
    /// each node before the write load (`--txs 0` for the read path alone).
    #[arg(long, value_delimiter = ',', value_name = "N,...")]
    pub(crate) logs: Vec<usize>,

    /// Warn when an eth_getLogs response exceeds this many bytes (the
    /// 64 KiB default is a common HTTP client limit).
    #[arg(long, default_value_t = 65_536, value_name = "BYTES")]
    pub(crate) body_limit: usize,

    /// Read load: send this many read requests (eth_call, eth_getBalance,
    /// eth_getBlockByNumber, eth_getLogs in equal parts) on --read-rate and
    /// report latency percentiles per method.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub(crate) reads: usize,

    /// The read load's schedule, as --rate.
    #[arg(long, default_value = "500", value_name = "SCHEDULE")]
    pub(crate) read_rate: String,

    /// The read load's methods: call, balance, block, logs (default: all,
    /// in equal parts; repeat a name to weight it).
    #[arg(long, value_delimiter = ',', value_name = "METHOD,...")]
    pub(crate) read_methods: Vec<String>,

    /// Only measure the generator's ceiling against the null sink, print it
    /// and exit.
    #[arg(long)]
    pub(crate) self_test: bool,

    /// Requests in the null-sink self-test (0: skip it).
    #[arg(long, default_value_t = 100_000, value_name = "N")]
    pub(crate) self_test_requests: usize,

    /// Result file; the CSV and plots go beside it.
    /// Default: dyno-results/<run id>-load.json.
    #[arg(long, short, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,

    /// What to print on stdout: the summary table, or the result JSON.
    #[arg(long, value_enum, default_value_t = LoadFormat::Table)]
    pub(crate) format: LoadFormat,

    /// No progress on stderr.
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum LoadFormat {
    Table,
    Json,
    Markdown,
}

#[derive(Debug, Args)]
#[command(
    after_help = "A runtime that is missing is skipped with a one-line reason; \
a failed build exits 2 after the others are done.\n\nExamples:\n  dyno setup\n  dyno setup go java"
)]
pub(crate) struct SetupArgs {
    /// Only these runtimes (go, java, node, python). Default: all.
    pub(crate) runtimes: Vec<String>,

    /// Do not echo the build's output.
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

#[derive(Debug, Args)]
pub(crate) struct DoctorArgs {
    /// List every id each implementation runs, not only how many.
    #[arg(long)]
    pub(crate) ids: bool,
}

#[derive(Debug, Args)]
#[command(after_help = GAS_HELP)]
pub(crate) struct GasArgs {
    /// Fast settings; leaves out the inputs priced above 1M gas (MSMs of
    /// 256 points and more, 8M-round BLAKE2F), which take 50 ms to over a
    /// second per call.
    #[arg(long)]
    pub(crate) quick: bool,

    /// The fork whose gas schedule gives nominal gas (specs/gas/<fork>.toml).
    #[arg(long, default_value = "osaka", value_name = "FORK")]
    pub(crate) fork: String,

    /// Flag a precompile when calculated gas is more than this many times
    /// nominal gas (underpriced), or less than its inverse (overpriced).
    #[arg(long, default_value_t = 2.0, value_name = "X")]
    pub(crate) factor: f64,

    /// A second anchor, shown as an extra column: `60mgas` prices time at
    /// 60 MGas/s; `arith` at the median gas rate of the arithmetic opcodes
    /// (measured too).
    #[arg(long, value_name = "ANCHOR", value_parser = parse_anchor)]
    pub(crate) anchor: Option<dyno_evm::pricing::Anchor>,

    /// Price the results of an earlier run instead of measuring.
    #[arg(long, value_name = "RUN.json", conflicts_with_all = ["quick", "samples", "out"])]
    pub(crate) from: Option<PathBuf>,

    #[command(flatten)]
    pub(crate) output: Output,
}

const GAS_HELP: &str = "\
Columns: nominal gas from the fork's schedule (revm's gas for opcode
sequences); ns direct (revm-precompile: the Theil-Sen slope where samples
were fitted, else the P50, ±half the 95% CI); ns bytecode (a STATICCALL
loop in revm, less the same loop calling IDENTITY with no input);
calculated gas = ns x 3000 / ns(ECRECOVER) with its interval; MGas/s =
nominal gas / ns direct; the pricing flag.

Examples:
  dyno gas --quick
  dyno gas --anchor arith --format csv > gas.csv
  dyno gas --from dyno-results/<run>.json --fork prague";

/// `60mgas` (or `60`) or `arith`.
fn parse_anchor(s: &str) -> Result<dyno_evm::pricing::Anchor, String> {
    use dyno_evm::pricing::Anchor;
    let t = s.trim().to_ascii_lowercase();
    if t == "arith" || t == "arithmetic" {
        return Ok(Anchor::Arithmetic);
    }
    let number = t
        .strip_suffix("mgas/s")
        .or_else(|| t.strip_suffix("mgas"))
        .unwrap_or(&t);
    match number.trim().parse::<f64>() {
        Ok(m) if m.is_finite() && m > 0.0 => Ok(Anchor::Throughput(m)),
        _ => Err(format!(
            "{s:?} is not an anchor: write a throughput such as `60mgas` (60 MGas/s) or `arith`"
        )),
    }
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
}

/// Sampling, result file, stdout format and progress: shared by `run` and
/// `gas`.
#[derive(Debug, Args)]
pub(crate) struct Output {
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
