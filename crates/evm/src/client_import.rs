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

impl Workload for GethImport {
    fn verify(&mut self) -> Result<(), Mismatch> {
        let mismatch = |expected: String, actual: String| Mismatch {
            case: "the chain's head in geth".into(),
            expected,
            actual,
        };
        let last = &self.chain.blocks.last().expect("a chain has blocks").header;
        let want = (
            self.chain.genesis.header.hash_slow().to_string(),
            last.number,
            last.hash_slow().to_string(),
            last.state_root.to_string(),
        );
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
        for _ in 0..iters {
            std::hint::black_box(self.import()).ok();
        }
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
