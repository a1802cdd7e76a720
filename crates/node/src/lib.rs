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

/// The ports [`free_port`] draws from, and those it gave out.
mod ports {
    use std::collections::HashSet;
    use std::hash::BuildHasher as _;
    use std::sync::{Mutex, OnceLock};

    /// The lowest port drawn: above the registered services most machines
    /// run (databases, brokers, dev servers sit below 10 000).
    const LOWEST: u16 = 20_000;
    /// Fewer ports than this below the ephemeral range: let the kernel pick.
    const FEWEST: u16 = 2_000;

    /// Where the kernel's ephemeral range starts (`32768` when unknown).
    pub(super) fn ephemeral_start() -> u16 {
        std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse().ok())
            .unwrap_or(32_768)
    }

    /// The range `[low, high)` drawn from when the ephemeral range starts
    /// at `start`; empty when it is too small.
    pub(super) fn below_ephemeral(start: u16) -> (u16, u16) {
        if start < LOWEST.saturating_add(FEWEST) {
            (0, 0)
        } else {
            (LOWEST, start)
        }
    }

    /// A port in `[low, high)`, at random (std's per-process random keys:
    /// two dyno processes side by side draw differently).
    pub(super) fn draw(low: u16, high: u16) -> u16 {
        static COUNT: Mutex<u64> = Mutex::new(0);
        static KEYS: OnceLock<std::collections::hash_map::RandomState> = OnceLock::new();
        let n = {
            let mut c = COUNT.lock().unwrap_or_else(|p| p.into_inner());
            *c += 1;
            *c
        };
        let h = KEYS
            .get_or_init(std::collections::hash_map::RandomState::new)
            .hash_one(n);
        low + (h % u64::from(high - low)) as u16
    }

    /// Whether `port` was not given out before in this process (and now is).
    pub(super) fn claim(port: u16) -> bool {
        static GIVEN: OnceLock<Mutex<HashSet<u16>>> = OnceLock::new();
        GIVEN
            .get_or_init(Mutex::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(port)
    }
}

/// A fresh temporary data directory (0700: it holds the Engine API's
/// secret and the chain) and a free loopback port. The folder is held for
/// [`dyno_process::group::kill_all`] until the node is stopped.
fn scratch(prefix: &str) -> Result<(tempfile::TempDir, u16), NodeError> {
    use std::os::unix::fs::PermissionsExt as _;
    let datadir = tempfile::Builder::new()
        .prefix(prefix)
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir_in(scratch_root())
        .map_err(|source| NodeError::Spawn {
            command: "a temporary data directory".into(),
            source,
        })?;
    dyno_process::group::hold_folder(datadir.path());
    let port = free_port().map_err(|source| NodeError::Spawn {
        command: "a free loopback port".into(),
        source,
    })?;
    Ok((datadir, port))
}

/// Whether `s` is the same word in every shell context (bare, in single
/// or double quotes, in a nested `sh -c '...'`): letters, digits and
/// `/._-+:,@%=` only. Every path dyno fills into a command line is one.
pub fn shell_plain(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:,@%=".contains(c))
}

/// Where a node's scratch folder goes: the system's temporary folder
/// (`TMPDIR`) when its path is [`shell_plain`], else `/tmp`, so that a
/// space or a `;` in `TMPDIR` is never read by the shell that runs a
/// `--client-cmd` or `--node-cmd` line.
fn scratch_root() -> PathBuf {
    let t = std::env::temp_dir();
    if shell_plain(&t.display().to_string()) {
        t
    } else {
        PathBuf::from("/tmp")
    }
}

/// The placeholders [`LocalNode::start_engine_cmd`] fills in (a built-in
/// client's line has `{home}` too, its install's folder).
pub const ENGINE_PLACEHOLDERS: &[&str] = &[
    "datadir",
    "genesis",
    "jwt",
    "authrpc_port",
    "p2p_port",
    "http_port",
    "metrics_port",
];

/// The first `{name}` left in `line` that is not a shell's `${name}`,
/// after every known placeholder was filled: a misspelt placeholder.
pub fn unknown_placeholder(line: &str) -> Option<String> {
    let bytes = line.as_bytes();
    let mut i = 0;
    while let Some(open) = line[i..].find('{').map(|k| k + i) {
        i = open + 1;
        if open > 0 && bytes[open - 1] == b'$' {
            continue;
        }
        let Some(close) = line[open..].find('}').map(|k| k + open) else {
            break;
        };
        let name = &line[open + 1..close];
        if !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        {
            return Some(name.to_string());
        }
    }
    None
}

/// The last lines the node printed, for error messages; and every line
/// holding a marker, kept whole (a client's per-block log).
#[derive(Debug, Clone, Default)]
pub struct Tail {
    recent: Arc<Mutex<VecDeque<String>>>,
    kept: Arc<Mutex<Vec<String>>>,
    marker: Option<&'static str>,
}

impl Tail {
    const LINES: usize = 20;

    /// A tail that also keeps every line containing `marker`.
    fn keeping(marker: Option<&'static str>) -> Self {
        Self {
            marker,
            ..Self::default()
        }
    }

    /// The longest line kept; the rest of a longer one is dropped.
    const LINE_BYTES: usize = 64 * 1024;

    fn follow(&self, stream: impl std::io::Read + Send + 'static) {
        let this = self.clone();
        std::thread::spawn(move || {
            for line in dyno_process::lines::lines(BufReader::new(stream), Self::LINE_BYTES) {
                let line = line.into_text();
                if this.marker.is_some_and(|m| line.contains(m)) {
                    lock(&this.kept).push(line.clone());
                }
                let mut t = lock(&this.recent);
                if t.len() == Self::LINES {
                    t.pop_front();
                }
                t.push_back(line);
            }
        });
    }

    /// The lines, oldest first, indented for an error message.
    pub fn render(&self) -> String {
        let t = lock(&self.recent);
        t.iter().map(|l| format!("\n    {l}")).collect()
    }

    /// The kept lines printed since the last call, oldest first.
    pub fn take_kept(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.kept))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Why a node could not be started.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    /// Not installed.
    #[error("{name} is not installed in {}: run `dyno setup {name}` first", home.display())]
    NotInstalled {
        /// The node.
        name: String,
        /// Where it should be.
        home: PathBuf,
    },
    /// The process could not be spawned.
    #[error("starting {command}: {source}")]
    Spawn {
        /// The command.
        command: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// It exited.
    #[error("{name} exited ({status}) {when}; its last output:{tail}")]
    Exited {
        /// The node.
        name: String,
        /// Exit status.
        status: String,
        /// While doing what.
        when: String,
        /// Its last lines.
        tail: String,
    },
}

impl NodeError {
    /// Whether the node exited because a port it was given was taken
    /// (its last output says so, as Go, Node, Rust and the C library
    /// spell it): starting it again on fresh ports is the remedy.
    pub fn port_taken(&self) -> bool {
        match self {
            NodeError::Exited { tail, .. } => {
                let tail = tail.to_ascii_lowercase();
                ["address already in use", "eaddrinuse", "address in use"]
                    .iter()
                    .any(|m| tail.contains(m))
            }
            _ => false,
        }
    }
}

/// The installed geth's `run` script in `home`.
fn geth_run(home: &Path) -> Result<PathBuf, NodeError> {
    let run = home.join("run");
    if !run.is_file() {
        return Err(NodeError::NotInstalled {
            name: "geth".into(),
            home: home.to_path_buf(),
        });
    }
    Ok(run)
}

/// What an installed node says of itself (its `version` file), if known.
pub fn installed_version(home: &Path) -> Option<String> {
    std::fs::read_to_string(home.join("version"))
        .ok()
        .map(|v| v.trim().to_string())
}

/// [`free_port`], as a node error.
fn loopback_port() -> Result<u16, NodeError> {
    free_port().map_err(|source| NodeError::Spawn {
        command: "a free loopback port".into(),
        source,
    })
}

/// Turn geth's metrics on, served on a free loopback port (returned):
/// the load lab scrapes them through the run. geth's timers and meters
/// then run too, as on a node whose operator watches it.
fn geth_metrics(command: &mut Vec<String>) -> Result<u16, NodeError> {
    let port = loopback_port()?;
    command.extend(
        ["--metrics", "--metrics.addr", "127.0.0.1", "--metrics.port"]
            .map(String::from)
            .into_iter()
            .chain([port.to_string()]),
    );
    Ok(port)
}

/// Run one geth command to completion (`init`, `dumpgenesis`); its exit
/// status, with the last lines of its output when it fails.
fn geth_step(run: &Path, args: &[&str], stdout: Stdio) -> Result<(), NodeError> {
    let command = format!("{} {}", run.display(), args.join(" "));
    let out = Command::new(run)
        .args(args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .map_err(|source| NodeError::Spawn {
            command: command.clone(),
            source,
        })?;
    if out.status.success() {
        return Ok(());
    }
    let tail = String::from_utf8_lossy(&out.stderr)
        .lines()
        .rev()
        .take(Tail::LINES)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .map(|l| format!("\n    {l}"))
        .collect();
    Err(NodeError::Exited {
        name: "geth".into(),
        status: out.status.to_string(),
        when: format!("running `{command}`"),
        tail,
    })
}

/// The account geth's `--dev` mode signs with when its keystore is empty:
/// the address of the fixed key geth imports (`DeveloperKey` in
/// go-ethereum's cmd/utils/flags.go, v1.14 to v1.17).
pub const GETH_DEV_ACCOUNT: &str = "0x71562b71999873DB5b286dF957af199Ec94617F7";
/// That key, published in go-ethereum's source (a well-known test key:
/// never hold anything with it).
pub const GETH_DEV_KEY: &str = "0xb71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313eac2f96dbcda3f291";

/// What marks a client's per-block log line: the cross-client "slow
/// block" JSON of geth, reth, Nethermind and Erigon.
pub const SLOW_BLOCK: &str = "Slow block";

/// Where a client on `port` serves Prometheus metrics (geth's path).
fn prometheus_url(port: u16) -> String {
    format!("http://127.0.0.1:{port}/debug/metrics/prometheus")
}

/// Write an Engine-API client's genesis JSON and JWT secret (hex) into
/// `dir` (dyno's own new folder), each a new file readable by its owner
/// alone (0600); their paths.
fn engine_files(
    dir: &Path,
    genesis_json: &str,
    jwt_secret: &[u8; 32],
) -> Result<(String, String), NodeError> {
    let write = |name: &str, text: String| {
        use std::io::Write as _;
        use std::os::unix::fs::OpenOptionsExt as _;
        let path = dir.join(name);
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .map_err(|source| NodeError::Spawn {
                command: format!("writing {}", path.display()),
                source,
            })?;
        Ok::<_, NodeError>(path.display().to_string())
    };
    let genesis = write("genesis.json", genesis_json.to_string())?;
    let hex: String = jwt_secret.iter().map(|b| format!("{b:02x}")).collect();
    let jwt = write("jwt.hex", hex)?;
    Ok((genesis, jwt))
}

/// A node process dyno started, with its data directory.
#[derive(Debug)]
pub struct LocalNode {
    /// `geth`, `anvil`, `hardhat` or `cmd`.
    pub name: String,
    /// The full command line.
    pub command: Vec<String>,
    /// Its HTTP JSON-RPC URL.
    pub url: String,
    /// Where it serves Prometheus metrics, if it does.
    pub metrics_url: Option<String>,
    /// What the installed binary says of itself (`version` file), if known.
    pub version: Option<String>,
    /// Its last output lines.
    pub tail: Tail,
    child: Option<Child>,
    datadir: Option<tempfile::TempDir>,
    /// The machine's TCP listeners just before it started (by inode): what
    /// appeared after is its, or another process's, or nobody's dyno can
    /// see ([`LocalNode::sockets`]).
    listeners_before: std::collections::BTreeSet<u64>,
}

impl LocalNode {
    /// Start node `kind` installed in `home` (`home/run`, `home/version`).
    pub fn start(kind: Kind, home: &Path, block_time: u64) -> Result<Self, NodeError> {
        let run = home.join("run");
        if !run.is_file() {
            return Err(NodeError::NotInstalled {
                name: kind.as_str().into(),
                home: home.to_path_buf(),
            });
        }
        let (datadir, port) = scratch(&format!("dyno-{}-", kind.as_str()))?;
        let mut command = vec![run.display().to_string()];
        command.extend(kind.args(&datadir.path().join("data"), port, block_time));
        let metrics = match kind {
            Kind::Geth => Some(geth_metrics(&mut command)?),
            Kind::Anvil | Kind::Hardhat => None,
        };
        let version = installed_version(home);
        let mut node = Self::spawn(
            kind.as_str(),
            command,
            kind.env(block_time),
            datadir,
            Some(home),
            None,
        )?;
        node.url = format!("http://127.0.0.1:{port}");
        node.metrics_url = metrics.map(prometheus_url);
        node.version = version;
        Ok(node)
    }

    /// Start geth (installed in `home`) as [`LocalNode::start`] does, but
    /// on a chain dyno chose: `genesis_json` is `geth init`ed into the
    /// fresh data directory first, and `--dev` then runs on it (geth keeps
    /// a chain already in its data directory; the genesis must be merged
    /// at block 0: terminal total difficulty 0, difficulty 0). The dev
    /// account is [`GETH_DEV_ACCOUNT`], so the genesis should fund it.
    /// The `debug` API is on too, for `debug_getRawBlock` (`dyno load
    /// --record`).
    pub fn start_geth_dev_on(
        home: &Path,
        block_time: u64,
        genesis_json: &str,
    ) -> Result<Self, NodeError> {
        let run = geth_run(home)?;
        let (datadir, port) = scratch("dyno-geth-")?;
        let genesis = datadir.path().join("genesis.json");
        std::fs::write(&genesis, genesis_json).map_err(|source| NodeError::Spawn {
            command: format!("writing {}", genesis.display()),
            source,
        })?;
        let data = datadir.path().join("data");
        let (g, d) = (genesis.display().to_string(), data.display().to_string());
        geth_step(&run, &["init", "--datadir", &d, &g], Stdio::null())?;
        let mut command = vec![run.display().to_string()];
        let mut args = Kind::Geth.args(&data, port, block_time);
        if let Some(i) = args.iter().position(|a| a == "--http.api") {
            args[i + 1].push_str(",debug");
        }
        command.extend(args);
        let metrics = geth_metrics(&mut command)?;
        let version = installed_version(home);
        let mut node = Self::spawn("geth", command, Vec::new(), datadir, Some(home), None)?;
        node.url = format!("http://127.0.0.1:{port}");
        node.metrics_url = Some(prometheus_url(metrics));
        node.version = version;
        Ok(node)
    }

    /// Start geth (installed in `home`) as a p2p peer for the net suite:
    /// not `--dev` (which turns p2p off) but the dev genesis written by
    /// `geth --dev dumpgenesis` and `geth init`, a fixed node key (so the
    /// dialer knows its public key), discovery off, and peers restricted
    /// to 127.0.0.0/8. geth binds its p2p listener on every interface (it
    /// has no listen-address flag); `--netrestrict` refuses every
    /// non-loopback peer. Returns the node and its p2p port.
    pub fn start_geth_p2p(home: &Path, nodekey_hex: &str) -> Result<(Self, u16), NodeError> {
        let run = geth_run(home)?;
        let (datadir, p2p_port) = scratch("dyno-geth-p2p-")?;
        let data = datadir.path().join("data");
        let genesis = datadir.path().join("genesis.json");
        let step = |args: &[&str], stdout: Stdio| geth_step(&run, args, stdout);
        let file = std::fs::File::create(&genesis).map_err(|source| NodeError::Spawn {
            command: format!("writing {}", genesis.display()),
            source,
        })?;
        step(&["--dev", "dumpgenesis"], Stdio::from(file))?;
        let (g, d) = (genesis.display().to_string(), data.display().to_string());
        step(&["init", "--datadir", &d, &g], Stdio::null())?;
        let (authrpc, http) = (loopback_port()?, loopback_port()?);
        let mut command = vec![run.display().to_string()];
        command.extend(
            [
                "--datadir",
                &d,
                "--networkid",
                "1337",
                "--port",
                &p2p_port.to_string(),
                "--nat",
                "none",
                "--nodiscover",
                "--maxpeers",
                "25",
                "--netrestrict",
                "127.0.0.0/8",
                "--nodekeyhex",
                nodekey_hex,
                "--authrpc.addr",
                "127.0.0.1",
                "--authrpc.port",
                &authrpc.to_string(),
                "--http",
                "--http.addr",
                "127.0.0.1",
                "--http.port",
                &http.to_string(),
                "--ipcdisable",
                "--verbosity",
                "2",
            ]
            .map(String::from),
        );
        let version = installed_version(home);
        let mut node = Self::spawn("geth", command, Vec::new(), datadir, Some(home), None)?;
        node.url = format!("http://127.0.0.1:{http}");
        node.version = version;
        Ok((node, p2p_port))
    }

    /// Start geth (installed in `home`) as an execution client a consensus
    /// client drives: not `--dev`, but `genesis_json` written and `geth
    /// init`ed into a fresh data directory, the authenticated Engine API on
    /// loopback with `jwt_secret`, no peers and no discovery, the slow-block
    /// JSON log for every block (`--debug.logslowblock 0`). Returns the
    /// node and its Engine-API port.
    pub fn start_geth_engine(
        home: &Path,
        genesis_json: &str,
        jwt_secret: &[u8; 32],
    ) -> Result<(Self, u16), NodeError> {
        let run = geth_run(home)?;
        let (datadir, p2p_port) = scratch("dyno-geth-engine-")?;
        let (genesis, jwt) = engine_files(datadir.path(), genesis_json, jwt_secret)?;
        let data = datadir.path().join("data").display().to_string();
        geth_step(&run, &["init", "--datadir", &data, &genesis], Stdio::null())?;
        // geth's p2p listener has no address flag (`--port` binds every
        // interface); its config file has one.
        let config = datadir.path().join("geth.toml");
        std::fs::write(
            &config,
            format!("[Node.P2P]\nListenAddr = \"127.0.0.1:{p2p_port}\"\n"),
        )
        .map_err(|source| NodeError::Spawn {
            command: format!("writing {}", config.display()),
            source,
        })?;
        let config = config.display().to_string();
        let authrpc = loopback_port()?;
        let metrics = loopback_port()?;
        let mut command = vec![run.display().to_string()];
        command.extend(
            [
                "--config",
                &config,
                "--datadir",
                &data,
                "--metrics",
                "--metrics.addr",
                "127.0.0.1",
                "--metrics.port",
                &metrics.to_string(),
                "--networkid",
                "1337",
                "--syncmode",
                "full",
                "--nat",
                "none",
                "--nodiscover",
                "--maxpeers",
                "0",
                // No peer off loopback either, should one reach it.
                "--netrestrict",
                "127.0.0.0/8",
                "--authrpc.addr",
                "127.0.0.1",
                "--authrpc.port",
                &authrpc.to_string(),
                "--authrpc.jwtsecret",
                &jwt,
                "--ipcdisable",
                "--debug.logslowblock",
                "0",
            ]
            .map(String::from),
        );
        let version = installed_version(home);
        let mut node = Self::spawn(
            "geth",
            command,
            Vec::new(),
            datadir,
            Some(home),
            Some(SLOW_BLOCK),
        )?;
        node.version = version;
        node.metrics_url = Some(prometheus_url(metrics));
        Ok((node, authrpc))
    }

    /// Start any Engine-API client from a shell command line
    /// (`dyno replay --client-cmd`), after writing `genesis_json` and the
    /// JWT secret (hex) into a fresh folder. The placeholders filled in:
    /// `{datadir}` (an empty data directory), `{genesis}` (the genesis
    /// JSON file), `{jwt}` (the secret's file), `{authrpc_port}` (where
    /// its Engine API must listen, on 127.0.0.1), `{p2p_port}` (a free
    /// port for its peer-to-peer listener, which should find no peers),
    /// `{http_port}` (a free port for its plain JSON-RPC, if it wants
    /// one), `{metrics_port}` (where it serves Prometheus metrics, at
    /// geth's path `/debug/metrics/prometheus`, if it should be
    /// scraped). Lines holding "Slow block" are kept (the cross-client
    /// per-block log). Returns the node and its Engine-API port.
    pub fn start_engine_cmd(
        cmdline: &str,
        genesis_json: &str,
        jwt_secret: &[u8; 32],
    ) -> Result<(Self, u16), NodeError> {
        Self::start_engine_cmd_in(cmdline, None, genesis_json, jwt_secret)
    }

    /// [`LocalNode::start_engine_cmd`] with `{home}` filled too: the
    /// install's folder, or a link to it in the scratch folder when its
    /// path is not [`shell_plain`]. Every value filled in is then a plain
    /// word the shell reads as data, whatever quoting the line puts around
    /// it. A `{name}` left over (a misspelt placeholder) is refused.
    pub fn start_engine_cmd_in(
        cmdline: &str,
        home: Option<&Path>,
        genesis_json: &str,
        jwt_secret: &[u8; 32],
    ) -> Result<(Self, u16), NodeError> {
        let (datadir, p2p_port) = scratch("dyno-client-")?;
        let (genesis, jwt) = engine_files(datadir.path(), genesis_json, jwt_secret)?;
        let data = datadir.path().join("data");
        std::fs::create_dir(&data).map_err(|source| NodeError::Spawn {
            command: format!("creating {}", data.display()),
            source,
        })?;
        let authrpc = loopback_port()?;
        let http = loopback_port()?;
        let metrics = loopback_port()?;
        let home = match home {
            None => String::new(),
            Some(h) if shell_plain(&h.display().to_string()) => h.display().to_string(),
            Some(h) => {
                let link = datadir.path().join("home");
                std::os::unix::fs::symlink(h, &link).map_err(|source| NodeError::Spawn {
                    command: format!("linking {} as {}", h.display(), link.display()),
                    source,
                })?;
                link.display().to_string()
            }
        };
        let mut filled = cmdline
            .replace("{datadir}", &data.display().to_string())
            .replace("{genesis}", &genesis)
            .replace("{jwt}", &jwt)
            .replace("{authrpc_port}", &authrpc.to_string())
            .replace("{p2p_port}", &p2p_port.to_string())
            .replace("{http_port}", &http.to_string())
            .replace("{metrics_port}", &metrics.to_string());
        if !home.is_empty() {
            filled = filled.replace("{home}", &home);
        }
        if let Some(name) = unknown_placeholder(&filled) {
            return Err(NodeError::Spawn {
                command: cmdline.to_string(),
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!(
                        "{{{name}}} is no placeholder dyno fills in (it fills {})",
                        ENGINE_PLACEHOLDERS
                            .iter()
                            .map(|p| format!("{{{p}}}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ),
            });
        }
        let command = vec!["sh".into(), "-c".into(), format!("exec {filled}")];
        let mut node = Self::spawn("cmd", command, Vec::new(), datadir, None, Some(SLOW_BLOCK))?;
        if cmdline.contains("{metrics_port}") {
            node.metrics_url = Some(prometheus_url(metrics));
        }
        Ok((node, authrpc))
    }

    /// Start an arbitrary client from a shell command line (`--node-cmd`);
    /// `{datadir}` and `{port}` in it are replaced, and `url` (with `{port}`)
    /// is where its RPC will answer.
    pub fn start_cmd(cmdline: &str, url: &str) -> Result<Self, NodeError> {
        let (datadir, port) = scratch("dyno-node-")?;
        let fill = |s: &str| {
            s.replace(
                "{datadir}",
                &datadir.path().join("data").display().to_string(),
            )
            .replace("{port}", &port.to_string())
        };
        let command = vec!["sh".into(), "-c".into(), format!("exec {}", fill(cmdline))];
        let url = fill(url);
        let mut node = Self::spawn("cmd", command, Vec::new(), datadir, None, None)?;
        node.url = url;
        Ok(node)
    }

    fn spawn(
        name: &str,
        command: Vec<String>,
        env: Vec<(String, String)>,
        datadir: tempfile::TempDir,
        cwd: Option<&Path>,
        marker: Option<&'static str>,
    ) -> Result<Self, NodeError> {
        let mut cmd = Command::new(&command[0]);
        cmd.args(&command[1..])
            .envs(env)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = cwd {
            cmd.current_dir(dir);
        }
        let listeners_before = dyno_process::sockets::tcp_listeners();
        let mut child =
            dyno_process::group::spawn(&mut cmd).map_err(|source| NodeError::Spawn {
                command: command.join(" "),
                source,
            })?;
        let tail = Tail::keeping(marker);
        if let Some(out) = child.stdout.take() {
            tail.follow(out);
        }
        if let Some(err) = child.stderr.take() {
            tail.follow(err);
        }
        Ok(Self {
            name: name.into(),
            command,
            url: String::new(),
            metrics_url: None,
            version: None,
            tail,
            child: Some(child),
            datadir: Some(datadir),
            listeners_before,
        })
    }

    /// The folder holding its data directory and files, until stopped.
    pub fn folder(&self) -> Option<&Path> {
        self.datadir.as_ref().map(tempfile::TempDir::path)
    }

    /// The process id.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// `Err` if the process has exited, saying how, with its last output.
    pub fn check_alive(&mut self, when: &str) -> Result<(), NodeError> {
        if let Some(child) = self.child.as_mut()
            && let Ok(Some(status)) = child.try_wait()
        {
            // Give the output threads a moment to drain.
            std::thread::sleep(Duration::from_millis(50));
            return Err(NodeError::Exited {
                name: self.name.clone(),
                status: status.to_string(),
                when: when.into(),
                tail: self.tail.render(),
            });
        }
        Ok(())
    }

    /// Stop the node (SIGTERM, then SIGKILL after `grace`) and remove its
    /// data. Idempotent.
    pub fn stop(&mut self, grace: Duration) {
        if let Some(mut child) = self.child.take() {
            // The whole process group: a `run` script's children too.
            dyno_process::group::stop(&mut child, grace);
        }
        if let Some(dir) = self.datadir.take() {
            dyno_process::group::release_folder(dir.path());
            let _ = dir.close();
        }
    }
}

/// How a node ended when asked to stop ([`LocalNode::stop_observed`]).
#[derive(Debug, Clone)]
pub struct Stopped {
    /// How its leader exited, if it did within the grace time.
    pub status: Option<std::process::ExitStatus>,
    /// From SIGTERM to the leader's exit (or to the end of the grace time).
    pub took: Duration,
    /// The processes of its tree (found below it before the SIGTERM,
    /// whatever their group or session) still running once the leader had
    /// ended, and what they started since (all then killed), each as
    /// `pid (command)`.
    pub left_running: Vec<String>,
    /// What those still listened on then.
    pub left_listening: Vec<dyno_process::sockets::Listener>,
    /// TCP listeners that appeared while it ran, outlived it, and that no
    /// process dyno can see holds.
    pub left_unattributed: Vec<dyno_process::sockets::Listener>,
    /// Its data folder is gone.
    pub removed: bool,
}

/// What a node's tree holds open to the network ([`LocalNode::sockets`]).
#[derive(Debug, Clone, Default)]
pub struct Sockets {
    /// How many processes its tree holds (the leader among them).
    pub processes: usize,
    /// What they listen on (TCP) or have bound (UDP).
    pub own: Vec<dyno_process::sockets::Listener>,
    /// TCP listeners that appeared since it started that no process dyno
    /// can see holds (in a pid namespace of its own, or of another user):
    /// dyno cannot say whose they are.
    pub unattributed: Vec<dyno_process::sockets::Listener>,
}

impl LocalNode {
    /// Its process and every process below it now, whatever their group or
    /// session (each node is a child subreaper: a daemon it double-forks
    /// stays below it). Empty once it has exited.
    pub fn processes(&mut self) -> Vec<dyno_process::tree::Proc> {
        self.child
            .as_mut()
            .map(dyno_process::group::tree)
            .unwrap_or_default()
    }

    /// What its whole tree listens on now (TCP) or has bound (UDP).
    pub fn listening(&mut self) -> Vec<dyno_process::sockets::Listener> {
        self.sockets().own
    }

    /// What its whole tree listens on now, and the TCP listeners that
    /// appeared since it started that dyno cannot attribute to any process.
    pub fn sockets(&mut self) -> Sockets {
        let tree = self.processes();
        let pids: Vec<u32> = tree.iter().map(|p| p.pid).collect();
        Sockets {
            processes: tree.len(),
            own: dyno_process::sockets::listening(&pids),
            unattributed: dyno_process::sockets::unattributed(&self.listeners_before),
        }
    }

    /// [`stop`](Self::stop), watching it: how the leader ended after
    /// SIGTERM and how long it took, what of its tree was left running or
    /// listening then, and whether its data is gone. `None` if it was
    /// stopped already.
    pub fn stop_observed(&mut self, grace: Duration) -> Option<Stopped> {
        let mut child = self.child.take()?;
        let before = dyno_process::group::tree(&mut child);
        let started = std::time::Instant::now();
        let status = dyno_process::group::terminate(&mut child, grace);
        let took = started.elapsed();
        // A moment for what the leader told to stop.
        std::thread::sleep(Duration::from_millis(200));
        let left_running = dyno_process::tree::still_running(before.get(1..).unwrap_or_default());
        let pids: Vec<u32> = left_running.iter().map(|p| p.pid).collect();
        let left_listening = dyno_process::sockets::listening(&pids);
        let left_unattributed = dyno_process::sockets::unattributed(&self.listeners_before);
        let described = left_running.iter().map(|p| p.describe()).collect();
        dyno_process::group::kill_along(&mut child, &left_running);
        let folder = self.folder().map(Path::to_path_buf);
        self.stop(grace);
        Some(Stopped {
            status,
            took,
            left_running: described,
            left_listening,
            left_unattributed,
            removed: folder.is_none_or(|f| !f.exists()),
        })
    }
}

impl Drop for LocalNode {
    fn drop(&mut self) {
        self.stop(Duration::from_secs(10));
    }
}

#[cfg(test)]
mod tests;
