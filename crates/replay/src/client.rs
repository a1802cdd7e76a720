//! The execution client a replay drives: geth or EthereumJS as `dyno
//! setup` installed them, or any Engine-API client from a command line
//! with placeholders. Each start is a fresh data directory initialised
//! from the set's genesis, a JWT secret made for it, the Engine API on
//! loopback, no peers; stopping it removes the directory.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use dyno_evm::block::fork::Fork;
use dyno_node::LocalNode;
use serde_json::json;

use crate::engine::{Engine, EngineError};

/// A client dyno installs from a folder of its own in `nodes/` (`dyno
/// setup NAME`) and starts from a command line of its own: the worked
/// examples of a `--client-cmd` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    /// EthereumJS (`nodes/ethereumjs`, npm).
    EthereumJs,
    /// ethrex's crates as a node (`nodes/ethrex`, crates.io).
    Ethrex,
}

impl Builtin {
    pub const ALL: [Builtin; 2] = [Builtin::EthereumJs, Builtin::Ethrex];

    /// Its name, as `--client` and `nodes/` spell it.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::EthereumJs => "ethereumjs",
            Builtin::Ethrex => "ethrex",
        }
    }

    /// The client `name` means.
    pub fn parse(name: &str) -> Option<Builtin> {
        Self::ALL.into_iter().find(|b| b.name() == name)
    }

    /// The flags that turn off what keeps an operation's own cost out of
    /// sight ([`Caches::Off`]): ethrex's result cache shared with its
    /// warmer (`--no-precompile-cache`, `nodes/ethrex/src/main.rs`);
    /// `None` for EthereumJS 0.10, which has neither a result cache nor a
    /// prefetcher.
    pub fn caches_off(self) -> Option<&'static [&'static str]> {
        match self {
            Builtin::EthereumJs => None,
            Builtin::Ethrex => Some(&["--no-precompile-cache"]),
        }
    }

    /// The newest fork it runs: Prague for EthereumJS 0.10 (its `osaka`
    /// is the withdrawn EOF fork), Osaka for ethrex.
    pub fn newest_fork(self) -> Fork {
        match self {
            Builtin::EthereumJs => Fork::Prague,
            Builtin::Ethrex => Fork::Osaka,
        }
    }

    /// Its command line, `{home}` its install's folder.
    ///
    /// EthereumJS reads the geth genesis itself (its `run` puts back the
    /// genesis gasUsed EthereumJS's parser drops), has the Engine API on
    /// loopback with the secret, no peers and no discovery, no log file,
    /// Prometheus metrics; `run` binds every other socket to 127.0.0.1.
    /// ethrex keeps its state in memory (no data directory) and opens no
    /// peer-to-peer socket.
    pub fn cmd(self) -> &'static str {
        match self {
            Builtin::EthereumJs => concat!(
                "{home}/run --gethGenesis {genesis} --dataDir {datadir} ",
                "--rpcEngine --rpcEngineAddr 127.0.0.1 --rpcEnginePort {authrpc_port} ",
                "--jwtSecret {jwt} --port {p2p_port} --maxPeers 0 --discDns false ",
                "--discV4 false --no-logFile --prometheus --prometheusPort {metrics_port}"
            ),
            Builtin::Ethrex => concat!(
                "{home}/run --genesis {genesis} --authrpc-port {authrpc_port} --jwt {jwt} ",
                "--http-port {http_port}"
            ),
        }
    }
}

/// geth's flags for [`Caches::Off`]: no precompile result cache (geth
/// 1.17.8's `core/vm/precompile_cache.go`, shared between the state
/// prefetcher and block processing) and no state prefetcher (which runs
/// each block's transactions ahead on the other cores).
pub const GETH_CACHES_OFF: [&str; 2] = ["--cache.noprecompile", "--cache.noprefetch"];

/// What a client runs with: the caches it ships with on, or off.
///
/// A client's result cache and prefetcher are what it does in
/// production, so `Shipped` is the client as an operator runs it. They
/// also hide an operation's own cost: a prefetcher computes a block's
/// precompile calls ahead on another core and the serial pass reads its
/// results from the cache. `Off` (a client's name with `:bare`) is the
/// operation's own cost in that client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Caches {
    #[default]
    Shipped,
    Off,
}

impl Caches {
    /// The suffix of a client's name that asks for [`Caches::Off`].
    pub const OFF_SUFFIX: &'static str = ":bare";
}

/// Which client to start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientSpec {
    /// geth installed in `home` (`run` and `version` in it).
    Geth { home: PathBuf, caches: Caches },
    /// A client of [`Builtin`] installed in `home`, started from its
    /// [`Builtin::cmd`].
    Builtin {
        client: Builtin,
        home: PathBuf,
        caches: Caches,
    },
    /// A shell command line (`--client-cmd`) with the placeholders of
    /// [`LocalNode::start_engine_cmd`].
    Cmd { cmdline: String },
    /// dyno's own validator (revm) in this process: each block validated
    /// and committed into the state the one before left
    /// ([`crate::drive`]), no Engine API.
    Revm,
}

impl ClientSpec {
    /// What the client is called in results: `geth`, `ethereumjs`,
    /// `cmd` or `revm`.
    pub fn name(&self) -> &'static str {
        match self {
            ClientSpec::Geth { .. } => "geth",
            ClientSpec::Builtin { client, .. } => client.name(),
            ClientSpec::Cmd { .. } => "cmd",
            ClientSpec::Revm => "revm",
        }
    }

    /// The newest fork it runs: Osaka, but Prague for EthereumJS 0.10
    /// (whose `osaka` is the withdrawn EOF fork). A command line's client
    /// is taken to run Osaka (`--fork` says otherwise).
    pub fn newest_fork(&self) -> Fork {
        match self {
            ClientSpec::Builtin { client, .. } => client.newest_fork(),
            _ => Fork::Osaka,
        }
    }

    /// Whether it runs with its caches as shipped or off: always
    /// [`Caches::Shipped`] for a command line's client and for revm in
    /// dyno's process (which has neither a result cache nor a prefetcher).
    pub fn caches(&self) -> Caches {
        match self {
            ClientSpec::Geth { caches, .. } | ClientSpec::Builtin { caches, .. } => *caches,
            _ => Caches::Shipped,
        }
    }

    /// The flags its start adds to its command line: for [`Caches::Off`],
    /// [`GETH_CACHES_OFF`] or its [`Builtin::caches_off`]; none as shipped.
    pub fn caches_flags(&self) -> &'static [&'static str] {
        match (self, self.caches()) {
            (_, Caches::Shipped) => &[],
            (ClientSpec::Geth { .. }, Caches::Off) => &GETH_CACHES_OFF,
            (ClientSpec::Builtin { client, .. }, Caches::Off) => {
                client.caches_off().unwrap_or_default()
            }
            _ => &[],
        }
    }

    /// Where its results run: `engine-api` for a client, `rust` in-process.
    pub fn runtime(&self) -> &'static str {
        match self {
            ClientSpec::Revm => "rust",
            _ => crate::results::RUNTIME,
        }
    }

    /// How often a client that exits on a taken port is started again.
    pub const PORT_ATTEMPTS: usize = 3;

    /// Start it on `genesis_json` and wait (at most `ready`) until its
    /// Engine API answers; each Engine-API call then waits at most
    /// `call_limit`. A client that exits because a port it was given was
    /// taken in the moment between dyno finding it free and the client
    /// binding it is started again on fresh ports, at most
    /// [`Self::PORT_ATTEMPTS`] times in all.
    pub fn start(
        &self,
        genesis_json: &str,
        ready: Duration,
        call_limit: Duration,
    ) -> Result<Running, ClientError> {
        let mut attempt = 1;
        loop {
            match self.start_once(genesis_json, ready, call_limit) {
                Err(ClientError::Start(e)) if e.port_taken() && attempt < Self::PORT_ATTEMPTS => {
                    attempt += 1;
                }
                done => return done,
            }
        }
    }

    fn start_once(
        &self,
        genesis_json: &str,
        ready: Duration,
        call_limit: Duration,
    ) -> Result<Running, ClientError> {
        let secret = crate::jwt::secret().map_err(ClientError::Secret)?;
        let (mut node, port) = match self {
            ClientSpec::Geth { home, .. } => {
                LocalNode::start_geth_engine(home, genesis_json, &secret, self.caches_flags())
            }
            ClientSpec::Builtin { client, home, .. } => {
                let cmd = std::iter::once(client.cmd())
                    .chain(self.caches_flags().iter().copied())
                    .collect::<Vec<_>>()
                    .join(" ");
                LocalNode::start_engine_cmd_in(&cmd, Some(home), genesis_json, &secret).map(
                    |(mut node, port)| {
                        node.name = client.name().into();
                        node.version = dyno_node::installed_version(home);
                        (node, port)
                    },
                )
            }
            ClientSpec::Cmd { cmdline } => {
                LocalNode::start_engine_cmd(cmdline, genesis_json, &secret)
            }
            ClientSpec::Revm => unreachable!("revm runs in-process, never started"),
        }
        .map_err(ClientError::Start)?;
        let deadline = Instant::now() + ready;
        let engine = loop {
            node.check_alive("starting").map_err(ClientError::Start)?;
            // A probe takes no longer than what is left of the wait: a
            // client that takes the connection and never answers is
            // reported at --ready-timeout, not at the call limit.
            let left = deadline.saturating_duration_since(Instant::now()).clamp(
                Duration::from_millis(200),
                call_limit.max(Duration::from_millis(200)),
            );
            let tried = Engine::connect(port, secret, left).and_then(|mut e| {
                e.call("engine_exchangeCapabilities", json!([[]]))?;
                e.set_limit(call_limit);
                Ok(e)
            });
            match tried {
                Ok(e) => break e,
                // A refused JWT will not get better by waiting.
                Err(e @ EngineError::Status { status: 401, .. }) => {
                    return Err(ClientError::Engine(e));
                }
                Err(e) if Instant::now() >= deadline => {
                    return Err(ClientError::NotReady {
                        waited: ready,
                        last: e.to_string(),
                        tail: node.tail.render(),
                    });
                }
                Err(_) => std::thread::sleep(Duration::from_millis(200)),
            }
        };
        node.metrics_url = node.metrics_url.take().map(|url| prometheus_path(&url));
        let version = node
            .version
            .as_deref()
            .and_then(|v| v.split_whitespace().nth(1))
            .unwrap_or("unknown")
            .to_string();
        // The command as a template: no path of this machine in results.
        let mut command = node.command.join(" ");
        if let Some(folder) = node.folder() {
            command = command.replace(&folder.display().to_string(), "{folder}");
        }
        command = command.replace(
            &dyno_node::cache_dir().display().to_string(),
            "<dyno cache>",
        );
        Ok(Running {
            command,
            version,
            node,
            engine,
        })
    }
}

/// Where a client's Prometheus metrics are: at `url` (geth's path), or
/// else at `/metrics` on the same port (the Prometheus default, which
/// EthereumJS serves), whichever answers with a series; `url` if neither
/// does, so the scrape says why.
fn prometheus_path(url: &str) -> String {
    let limit = Duration::from_secs(5);
    let metrics = |u: &str| dyno_node::metrics::scrape(u, limit).is_ok_and(|s| !s.is_empty());
    if metrics(url) {
        return url.to_string();
    }
    let other = match url.strip_prefix("http://").and_then(|r| r.split_once('/')) {
        Some((host, _)) => format!("http://{host}/metrics"),
        None => return url.to_string(),
    };
    if metrics(&other) {
        other
    } else {
        url.to_string()
    }
}

/// A started client.
#[derive(Debug)]
pub struct Running {
    pub node: LocalNode,
    pub engine: Engine,
    /// Its version as its install recorded it, else `unknown`.
    pub version: String,
    /// The command line it was started with.
    pub command: String,
}

impl Running {
    /// Stop it and remove its data directory.
    pub fn stop(mut self) {
        self.node.stop(Duration::from_secs(10));
    }
}

/// Why a client could not be started.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("making a JWT secret: {0}")]
    Secret(std::io::Error),
    #[error(transparent)]
    Start(dyno_node::NodeError),
    #[error(transparent)]
    Engine(EngineError),
    #[error(
        "the client's Engine API did not answer within {waited:?} (last: {last}); its last output:{tail}"
    )]
    NotReady {
        waited: Duration,
        last: String,
        tail: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_clients_start_with_their_caches_off_and_shipped_ones_as_they_ship() {
        let home = PathBuf::from("/nowhere");
        let geth = |caches| ClientSpec::Geth {
            home: home.clone(),
            caches,
        };
        let ethrex = |caches| ClientSpec::Builtin {
            client: Builtin::Ethrex,
            home: home.clone(),
            caches,
        };
        assert_eq!(geth(Caches::Shipped).caches_flags(), &[] as &[&str]);
        assert_eq!(
            geth(Caches::Off).caches_flags(),
            ["--cache.noprecompile", "--cache.noprefetch"]
        );
        assert_eq!(ethrex(Caches::Shipped).caches_flags(), &[] as &[&str]);
        assert_eq!(
            ethrex(Caches::Off).caches_flags(),
            ["--no-precompile-cache"]
        );
        assert_eq!(ClientSpec::Revm.caches(), Caches::Shipped);
        assert_eq!(Builtin::EthereumJs.caches_off(), None);
    }
}
