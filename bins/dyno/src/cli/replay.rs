//! dyno replay's and dyno ab's flags, and the output they write.

use super::*;

pub(crate) const REPLAY_HELP: &str = "\
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

pub(crate) const AB_HELP: &str = "\
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
    /// geth:bare and ethrex:bare: the client with its precompile result
    /// cache and state prefetcher off.
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
