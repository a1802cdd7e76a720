//! The flags of what dyno measures with: its clients, adapters and baselines.

use super::*;

pub(crate) const BASELINE_HELP: &str = "\
A RUN is a result file (dyno-results/<id>.json), a run id from the history,
or `latest` (the default: the newest run in the history).

Examples:
  dyno run --quick && dyno baseline save main --reason \"first baseline\"
  dyno baseline save main --from dyno-results/<id>.json --reason \"new CI machine\"
  dyno baseline list
  dyno baseline show main
  dyno baseline export main -o baselines/main.json     commit it
  dyno baseline import baselines/main.json             on another machine";

pub(crate) const CLIENT_HELP: &str = "\
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

pub(crate) const ADAPTER_HELP: &str = "\
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
