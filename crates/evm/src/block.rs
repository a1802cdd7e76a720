//! block suite: full validation of one block, as a client does on import.
//!
//! Twelve blocks, one per gas limit (30M, 36M, 60M) and [`Kind`] (`empty`,
//! `transfers`, `mix`, `full`), are produced outside timing on a genesis of
//! [`SENDERS`] funded senders with the `Token`, `Store` and `Loop` contracts
//! deployed (see [`genesis`] and [`producer`]). Their transactions are real
//! signed EIP-1559 transactions (chain id 1337) with correct nonces.
//!
//! One timed operation, [`validator::validate`], is the whole validation of
//! one block against its parent header and the pre-state:
//!
//! 1. header: parent hash = keccak-256(rlp(parent)), number, timestamp, gas
//!    limit within parent ± parent/1024 and ≥ 5000, gas used ≤ limit, the
//!    EIP-1559 base fee, extra data ≤ 32 bytes, empty ommers hash,
//!    difficulty and nonce zero;
//! 2. body: transactions root, ommers hash, withdrawals root;
//! 3. sender recovery for every transaction (libsecp256k1, EIP-2 low s);
//! 4. execution in revm (Osaka) over an overlay of the pre-state;
//! 5. gas used, receipts root and logs bloom against the header;
//! 6. the post-state root against the header, computed incrementally from
//!    tries cached with the pre-state ([`trie`], [`world`]).
//!
//! The pre-state is never modified, so every sample validates the same
//! block on the same state. Before timing the block must validate, every
//! receipt must succeed, and the post-state root must also equal the root
//! alloy-trie's `HashBuilder` computes from scratch over the whole
//! post-state. `gas_per_op` is the block's gas used. What is not done
//! (system calls, blobs, requests): `docs/blocks.md`.

use std::hint::black_box;

use alloy_consensus::{Header, Signed, TxEip1559};
use alloy_eips::eip4895::Withdrawal;
use dyno_workload::{BenchDef, BuildError, Ctx, Mismatch, Param, Workload};

use crate::tx::contracts_dir;
use crate::vm::REVM_VERSION;

pub mod executor;
pub mod export;
pub mod fork;
pub mod genesis;
pub mod producer;
pub use dyno_eth::signer;
pub mod trie;
pub mod validator;
pub mod world;

pub use producer::{Kind, Spec};
pub use validator::BlockError;

use genesis::{Contracts, Genesis};
use producer::Producer;
use world::World;

/// The group of every id here.
pub const GROUP: &str = "block";
/// Funded senders in the genesis of the `block` benchmarks.
pub const SENDERS: u64 = 1024;
/// The gas limits benchmarked, in millions.
pub const LIMITS_M: [u64; 3] = [30, 36, 60];

/// A block: header and body.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// The header.
    pub header: Header,
    /// Signed EIP-1559 transactions.
    pub transactions: Vec<Signed<TxEip1559>>,
    /// Always empty after the merge.
    pub ommers: Vec<Header>,
    /// Beacon-chain withdrawals (none are generated).
    pub withdrawals: Vec<Withdrawal>,
}

/// One block validated on its pre-state.
pub struct BlockWorkload {
    world: World,
    parent: Header,
    block: Block,
    verified: bool,
}

impl std::fmt::Debug for BlockWorkload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockWorkload")
            .field("number", &self.block.header.number)
            .field("transactions", &self.block.transactions.len())
            .finish_non_exhaustive()
    }
}

/// Validate `block` on `world` after `parent`, then check what validation
/// cannot see: every receipt succeeded, and the post-state root also holds
/// when computed from scratch by alloy-trie.
pub fn verify_block(world: &World, parent: &Header, block: &Block) -> Result<(), Mismatch> {
    let mismatch = |case: &str, expected: String, actual: String| Mismatch {
        case: case.into(),
        expected,
        actual,
    };
    let v = validator::validate(world, parent, block)
        .map_err(|e| mismatch("validation", "a valid block".into(), e.to_string()))?;
    if let Some(i) = v.executed.receipts.iter().position(|r| !r.status()) {
        return Err(mismatch(
            "receipts",
            "every transaction succeeds".into(),
            format!("transaction {i} failed"),
        ));
    }
    let mut post = world.clone();
    post.commit(
        v.executed.changes,
        v.post,
        block.header.number,
        block.header.hash_slow(),
    );
    let reference = post.reference_state_root();
    if reference != block.header.state_root {
        return Err(mismatch(
            "post-state root (alloy-trie HashBuilder, from scratch)",
            block.header.state_root.to_string(),
            reference.to_string(),
        ));
    }
    Ok(())
}

impl Workload for BlockWorkload {
    fn verify(&mut self) -> Result<(), Mismatch> {
        verify_block(&self.world, &self.parent, &self.block)?;
        self.verified = true;
        Ok(())
    }

    #[inline(never)]
    fn run(&mut self, iters: u64) {
        for _ in 0..iters {
            black_box(validator::validate(
                black_box(&self.world),
                black_box(&self.parent),
                black_box(&self.block),
            ))
            .ok();
        }
    }

    fn cases(&self) -> usize {
        1
    }

    fn facts(&self) -> Vec<(&'static str, Param)> {
        if !self.verified {
            return Vec::new();
        }
        let gas = self.block.header.gas_used;
        // An empty block has no gas to divide by its time.
        let gas = (gas > 0).then_some(("gas_per_op", Param::Int(gas)));
        let txs = (
            "transactions",
            Param::Int(self.block.transactions.len() as u64),
        );
        gas.into_iter().chain([txs]).collect()
    }
}

/// The genesis with `senders` senders and a block of `spec` after it.
/// One block of each class at `limit`, each on the one before, on a fresh
/// genesis of `senders` senders: the blocks a client is given to import or
/// replay (`geth import`, `engine_newPayload`) beside dyno's own.
pub fn chain_of_classes(
    contracts: &Contracts,
    senders: u64,
    limit: u64,
) -> Result<(Genesis, Vec<Block>), producer::ProduceError> {
    let (genesis, blocks) = chain_of_rounds(contracts, senders, limit, 1, fork::Fork::Osaka)?;
    Ok((genesis, blocks.into_iter().map(|(_, b)| b).collect()))
}

/// `rounds` rounds of one block of each class ([`Kind::ALL`] order) at
/// `limit`, each block on the one before, on a fresh genesis of `senders`
/// senders, under `fork`; each block with its class. The classes
/// interleave, so a drift over the chain (a client's caches filling, its
/// database growing) touches every class alike.
pub fn chain_of_rounds(
    contracts: &Contracts,
    senders: u64,
    limit: u64,
    rounds: usize,
    fork: fork::Fork,
) -> Result<(Genesis, Vec<(Kind, Block)>), producer::ProduceError> {
    let genesis = Genesis::new(contracts, senders, limit).under(fork);
    let mut producer = Producer::new(&genesis, 0x9e7)?;
    let mut world = genesis.world.clone();
    let mut parent = genesis.header.clone();
    let mut blocks = Vec::new();
    for _ in 0..rounds {
        for kind in Kind::ALL {
            let (block, done) = producer.produce(&world, &parent, Spec::standard(kind, limit))?;
            let hash = block.header.hash_slow();
            world.commit(done.executed.changes, done.post, block.header.number, hash);
            parent = block.header.clone();
            blocks.push((kind, block));
        }
    }
    Ok((genesis, blocks))
}

pub fn make_block(
    contracts: &Contracts,
    senders: u64,
    spec: Spec,
) -> Result<(Genesis, Block), producer::ProduceError> {
    let genesis = Genesis::new(contracts, senders, spec.gas_limit);
    let mut producer = Producer::new(&genesis, spec.gas_limit ^ 0xb10c)?;
    let (block, _) = producer.produce(&genesis.world, &genesis.header, spec)?;
    Ok((genesis, block))
}

fn build(ctx: &Ctx, spec: Spec) -> Result<BlockWorkload, BuildError> {
    let contracts = Contracts::load(ctx)?;
    let (genesis, block) = make_block(&contracts, SENDERS, spec).map_err(|e| {
        BuildError::vectors(&contracts_dir(ctx), format!("producing the block: {e}"))
    })?;
    Ok(BlockWorkload {
        world: genesis.world,
        parent: genesis.header,
        block,
        verified: false,
    })
}

/// The spec of `block/validate/<limit>M-<kind>`, if `id` is one.
fn spec_of(id: &str) -> Option<Spec> {
    let input = id.strip_prefix("block/validate/")?;
    let (m, kind) = input.split_once("M-")?;
    let m: u64 = m.parse().ok().filter(|m| LIMITS_M.contains(m))?;
    let kind = Kind::ALL.into_iter().find(|k| k.name() == kind)?;
    Some(Spec::standard(kind, m * 1_000_000))
}

/// The adapters' case for `block/validate/<limit>M-<kind>`: the same block
/// and genesis as dyno's own benchmark, as any client reads them
/// (`genesis`: geth's genesis JSON; `block`: the block's RLP), and what
/// validating it must give (`state_root`, `receipts_root`, `gas_used`:
/// the header's, which dyno's producer computed and its validator checks).
pub fn cases(ctx: &Ctx, id: &str) -> Option<Result<Vec<dyno_protocol::Case>, BuildError>> {
    let spec = spec_of(id)?;
    Some((|| {
        let contracts = Contracts::load(ctx)?;
        let (genesis, block) = make_block(&contracts, SENDERS, spec).map_err(|e| {
            BuildError::vectors(&contracts_dir(ctx), format!("producing the block: {e}"))
        })?;
        let h = &block.header;
        Ok(vec![dyno_protocol::Case::new(
            [
                (
                    "genesis",
                    export::genesis_json(&genesis.world, &genesis.header),
                ),
                (
                    "block",
                    serde_json::Value::String(format!(
                        "0x{}",
                        alloy_primitives::hex::encode(export::block_rlp(&block))
                    )),
                ),
            ],
            [
                ("state_root", serde_json::json!(h.state_root)),
                ("receipts_root", serde_json::json!(h.receipts_root)),
                ("gas_used", serde_json::json!(h.gas_used)),
            ],
        )])
    })())
}

/// Every block benchmark: `block/validate/<limit>M-<kind>`.
pub fn defs() -> Vec<BenchDef> {
    let mut defs = Vec::new();
    for m in LIMITS_M {
        for kind in Kind::ALL {
            let spec = Spec::standard(kind, m * 1_000_000);
            defs.push(BenchDef {
                cases: Some(cases),
                group: GROUP,
                op: "validate",
                input: format!("{m}M-{}", kind.name()),
                implementation: "revm",
                version: REVM_VERSION,
                params: vec![
                    ("gas_limit", Param::Int(spec.gas_limit)),
                    ("kind", Param::Text(kind.name().into())),
                ],
                build: Box::new(move |ctx: &Ctx| {
                    Ok(Box::new(build(ctx, spec)?) as Box<dyn Workload>)
                }),
            });
        }
    }
    defs
}

#[cfg(test)]
mod tests;
