//! dyno gas's flags: the direct table, --state and --blocks, and the fork and anchor they take.

use super::*;

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
    /// specs/operations.toml (EIP-7904's compute set and EIP-8038's state
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
    /// ethereumjs, which has no Osaka). A name with :bare (geth:bare,
    /// ethrex:bare) starts the client with its precompile result cache
    /// and state prefetcher off: the operation's own cost, where the
    /// plain name is the client as it ships.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "NAME,...",
        default_value = "geth,geth:bare,revm",
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

    /// With --blocks: the most rounds (each round every client takes every
    /// series at a few counts beside its ECRECOVER anchor; the default is
    /// specs/operations.toml's `rounds`, 1 with --quick). A run stops
    /// sooner once every anchor ratio's 95% interval is within ±5%, after
    /// 3 rounds at least.
    #[arg(long, value_name = "N", requires = "blocks")]
    pub(crate) rounds: Option<u64>,

    /// With --blocks: start no round after this many minutes of replay
    /// (the round in progress ends; the Result says which ratios reached
    /// their target).
    #[arg(long, value_name = "MINUTES", requires = "blocks")]
    pub(crate) time_limit: Option<u64>,

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

pub(crate) const GAS_HELP: &str = "\
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
pub(crate) fn parse_fork(s: &str) -> Result<dyno_lab::client::Fork, String> {
    dyno_lab::client::Fork::parse(s.trim()).ok_or_else(|| {
        format!(
            "{s:?}: dyno makes its chains under {}",
            dyno_lab::client::Fork::ALL.map(|f| f.name()).join(" or ")
        )
    })
}

pub(crate) fn parse_anchor(s: &str) -> Result<dyno_format::gas::Anchor, String> {
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
