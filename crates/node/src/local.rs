//! A node dyno started (or found), and how it is stopped: its group, its tree and its sockets.

use super::*;

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
    pub(crate) child: Option<Child>,
    pub(crate) datadir: Option<tempfile::TempDir>,
    /// The machine's TCP listeners just before it started (by inode): what
    /// appeared after is its, or another process's, or nobody's dyno can
    /// see ([`LocalNode::sockets`]).
    pub(crate) listeners_before: std::collections::BTreeSet<u64>,
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
    /// JSON log for every block (`--debug.logslowblock 0`), and `extra`
    /// flags after them. Returns the node and its Engine-API port.
    pub fn start_geth_engine(
        home: &Path,
        genesis_json: &str,
        jwt_secret: &[u8; 32],
        extra: &[&str],
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
        command.extend(extra.iter().map(|f| f.to_string()));
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
