//! What revm executed, counted: a block's transactions re-executed on the
//! state before it under an inspector that counts one opcode's executions
//! or the calls into one address. A block's operation count is known by
//! construction and checked here before anything is timed, so a generator
//! bug cannot hide in a fit.

use alloy_primitives::Address;
use revm::context::ContextTr;
use revm::interpreter::interpreter_types::Jumps;
use revm::interpreter::{CallInputs, CallOutcome, Interpreter};
use revm::{InspectCommitEvm, Inspector, MainBuilder};

use super::program::Counted;
use crate::block::Block;
use crate::block::executor::{context, tx_env};
use crate::block::validator::recover_senders;
use crate::block::world::World;

/// Counts one opcode's executions and the calls into one address.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counter {
    opcode: Option<u8>,
    callee: Option<Address>,
    /// What it counted.
    pub count: u64,
}

impl Counter {
    pub fn new(what: Counted) -> Self {
        match what {
            Counted::Opcode(o) => Self {
                opcode: Some(o),
                ..Self::default()
            },
            Counted::Calls(a) => Self {
                callee: Some(a),
                ..Self::default()
            },
        }
    }
}

impl<CTX: ContextTr> Inspector<CTX> for Counter {
    fn step(&mut self, interp: &mut Interpreter, _context: &mut CTX) {
        if let Some(o) = self.opcode
            && interp.bytecode.opcode() == o
        {
            self.count += 1;
        }
    }

    fn call(&mut self, _context: &mut CTX, inputs: &mut CallInputs) -> Option<CallOutcome> {
        if self.callee == Some(inputs.bytecode_address) {
            self.count += 1;
        }
        None
    }
}

/// Why a block's count could not be confirmed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CountError {
    #[error(
        "block {number}: revm executed {counted} operations, the plan says {planned}: the generator is wrong, nothing is timed"
    )]
    Mismatch {
        number: u64,
        planned: u64,
        counted: u64,
    },
    #[error("block {number}: re-executing it to count: {reason}")]
    Execution { number: u64, reason: String },
    /// Stopped before the block was counted to its end.
    #[error("interrupted while counting block {number}")]
    Interrupted { number: u64 },
}

/// The count check's own chain: every block's transactions re-executed,
/// in order, on one overlay over the genesis that keeps what each
/// committed (no copy of the world a block: a pre-state of a million keys
/// would make each copy the slow part).
pub struct Recount<'w> {
    world: &'w World,
    cache: Option<revm::database::CacheDB<&'w World>>,
}

impl std::fmt::Debug for Recount<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recount")
            .field(
                "cached_accounts",
                &self.cache.as_ref().map_or(0, |c| c.cache.accounts.len()),
            )
            .finish_non_exhaustive()
    }
}

impl<'w> Recount<'w> {
    /// From the genesis `world`.
    pub fn new(world: &'w World) -> Self {
        Self {
            world,
            cache: Some(revm::database::CacheDB::new(world)),
        }
    }

    /// Re-execute `block`'s transactions after every block before it,
    /// senders recovered from their signatures, counting `what`; an error
    /// unless the count is `planned`.
    pub fn check(&mut self, block: &Block, what: Counted, planned: u64) -> Result<(), CountError> {
        self.check_until(
            block,
            what,
            planned,
            &std::sync::atomic::AtomicBool::new(false),
        )
    }

    /// [`check`](Self::check), hearing `stop` before every transaction
    /// ([`CountError::Interrupted`]).
    pub fn check_until(
        &mut self,
        block: &Block,
        what: Counted,
        planned: u64,
        stop: &std::sync::atomic::AtomicBool,
    ) -> Result<(), CountError> {
        let number = block.header.number;
        let failed = |reason: String| CountError::Execution { number, reason };
        let senders = recover_senders(block).map_err(|e| failed(e.to_string()))?;
        let cache = self
            .cache
            .take()
            .unwrap_or_else(|| revm::database::CacheDB::new(self.world));
        let mut evm = context(self.world, &block.header)
            .with_db(cache)
            .build_mainnet_with_inspector(Counter::new(what));
        let mut outcome = Ok(());
        for (tx, sender) in block.transactions.iter().zip(senders) {
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                outcome = Err(CountError::Interrupted { number });
                break;
            }
            if let Err(e) = evm.inspect_tx_commit(tx_env(tx, sender)) {
                outcome = Err(failed(e.to_string()));
                break;
            }
        }
        let counted = evm.inspector.count;
        self.cache = Some(std::mem::replace(
            &mut evm.ctx.journaled_state.database,
            revm::database::CacheDB::new(self.world),
        ));
        outcome?;
        if counted != planned {
            return Err(CountError::Mismatch {
                number,
                planned,
                counted,
            });
        }
        Ok(())
    }
}
