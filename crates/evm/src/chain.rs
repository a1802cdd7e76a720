//! import suite: a generated chain of [`BLOCKS`] blocks imported
//! sequentially from genesis, as a syncing client does, in three modes:
//!
//! - `headers`: each header checked against its parent (the checks of
//!   [`validator::check_header`]) and hashed, the hash becoming the next
//!   block's expected parent hash;
//! - `bodies`: the same, plus each body against its header (transactions
//!   root, ommers hash, withdrawals root) and every sender recovered;
//! - `full`: everything [`validator`] does (execution in revm, gas,
//!   receipts root, bloom, state root), each block's changes committed into
//!   the persistent [`World`] before the next block.
//!
//! The chain is produced outside timing (a few seconds in release) from the
//! genesis of the `block` suite with [`SENDERS`] senders, and shared by the
//! three benchmarks. Block contents follow [`schedule`]: empty blocks,
//! small transfer blocks, mixed blocks of varying size, blocks at the
//! EIP-1559 target and a few full ones; the gas limit rises from 30M by
//! 1/2048 per block up to 36M, and the base fee follows EIP-1559.
//!
//! One `run(iters)` imports the whole chain `iters` times. A full import
//! starts from a clone of the genesis state (inside the timed run: about a
//! thousand accounts, well under 1% of an import). The reports give time
//! per import; blocks/s = [`BLOCKS`] / time, and `gas_per_op` is the gas of
//! the whole chain, so MGas/s is shown directly.

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use alloy_primitives::B256;
use dyno_workload::{BenchDef, BuildError, Ctx, Mismatch, Param, Workload};

use crate::block::genesis::{Contracts, Genesis};
use crate::block::producer::{Kind, ProduceError, Producer, Spec};
use crate::block::validator::{self, BlockError};
use crate::block::world::World;
use crate::block::{self, Block};
use crate::tx::contracts_dir;
use crate::vm::REVM_VERSION;

/// The group of every id here.
pub const GROUP: &str = "import";
/// Blocks in the benchmarked chain.
pub const BLOCKS: usize = 1000;
/// Funded senders in its genesis.
pub const SENDERS: u64 = block::SENDERS;
/// The genesis gas limit.
pub const GENESIS_GAS_LIMIT: u64 = 30_000_000;
/// The gas limit the chain rises to.
pub const MAX_GAS_LIMIT: u64 = 36_000_000;

/// How much of each block an import checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mode {
    /// Header checks and header hashing.
    Headers,
    /// Headers, body roots and sender recovery.
    Bodies,
    /// Everything, executing each block and committing its state.
    Full,
}

impl Mode {
    /// Every mode.
    pub const ALL: [Mode; 3] = [Mode::Headers, Mode::Bodies, Mode::Full];

    /// The mode's name in benchmark ids.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Headers => "headers",
            Mode::Bodies => "bodies",
            Mode::Full => "full",
        }
    }
}

/// Why a chain could not be produced or imported.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ChainError {
    /// Producing a block failed.
    #[error("producing block {number}: {source}")]
    Produce {
        /// The block's number.
        number: u64,
        /// Why.
        source: ProduceError,
    },
    /// A block is invalid.
    #[error("block {number}: {source}")]
    Invalid {
        /// The block's number.
        number: u64,
        /// Why.
        source: BlockError,
    },
}

/// A genesis and the blocks after it.
#[derive(Debug, Clone)]
pub struct Chain {
    /// State and header of block 0.
    pub genesis: Genesis,
    /// Blocks 1..=n.
    pub blocks: Vec<Block>,
    /// Gas used by all blocks.
    pub gas: u64,
    /// Transactions in all blocks.
    pub transactions: usize,
}

/// SplitMix64 of `x`: the schedule's random draw for a block.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What block `number` holds, given its gas limit: 10% empty, 40% 5-28
/// value transfers (0.1-0.6 Mgas), 40% small mixed blocks (0.3-2.5 Mgas),
/// 8% mixed blocks at the EIP-1559 target, 2% full blocks.
pub fn schedule(number: u64, gas_limit: u64) -> Spec {
    let r = mix(number);
    let between = |lo: u64, hi: u64| lo + (r >> 8) % (hi - lo + 1);
    let (kind, fill) = match r % 100 {
        0..10 => (Kind::Empty, 0),
        10..50 => (Kind::Transfers, between(100_000, 600_000)),
        50..90 => (Kind::Mix, between(300_000, 2_500_000)),
        90..98 => (Kind::Mix, gas_limit / 2),
        _ => (Kind::Full, gas_limit),
    };
    Spec {
        kind,
        gas_limit,
        fill,
    }
}

/// The gas limit after `parent`'s: up by 1/2048 until [`MAX_GAS_LIMIT`].
pub fn next_gas_limit(parent: u64) -> u64 {
    (parent + parent / 2048).min(MAX_GAS_LIMIT)
}

impl Chain {
    /// What an import of the whole chain reports: its gas (so tables show
    /// MGas/s), blocks and transactions.
    pub fn facts(&self) -> Vec<(&'static str, Param)> {
        vec![
            ("gas_per_op", Param::Int(self.gas)),
            ("blocks", Param::Int(self.blocks.len() as u64)),
            ("transactions", Param::Int(self.transactions as u64)),
        ]
    }

    /// Produce `blocks` blocks on a genesis of `senders` senders, each
    /// block committed before the next is produced.
    pub fn generate(
        contracts: &Contracts,
        blocks: usize,
        senders: u64,
    ) -> Result<Self, ChainError> {
        Self::generate_under(contracts, blocks, senders, crate::block::fork::Fork::Osaka)
    }

    /// [`Chain::generate`] under `fork`: the same transactions, executed
    /// under its rules.
    pub fn generate_under(
        contracts: &Contracts,
        blocks: usize,
        senders: u64,
        fork: crate::block::fork::Fork,
    ) -> Result<Self, ChainError> {
        let genesis = Genesis::new(contracts, senders, GENESIS_GAS_LIMIT).under(fork);
        let mut producer = Producer::new(&genesis, 0xc4a1)
            .map_err(|source| ChainError::Produce { number: 0, source })?;
        let mut world = genesis.world.clone();
        let mut parent = genesis.header.clone();
        let mut out = Vec::with_capacity(blocks);
        let (mut gas, mut transactions) = (0, 0);
        for _ in 0..blocks {
            let number = parent.number + 1;
            let spec = schedule(number, next_gas_limit(parent.gas_limit));
            let (block, done) = producer
                .produce(&world, &parent, spec)
                .map_err(|source| ChainError::Produce { number, source })?;
            world.commit(
                done.executed.changes,
                done.post,
                number,
                block.header.hash_slow(),
            );
            gas += block.header.gas_used;
            transactions += block.transactions.len();
            parent = block.header.clone();
            out.push(block);
        }
        Ok(Self {
            genesis,
            blocks: out,
            gas,
            transactions,
        })
    }
}

/// What an import did.
#[derive(Debug)]
pub struct Imported {
    /// Blocks imported.
    pub blocks: usize,
    /// Senders recovered (bodies and full).
    pub senders: usize,
    /// Hash of the last header.
    pub tip: B256,
    /// The state after the last block (full imports).
    pub world: Option<World>,
}

/// Import `chain` from its genesis, checking what `mode` checks; the first
/// invalid block stops the import.
pub fn import(chain: &Chain, mode: Mode) -> Result<Imported, ChainError> {
    let mut world = (mode == Mode::Full).then(|| chain.genesis.world.clone());
    let mut parent = &chain.genesis.header;
    let mut parent_hash = parent.hash_slow();
    let mut senders = 0;
    for block in &chain.blocks {
        let number = block.header.number;
        let invalid = |source| ChainError::Invalid { number, source };
        validator::check_header(&block.header, parent, parent_hash).map_err(invalid)?;
        let hash = block.header.hash_slow();
        if mode >= Mode::Bodies {
            validator::check_body(block).map_err(invalid)?;
            let recovered = validator::recover_senders(block).map_err(invalid)?;
            senders += recovered.len();
            if let Some(world) = &mut world {
                let done = validator::execute(world, block, &recovered).map_err(invalid)?;
                world.commit(done.executed.changes, done.post, number, hash);
            }
        }
        parent = &block.header;
        parent_hash = hash;
    }
    Ok(Imported {
        blocks: chain.blocks.len(),
        senders,
        tip: parent_hash,
        world,
    })
}

/// Check an import of `chain` in `mode` before timing it: every block
/// imports, every sender is recovered, and after a full import the state
/// root, recomputed from scratch by alloy-trie, is the last header's.
pub fn verify_import(chain: &Chain, mode: Mode) -> Result<(), Mismatch> {
    let mismatch = |case: &str, expected: String, actual: String| Mismatch {
        case: case.into(),
        expected,
        actual,
    };
    let imported = import(chain, mode)
        .map_err(|e| mismatch("import", "every block valid".into(), e.to_string()))?;
    let tip = chain.blocks.last().map(|b| &b.header);
    let want_tip = tip.unwrap_or(&chain.genesis.header).hash_slow();
    if imported.tip != want_tip {
        return Err(mismatch(
            "tip",
            want_tip.to_string(),
            imported.tip.to_string(),
        ));
    }
    let want_senders = if mode == Mode::Headers {
        0
    } else {
        chain.transactions
    };
    if imported.senders != want_senders {
        return Err(mismatch(
            "senders recovered",
            want_senders.to_string(),
            imported.senders.to_string(),
        ));
    }
    if let Some(world) = imported.world {
        let want = tip.unwrap_or(&chain.genesis.header).state_root;
        let reference = world.reference_state_root();
        if reference != want {
            return Err(mismatch(
                "final state root (alloy-trie HashBuilder, from scratch)",
                want.to_string(),
                reference.to_string(),
            ));
        }
    }
    Ok(())
}

/// One chain import per iteration.
pub struct ImportWorkload {
    chain: Arc<Chain>,
    mode: Mode,
    verified: bool,
}

impl std::fmt::Debug for ImportWorkload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImportWorkload")
            .field("blocks", &self.chain.blocks.len())
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

impl Workload for ImportWorkload {
    fn verify(&mut self) -> Result<(), Mismatch> {
        verify_import(&self.chain, self.mode)?;
        self.verified = true;
        Ok(())
    }

    #[inline(never)]
    fn run(&mut self, iters: u64) {
        for _ in 0..iters {
            black_box(import(black_box(&self.chain), self.mode)).ok();
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

/// Chains already produced in this process, by contracts folder: the three
/// modes import the same chain, produced once.
static CHAINS: Mutex<Vec<(PathBuf, Arc<Chain>)>> = Mutex::new(Vec::new());

fn chain(ctx: &Ctx) -> Result<Arc<Chain>, BuildError> {
    let dir = contracts_dir(ctx);
    let mut cache = CHAINS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, c)) = cache.iter().find(|(d, _)| *d == dir) {
        return Ok(c.clone());
    }
    let contracts = Contracts::load(ctx)?;
    let chain = Chain::generate(&contracts, BLOCKS, SENDERS)
        .map_err(|e| BuildError::vectors(&dir, format!("generating the chain: {e}")))?;
    let chain = Arc::new(chain);
    cache.push((dir, chain.clone()));
    Ok(chain)
}

/// Every import benchmark: `import/<mode>/1000-blocks` in revm, and
/// `import/full/1000-blocks` on geth (its own importer, `geth import`).
pub fn defs() -> Vec<BenchDef> {
    let geth = BenchDef {
        cases: None,
        group: GROUP,
        op: Mode::Full.name(),
        input: format!("{BLOCKS}-blocks"),
        implementation: "geth",
        version: crate::client_import::geth_version(),
        params: vec![
            ("blocks", Param::Int(BLOCKS as u64)),
            ("mode", Param::Text("geth init, then geth import".into())),
        ],
        build: Box::new(|ctx: &Ctx| {
            let workload = crate::client_import::GethImport::new(chain(ctx)?)?;
            Ok(Box::new(workload) as Box<dyn Workload>)
        }),
    };
    Mode::ALL
        .iter()
        .map(|&mode| BenchDef {
            cases: None,
            group: GROUP,
            op: mode.name(),
            input: format!("{BLOCKS}-blocks"),
            implementation: "revm",
            version: REVM_VERSION,
            params: vec![
                ("blocks", Param::Int(BLOCKS as u64)),
                ("mode", Param::Text(mode.name().into())),
            ],
            build: Box::new(move |ctx: &Ctx| {
                let workload = ImportWorkload {
                    chain: chain(ctx)?,
                    mode,
                    verified: false,
                };
                Ok(Box::new(workload) as Box<dyn Workload>)
            }),
        })
        .chain(std::iter::once(geth))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::precompile::tests::ctx;

    const SHORT: usize = 20;

    /// A 20-block chain on 64 senders, produced once for every test.
    fn short() -> Chain {
        static SHORT_CHAIN: std::sync::OnceLock<Chain> = std::sync::OnceLock::new();
        SHORT_CHAIN
            .get_or_init(|| {
                let contracts = Contracts::load(&ctx()).unwrap();
                Chain::generate(&contracts, SHORT, 64).unwrap()
            })
            .clone()
    }

    #[test]
    fn chain_imports_in_every_mode_and_its_final_root_matches_from_scratch() {
        let chain = short();
        assert_eq!(chain.blocks.len(), SHORT);
        assert!(chain.transactions > 50, "{}", chain.transactions);
        for mode in Mode::ALL {
            verify_import(&chain, mode).unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        }
        let full = import(&chain, Mode::Full).unwrap();
        let world = full.world.unwrap();
        let last = &chain.blocks[SHORT - 1].header;
        assert_eq!(world.state_root(), last.state_root);
        // The chain grew the state: fresh recipients and deployed tokens.
        assert!(world.len() > chain.genesis.world.len());
        // A second import starts again from genesis and ends alike.
        let again = import(&chain, Mode::Full).unwrap().world.unwrap();
        assert_eq!(again.state_root(), last.state_root);
    }

    #[test]
    fn chain_gas_limits_and_base_fees_follow_their_rules() {
        let chain = short();
        let mut parent = &chain.genesis.header;
        for b in &chain.blocks {
            let h = &b.header;
            assert_eq!(h.gas_limit, next_gas_limit(parent.gas_limit));
            assert!(h.gas_limit > parent.gas_limit);
            assert_eq!(h.base_fee_per_gas, validator::next_base_fee(parent));
            parent = h;
        }
        let fees: std::collections::HashSet<_> = chain
            .blocks
            .iter()
            .map(|b| b.header.base_fee_per_gas)
            .collect();
        assert!(fees.len() > 5, "the base fee moves: {fees:?}");
    }

    #[test]
    fn chain_the_schedule_mixes_every_kind_and_size() {
        let specs: Vec<Spec> = (1..=BLOCKS as u64)
            .map(|n| schedule(n, GENESIS_GAS_LIMIT))
            .collect();
        let count = |k: Kind| specs.iter().filter(|s| s.kind == k).count();
        assert!(
            (70..=130).contains(&count(Kind::Empty)),
            "{}",
            count(Kind::Empty)
        );
        assert!(count(Kind::Transfers) > 300);
        assert!(count(Kind::Mix) > 400);
        assert!(
            (5..=40).contains(&count(Kind::Full)),
            "{}",
            count(Kind::Full)
        );
        let fills: std::collections::HashSet<u64> = specs.iter().map(|s| s.fill).collect();
        assert!(fills.len() > 500);
        assert_eq!(schedule(7, 1), schedule(7, 1));
        assert_eq!(next_gas_limit(MAX_GAS_LIMIT), MAX_GAS_LIMIT);
    }

    #[test]
    fn chain_a_tampered_block_stops_the_import_at_the_right_block() {
        let chain = short();
        // A wrong state root in block 10: full import rejects block 10;
        // header import rejects block 11, whose parent hash no longer
        // matches; bodies too.
        let mut bad = chain.clone();
        bad.blocks[9].header.state_root = B256::repeat_byte(7);
        match import(&bad, Mode::Full) {
            Err(ChainError::Invalid {
                number: 10,
                source: BlockError::StateRoot { expected, .. },
            }) => assert_eq!(expected, B256::repeat_byte(7)),
            other => panic!("{other:?}"),
        }
        for mode in [Mode::Headers, Mode::Bodies] {
            assert!(matches!(
                import(&bad, mode),
                Err(ChainError::Invalid {
                    number: 11,
                    source: BlockError::ParentHash { .. }
                })
            ));
        }
        // A body that lost a transaction: headers-only import does not
        // look at it; bodies and full reject it at its number.
        let n = chain
            .blocks
            .iter()
            .position(|b| !b.transactions.is_empty())
            .unwrap();
        let mut bad = chain.clone();
        bad.blocks[n].transactions.pop();
        assert!(import(&bad, Mode::Headers).is_ok());
        for mode in [Mode::Bodies, Mode::Full] {
            match import(&bad, mode) {
                Err(ChainError::Invalid {
                    number,
                    source: BlockError::TransactionsRoot { .. },
                }) => assert_eq!(number, n as u64 + 1),
                other => panic!("{mode:?}: {other:?}"),
            }
        }
        assert!(verify_import(&bad, Mode::Bodies).is_err());
    }

    #[test]
    fn chain_workload_reports_the_chain_gas_and_blocks() {
        let chain = Arc::new(short());
        let mut w = ImportWorkload {
            chain: chain.clone(),
            mode: Mode::Bodies,
            verified: false,
        };
        assert!(w.facts().is_empty());
        w.verify().unwrap();
        w.run(1);
        assert_eq!(
            w.facts(),
            vec![
                ("gas_per_op", Param::Int(chain.gas)),
                ("blocks", Param::Int(SHORT as u64)),
                ("transactions", Param::Int(chain.transactions as u64)),
            ]
        );
        let ids: Vec<(String, &str)> = defs().iter().map(|d| (d.id(), d.implementation)).collect();
        let want = [
            ("import/headers/1000-blocks", "revm"),
            ("import/bodies/1000-blocks", "revm"),
            ("import/full/1000-blocks", "revm"),
            ("import/full/1000-blocks", "geth"),
        ];
        assert_eq!(ids, want.map(|(id, imp)| (id.to_string(), imp)).to_vec());
    }
}
