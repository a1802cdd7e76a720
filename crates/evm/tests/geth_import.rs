//! go-ethereum v1.17.8 accepts dyno's blocks: the genesis exported as
//! genesis JSON (`geth init`) and a chain of one block of each class (empty,
//! transfers, mix, full, each on the one before; at 30M, 36M and 60M gas) as block RLP
//! (`geth import`, which executes and validates every block as a syncing
//! node does). geth's genesis hash, head hash and head state root must be
//! dyno's. The same for the import benchmarks' chain of 1 000 blocks.
//!
//! geth: `DYNO_GETH`, else the one `dyno setup geth` installed
//! (`<dyno cache>/nodes/geth/geth`), else `geth` on PATH. Without it the
//! test says so and passes, except under `CI`, where `scripts/test.sh` has
//! built it and a missing geth fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use dyno_evm::block::chain_of_classes;
use dyno_evm::block::export::{block_rlp, genesis_json};
use dyno_evm::block::genesis::Contracts;
use dyno_workload::Ctx;

fn geth() -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = std::env::var_os("DYNO_GETH")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .into_iter()
        .collect();
    if candidates.is_empty() {
        candidates.push(dyno_workload::cache_dir().join("nodes/geth/geth"));
        if let Some(path) = std::env::var_os("PATH") {
            candidates.extend(std::env::split_paths(&path).map(|d| d.join("geth")));
        }
    }
    if let Some(found) = candidates.iter().find(|p| p.is_file()) {
        return Some(found.clone());
    }
    let tried: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
    assert!(
        std::env::var_os("CI").is_none_or(|v| v != "true"),
        "geth not found (tried {}); scripts/test.sh builds it",
        tried.join(", ")
    );
    eprintln!("skipped: geth not found (tried {})", tried.join(", "));
    None
}

fn head(geth: &Path, data: &str) -> (String, u64, String, String) {
    dyno_evm::client_import::head(geth, data).unwrap()
}

fn run(geth: &Path, args: &[&str]) -> String {
    let out = Command::new(geth).args(args).output().expect("geth runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "geth {args:?} failed ({}):\n{}",
        out.status,
        stderr.lines().rev().take(15).collect::<Vec<_>>().join("\n")
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn geth_imports_dyno_blocks_of_every_class_and_agrees_on_every_root() {
    let Some(geth) = geth() else { return };
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let ctx = Ctx {
        vectors: repo.join("vectors"),
    };
    let contracts = Contracts::load(&ctx).expect("contracts/build");
    for limit in [30_000_000, 36_000_000, 60_000_000] {
        import_every_class(&geth, &contracts, limit);
    }
}

/// One genesis at `limit`, one block of each class on it in turn.
fn import_every_class(geth: &Path, contracts: &Contracts, limit: u64) {
    let (genesis, blocks) = chain_of_classes(contracts, 1024, limit).unwrap();
    let mut chain = Vec::new();
    let mut corrupt = Vec::new();
    for block in &blocks {
        chain.extend(block_rlp(block));
        // The same chain with the last block's state root off by one bit:
        // geth must refuse it (the check can fail).
        let mut bad = block.clone();
        if block.header.number == blocks.len() as u64 {
            bad.header.state_root.0[31] ^= 1;
        }
        corrupt.extend(block_rlp(&bad));
    }
    let parent = blocks.last().unwrap().header.clone();
    let dir = tempfile::tempdir().unwrap();
    let genesis_file = dir.path().join("genesis.json");
    let chain_file = dir.path().join("chain.rlp");
    let json = genesis_json(&genesis.world, &genesis.header);
    std::fs::write(&genesis_file, serde_json::to_string(&json).unwrap()).unwrap();
    std::fs::write(&chain_file, &chain).unwrap();
    let data = dir.path().join("data");
    let data = data.to_str().unwrap();
    run(
        geth,
        &["init", "--datadir", data, genesis_file.to_str().unwrap()],
    );
    run(
        geth,
        &["import", "--datadir", data, chain_file.to_str().unwrap()],
    );
    let seen = head(geth, data);
    assert_eq!(
        seen.0,
        genesis.header.hash_slow().to_string(),
        "{limit}: genesis hash"
    );
    assert_eq!(
        seen.1, parent.number,
        "{limit}: geth's head is not dyno's last block"
    );
    assert_eq!(seen.2, parent.hash_slow().to_string(), "{limit}: head hash");
    assert_eq!(
        seen.3,
        parent.state_root.to_string(),
        "{limit}: head state root"
    );

    let bad_file = dir.path().join("corrupt.rlp");
    std::fs::write(&bad_file, &corrupt).unwrap();
    let other = dir.path().join("other");
    let other = other.to_str().unwrap();
    run(
        geth,
        &["init", "--datadir", other, genesis_file.to_str().unwrap()],
    );
    let out = Command::new(geth)
        .args(["import", "--datadir", other, bad_file.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("invalid merkle root"),
        "geth accepted a block with a wrong state root ({}):\n{stderr}",
        out.status
    );
}

/// The import benchmarks' chain of 1 000 blocks (`import/*/1000-blocks`),
/// imported by geth: its head hash and state root are dyno's.
#[test]
fn geth_imports_the_1000_block_chain() {
    let Some(geth) = geth() else { return };
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let ctx = Ctx {
        vectors: repo.join("vectors"),
    };
    let contracts = Contracts::load(&ctx).expect("contracts/build");
    let started = std::time::Instant::now();
    let chain = dyno_evm::chain::Chain::generate(
        &contracts,
        dyno_evm::chain::BLOCKS,
        dyno_evm::chain::SENDERS,
    )
    .unwrap();
    eprintln!(
        "produced {} blocks in {:?}",
        chain.blocks.len(),
        started.elapsed()
    );
    let dir = tempfile::tempdir().unwrap();
    let genesis_file = dir.path().join("genesis.json");
    let chain_file = dir.path().join("chain.rlp");
    let json = genesis_json(&chain.genesis.world, &chain.genesis.header);
    std::fs::write(&genesis_file, serde_json::to_string(&json).unwrap()).unwrap();
    let rlp: Vec<u8> = chain.blocks.iter().flat_map(block_rlp).collect();
    std::fs::write(&chain_file, rlp).unwrap();
    let data = dir.path().join("data");
    let data = data.to_str().unwrap();
    run(
        &geth,
        &["init", "--datadir", data, genesis_file.to_str().unwrap()],
    );
    let started = std::time::Instant::now();
    run(
        &geth,
        &["import", "--datadir", data, chain_file.to_str().unwrap()],
    );
    eprintln!("geth imported them in {:?}", started.elapsed());
    let last = &chain.blocks.last().unwrap().header;
    let (genesis, number, hash, root) = head(&geth, data);
    assert_eq!(genesis, chain.genesis.header.hash_slow().to_string());
    assert_eq!(number, last.number);
    assert_eq!(hash, last.hash_slow().to_string());
    assert_eq!(root, last.state_root.to_string());
}
