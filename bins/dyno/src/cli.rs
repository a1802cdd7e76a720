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
    /// and stdout (what `dyno ab` starts on each side); with --broker, be
    /// a load worker of a fleet (`dyno load --fleet`).
    Worker(WorkerArgs),
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

Transaction types: legacy (0), accesslist (1), transfer/erc20/store/deploy (2), blob
(3: 1-6 blobs, KZG commitments and, on Osaka, cell proofs from c-kzg) and setcode (4:
an EIP-7702 delegation to Store, then a call through it). After the run every included
transaction is checked on chain: its receipt's type, a blob transaction's blob gas, a
delegation through eth_getCode, a written slot read back.

Writes dyno-results/<run>-load.json (schema v1, `load` section), a per-transaction
CSV per node and signer, the node's metrics as scraped (a started geth serves them;
--metrics-url for others), and latency, throughput, node, histogram and blocks plots
(SVG and PNG).

Examples:
  dyno setup geth                       build the pinned geth once
  dyno load                             2000 transfers at 500 tx/s into a temporary geth
  dyno load --txs 20000 --rate 1000     the acceptance run
  dyno load --node geth,anvil,hardhat   the same pre-signed load on three dev nodes
  dyno load --workload mix              transfers, ERC-20, storage writes and deployments
  dyno load --workload blob --txs 200   blob transactions (9 blobs a block: about 90 s)
  dyno load --workload types            every transaction type, 0 to 4, in one load
  dyno load --signer both               client-signed against node-signed, one report
  dyno load --rpc http://127.0.0.1:8545 --funder-key 0x...   any running node
  dyno load --self-test                 only the generator's null-sink ceiling
  dyno load --fleet mqtt://10.0.0.5:1883/lab --fleet-key fleet.key --workers 3 --rpc http://10.0.0.7:8545
                                        from three machines running `dyno worker --broker`
  dyno load --txs 0 --logs 100,1000,5000,20000 --reads 5000
                                        the read path: eth_getLogs sizes, then a read load

Exit codes: 0 ok; 1 a wrong result (a node returned another hash, the chain scan
disagrees with the tracker, or the on-chain check failed); 2 a usage or runtime error, or a run cut short
(its partial data is saved and marked incomplete).";

#[derive(Debug, Clone, Args)]
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

    /// Target a running node at this JSON-RPC URL instead (http:// only).
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

    /// A kind (transfer, erc20, store, deploy, legacy, accesslist, blob,
    /// setcode) or a mix named in specs/load/mixes.toml (`mix` is its
    /// default mix; `types` has every transaction type).
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

    /// Seconds to wait for inclusion after the last send, and again after
    /// each block that includes more of the run's transactions.
    #[arg(long, default_value_t = 60, value_name = "S")]
    pub(crate) inclusion_timeout: u64,

    /// Seconds to wait for the finalized tag to pass the last inclusion
    /// (0: do not wait).
    #[arg(long, default_value_t = 120, value_name = "S")]
    pub(crate) finality_timeout: u64,

    /// Milliseconds between the tracker's polls of the head.
    #[arg(long, default_value_t = 100, value_name = "MS")]
    pub(crate) poll_ms: u64,

    /// The node's Prometheus metrics, scraped through the run (a geth dyno
    /// starts serves its own; give this for --rpc or --node-cmd), e.g.
    /// http://127.0.0.1:6060/debug/metrics/prometheus.
    #[arg(long, value_name = "URL")]
    pub(crate) metrics_url: Option<String>,

    /// Milliseconds between scrapes of the node's metrics.
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub(crate) metrics_ms: u64,

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

    /// Save the blocks the node built as a chain folder in DIR (new or
    /// empty), for `dyno replay --set DIR`. geth only: it starts on a
    /// genesis dyno writes, with its debug API on.
    #[arg(long, value_name = "DIR")]
    pub(crate) record: Option<PathBuf>,

    /// Send from workers on other machines instead, met on this MQTT
    /// broker (`mqtt://HOST:PORT/NAME`; start each with `dyno worker
    /// --broker` and the same URL). This machine prepares the node, hands
    /// each worker the transactions of its own accounts, follows the chain
    /// and merges the workers' raw records.
    #[arg(long, value_name = "URL")]
    pub(crate) fleet: Option<String>,

    /// The fleet's key (64 hex digits, mode 0600): every message to and
    /// from the workers is sealed with it, so a broker client without it
    /// can neither command a worker nor inject a record. Every worker
    /// takes the same file (`dyno worker --new-key FILE` makes one).
    #[arg(long, value_name = "FILE", requires = "fleet")]
    pub(crate) fleet_key: Option<PathBuf>,

    /// The broker's own login, for a broker that asks for one: a file
    /// (mode 0600) holding one line USERNAME:PASSWORD.
    #[arg(long, value_name = "FILE", requires = "fleet")]
    pub(crate) fleet_login: Option<PathBuf>,

    /// For an mqtts:// broker: the CA certificates (PEM) its certificate
    /// must chain to, instead of this machine's.
    #[arg(long, value_name = "FILE", requires = "fleet")]
    pub(crate) fleet_ca: Option<PathBuf>,

    /// Workers a fleet run waits for.
    #[arg(long, default_value_t = 1, value_name = "N", requires = "fleet")]
    pub(crate) workers: usize,

    /// Seconds a fleet run waits for its workers to join.
    #[arg(long, default_value_t = 60, value_name = "SECS", requires = "fleet")]
    pub(crate) join_timeout: u64,

    /// What to print on stdout: the summary table, or the result JSON.
    #[arg(long, value_enum, default_value_t = LoadFormat::Table)]
    pub(crate) format: LoadFormat,

    /// No progress on stderr.
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

const WORKER_HELP: &str = "\
Without --broker, `dyno worker` serves this dyno's own benchmarks over the adapter
protocol on stdin and stdout (what `dyno ab` starts on each side).

With --broker it is a load worker: it waits on the broker for `dyno load --fleet`
with the same URL and key, answers its clock pings, checks and pre-signs the share
planned for it (transactions from accounts of its own), measures its generator's
ceiling, sends on the common schedule, and reports every request as it completes.
The run's figures are computed by the orchestrator from every worker's raw records.
It serves run after run until Ctrl-C (--once: one run).

Every message is sealed with the fleet's key (--key): a broker client without it
can neither command this worker nor forge its records. The worker sends only to
the node its operator names: its --rpc (the plan must name the same node), or a
node on an --allow-node host (for a node the orchestrator starts). A broker that
asks for a login gets it from --broker-login FILE (one line USERNAME:PASSWORD,
mode 0600), never from the URL; mqtts:// speaks TLS, the broker's certificate
checked against --broker-ca FILE or this machine's roots.

Examples:
  dyno worker --new-key fleet.key               make a key; copy it to every machine
  dyno setup mosquitto                          a broker on 127.0.0.1:1883
  dyno worker --broker mqtt://10.0.0.5:1883/lab --key fleet.key --rpc http://10.0.0.7:8545
  dyno worker --broker mqtt://10.0.0.5:1883/lab --key fleet.key --allow-node 10.0.0.5
  dyno load --fleet mqtt://10.0.0.5:1883/lab --fleet-key fleet.key --workers 3 --rpc http://10.0.0.7:8545

Exit codes: 0 released by the orchestrator; 2 a usage error, the broker unreachable
or lost, refused by the orchestrator, or interrupted.";

/// `dyno worker`.
#[derive(Debug, Clone, Args)]
#[command(after_help = WORKER_HELP)]
pub(crate) struct WorkerArgs {
    /// Be a load worker on this MQTT broker (`mqtt://HOST:PORT/NAME`, or
    /// `mqtts://` for TLS).
    #[arg(long, value_name = "URL", requires = "key")]
    pub(crate) broker: Option<String>,

    /// The fleet's key file (64 hex digits, mode 0600), the same as the
    /// orchestrator's --fleet-key.
    #[arg(long, value_name = "FILE", requires = "broker")]
    pub(crate) key: Option<PathBuf>,

    /// The broker's own login, for a broker that asks for one: a file
    /// (mode 0600) holding one line USERNAME:PASSWORD.
    #[arg(long, value_name = "FILE", requires = "broker")]
    pub(crate) broker_login: Option<PathBuf>,

    /// For an mqtts:// broker: the CA certificates (PEM) its certificate
    /// must chain to, instead of this machine's.
    #[arg(long, value_name = "FILE", requires = "broker")]
    pub(crate) broker_ca: Option<PathBuf>,

    /// Write a new fleet key to FILE (mode 0600; an existing file is kept)
    /// and exit.
    #[arg(long, value_name = "FILE", conflicts_with = "broker")]
    pub(crate) new_key: Option<PathBuf>,

    /// This worker's name on the broker, unique in the fleet (default: the
    /// host name and the process id).
    #[arg(long, value_name = "NAME", requires = "broker")]
    pub(crate) name: Option<String>,

    /// The node this worker sends to (JSON-RPC URL): a plan must name the
    /// same node, or it is refused.
    #[arg(long, value_name = "URL", requires = "broker")]
    pub(crate) rpc: Option<String>,

    /// Or a host (`HOST` or `HOST:PORT`) a plan's node may be on, for a
    /// node the orchestrator starts on a port of its choosing; repeatable.
    #[arg(long, value_name = "HOST", requires = "broker", conflicts_with = "rpc")]
    pub(crate) allow_node: Vec<String>,

    /// Serve one run, then exit.
    #[arg(long, requires = "broker")]
    pub(crate) once: bool,

    /// For tests: add this many ms to the worker's wall clock.
    #[arg(
        long,
        hide = true,
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    pub(crate) clock_skew_ms: f64,

    /// For tests: claim this dyno version.
    #[arg(long, hide = true)]
    pub(crate) claim_version: Option<String>,

    /// No progress on stderr.
    #[arg(long, short, requires = "broker")]
    pub(crate) quiet: bool,
}

const REPLAY_HELP: &str = "\
Block sets (--set, comma-separated):
  30M, 36M, 60M     rounds of the four classes of block/validate (empty, transfers,
                    mix, full) at that gas limit, one chain from a fresh genesis;
                    the first --warmup rounds warm the client, the next --blocks
                    rounds are measured as client/newpayload/<limit>-<class>
  1000-blocks       dyno's import chain, every block measured as
                    client/import/1000-blocks (a full sync through the Engine API)
  DIR               a chain folder: genesis.json and blocks.rlp (and chain.json,
                    which says each block's id). `dyno load --record DIR` writes one
                    from the blocks a real node built under load; --export writes
                    dyno's own sets as ones. Without chain.json every block is
                    measured as client/newpayload/<folder name>

Each replay starts the client from the set's genesis in a fresh data directory,
with a fresh JWT secret, the Engine API on 127.0.0.1 and no peers, then sends every
block with engine_newPayloadV4 and makes it the head with engine_forkchoiceUpdatedV3.
A reply other than VALID stops the replay at that block: never a timing. geth's own
per-block log (--debug.logslowblock 0) is joined to each block by hash.

--client-cmd starts any other Engine-API client; dyno fills in:
  {datadir}         an empty data directory      {genesis}     the genesis JSON file
  {jwt}             the JWT secret file (hex)    {authrpc_port} its Engine API port
  {p2p_port}        a free port for p2p          {http_port}   a free port for JSON-RPC
  {metrics_port}    where it serves Prometheus metrics (geth's /debug/metrics/prometheus),
                    scraped when it first answers and after the last block
The client must initialise its data directory from {genesis} itself, e.g.
  --client-cmd 'sh -c \"geth init --datadir {datadir} {genesis} && exec geth \\
    --datadir {datadir} --syncmode full --authrpc.port {authrpc_port} \\
    --authrpc.jwtsecret {jwt} --port {p2p_port} --nodiscover --maxpeers 0 \\
    --debug.logslowblock 0\"'
A client that answers SYNCING (geth does in its default snap sync mode) fails the
replay at its first block: it is not executing the blocks it is given.

A/B (--against): the two clients replay every set in pairs of runs in ABBA order
(--pairs, at least 3, default 4: an even number puts each side first
equally often); per id, each pair's effect is the median over its blocks
of B's newPayload time / A's, and the interval is Student's t over the pairs,
simultaneous over the ids at --confidence. Verdicts: faster, slower, no difference (a
difference under --floor is none). `--against geth` with `--client geth` is an
A/A: the method's own check, which must find no difference.

Examples:
  dyno setup geth                           build the pinned geth once
  dyno replay                               16 measured rounds per class at 30M, 36M, 60M
  dyno replay --quick --format json --no-store
  dyno replay --set 1000-blocks             the import chain through newPayload
  dyno replay --export chains --set 60M     write the 60M set as files any client reads
  dyno load --txs 2000 --record rec/erc20 --workload erc20 && dyno replay --set rec/erc20
                                            a load run's blocks, replayed into a fresh geth
  dyno replay --quick --against geth        an A/A of the pinned geth
  dyno setup geth-1.17.7 && dyno replay --against geth-1.17.7
                                            geth 1.17.8 (A) against 1.17.7 (B)

Exit status: 0 every block VALID and timed; 2 a usage error, or a replay cut short:
a client that answered other than VALID (the block's result is marked wrong),
exited, hung or refused the JWT. The blocks timed until then are saved, the run
marked incomplete with the reason, and the client and its data directory removed.";

const AB_HELP: &str = "\
Sides:
  --base ./old/dyno       another dyno binary: its `dyno worker` is side A (the base),
                          this dyno's is side B (the candidate)
  --base-rev main         the dyno of a git revision of the repository dyno runs in:
                          built once per commit (cargo build --release, default
                          features, in a worktree with its own target folder) and kept
                          in <cache>/ab/<commit>/dyno; side B is this dyno
  --base-adapter go=DIR   another install of an adapter (adapters/go/setup DIR, e.g.
                          against another library version): side A; the installed
                          go adapter is side B

For each benchmark both sides are prepared and verified (a wrong result is a failure,
never a timing), warmed up, then timed in rounds of ~10 ms, A B B A A B B A ... Each
pair of adjacent rounds gives one ratio B/A; the host's slow spells, which last seconds,
slow both rounds of a pair alike. That is done in 4 passes (--passes N; the 1 s of
rounds per benchmark with --quick, else 4 s, is shared among them), each with fresh
worker processes from fresh copies of the binaries; a pass's statistic is its median
ratio, and the interval is Student's t over the passes. On a noisy host, more passes
(--passes 8) let one odd pass move the interval less.

Verdicts (B against A):
  regressed      the whole 95% interval lies above +threshold, and the t test over
                 the passes, Holm-adjusted over every benchmark, says B differs
  improved       likewise below -threshold
  unchanged      the whole interval lies within ±threshold
  inconclusive   the interval spans a threshold: too noisy here to say
Each result carries its minimum detectable effect: the change the verdict would flag
95% of the time at the noise it saw, with Holm's test over this run's number of
comparisons (a run of many benchmarks needs a larger change to flag any one; more
--passes shrink it). The run records the machine's noise (CPU steal, load, timer).

DYNO_TEST_SLOWDOWN=ID=FACTOR (test only) slows the candidate side only.

Examples:
  dyno ab --base ./old/dyno --quick                  the default suites, quick
  dyno ab --base ./old/dyno hash/keccak256 --quick   one group
  dyno ab --base-rev main crypto                     this checkout against main
  dyno ab --base-adapter go=/tmp/go-1.17.7 hash      two go-ethereum versions in the Go adapter
  DYNO_TEST_SLOWDOWN=hash/keccak256/1KiB=1.25 dyno ab --base $(command -v dyno) hash/keccak256 --quick
                                                     the gate catching a 25% slowdown (exit 1)

Exit status: 0 nothing regressed; 1 a regression or a wrong result; 2 a usage error, or
a run cut short (what was compared is saved and marked incomplete).";

/// Where a measuring command's result goes and what it prints (`dyno ab`,
/// `dyno replay`).
#[derive(Debug, Clone, Args)]
pub(crate) struct OutputArgs {
    /// Write the JSON result here (and Markdown beside it, as .md).
    /// Default: dyno-results/<run-id>.json.
    #[arg(long, short, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,

    /// What to print on stdout.
    #[arg(long, value_enum, default_value_t = LoadFormat::Table)]
    pub(crate) format: LoadFormat,

    /// No progress on stderr.
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

#[derive(Debug, Clone, Args)]
#[command(after_help = AB_HELP)]
pub(crate) struct AbArgs {
    /// Benchmarks to compare, like `dyno run`'s filter (default: the
    /// default suites).
    pub(crate) filter: Option<String>,

    /// Side A: another dyno binary (its `dyno worker`).
    #[arg(long, value_name = "PATH", conflicts_with_all = ["base_adapter", "base_rev"])]
    pub(crate) base: Option<PathBuf>,

    /// Side A: the dyno of a git revision of this repository (a commit,
    /// branch or tag), built once per commit in a worktree of its own.
    #[arg(long, value_name = "REV", conflicts_with = "base_adapter")]
    pub(crate) base_rev: Option<String>,

    /// Side A: another install of an adapter, RUNTIME=FOLDER.
    #[arg(long, value_name = "RUNTIME=DIR")]
    pub(crate) base_adapter: Option<String>,

    /// A change smaller than this fraction is not a regression.
    #[arg(long, default_value_t = 0.05, value_name = "FRACTION")]
    pub(crate) threshold: f64,

    /// 1 s of rounds per benchmark instead of 4.
    #[arg(long)]
    pub(crate) quick: bool,

    /// Passes, each with fresh workers (2 to 64); the rounds' time is
    /// shared among them. More passes let one odd pass move the interval
    /// less, at the cost of starting the workers again.
    #[arg(long, default_value_t = dyno_lab::ab::PASSES, value_name = "N")]
    pub(crate) passes: usize,

    #[command(flatten)]
    pub(crate) output: OutputArgs,
}

#[derive(Debug, Clone, Args)]
#[command(after_help = REPLAY_HELP)]
pub(crate) struct ReplayArgs {
    /// The clients, comma-separated, each replaying every set in turn (a
    /// fresh data directory each): geth (the one `dyno setup geth` built),
    /// ethrex and ethereumjs (`dyno setup ethrex`, `dyno setup
    /// ethereumjs`), another geth build in nodes/ (geth-1.17.7), or revm
    /// (dyno's own validator, in this process, on the same blocks).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "geth",
        value_name = "NAME,...",
        conflicts_with = "client_cmd"
    )]
    pub(crate) client: Vec<String>,

    /// Start another Engine-API client from this command line instead
    /// (placeholders below).
    #[arg(long, value_name = "CMD")]
    pub(crate) client_cmd: Option<String>,

    /// A second client to compare with in ABBA runs: geth (an A/A with the
    /// default client), another geth build (geth-1.17.7), or revm.
    #[arg(long, value_name = "NAME", conflicts_with = "against_cmd")]
    pub(crate) against: Option<String>,

    /// Or start the second client from this command line.
    #[arg(long, value_name = "CMD")]
    pub(crate) against_cmd: Option<String>,

    /// Block sets to replay, comma-separated (see below).
    #[arg(long = "set", value_delimiter = ',', value_name = "SET")]
    pub(crate) sets: Vec<String>,

    /// The fork dyno's sets are made under: osaka or prague (default: the
    /// newest every client runs; ethereumjs runs prague). The same
    /// transactions either way; the Result says which.
    #[arg(long, value_name = "FORK", value_parser = parse_fork)]
    pub(crate) fork: Option<dyno_lab::client::Fork>,

    /// Write each set as a chain folder DIR/<set> (genesis.json, blocks.rlp,
    /// payloads.jsonl, chain.json) instead of replaying it; prints the
    /// folders.
    #[arg(long, value_name = "DIR")]
    pub(crate) export: Option<PathBuf>,

    /// Measured rounds per class (default 16, or 3 with --quick).
    #[arg(long, value_name = "N")]
    pub(crate) blocks: Option<usize>,

    /// Warm-up rounds before them (default: as many as are measured).
    #[arg(long, value_name = "N")]
    pub(crate) warmup: Option<usize>,

    /// Pairs of runs in an A/B (ABBA order; an even number balances the
    /// order within pairs).
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub(crate) pairs: usize,

    /// In an A/B, a difference smaller than this fraction is none.
    #[arg(long, default_value_t = 0.01, value_name = "FRACTION")]
    pub(crate) floor: f64,

    /// In an A/B, the confidence of all the ids' intervals together.
    #[arg(long, default_value_t = 0.95, value_name = "LEVEL")]
    pub(crate) confidence: f64,

    /// The longest one Engine-API call may take, in seconds (a client that
    /// hangs fails the replay there).
    #[arg(long, default_value_t = 60, value_name = "SECONDS")]
    pub(crate) call_timeout: u64,

    /// Three measured rounds per class (and as many warm-up).
    #[arg(long)]
    pub(crate) quick: bool,

    #[command(flatten)]
    pub(crate) output: OutputArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum LoadFormat {
    Table,
    Json,
    Markdown,
}

const SETUP_HELP: &str = "\
Without names it sets up every adapter (go, go-etc, java, node, python) and every
client and dev node (geth, geth-1.17.7, anvil, hardhat, ethereumjs, ethrex; ethrex
is a Rust build of some 15 minutes on 2 cores), and says first what it will
install. mosquitto, the fleet's broker, is set up only when named: it starts a
broker that keeps running (on 127.0.0.1:1883; its pid in the file it names).

The set-up scripts are the repository's dyno was built from (or those of
$DYNO_ADAPTER_ROOT and $DYNO_NODES), never the current folder's. A runtime that
is missing is skipped with a one-line reason; a failed build exits 2 after the
others are done.

Examples:
  dyno setup                  every adapter, client and dev node
  dyno setup go java          two adapters
  dyno setup geth ethrex      two clients
  dyno setup mosquitto        the fleet's broker, started";

#[derive(Debug, Args)]
#[command(after_help = SETUP_HELP)]
pub(crate) struct SetupArgs {
    /// Only these adapters, clients or nodes (go, java, geth, ethrex,
    /// mosquitto...). Default: every adapter, client and dev node.
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

    /// Measure the machine's noise instead: CPU steal second by second,
    /// the load, the governor, the timer's lateness, and how much the
    /// speed of a fixed loop moves, for --seconds.
    #[arg(long)]
    pub(crate) noise: bool,

    /// How long --noise watches.
    #[arg(long, default_value_t = 10, value_name = "N", requires = "noise")]
    pub(crate) seconds: u64,
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
    /// (measured too). With --state or --blocks, the throughput time is
    /// priced at (default 60mgas and 100mgas).
    #[arg(long, value_name = "ANCHOR", value_parser = parse_anchor)]
    pub(crate) anchor: Option<dyno_format::gas::Anchor>,

    /// Price the results of an earlier run instead of measuring.
    #[arg(long, value_name = "RUN.json", conflicts_with_all = ["quick", "samples", "out"])]
    pub(crate) from: Option<PathBuf>,

    /// Price each operation inside a real client instead (docs/gas.md,
    /// "One operation inside a client"): op-isolation blocks from
    /// specs/reprice/ops.toml (EIP-7904's compute set and EIP-8038's state
    /// set, each state access on a key never touched before; each block's
    /// operation count checked by revm first), replayed into each
    /// --client, block time fitted on count the way EIP-7904 and EIP-8038
    /// do (NNLS, R² > 0.5 and p < 0.05), less a control series' glue, and
    /// jointly over an operation's parameters (count × parameter), in gas
    /// at --anchor (default 100mgas) beside today's and the proposed
    /// prices. `dyno report RUN.json` draws each series' blocks against
    /// their count with each client's fit.
    #[arg(long, conflicts_with = "state")]
    pub(crate) blocks: bool,

    /// With --blocks: the clients, in order (geth, ethrex, revm in this
    /// process, or another geth build `dyno setup` installed; not
    /// ethereumjs, which has no Osaka).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "NAME,...",
        default_value = "geth,revm",
        requires = "blocks"
    )]
    pub(crate) client: Vec<String>,

    /// With --blocks: only the series whose id contains one of these
    /// (their controls come along), e.g. --only ecrecover,keccak256.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "TEXT,...",
        requires = "blocks"
    )]
    pub(crate) only: Vec<String>,

    /// With --blocks: runs that time the same operations outside a client
    /// (`dyno run precompile,precompile-bytecode,opcode,hash --impl all`):
    /// their library and EVM-bytecode times are set beside each client's.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "RUN.json,...",
        requires = "blocks"
    )]
    pub(crate) with: Vec<PathBuf>,

    /// With --blocks: a peer's per-client table (CSV with a header naming
    /// operation, parameter, client and gas) set beside dyno's, each
    /// figure over ECRECOVER's in the same client, so machines of
    /// different speed compare (shown in the table, Markdown and JSON).
    #[arg(long, value_name = "FILE.csv", requires = "blocks")]
    pub(crate) compare: Option<PathBuf>,

    /// With --blocks: the longest one Engine-API call may take, in seconds.
    #[arg(
        long,
        default_value_t = 120,
        value_name = "SECONDS",
        requires = "blocks"
    )]
    pub(crate) call_timeout: u64,

    /// Price state access instead (docs/state.md): run the state suite (or
    /// price --from's state/ results) against every schedule in
    /// specs/gas/state/schedules.toml, ECRECOVER = 3000 and 60 MGas/s (or
    /// --anchor's throughput), with each access's growth with state size.
    #[arg(long)]
    pub(crate) state: bool,

    #[command(flatten)]
    pub(crate) output: Output,
}

const GAS_HELP: &str = "\
Columns: nominal gas from the fork's schedule (revm's gas for opcode
sequences); ns direct (revm-precompile: the Theil-Sen slope where samples
were fitted, else the P50, ±half the 95% CI); ns bytecode (a STATICCALL
loop in revm, less the same loop calling IDENTITY with no input, timed
beside each of its samples; its 95% interval always, marked ≈0 where it
includes zero); calculated gas = ns x 3000 / ns(ECRECOVER) with its
interval; bytecode gas, the same on bytecode times against bytecode
ECRECOVER; MGas/s = nominal gas / ns direct; the pricing flag.

Examples:
  dyno gas --quick
  dyno gas --anchor arith --format csv > gas.csv
  dyno gas --from dyno-results/<run>.json --fork prague
  dyno gas --state --quick                   state access against its schedules
  dyno gas --blocks                          each operation inside geth and revm
  dyno gas --blocks --quick --only ecrecover --client geth
  dyno gas --blocks --from RUN.json --with LEVELS.json --compare peer.csv";

/// `60mgas` (or `60`) or `arith`.
fn parse_fork(s: &str) -> Result<dyno_lab::client::Fork, String> {
    dyno_lab::client::Fork::parse(s.trim()).ok_or_else(|| {
        format!(
            "{s:?}: dyno makes its chains under {}",
            dyno_lab::client::Fork::ALL.map(|f| f.name()).join(" or ")
        )
    })
}

fn parse_anchor(s: &str) -> Result<dyno_format::gas::Anchor, String> {
    use dyno_format::gas::Anchor;
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
#[command(after_help = LIST_HELP)]
pub(crate) struct ListArgs {
    /// Only ids matching this: a group (`hash`), a substring (`keccak`) or a glob
    /// (`hash/*/32B`); several separated by commas. With a filter, only
    /// ids are listed, not the clients.
    pub(crate) filter: Option<String>,

    /// Only these implementations or runtimes, as `dyno run --impl` takes
    /// them: names (`geth,k256`), runtimes (`rust`, `go`, `java`, `node`,
    /// `python`, an external adapter's folder name) or `all`; a client's
    /// name keeps it in the clients table. Default: every one.
    #[arg(long = "impl", value_name = "NAME,...", value_delimiter = ',')]
    pub(crate) impls: Option<Vec<String>>,

    /// Only what runs now: built in, or installed by `dyno setup`.
    #[arg(long)]
    pub(crate) installed: bool,
}

const LIST_HELP: &str = "\
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

const BASELINE_HELP: &str = "\
A RUN is a result file (dyno-results/<id>.json), a run id from the history,
or `latest` (the default: the newest run in the history).

Examples:
  dyno run --quick && dyno baseline save main --reason \"first baseline\"
  dyno baseline save main --from dyno-results/<id>.json --reason \"new CI machine\"
  dyno baseline list
  dyno baseline show main
  dyno baseline export main -o baselines/main.json     commit it
  dyno baseline import baselines/main.json             on another machine";

const CLIENT_HELP: &str = "\
The checks, in order (docs/clients.md says what each asks and how to fix it):
  start         started from dyno's genesis, its Engine API answers dyno's token in time
  loopback      everything its process group listens on is on 127.0.0.1
  jwt           a token of the secret in {jwt} is accepted
  jwt-other     a token of another secret is refused (HTTP 401)
  jwt-none      a call without a token is refused
  jwt-unsigned  a token with alg none is refused
  jwt-stale     a token issued 5 minutes ago: refused, or a note (the spec says SHOULD)
  capabilities  engine_exchangeCapabilities offers engine_newPayloadV4 and forkchoiceUpdatedV3
  genesis       its block 0 is dyno's genesis (eth_getBlockByNumber on the Engine port)
  valid         block 1 (empty) and block 2 (714 transfers) are VALID
  invalid       block 2 with a wrong state root, its hash matching, is INVALID
  forkchoice    forkchoiceUpdated moves the head; eth_blockNumber and latest agree
  block-log     its own per-block timing log joined by hash, or a note that it has none
  metrics       its Prometheus metrics scraped, or a note that they are missing
  stop          SIGTERM ends it within 30 s; nothing left running or listening; data removed

A client dyno does not install is started from --client-cmd, the line `dyno replay
--client-cmd` takes, with the same placeholders (see `dyno replay --help`).

Examples:
  dyno setup geth && dyno client check geth
  dyno setup ethereumjs && dyno client check ethereumjs
  dyno setup ethrex && dyno client check ethrex
  dyno client check --client-cmd 'my-client --datadir {datadir} --genesis {genesis} \\
      --engine-port {authrpc_port} --jwt {jwt} --metrics-port {metrics_port}'

Exit status: 0 every check passed (notes and skips allowed); 1 a check failed; 2 a
usage error.";

#[derive(Debug, Args)]
#[command(after_help = CLIENT_HELP)]
pub(crate) struct ClientArgs {
    #[command(subcommand)]
    pub(crate) action: ClientAction,
}

#[derive(Debug, Subcommand)]
pub(crate) enum ClientAction {
    /// Check that dyno drives a client correctly: start it from dyno's
    /// genesis on loopback, its JWT authentication (and tokens it must
    /// refuse), its capabilities, a good block VALID and a bad one
    /// INVALID, the head moved by forkchoice, its own per-block log and
    /// metrics, and a clean stop. One line per check; exit 1 if any fails.
    Check {
        /// An installed client: geth, ethrex, ethereumjs, or another geth
        /// build in nodes/ (geth-1.17.7).
        #[arg(required_unless_present = "client_cmd", conflicts_with = "client_cmd")]
        name: Option<String>,
        /// Or start a client from this command line (placeholders as for
        /// `dyno replay --client-cmd`).
        #[arg(long, value_name = "CMD")]
        client_cmd: Option<String>,
        /// The fork of dyno's genesis: osaka or prague (default: the newest
        /// the client runs).
        #[arg(long, value_name = "FORK", value_parser = parse_fork)]
        fork: Option<dyno_lab::client::Fork>,
        /// How long the client may take to answer after it starts, in
        /// seconds.
        #[arg(long, default_value_t = 60, value_name = "SECONDS")]
        ready_timeout: u64,
        /// The longest one Engine-API call may take, in seconds.
        #[arg(long, default_value_t = 60, value_name = "SECONDS")]
        call_timeout: u64,
        /// Print the report only, not each line as it is found.
        #[arg(long, short)]
        quiet: bool,
    },
}

#[derive(Debug, Args)]
#[command(after_help = ADAPTER_HELP)]
pub(crate) struct AdapterArgs {
    #[command(subcommand)]
    pub(crate) action: AdapterAction,
}

#[derive(Debug, Subcommand)]
pub(crate) enum AdapterAction {
    /// Check that the adapter in DIR conforms to the protocol: install it
    /// (if needed), then hello, every offered id prepared with dyno's
    /// cases and its outputs checked, the error paths, a quiet stdout, the
    /// end of input, its empty loop's cost and its clock against a sleep.
    /// Exit 1 if any check fails.
    Check {
        /// The adapter's folder (the one holding `setup`).
        dir: PathBuf,
        /// Do not echo `setup`'s output.
        #[arg(long, short)]
        quiet: bool,
        /// Write DIR/offers.json from the worker's hello (what `dyno list`
        /// shows of the adapter before it is installed); without it, a
        /// folder that has the file fails the `offers` check when the
        /// file and the hello disagree.
        #[arg(long)]
        write_offers: bool,
    },
    /// Write a new adapter into DIR (which must not exist or be empty; its
    /// name is the adapter's): the protocol loop from the runtime's
    /// protocol library, one example benchmark (hash/sha256 from the
    /// standard library), its test, `setup` and the hashed lockfiles. It
    /// passes `dyno adapter check` as written.
    New {
        /// The adapter's language: go, java, node, python or scala.
        runtime: String,
        /// The new adapter's folder; its name is the adapter's.
        dir: PathBuf,
    },
}

const ADAPTER_HELP: &str = "\
Examples:
  dyno adapter new python ../my-adapter     a Python adapter, ready to edit
  dyno adapter check ../my-adapter          does it speak the protocol?
  dyno run hash/sha256 --adapter ../my-adapter --impl my-adapter-sha256,sha2
  dyno adapter check adapters/go            dyno's own adapters pass it too
  dyno adapter check --write-offers adapters/go   after a change to what it offers

The walk-through: docs/own-adapter.md. The protocol: docs/adapter-protocol.md.";

#[derive(Debug, Args)]
#[command(after_help = BASELINE_HELP)]
pub(crate) struct BaselineArgs {
    #[command(subcommand)]
    pub(crate) action: BaselineAction,
}

#[derive(Debug, Subcommand)]
pub(crate) enum BaselineAction {
    /// Save a run as the next version of baseline NAME.
    Save {
        /// The baseline's name.
        name: String,
        /// The run: a result file, a run id, or `latest`.
        #[arg(long, value_name = "RUN", default_value = "latest")]
        from: String,
        /// Why this version exists (kept in its history).
        #[arg(long, value_name = "TEXT")]
        reason: String,
    },
    /// List the baselines: versions, last change and why.
    List,
    /// Show a baseline's version history and its figures.
    Show {
        /// The baseline's name.
        name: String,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Write a baseline, every version, to a JSON file.
    Export {
        /// The baseline's name.
        name: String,
        /// The file (`-` for stdout).
        #[arg(long, short, value_name = "FILE")]
        out: PathBuf,
    },
    /// Read a baseline file into the history (replacing one of that name).
    Import {
        /// The file.
        file: PathBuf,
        /// Store it under this name instead.
        #[arg(long, value_name = "NAME")]
        name: Option<String>,
    },
}

const CHECK_HELP: &str = "\
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

const COMPARE_HELP: &str = "\
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

const REPORT_HELP: &str = "\
Examples:
  dyno report dyno-results/<id>.json -o report.html
  dyno report latest dyno-results/<id>-load.json --trend hash/keccak256/32B -o report.html
  dyno report latest --format markdown > comment.md
  dyno report latest --format bmf > bench.json        Bencher Metric Format
  dyno report latest --format gobench > new.txt       then: benchstat old.txt new.txt";

#[derive(Debug, Args)]
#[command(after_help = REPORT_HELP)]
pub(crate) struct ReportArgs {
    /// Runs: result files, run ids, `latest` or `latest~N`.
    #[arg(required = true, value_name = "RUN")]
    pub(crate) runs: Vec<String>,
    /// The format (html needs -o, or writes to stdout).
    #[arg(long, value_enum, default_value_t = ReportFormat::Html)]
    pub(crate) format: ReportFormat,
    /// Write here instead of stdout.
    #[arg(long, short, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
    /// Add a trend chart of this id over the history (repeatable).
    #[arg(long, value_name = "ID")]
    pub(crate) trend: Vec<String>,
    /// Runs of history in a trend (at least 2: a trend needs two points).
    #[arg(long, default_value_t = 50, value_name = "N", value_parser = clap::value_parser!(u32).range(2..))]
    pub(crate) trend_runs: u32,
    /// The fork whose schedule prices precompiles in the gas chart.
    #[arg(long, default_value = "osaka", value_name = "FORK")]
    pub(crate) fork: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ReportFormat {
    Html,
    Markdown,
    Csv,
    Json,
    Bmf,
    Gobench,
}

const COMPLETIONS_HELP: &str = "\
Install (each generated from this binary's own flags, so it matches it):
  bash:  dyno completions bash > ~/.local/share/bash-completion/completions/dyno
  zsh:   dyno completions zsh > ~/.zfunc/_dyno   (with fpath+=~/.zfunc before compinit)
  fish:  dyno completions fish > ~/.config/fish/completions/dyno.fish

Examples:
  dyno completions bash
  dyno completions zsh > _dyno";

#[derive(Debug, Args)]
#[command(after_help = COMPLETIONS_HELP)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum, value_name = "SHELL")]
    pub(crate) shell: clap_complete::Shell,
}

const MAN_HELP: &str = "\
Examples:
  dyno man | man -l -                  read it now
  dyno man > dyno.1                    the top-level page
  dyno man --dir man/man1              dyno.1 and a page per command (dyno-run.1, ...)";

#[derive(Debug, Args)]
#[command(after_help = MAN_HELP)]
pub(crate) struct ManArgs {
    /// Write `dyno.1` and one page per command and subcommand
    /// (`dyno-run.1`, `dyno-baseline-save.1`, ...) into this folder
    /// (created if missing) instead of printing the top-level page.
    #[arg(long, value_name = "DIR")]
    pub(crate) dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  dyno history\n  dyno history hash/keccak256/32B\n  dyno history --import dyno-results/*.json"
)]
pub(crate) struct HistoryArgs {
    /// Show this id's P50 over the saved runs instead of the run list.
    pub(crate) id: Option<String>,
    /// Only this implementation (with an id).
    #[arg(long = "impl", value_name = "NAME")]
    pub(crate) implementation: Option<String>,
    /// How many runs.
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub(crate) limit: usize,
    /// Add these result files to the history (e.g. ones saved while the
    /// history was unreachable).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub(crate) import: Vec<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub(crate) json: bool,
}
