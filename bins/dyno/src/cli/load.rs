//! dyno load's flags: the node, the schedule, the mix, signing and the fleet.

use super::*;

pub(crate) const LOAD_HELP: &str = "\
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
                                        from three machines running `dyno join --broker`
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
    /// broker (`mqtt://HOST:PORT/NAME`; start each with `dyno join
    /// --broker` and the same URL). This machine prepares the node, hands
    /// each worker the transactions of its own accounts, follows the chain
    /// and merges the workers' raw records.
    #[arg(long, value_name = "URL")]
    pub(crate) fleet: Option<String>,

    /// The fleet's key (64 hex digits, mode 0600): every message to and
    /// from the workers is sealed with it, so a broker client without it
    /// can neither command a worker nor inject a record. Every worker
    /// takes the same file (`dyno join --new-key FILE` makes one).
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

impl LoadArgs {
    /// The campaign these flags ask for.
    pub(crate) fn request(&self) -> dyno_lab::campaign::Request {
        let a = self.clone();
        dyno_lab::campaign::Request {
            node: a.node,
            rpc: a.rpc,
            node_cmd: a.node_cmd,
            node_url: a.node_url,
            txs: a.txs,
            rate: a.rate,
            accounts: a.accounts,
            workload: a.workload,
            signer: a.signer,
            block_time: a.block_time,
            seed: a.seed,
            tip_gwei: a.tip_gwei,
            max_fee_gwei: a.max_fee_gwei,
            connections: a.connections,
            max_in_flight: a.max_in_flight,
            lag_threshold_ms: a.lag_threshold_ms,
            inclusion_timeout: a.inclusion_timeout,
            finality_timeout: a.finality_timeout,
            poll_ms: a.poll_ms,
            metrics_url: a.metrics_url,
            metrics_ms: a.metrics_ms,
            funder_key: a.funder_key,
            threads: a.threads,
            logs: a.logs,
            body_limit: a.body_limit,
            reads: a.reads,
            read_rate: a.read_rate,
            read_methods: a.read_methods,
            self_test: a.self_test,
            self_test_requests: a.self_test_requests,
            out: a.out,
            record: a.record,
            quiet: a.quiet,
            fleet: a.fleet,
            fleet_key: a.fleet_key,
            fleet_login: a.fleet_login,
            fleet_ca: a.fleet_ca,
            workers: a.workers,
            join_timeout: a.join_timeout,
        }
    }
}
