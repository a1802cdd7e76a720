//! dyno setup's and dyno doctor's flags.

use super::*;

pub(crate) const SETUP_HELP: &str = "\
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
