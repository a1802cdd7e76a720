//! geth's own steps: its install, its metrics flag, its dev account and the Engine API's files.

use super::*;

/// The installed geth's `run` script in `home`.
pub(crate) fn geth_run(home: &Path) -> Result<PathBuf, NodeError> {
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
pub(crate) fn loopback_port() -> Result<u16, NodeError> {
    free_port().map_err(|source| NodeError::Spawn {
        command: "a free loopback port".into(),
        source,
    })
}

/// Turn geth's metrics on, served on a free loopback port (returned):
/// the load lab scrapes them through the run. geth's timers and meters
/// then run too, as on a node whose operator watches it.
pub(crate) fn geth_metrics(command: &mut Vec<String>) -> Result<u16, NodeError> {
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
pub(crate) fn geth_step(run: &Path, args: &[&str], stdout: Stdio) -> Result<(), NodeError> {
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
pub(crate) fn prometheus_url(port: u16) -> String {
    format!("http://127.0.0.1:{port}/debug/metrics/prometheus")
}

/// Write an Engine-API client's genesis JSON and JWT secret (hex) into
/// `dir` (dyno's own new folder), each a new file readable by its owner
/// alone (0600); their paths.
pub(crate) fn engine_files(
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
