//! The nodes dyno starts: a temporary local dev node (geth, anvil, hardhat,
//! or any client from a command line) that dyno always tears down, and the
//! cache folder where `dyno setup` installs them. The load lab drives them
//! under load, the devp2p suite talks to geth over the wire, and `dyno
//! setup` builds them.
//!
//! A started node gets a fresh data directory in a temporary folder and
//! loopback-only ports, runs in its own process group (so a Ctrl-C reaches
//! dyno, which then stops the node in order), and is stopped with SIGTERM,
//! then SIGKILL after a grace period, whenever [`LocalNode`] is dropped:
//! at the end, on an error, or on an interrupt.

pub mod metrics;

use std::collections::VecDeque;
use std::io::BufReader;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

mod geth;
mod local;
mod ports;
mod scratch;
mod tail;
pub use geth::*;
pub use local::*;
pub use scratch::*;
pub use tail::*;

/// The gas limit of the dev nodes dyno starts (`--dev.gaslimit` and
/// `--miner.gaslimit` of geth, `--gas-limit` of anvil, Hardhat's config).
pub const DEV_GAS_LIMIT: u64 = 60_000_000;

/// Nodes dyno knows how to start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// go-ethereum in `--dev` mode.
    Geth,
    /// Foundry's anvil.
    Anvil,
    /// Hardhat's node.
    Hardhat,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 3] = [Kind::Geth, Kind::Anvil, Kind::Hardhat];

    /// Its name on the command line and in results.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Geth => "geth",
            Kind::Anvil => "anvil",
            Kind::Hardhat => "hardhat",
        }
    }

    /// Parse a `--node` value.
    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// Why this dev node, as dyno starts it, cannot take transactions of
    /// EIP-2718 type `tx_type`, if it cannot. Tried on each pinned version
    /// (nodes/README.md): geth and anvil take types 0 to 4; Hardhat 3.17
    /// takes a blob transaction only with auto-mine on and an empty
    /// mempool, and dyno's Hardhat mines on an interval.
    pub fn refuses_type(self, tx_type: u8) -> Option<&'static str> {
        match (self, tx_type) {
            (Kind::Hardhat, 3) => Some(
                "Hardhat 3.17 takes a blob transaction (type 3) only with auto-mine on and an \
                 empty mempool (hardhat issue 5024), and dyno's Hardhat mines a block a \
                 --block-time",
            ),
            _ => None,
        }
    }

    /// The flags that make a temporary, loopback-only dev node producing a
    /// block every `block_time` seconds with a 60M gas limit, chain id 1337
    /// (geth's dev chain; the same everywhere so one set of pre-signed
    /// transactions fits every node), and a pool big enough for the run.
    /// Verified against each pinned version: see nodes/README.md.
    pub fn args(self, datadir: &Path, port: u16, block_time: u64) -> Vec<String> {
        let mut v: Vec<String> = match self {
            Kind::Geth => vec![
                "--dev",
                "--dev.period",
                "",
                "--dev.gaslimit",
                "",
                "--miner.gaslimit",
                "",
                "--datadir",
                "",
                "--http",
                "--http.addr",
                "127.0.0.1",
                "--http.port",
                "",
                "--http.api",
                "eth,net,web3,txpool",
                "--ipcdisable",
                "--nat",
                "none",
                "--nodiscover",
                "--maxpeers",
                "0",
                "--txpool.globalslots",
                "65536",
                "--txpool.accountslots",
                "4096",
                "--txpool.globalqueue",
                "65536",
                "--txpool.accountqueue",
                "4096",
                "--rpc.txfeecap",
                "0",
                "--verbosity",
                "2",
            ],
            Kind::Anvil => vec![
                "--host",
                "127.0.0.1",
                "--port",
                "",
                "--block-time",
                "",
                "--gas-limit",
                "",
                "--chain-id",
                "1337",
                "--cache-path",
                "",
                "--quiet",
            ],
            Kind::Hardhat => vec!["--hostname", "127.0.0.1", "--port", ""],
        }
        .into_iter()
        .map(String::from)
        .collect();
        // Fill the blanks after their flags.
        for i in 1..v.len() {
            if v[i].is_empty() {
                v[i] = match v[i - 1].as_str() {
                    "--dev.period" | "--block-time" => block_time.to_string(),
                    "--datadir" | "--cache-path" => datadir.display().to_string(),
                    "--dev.gaslimit" | "--miner.gaslimit" | "--gas-limit" => {
                        DEV_GAS_LIMIT.to_string()
                    }
                    _ => port.to_string(),
                };
            }
        }
        v
    }

    /// Environment for the node (Hardhat takes its settings from its config,
    /// which reads these).
    pub fn env(self, block_time: u64) -> Vec<(String, String)> {
        match self {
            Kind::Hardhat => vec![
                ("DYNO_HARDHAT_BLOCK_TIME".into(), block_time.to_string()),
                ("DYNO_HARDHAT_GAS_LIMIT".into(), DEV_GAS_LIMIT.to_string()),
                ("DYNO_HARDHAT_CHAIN_ID".into(), "1337".into()),
            ],
            _ => Vec::new(),
        }
    }
}

/// Where `dyno setup` installs: `$DYNO_CACHE`, else `$XDG_CACHE_HOME/dyno`,
/// else `~/.cache/dyno`.
pub fn cache_dir() -> PathBuf {
    dyno_workload::cache_dir()
}

/// For tests that need a real node: its install folder, or `None` (the
/// test skips, saying so) when it is not installed; under `CI=true` a
/// missing node is a failure instead, since CI's set-up installs it.
pub fn installed_for_tests(kind: Kind) -> Option<PathBuf> {
    let home = cache_dir().join("nodes").join(kind.as_str());
    if home.join("run").is_file() {
        return Some(home);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{} is not installed in {}: run `dyno setup {}` (scripts/test.sh does)",
        kind.as_str(),
        home.display(),
        kind.as_str()
    );
    eprintln!(
        "skipping: {} is not installed (run `dyno setup {}`)",
        kind.as_str(),
        kind.as_str()
    );
    None
}

/// A free TCP port on loopback for a process dyno starts to listen on.
///
/// A port found free is released before the node binds it, so anything
/// that binds it in between wins the race and the node exits "address
/// already in use". The port the kernel hands out for port 0 comes from
/// its ephemeral range (`net.ipv4.ip_local_port_range`), the same range
/// every outgoing connection on the machine takes its local port from:
/// one connection of a parallel job was enough to end a CI run. So the
/// port is drawn at random from below that range, where the kernel never
/// picks one itself, never one this process handed out before, and
/// checked by binding it. Only when that range is too small (a machine
/// whose ephemeral range starts low) does the kernel choose.
pub fn free_port() -> std::io::Result<u16> {
    let (low, high) = ports::below_ephemeral(ports::ephemeral_start());
    if high > low {
        for _ in 0..256 {
            let port = ports::draw(low, high);
            if ports::claim(port) && TcpListener::bind(("127.0.0.1", port)).is_ok() {
                return Ok(port);
            }
        }
    }
    loop {
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        if ports::claim(port) {
            return Ok(port);
        }
    }
}

#[cfg(test)]
mod tests;
