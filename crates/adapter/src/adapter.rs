//! An adapter folder and its installed worker.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::worker::{Worker, WorkerError};

/// The exit code with which `setup` says its runtime is missing or too old.
pub const RUNTIME_MISSING: i32 = 3;

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

/// One runtime's adapter: its sources and where its worker is installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Adapter {
    /// The runtime, the folder's name: `go`, `java`, `python`, `node`.
    pub runtime: String,
    /// `adapters/<runtime>`.
    pub dir: PathBuf,
    /// `<cache>/adapters/<runtime>`: what `setup` installs.
    pub home: PathBuf,
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
            })
        })
        .collect();
    found.sort_by(|a, b| a.runtime.cmp(&b.runtime));
    found
}

impl Adapter {
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

    /// A digest of the adapter's sources (every file but build products
    /// and installed dependencies).
    pub fn source_digest(&self) -> std::io::Result<String> {
        let mut files = Vec::new();
        collect(&self.dir, &self.dir, &mut files)?;
        files.sort();
        let mut h = Sha256::new();
        for rel in files {
            h.update(rel.to_string_lossy().as_bytes());
            h.update([0]);
            h.update(std::fs::read(self.dir.join(&rel))?);
            h.update([0]);
        }
        Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
    }

    /// True if the sources changed since the worker was installed.
    pub fn stale(&self) -> bool {
        let have = std::fs::read_to_string(self.digest_file()).unwrap_or_default();
        self.source_digest().map_or(true, |d| d != have.trim())
    }

    /// Run `setup HOME`, forwarding its output line by line to `echo` (dyno
    /// sends it to stderr), and record the source digest. Returns how long
    /// it took.
    pub fn setup(&self, mut echo: impl FnMut(&str)) -> Result<Duration, SetupError> {
        let start = Instant::now();
        let script = self.dir.join("setup");
        std::fs::create_dir_all(&self.home).map_err(|source| SetupError::Spawn {
            runtime: self.runtime.clone(),
            path: self.home.clone(),
            source,
        })?;
        let mut child = Command::new("bash")
            .arg(&script)
            .arg(&self.home)
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| SetupError::Spawn {
                runtime: self.runtime.clone(),
                path: script.clone(),
                source,
            })?;
        // stdout on a thread, stderr here; both echoed, the last line kept
        let stdout = child.stdout.take().expect("piped");
        let (tx, rx) = std::sync::mpsc::channel::<String>();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut last = String::new();
        let stderr = child.stderr.take().expect("piped");
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            for out in rx.try_iter() {
                echo(&out);
            }
            echo(&line);
            if !line.trim().is_empty() {
                last = line;
            }
        }
        let _ = reader.join();
        for out in rx.try_iter() {
            echo(&out);
        }
        let status = child.wait().map_err(|source| SetupError::Spawn {
            runtime: self.runtime.clone(),
            path: script.clone(),
            source,
        })?;
        match status.code() {
            Some(0) => {
                if let Ok(d) = self.source_digest() {
                    let _ = std::fs::write(self.digest_file(), d);
                }
                Ok(start.elapsed())
            }
            Some(RUNTIME_MISSING) => Err(SetupError::RuntimeMissing {
                runtime: self.runtime.clone(),
                reason: last,
            }),
            _ => Err(SetupError::Failed {
                runtime: self.runtime.clone(),
                status: status.to_string(),
                last,
            }),
        }
    }

    /// Start the installed worker and exchange `hello`.
    pub fn start(&self) -> Result<Worker, WorkerError> {
        if !self.installed() {
            return Err(WorkerError::NotInstalled {
                runtime: self.runtime.clone(),
                path: self.run_script(),
            });
        }
        let mut cmd = Command::new(self.run_script());
        cmd.current_dir(&self.home);
        Worker::spawn(&self.runtime, cmd)
    }
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
        } else if ty.is_file() && !name.to_string_lossy().ends_with(".pyc") {
            out.push(path.strip_prefix(root).unwrap_or(&path).to_path_buf());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake(dir: &Path, runtime: &str, setup: &str) -> Adapter {
        let a = dir.join("adapters").join(runtime);
        std::fs::create_dir_all(&a).unwrap();
        std::fs::write(a.join("setup"), setup).unwrap();
        std::fs::write(a.join("main.txt"), "v1").unwrap();
        discover(&dir.join("adapters"), &dir.join("cache"))
            .into_iter()
            .find(|x| x.runtime == runtime)
            .unwrap()
    }

    #[test]
    fn setup_installs_records_the_digest_and_notices_changes() {
        let t = tempfile::tempdir().unwrap();
        let a = fake(
            t.path(),
            "toy",
            "echo building >&2\nprintf '#!/bin/sh\\nexit 0\\n' > \"$1/run\"\nchmod +x \"$1/run\"\n",
        );
        assert!(!a.installed());
        let mut lines = Vec::new();
        a.setup(|l| lines.push(l.to_string())).unwrap();
        assert_eq!(lines, ["building"]);
        assert!(a.installed());
        assert!(!a.stale());
        std::fs::write(a.dir.join("main.txt"), "v2").unwrap();
        assert!(a.stale());
        // build products do not count
        a.setup(|_| {}).unwrap();
        std::fs::create_dir_all(a.dir.join("node_modules")).unwrap();
        std::fs::write(a.dir.join("node_modules/x.js"), "1").unwrap();
        assert!(!a.stale());
    }

    #[test]
    fn exit_3_means_the_runtime_is_missing_with_its_reason() {
        let t = tempfile::tempdir().unwrap();
        let a = fake(
            t.path(),
            "toy",
            "echo 'toyc not found; install it' >&2\nexit 3\n",
        );
        match a.setup(|_| {}).unwrap_err() {
            SetupError::RuntimeMissing { runtime, reason } => {
                assert_eq!(runtime, "toy");
                assert_eq!(reason, "toyc not found; install it");
            }
            other => panic!("{other}"),
        }
        let b = fake(
            t.path(),
            "bad",
            "echo compiling\necho 'error: x' >&2\nexit 1\n",
        );
        let e = b.setup(|_| {}).unwrap_err().to_string();
        assert!(e.contains("setup failed") && e.contains("error: x"), "{e}");
        assert!(matches!(
            b.start().unwrap_err(),
            WorkerError::NotInstalled { .. }
        ));
    }

    #[test]
    fn discover_finds_only_folders_with_a_setup_script() {
        let t = tempfile::tempdir().unwrap();
        fake(t.path(), "b", "exit 0");
        fake(t.path(), "a", "exit 0");
        std::fs::create_dir_all(t.path().join("adapters/testdata")).unwrap();
        let names: Vec<String> = discover(&t.path().join("adapters"), t.path())
            .into_iter()
            .map(|a| a.runtime)
            .collect();
        assert_eq!(names, ["a", "b"]);
        assert!(discover(&t.path().join("nope"), t.path()).is_empty());
    }
}
