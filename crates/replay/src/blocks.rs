//! What a replay sends: block sets, each a genesis and a chain of blocks
//! on it, every block tagged with the id it is measured under (or as
//! warm-up).
//!
//! - `30M`, `36M`, `60M`: rounds of one block of each class (`empty`,
//!   `transfers`, `mix`, `full`, the classes of `block/validate/*`) at that
//!   gas limit, the classes interleaved. The first `warmup` rounds warm
//!   the client; the next `blocks` rounds are measured under
//!   `client/newpayload/<limit>-<class>`.
//! - `1000-blocks`: the chain dyno's own `import/*` benchmarks import (the
//!   same genesis and blocks), every block measured under
//!   `client/import/1000-blocks`: a full sync through the Engine API.

use dyno_evm::block::chain_of_rounds;
use dyno_evm::block::export::genesis_json;
use dyno_evm::block::fork::Fork;
use dyno_evm::block::genesis::{Contracts, Genesis};
use dyno_evm::block::{self, Block};
use dyno_evm::chain::{self, Chain};

use crate::payload::Payload;

/// The block sets there are.
pub const SETS: [&str; 4] = ["30M", "36M", "60M", "1000-blocks"];
/// The sets replayed when none are named.
pub const DEFAULT_SETS: [&str; 3] = ["30M", "36M", "60M"];

/// A block and what it is measured as.
#[derive(Debug, Clone)]
pub struct Planned {
    /// What the Engine API carries.
    pub payload: Payload,
    /// The block as dyno's validator takes it, for the in-process replay
    /// (`--client revm`); `None` for a block read from a chain folder.
    pub block: Option<Block>,
    /// The benchmark id it counts towards; `None` for a warm-up block.
    pub id: Option<String>,
    /// Its class (`full`, ...), `chain` in the 1000-block chain, or what a
    /// chain folder says.
    pub class: String,
}

impl Planned {
    /// One of dyno's own blocks.
    pub fn own(block: Block, id: Option<String>, class: &str) -> Self {
        Self {
            payload: Payload::of(&block),
            block: Some(block),
            id,
            class: class.into(),
        }
    }
}

/// A genesis and the blocks to send after it, in order.
#[derive(Debug, Clone)]
pub struct BlockSet {
    /// `30M`, ..., `1000-blocks`.
    pub name: String,
    /// The genesis: its state and header (dyno's in-process replay starts
    /// from them); `None` for a chain folder, which has only the JSON.
    pub genesis: Option<Genesis>,
    /// The genesis as a client reads it (geth's genesis JSON).
    pub genesis_json: String,
    /// The genesis gas limit.
    pub gas_limit: u64,
    /// The fork its genesis turns on (for a chain folder, what its
    /// genesis file says; `None` if none dyno knows).
    pub fork: Option<Fork>,
    pub blocks: Vec<Planned>,
}

impl BlockSet {
    /// The ids measured in this set, in the order they first appear.
    pub fn ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = Vec::new();
        for p in &self.blocks {
            if let Some(id) = &p.id
                && !ids.contains(id)
            {
                ids.push(id.clone());
            }
        }
        ids
    }
}

/// Why a set could not be made.
#[derive(Debug, thiserror::Error)]
pub enum BlocksError {
    #[error("unknown block set {0:?}: choose from {sets}", sets = SETS.join(", "))]
    Unknown(String),
    #[error("producing the {set} blocks: {reason}")]
    Produce { set: String, reason: String },
}

/// The `client/newpayload/<limit>-<class>` id.
pub fn newpayload_id(set: &str, class: &str) -> String {
    format!("client/newpayload/{set}-{class}")
}

/// The id of the 1000-block chain's import.
pub const IMPORT_ID: &str = "client/import/1000-blocks";

/// Make the set `name` under `fork`: for a class set, `warmup` rounds then
/// `blocks` measured rounds (the 1000-block chain ignores both).
pub fn make(
    contracts: &Contracts,
    name: &str,
    warmup: usize,
    blocks: usize,
    fork: Fork,
) -> Result<BlockSet, BlocksError> {
    let produce = |reason: String| BlocksError::Produce {
        set: name.into(),
        reason,
    };
    if name == "1000-blocks" {
        let c = Chain::generate_under(contracts, chain::BLOCKS, chain::SENDERS, fork)
            .map_err(|e| produce(e.to_string()))?;
        return Ok(BlockSet {
            name: name.into(),
            genesis_json: genesis_json(&c.genesis.world, &c.genesis.header).to_string(),
            gas_limit: c.genesis.header.gas_limit,
            fork: Some(fork),
            genesis: Some(c.genesis),
            blocks: c
                .blocks
                .into_iter()
                .map(|block| Planned::own(block, Some(IMPORT_ID.into()), "chain"))
                .collect(),
        });
    }
    let limit_m: u64 = name
        .strip_suffix('M')
        .and_then(|m| m.parse().ok())
        .filter(|m| block::LIMITS_M.contains(m))
        .ok_or_else(|| BlocksError::Unknown(name.into()))?;
    let limit = limit_m * 1_000_000;
    let (genesis, chain) = chain_of_rounds(contracts, block::SENDERS, limit, warmup + blocks, fork)
        .map_err(|e| produce(e.to_string()))?;
    let per_round = block::Kind::ALL.len();
    Ok(BlockSet {
        name: name.into(),
        genesis_json: genesis_json(&genesis.world, &genesis.header).to_string(),
        gas_limit: limit,
        fork: Some(fork),
        genesis: Some(genesis),
        blocks: chain
            .into_iter()
            .enumerate()
            .map(|(i, (kind, block))| {
                let id = (i >= warmup * per_round).then(|| newpayload_id(name, kind.name()));
                Planned::own(block, id, kind.name())
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_warms_up_then_measures_every_class_alike() {
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let ctx = dyno_workload::Ctx {
            vectors: repo.join("vectors"),
        };
        let contracts = Contracts::load(&ctx).unwrap();
        let set = make(&contracts, "30M", 1, 2, Fork::Osaka).unwrap();
        assert_eq!(set.blocks.len(), 12);
        assert!(set.blocks[..4].iter().all(|p| p.id.is_none()));
        let classes: Vec<&str> = set.blocks.iter().map(|p| p.class.as_str()).collect();
        assert_eq!(&classes[..4], &["empty", "transfers", "mix", "full"]);
        assert_eq!(&classes[4..8], &classes[..4]);
        assert_eq!(
            set.ids(),
            ["empty", "transfers", "mix", "full"].map(|c| format!("client/newpayload/30M-{c}"))
        );
        let numbers: Vec<u64> = set.blocks.iter().map(|p| p.payload.header.number).collect();
        assert_eq!(numbers, (1..=12).collect::<Vec<_>>());
        let full = &set.blocks[11].payload.header;
        assert!(full.gas_used > 29_000_000, "{}", full.gas_used);
        assert!(matches!(
            make(&contracts, "31M", 1, 1, Fork::Osaka),
            Err(BlocksError::Unknown(_))
        ));
    }
}
