//! dyno worker's flags (the adapter-protocol worker) and dyno join's (a fleet's load worker).

use super::*;

pub(crate) const WORKER_HELP: &str = "\
`dyno worker` serves this dyno's own benchmarks over the adapter protocol on
stdin and stdout (docs/adapter-protocol.md): what `dyno ab` starts on each side.
It is not meant to be run by hand. A fleet's load worker is `dyno join`.

Exit codes: 0 at the end of its input; 2 a protocol error.";

pub(crate) const JOIN_HELP: &str = "\
`dyno join` makes this machine a load worker of a fleet: it waits on the broker for `dyno load --fleet`
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
  dyno join --new-key fleet.key                 make a key; copy it to every machine
  dyno setup mosquitto                          a broker on 127.0.0.1:1883
  dyno join --broker mqtt://10.0.0.5:1883/lab --key fleet.key --rpc http://10.0.0.7:8545
  dyno join --broker mqtt://10.0.0.5:1883/lab --key fleet.key --allow-node 10.0.0.5
  dyno load --fleet mqtt://10.0.0.5:1883/lab --fleet-key fleet.key --workers 3 --rpc http://10.0.0.7:8545

Exit codes: 0 released by the orchestrator; 2 a usage error, the broker unreachable
or lost, refused by the orchestrator, or interrupted.";

/// `dyno worker`.
#[derive(Debug, Clone, Args)]
#[command(after_help = WORKER_HELP)]
pub(crate) struct WorkerArgs {
    /// The fleet's flags, moved to `dyno join`: refused, naming it.
    #[arg(long, hide = true, value_name = "URL")]
    pub(crate) broker: Option<String>,

    /// Moved to `dyno join --new-key`: refused, naming it.
    #[arg(long, hide = true, value_name = "FILE")]
    pub(crate) new_key: Option<PathBuf>,
}

/// `dyno join`.
#[derive(Debug, Clone, Args)]
#[command(after_help = JOIN_HELP)]
pub(crate) struct JoinArgs {
    /// Be a load worker on this MQTT broker (`mqtt://HOST:PORT/NAME`, or
    /// `mqtts://` for TLS).
    #[arg(
        long,
        value_name = "URL",
        requires = "key",
        required_unless_present = "new_key"
    )]
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

impl JoinArgs {
    /// The fleet worker these flags ask for.
    pub(crate) fn request(&self) -> dyno_lab::fleet::WorkerRequest {
        dyno_lab::fleet::WorkerRequest {
            broker: self.broker.clone().unwrap_or_default(),
            key: self.key.clone().unwrap_or_default(),
            login: self.broker_login.clone(),
            ca: self.broker_ca.clone(),
            name: self.name.clone(),
            rpc: self.rpc.clone(),
            allow_nodes: self.allow_node.clone(),
            once: self.once,
            clock_skew_ms: self.clock_skew_ms,
            claim_version: self.claim_version.clone(),
            quiet: self.quiet,
        }
    }
}

impl WorkerArgs {
    /// The fleet's flags `dyno worker` once took are refused, naming
    /// `dyno join`.
    pub(crate) fn refuse_fleet_flags(&self) -> anyhow::Result<()> {
        let flag = match (&self.broker, &self.new_key) {
            (Some(_), _) => "--broker",
            (None, Some(_)) => "--new-key",
            (None, None) => return Ok(()),
        };
        anyhow::bail!(
            "dyno worker {flag}: a fleet's load worker is `dyno join` now, with the same flags \
             (`dyno join {flag} ...`; `dyno join --help`)"
        )
    }
}
