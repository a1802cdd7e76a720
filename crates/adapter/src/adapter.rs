//! An adapter folder and its installed worker.

use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::worker::{Worker, WorkerError};

/// The exit code with which `setup` says its runtime is missing or too old.
pub const RUNTIME_MISSING: i32 = 3;

/// How long `setup` may run (a first build fetching a whole client's
/// dependencies on a slow link), unless [`SETUP_LIMIT_VAR`] says otherwise.
pub const SETUP_LIMIT: Duration = Duration::from_secs(30 * 60);
/// The variable that sets `setup`'s time limit, in seconds.
pub const SETUP_LIMIT_VAR: &str = "DYNO_SETUP_LIMIT_SECS";
/// The longest line of `setup`'s output echoed whole; the rest is dropped.
const SETUP_LINE_BYTES: usize = 16 * 1024;

/// `setup`'s time limit: [`SETUP_LIMIT`], or [`SETUP_LIMIT_VAR`]'s seconds.
fn setup_limit() -> Duration {
    std::env::var(SETUP_LIMIT_VAR)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(SETUP_LIMIT, Duration::from_secs)
}

/// Folders inside an adapter that hold build products or installed
/// dependencies, not sources.
const NOT_SOURCES: [&str; 9] = [
    "node_modules",
    "target",
    "__pycache__",
    ".venv",
    ".pytest_cache",
    ".ruff_cache",
    "build",
    "dist",
    ".gradle",
];

/// The optional file in an adapter's folder that lists, one a line, other
/// folders (relative to the adapter's, e.g. `../go-protocol`) whose files
/// the worker is built from too: they count in [`Adapter::source_digest`].
/// Blank lines and lines starting with `#` are skipped.
const SHARED: &str = "shared";

/// One runtime's adapter: its sources and where its worker is installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Adapter {
    /// Its name, the folder's: `go`, `java`, `python`, `node`, or an
    /// external adapter's folder name (`scala-adapter`).
    pub runtime: String,
    /// `adapters/<runtime>`, or an external adapter's folder.
    pub dir: PathBuf,
    /// `<cache>/adapters/<runtime>` (an external adapter's:
    /// `<cache>/adapters/external/<name>-<digest of its path>`): what
    /// `setup` installs.
    pub home: PathBuf,
    /// True for an adapter folder given with `--adapter` or
    /// `DYNO_ADAPTERS`, not one of dyno's own.
    pub external: bool,
    /// How to start its worker, when not `home/run`: a dyno binary's
    /// `dyno worker` (`dyno ab`).
    pub launch: Option<Launch>,
}

/// A worker started from a command line rather than an installed `run`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    pub program: PathBuf,
    pub args: Vec<String>,
    /// Environment variables set for the worker.
    pub env: Vec<(String, String)>,
    /// Its working folder; `None`: this process's.
    pub cwd: Option<PathBuf>,
    /// Environment variables the worker must not see (the test knob, on
    /// the side it must not slow).
    pub env_remove: Vec<String>,
}

/// Why `setup` did not install an adapter.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The runtime is missing or too old (`setup` exited 3).
    #[error("{runtime}: {reason}")]
    RuntimeMissing {
        /// The runtime.
        runtime: String,
        /// `setup`'s last line on stderr.
        reason: String,
    },
    /// `setup` failed.
    #[error("{runtime}: setup failed ({status}): {last}")]
    Failed {
        /// The runtime.
        runtime: String,
        /// How it exited.
        status: String,
        /// Its last line of output.
        last: String,
    },
    /// `setup` ran past its time limit; it was stopped, with what it
    /// started.
    #[error("{runtime}: setup did not finish within {}s and was stopped (with everything it started); its last line: {last}. A slow first build may need more: set {SETUP_LIMIT_VAR}=SECONDS", after.as_secs())]
    Timeout {
        /// The runtime.
        runtime: String,
        /// The limit.
        after: Duration,
        /// Its last line of output.
        last: String,
    },
    /// `setup` could not be started.
    #[error("{runtime}: cannot run {}: {source}", path.display())]
    Spawn {
        /// The runtime.
        runtime: String,
        /// The script.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Why a folder is not an adapter dyno can use.
#[derive(Debug, thiserror::Error)]
pub enum AdapterError {
    /// The folder does not exist.
    #[error("adapter folder {}: {source}; give the folder that holds the adapter's `setup`", dir.display())]
    Missing {
        /// The folder as given.
        dir: PathBuf,
        /// Why it could not be read.
        source: std::io::Error,
    },
    /// It is a file.
    #[error("adapter folder {}: not a folder; give the folder that holds the adapter's `setup`", dir.display())]
    NotAFolder {
        /// The path as given.
        dir: PathBuf,
    },
    /// It has no `setup` script.
    #[error(
        "adapter folder {}: no `setup` script; an adapter folder holds `setup`, which installs the worker into the folder it is given and writes `run` there (docs/adapter-protocol.md, \"Layout of an adapter\"; `dyno adapter new` writes one)",
        dir.display()
    )]
    NoSetup {
        /// The folder as given.
        dir: PathBuf,
    },
    /// Its name cannot name an adapter.
    #[error("adapter folder {}: its name must be letters, digits, `.`, `_` or `-`; rename the folder", dir.display())]
    Name {
        /// The folder as given.
        dir: PathBuf,
    },
}

/// The adapters under `root` (each folder with a `setup` script), installed
/// under `cache/adapters/`, sorted by runtime.
pub fn discover(root: &Path, cache: &Path) -> Vec<Adapter> {
    discover_into(root, &cache.join("adapters"))
}

/// Every folder under `root` with a `setup` script, each installed into
/// `homes/<name>`: the adapters, and the dev nodes of `nodes/` (whose
/// `setup` follows the same contract), sorted by name.
pub fn discover_into(root: &Path, homes: &Path) -> Vec<Adapter> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut found: Vec<Adapter> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().join("setup").is_file())
        .filter_map(|e| {
            let runtime = e.file_name().to_str()?.to_string();
            let dir = e.path();
            Some(Adapter {
                home: homes.join(&runtime),
                dir: std::fs::canonicalize(&dir).unwrap_or(dir),
                runtime,
                external: false,
                launch: None,
            })
        })
        .collect();
    found.sort_by(|a, b| a.runtime.cmp(&b.runtime));
    found
}

impl Adapter {
    /// A worker that is a command line (no adapter folder, no `setup`):
    /// `runtime` names it in messages.
    pub fn launching(runtime: &str, launch: Launch) -> Self {
        let home = launch
            .program
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        Self {
            runtime: runtime.into(),
            dir: home.clone(),
            home,
            external: false,
            launch: Some(launch),
        }
    }

    /// The adapter in folder `dir`, which lives anywhere (`--adapter`),
    /// installed under `cache/adapters/external/`. The folder must exist
    /// and hold a `setup` script; its name (letters, digits, `.`, `_`,
    /// `-`) is the adapter's.
    pub fn external(dir: &Path, cache: &Path) -> Result<Self, AdapterError> {
        let shown = dir.to_path_buf();
        let abs = std::fs::canonicalize(dir).map_err(|source| AdapterError::Missing {
            dir: shown.clone(),
            source,
        })?;
        if !abs.is_dir() {
            return Err(AdapterError::NotAFolder { dir: shown });
        }
        if !abs.join("setup").is_file() {
            return Err(AdapterError::NoSetup { dir: shown });
        }
        let name = abs
            .file_name()
            .and_then(|n| n.to_str())
            .filter(|n| {
                !n.is_empty()
                    && n.chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
            })
            .ok_or_else(|| AdapterError::Name { dir: shown.clone() })?
            .to_string();
        let tag: String = Sha256::digest(abs.as_os_str().as_encoded_bytes())
            .iter()
            .take(4)
            .map(|b| format!("{b:02x}"))
            .collect();
        Ok(Self {
            home: cache
                .join("adapters")
                .join("external")
                .join(format!("{name}-{tag}")),
            dir: abs,
            runtime: name,
            external: true,
            launch: None,
        })
    }

    /// How messages name it: the runtime, and an external adapter's folder.
    pub fn label(&self) -> String {
        if self.external {
            format!("{} ({})", self.runtime, self.dir.display())
        } else {
            self.runtime.clone()
        }
    }

    /// The installed worker's start script.
    pub fn run_script(&self) -> PathBuf {
        self.home.join("run")
    }

    /// True once `setup` has installed a worker.
    pub fn installed(&self) -> bool {
        self.run_script().is_file()
    }

    fn digest_file(&self) -> PathBuf {
        self.home.join("dyno-source.sha256")
    }

    /// The folders the adapter builds from besides its own, as its
    /// `shared` file lists them (relative to the adapter's folder, as
    /// written there); empty without the file.
    fn shared_dirs(&self) -> std::io::Result<Vec<String>> {
        match std::fs::read_to_string(self.dir.join(SHARED)) {
            Ok(text) => Ok(text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(|l| l.trim_end_matches('/').to_string())
                .collect()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(e),
        }
    }

    /// A digest of the adapter's sources (every file but build products
    /// and installed dependencies), and of those of the folders its
    /// `shared` file lists. A shared file is named in the digest by the
    /// folder as listed and its path inside it (`../go-protocol/go.mod`),
    /// so the digest does not depend on where the checkout is. A listed
    /// folder that does not exist is an error.
    pub fn source_digest(&self) -> std::io::Result<String> {
        let mut named: Vec<(String, PathBuf)> = source_files(&self.dir)?
            .into_iter()
            .map(|rel| (rel.to_string_lossy().into_owned(), self.dir.join(rel)))
            .collect();
        for shared in self.shared_dirs()? {
            let root = self.dir.join(&shared);
            named.extend(source_files(&root)?.into_iter().map(|rel| {
                let name = format!("{shared}/{}", rel.to_string_lossy());
                (name, root.join(rel))
            }));
        }
        let mut h = Sha256::new();
        for (name, path) in named {
            h.update(name.as_bytes());
            h.update([0]);
            h.update(std::fs::read(path)?);
            h.update([0]);
        }
        Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
    }

    /// True if the sources changed since the worker was installed.
    pub fn stale(&self) -> bool {
        self.stale_against(self.source_digest().ok().as_deref())
    }

    /// True if the installed worker was built from other sources than
    /// those of `digest` (a [`Adapter::source_digest`] computed already;
    /// `None`: unreadable sources, always stale).
    pub fn stale_against(&self, digest: Option<&str>) -> bool {
        let have = std::fs::read_to_string(self.digest_file()).unwrap_or_default();
        digest != Some(have.trim())
    }

    /// Run `setup HOME`, forwarding its output line by line to `echo` (dyno
    /// sends it to stderr), and record the source digest. Returns how long
    /// it took.
    pub fn setup(&self, echo: impl FnMut(&str)) -> Result<Duration, SetupError> {
        self.setup_within(setup_limit(), echo)
    }

    /// [`Adapter::setup`] within `limit`: past it, `setup` is stopped with
    /// everything it started.
    pub fn setup_within(
        &self,
        limit: Duration,
        mut echo: impl FnMut(&str),
    ) -> Result<Duration, SetupError> {
        let start = Instant::now();
        let script = self.dir.join("setup");
        std::fs::create_dir_all(&self.home).map_err(|source| SetupError::Spawn {
            runtime: self.label(),
            path: self.home.clone(),
            source,
        })?;
        let mut cmd = Command::new("bash");
        cmd.arg(&script)
            .arg(&self.home)
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // A group of its own: a time-out stops the build tools it started.
        let mut child =
            dyno_process::group::spawn(&mut cmd).map_err(|source| SetupError::Spawn {
                runtime: self.label(),
                path: script.clone(),
                source,
            })?;
        // Both streams on threads, each line bounded, into one channel
        // read here until the time limit.
        let (tx, rx) = std::sync::mpsc::channel::<(bool, String)>();
        let follow = |stream: Box<dyn std::io::Read + Send>, is_err: bool| {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in dyno_process::lines::lines(BufReader::new(stream), SETUP_LINE_BYTES) {
                    if tx.send((is_err, line.into_text())).is_err() {
                        break;
                    }
                }
            })
        };
        let out = follow(Box::new(child.stdout.take().expect("piped")), false);
        let err = follow(Box::new(child.stderr.take().expect("piped")), true);
        drop(tx);
        // What a failure quotes: the first line on stderr that says
        // "error" (a build tool's first is the cause, the rest its
        // advice), else its last line; terminal colour codes removed.
        let mut last = String::new();
        let mut first_error = None;
        let deadline = start + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok((is_err, line)) => {
                    echo(&line);
                    let plain = without_colour(&line);
                    if is_err && !plain.trim().is_empty() {
                        if first_error.is_none() && plain.to_ascii_lowercase().contains("error") {
                            first_error = Some(plain.trim().to_string());
                        }
                        last = plain.trim().to_string();
                    }
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    dyno_process::group::stop(&mut child, Duration::from_secs(5));
                    return Err(SetupError::Timeout {
                        runtime: self.label(),
                        after: limit,
                        last,
                    });
                }
            }
        }
        let last = first_error.unwrap_or(last);
        let _ = (out.join(), err.join());
        // Both streams closed: wait for the script itself, within what is
        // left of the limit (a script may close its output and go on).
        let status = loop {
            match child.try_wait() {
                Ok(Some(s)) => break s,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Ok(None) => {
                    dyno_process::group::stop(&mut child, Duration::from_secs(5));
                    return Err(SetupError::Timeout {
                        runtime: self.label(),
                        after: limit,
                        last,
                    });
                }
                Err(source) => {
                    dyno_process::group::kill(&mut child);
                    return Err(SetupError::Spawn {
                        runtime: self.label(),
                        path: script.clone(),
                        source,
                    });
                }
            }
        };
        // Whatever it left running in its group goes with it.
        dyno_process::group::kill(&mut child);
        match status.code() {
            Some(0) if !self.installed() => Err(SetupError::Failed {
                runtime: self.label(),
                status: status.to_string(),
                last: format!(
                    "it wrote no {}: `setup HOME` must write HOME/run, the worker's start script",
                    self.run_script().display()
                ),
            }),
            Some(0) if !executable(&self.run_script()) => Err(SetupError::Failed {
                runtime: self.label(),
                status: status.to_string(),
                last: format!(
                    "{} is not executable: end `setup` with `chmod +x \"$1/run\"`",
                    self.run_script().display()
                ),
            }),
            Some(0) => {
                if let Ok(d) = self.source_digest() {
                    let _ = std::fs::write(self.digest_file(), d);
                }
                Ok(start.elapsed())
            }
            Some(RUNTIME_MISSING) => Err(SetupError::RuntimeMissing {
                runtime: self.label(),
                reason: last,
            }),
            _ => Err(SetupError::Failed {
                runtime: self.label(),
                status: status.to_string(),
                last,
            }),
        }
    }

    /// Start the installed worker and exchange `hello`.
    pub fn start(&self) -> Result<Worker, WorkerError> {
        if let Some(l) = &self.launch {
            if !l.program.is_file() {
                return Err(WorkerError::NotInstalled {
                    runtime: self.label(),
                    path: l.program.clone(),
                });
            }
            let mut cmd = Command::new(&l.program);
            cmd.args(&l.args).envs(l.env.iter().map(|(k, v)| (k, v)));
            if let Some(dir) = &l.cwd {
                cmd.current_dir(dir);
            }
            for v in &l.env_remove {
                cmd.env_remove(v);
            }
            return Worker::spawn(&self.runtime, cmd);
        }
        if !self.installed() {
            return Err(WorkerError::NotInstalled {
                runtime: self.label(),
                path: self.run_script(),
            });
        }
        if !executable(&self.run_script()) {
            return Err(WorkerError::NotExecutable {
                runtime: self.label(),
                path: self.run_script(),
            });
        }
        let mut cmd = Command::new(self.run_script());
        cmd.current_dir(&self.home);
        Worker::spawn(&self.label(), cmd)
    }
}

/// `line` without ANSI escape sequences (`ESC [ ... letter`).
fn without_colour(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// True if `path` is a file its owner may execute.
fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The source files under `dir`, relative to it and sorted: every file but
/// build products and installed dependencies (the folders of
/// `NOT_SOURCES`, `*.pyc`) and the offers file, which is made from the
/// worker, not the worker from it.
pub fn source_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    collect(dir, dir, &mut files)?;
    files.sort();
    Ok(files)
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name();
        let ty = entry.file_type()?;
        if ty.is_dir() {
            if !NOT_SOURCES.iter().any(|n| name == *n) {
                collect(root, &path, out)?;
            }
        } else if ty.is_file()
            && !name.to_string_lossy().ends_with(".pyc")
            && !(dir == root && name == crate::offers::OFFERS_FILE)
        {
            out.push(path.strip_prefix(root).unwrap_or(&path).to_path_buf());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
