//! `import/full/1000-blocks` on geth: the same 1 000-block chain imported by
//! go-ethereum's own importer (`geth import`, as a full sync executes and
//! validates every block), beside dyno's in-process `revm` import of it.
//!
//! One operation is `geth init` of dyno's genesis JSON into a fresh data
//! directory and `geth import` of the chain's block RLP: two processes, so
//! their start-up and geth's database opening and closing are inside the
//! time (well under a second of the several each import takes). Before
//! timing, an import must end on dyno's genesis hash, head hash and head
//! state root, read back from geth's database.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use dyno_workload::{BuildError, Mismatch, Param, Workload};

use crate::block::export::{block_rlp, genesis_json};
use crate::chain::Chain;

/// Where `dyno setup geth` installs geth.
pub fn geth_home() -> PathBuf {
    dyno_workload::cache_dir().join("nodes").join("geth")
}

/// geth's version as its install recorded it (`geth 1.17.8-stable ...`),
/// or the pinned one; read once per process.
pub fn geth_version() -> &'static str {
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VERSION.get_or_init(|| {
        std::fs::read_to_string(geth_home().join("version"))
            .ok()
            .and_then(|v| v.split_whitespace().nth(1).map(String::from))
            .unwrap_or_else(|| "1.17.8".into())
    })
}

/// Run `geth args`; its stdout, or its status and last lines of stderr.
pub fn run_geth(geth: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new(geth)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("starting {}: {e}", geth.display()))?;
    if out.status.success() {
        return Ok(String::from_utf8_lossy(&out.stdout).into_owned());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
    Err(format!(
        "geth {} exited with {}: {}",
        args.first().copied().unwrap_or(""),
        out.status,
        tail.into_iter().rev().collect::<Vec<_>>().join(" / ")
    ))
}

/// What geth's database at `data` holds: the genesis hash, and the head's
/// number, hash and state root (read through `geth console --exec`, the
/// node started without peers, discovery or IPC).
pub fn head(geth: &Path, data: &str) -> Result<(String, u64, String, String), String> {
    let script = "JSON.stringify([eth.getBlock(0).hash, eth.getBlock('latest').number, \
                  eth.getBlock('latest').hash, eth.getBlock('latest').stateRoot])";
    let out = run_geth(
        geth,
        &[
            "--datadir",
            data,
            "--nodiscover",
            "--maxpeers",
            "0",
            "--port",
            "0",
            "--authrpc.port",
            "0",
            "--ipcdisable",
            "console",
            "--exec",
            script,
        ],
    )?;
    // The console prints the string it was given as a JSON string.
    let line = out.lines().last().unwrap_or_default().trim();
    let inner: String =
        serde_json::from_str(line).map_err(|e| format!("geth console printed {line:?}: {e}"))?;
    serde_json::from_str(&inner).map_err(|e| format!("geth console printed {inner:?}: {e}"))
}

/// One `geth init` and `geth import` of the chain per iteration.
pub struct GethImport {
    chain: Arc<Chain>,
    geth: PathBuf,
    dir: tempfile::TempDir,
    verified: bool,
}

impl std::fmt::Debug for GethImport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GethImport")
            .field("blocks", &self.chain.blocks.len())
            .field("geth", &self.geth)
            .finish_non_exhaustive()
    }
}

impl GethImport {
    /// The workload for `chain`, its files written: none if geth is not
    /// installed.
    pub fn new(chain: Arc<Chain>) -> Result<Self, BuildError> {
        let home = geth_home();
        let geth = home.join("geth");
        Self::with_geth(chain, geth)
    }

    /// The workload for `chain` on the geth at `geth`.
    fn with_geth(chain: Arc<Chain>, geth: PathBuf) -> Result<Self, BuildError> {
        let home = geth.parent().unwrap_or(Path::new(".")).to_path_buf();
        if !geth.is_file() {
            return Err(BuildError::NotInstalled {
                how: format!(
                    "import/full/1000-blocks on geth runs the geth in {}, which is not there: \
                     run `dyno setup geth`",
                    home.display()
                ),
            });
        }
        let setup = |reason: String| BuildError::Setup {
            what: "the chain's files for geth".into(),
            reason,
        };
        let dir = tempfile::Builder::new()
            .prefix("dyno-geth-import-")
            .tempdir()
            .map_err(|e| setup(e.to_string()))?;
        let json = genesis_json(&chain.genesis.world, &chain.genesis.header);
        let rlp: Vec<u8> = chain.blocks.iter().flat_map(block_rlp).collect();
        std::fs::write(dir.path().join("genesis.json"), json.to_string())
            .and_then(|()| std::fs::write(dir.path().join("chain.rlp"), rlp))
            .map_err(|e| setup(e.to_string()))?;
        Ok(Self {
            chain,
            geth,
            dir,
            verified: false,
        })
    }

    /// `geth init` and `geth import` into a fresh data directory; the
    /// directory's path.
    fn import(&self) -> Result<String, String> {
        let data = self.dir.path().join("data");
        let _ = std::fs::remove_dir_all(&data);
        let data = data.display().to_string();
        let file = |name: &str| self.dir.path().join(name).display().to_string();
        run_geth(
            &self.geth,
            &["init", "--datadir", &data, &file("genesis.json")],
        )?;
        run_geth(
            &self.geth,
            &["import", "--datadir", &data, &file("chain.rlp")],
        )?;
        Ok(data)
    }
}

impl GethImport {
    /// The head an import must leave: the genesis hash, and the last
    /// block's number, hash and state root, from dyno's own chain.
    fn expected_head(&self) -> (String, u64, String, String) {
        let last = &self.chain.blocks.last().expect("a chain has blocks").header;
        (
            self.chain.genesis.header.hash_slow().to_string(),
            last.number,
            last.hash_slow().to_string(),
            last.state_root.to_string(),
        )
    }
}

impl Workload for GethImport {
    fn verify(&mut self) -> Result<(), Mismatch> {
        let mismatch = |expected: String, actual: String| Mismatch {
            case: "the chain's head in geth".into(),
            expected,
            actual,
        };
        let want = self.expected_head();
        let seen = self
            .import()
            .and_then(|data| head(&self.geth, &data))
            .map_err(|e| mismatch(format!("{want:?}"), e))?;
        if seen != want {
            return Err(mismatch(format!("{want:?}"), format!("{seen:?}")));
        }
        self.verified = true;
        Ok(())
    }

    fn run(&mut self, iters: u64) {
        // The engine times through `time`, which checks every import.
        for _ in 0..iters {
            std::hint::black_box(self.import()).ok();
        }
    }

    /// Every timed import is checked: an import that fails, or leaves a
    /// head other than the chain's, ends the benchmark with that error
    /// instead of giving a (fast) sample. The check itself (geth's console
    /// reading the head) is outside the time.
    fn time(&mut self, iters: u64) -> Option<Result<u64, String>> {
        let want = self.expected_head();
        let mut total = 0u64;
        for _ in 0..iters {
            let t0 = std::time::Instant::now();
            let imported = self.import();
            total += u64::try_from(t0.elapsed().as_nanos()).unwrap_or(u64::MAX);
            let checked = imported
                .and_then(|data| head(&self.geth, &data))
                .and_then(|seen| {
                    if seen == want {
                        Ok(())
                    } else {
                        Err(format!(
                            "the chain's head in geth: expected {want:?}, got {seen:?}"
                        ))
                    }
                });
            if let Err(e) = checked {
                return Some(Err(format!("a timed geth import: {e}")));
            }
        }
        Some(Ok(total))
    }

    fn cases(&self) -> usize {
        1
    }

    fn facts(&self) -> Vec<(&'static str, Param)> {
        if !self.verified {
            return Vec::new();
        }
        self.chain.facts()
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;
    use crate::block::genesis::Contracts;

    /// A stand-in for geth: `init` works, `import` works the first `good`
    /// times and then fails, and the console prints `head` (a JSON string
    /// of a JSON array, as geth's console does).
    fn fake_geth(dir: &Path, good: u32, head: &str) -> PathBuf {
        let path = dir.join("geth");
        let count = dir.join("imports");
        let printed = serde_json::to_string(head).unwrap();
        let script = format!(
            "#!/bin/sh\n\
             case \"$1\" in\n\
             init) exit 0 ;;\n\
             import) n=$(cat '{count}' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '{count}';\n\
               [ $n -le {good} ] || {{ echo 'bad block' >&2; exit 1; }}; exit 0 ;;\n\
             esac\n\
             printf '%s\\n' '{printed}'\n",
            count = count.display(),
        );
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn chain() -> Arc<Chain> {
        let contracts = Contracts::load(&crate::precompile::tests::ctx()).unwrap();
        Arc::new(Chain::generate(&contracts, 2, 4).unwrap())
    }

    fn head_json(w: &GethImport) -> String {
        let (g, n, h, r) = w.expected_head();
        serde_json::json!([g, n, h, r]).to_string()
    }

    #[test]
    fn a_timed_import_that_fails_is_an_error_not_a_sample() {
        let dir = tempfile::tempdir().unwrap();
        let chain = chain();
        // Work out the head first, with any geth path.
        let probe = GethImport::with_geth(chain.clone(), fake_geth(dir.path(), 0, "[]")).unwrap();
        let head = head_json(&probe);
        // Imports 1 (verify) and 2 (the first timed one) work, the third
        // fails fast.
        let mut w = GethImport::with_geth(chain, fake_geth(dir.path(), 2, &head)).unwrap();
        w.verify().unwrap();
        assert!(matches!(w.time(1), Some(Ok(_))));
        let err = w.time(1).unwrap().unwrap_err();
        assert!(
            err.contains("a timed geth import") && err.contains("bad block"),
            "{err}"
        );
    }

    #[test]
    fn a_timed_import_that_ends_elsewhere_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let chain = chain();
        let probe = GethImport::with_geth(chain.clone(), fake_geth(dir.path(), 0, "[]")).unwrap();
        let mut w =
            GethImport::with_geth(chain, fake_geth(dir.path(), 9, &head_json(&probe))).unwrap();
        w.verify().unwrap();
        // Another head from now on: geth imported, but not to dyno's head.
        let (g, n, h, _) = probe.expected_head();
        let wrong = serde_json::json!([g, n, h, format!("0x{}", "00".repeat(32))]).to_string();
        fake_geth(dir.path(), 9, &wrong);
        let err = w.time(1).unwrap().unwrap_err();
        assert!(err.contains("the chain's head in geth"), "{err}");
    }
}
