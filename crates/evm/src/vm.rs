//! One revm instance with a contract to call: what bytecode mode and the
//! opcode loops run on.
//!
//! The EVM runs the Osaka rules with an in-memory database
//! (`CacheDB<EmptyDB>`). Measurement loops run far past a real
//! transaction's limits, so the per-transaction gas cap (EIP-7825) is
//! lifted, the block gas limit is `u64::MAX`, the base fee and gas price
//! are zero and the nonce check is off; nothing else changes. Each call is
//! a fresh transaction on the same pre-state: its state changes are never
//! committed, so every sample starts alike.

use revm::context::result::{ExecutionResult, Output, ResultAndState};
use revm::context::{BlockEnv, CfgEnv, Context, TxEnv};
use revm::database::{CacheDB, EmptyDB};
use revm::primitives::hardfork::SpecId;
use revm::primitives::{Address, Bytes, TxKind, U256, address};
use revm::state::{AccountInfo, Bytecode};
use revm::{ExecuteCommitEvm, ExecuteEvm, MainBuilder, MainContext, MainnetEvm};

/// The revm version dyno links (checked against `Cargo.lock`).
pub const REVM_VERSION: &str = "43.0.3";

/// Where the program under test lives.
pub const TARGET: Address = address!("0x00000000000000000000000000000000000d1e00");
/// Who sends every transaction.
pub const CALLER: Address = address!("0x00000000000000000000000000000000000ca11e");
/// A second contract, for programs that call one (see [`Vm::with_callee`]).
pub const CALLEE: Address = address!("0x00000000000000000000000000000000000ca11d");

/// The gas every call gets: far above any loop dyno runs.
pub const GAS_LIMIT: u64 = 1 << 40;

type Ctx = Context<BlockEnv, TxEnv, CfgEnv, CacheDB<EmptyDB>>;

/// An EVM with the program at [`TARGET`].
pub struct Vm {
    evm: MainnetEvm<Ctx>,
    tx: TxEnv,
}

impl std::fmt::Debug for Vm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vm").finish_non_exhaustive()
    }
}

/// The pre-state value of storage slot `slot` in [`Vm::with_storage`]:
/// `2^64 + slot`, never zero and never a loop counter, so every SSTORE of a
/// counter changes a slot and costs the same.
pub fn slot_value(slot: u64) -> U256 {
    (U256::from(1) << 64) + U256::from(slot)
}

/// An Osaka EVM over `db` with the lab's limits lifted: no per-transaction
/// gas cap (EIP-7825), a block gas limit of `u64::MAX`, base fee zero, no
/// nonce check. The opcode, bytecode and state loops all run on it.
pub fn lab_evm<DB: revm::Database>(db: DB) -> MainnetEvm<Context<BlockEnv, TxEnv, CfgEnv, DB>> {
    Context::mainnet()
        .modify_cfg_chained(|cfg| {
            cfg.set_spec_and_mainnet_gas_params(SpecId::OSAKA);
            cfg.tx_gas_limit_cap = Some(u64::MAX);
            cfg.disable_nonce_check = true;
        })
        .modify_block_chained(|b| {
            b.gas_limit = u64::MAX;
            b.basefee = 0;
        })
        .with_db(db)
        .build_mainnet()
}

/// A call from `caller` to `target` with [`GAS_LIMIT`] at gas price zero;
/// the caller sets data and value.
pub fn lab_tx(caller: Address, target: Address) -> TxEnv {
    TxEnv::builder()
        .caller(caller)
        .kind(TxKind::Call(target))
        .gas_limit(GAS_LIMIT)
        .gas_price(0)
        .build_fill()
}

/// What one call did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The call returned normally (not a revert or a halt).
    pub success: bool,
    /// Returned bytes, or revert data; empty on a halt.
    pub output: Bytes,
    /// Gas spent before refunds, intrinsic cost included.
    pub gas_spent: u64,
    /// Why it did not succeed, if it did not.
    pub error: Option<String>,
    /// Logs emitted (on success).
    pub logs: usize,
}

impl Vm {
    /// An Osaka EVM with `code` at [`TARGET`].
    pub fn new(code: Vec<u8>) -> Self {
        Self::with_accounts(code, None, 0)
    }

    /// As [`Vm::new`], plus `callee` code at [`CALLEE`].
    pub fn with_callee(code: Vec<u8>, callee: Vec<u8>) -> Self {
        Self::with_accounts(code, Some(callee), 0)
    }

    /// As [`Vm::new`], with storage slots `0..slots` of [`TARGET`] set to
    /// [`slot_value`].
    pub fn with_storage(code: Vec<u8>, slots: u64) -> Self {
        Self::with_accounts(code, None, slots)
    }

    /// An Osaka EVM over these accounts (each with its code, balance,
    /// nonce and storage) and a funded [`CALLER`]; the program is the code
    /// at [`TARGET`], which `alloc` must hold.
    pub fn with_alloc(alloc: &[crate::block::world::Allocated]) -> Self {
        let mut db = CacheDB::new(EmptyDB::new());
        for a in alloc {
            let mut info = AccountInfo {
                balance: a.balance,
                nonce: a.nonce,
                ..AccountInfo::default()
            };
            if !a.code.is_empty() {
                let code = Bytecode::new_raw(a.code.clone());
                info.code_hash = code.hash_slow();
                info.code = Some(code);
            }
            db.insert_account_info(a.address, info);
            for &(slot, value) in &a.storage {
                db.insert_account_storage(a.address, slot, value)
                    .expect("an in-memory database cannot fail");
            }
        }
        Self::funded(db)
    }

    /// The EVM over `db` with a funded [`CALLER`] calling [`TARGET`].
    fn funded(mut db: CacheDB<EmptyDB>) -> Self {
        db.insert_account_info(
            CALLER,
            AccountInfo {
                balance: U256::from(u128::MAX),
                ..AccountInfo::default()
            },
        );
        Self {
            evm: lab_evm(db),
            tx: lab_tx(CALLER, TARGET),
        }
    }

    fn with_accounts(code: Vec<u8>, callee: Option<Vec<u8>>, slots: u64) -> Self {
        let mut db = CacheDB::new(EmptyDB::new());
        let contract = |code: Vec<u8>| AccountInfo {
            code: Some(Bytecode::new_raw(code.into())),
            nonce: 1,
            ..AccountInfo::default()
        };
        db.insert_account_info(TARGET, contract(code));
        for slot in 0..slots {
            db.insert_account_storage(TARGET, U256::from(slot), slot_value(slot))
                .expect("an in-memory database cannot fail");
        }
        if let Some(callee) = callee {
            db.insert_account_info(CALLEE, contract(callee));
        }
        Self::funded(db)
    }

    /// A transaction from [`CALLER`] with the gas limit and zero gas price
    /// every call gets; the caller sets kind, data and value.
    pub fn tx(&self) -> TxEnv {
        self.tx.clone()
    }

    /// Execute `tx` on the current state without committing it: the
    /// result and the post-state it would leave.
    pub fn transact(&mut self, tx: TxEnv) -> Result<ResultAndState, String> {
        self.evm.transact(tx).map_err(|e| e.to_string())
    }

    /// Execute `tx` and commit its changes: building a pre-state.
    pub fn commit(&mut self, tx: TxEnv) -> Result<ExecutionResult, String> {
        self.evm.transact_commit(tx).map_err(|e| e.to_string())
    }

    /// Deploy `initcode` from [`CALLER`] (committed): the new contract's
    /// address, or why creation failed.
    pub fn deploy(&mut self, initcode: Vec<u8>) -> Result<Address, String> {
        let mut tx = self.tx();
        tx.kind = TxKind::Create;
        tx.data = initcode.into();
        match self.commit(tx)? {
            ExecutionResult::Success {
                output: Output::Create(_, Some(address)),
                ..
            } => Ok(address),
            other => Err(format!("deployment failed: {other:?}")),
        }
    }

    /// Call the program with `data` as calldata, on the unchanged
    /// pre-state.
    #[inline]
    pub fn call(&mut self, data: &Bytes) -> Outcome {
        let mut tx = self.tx.clone();
        tx.data = data.clone();
        match self.evm.transact(tx) {
            Ok(r) => match r.result {
                ExecutionResult::Success {
                    gas, output, logs, ..
                } => Outcome {
                    success: true,
                    logs: logs.len(),
                    output: match output {
                        Output::Call(b) => b,
                        Output::Create(b, _) => b,
                    },
                    gas_spent: gas.total_gas_spent(),
                    error: None,
                },
                ExecutionResult::Revert { gas, output, .. } => Outcome {
                    success: false,
                    output,
                    gas_spent: gas.total_gas_spent(),
                    error: Some("reverted".into()),
                    logs: 0,
                },
                ExecutionResult::Halt { reason, gas, .. } => Outcome {
                    success: false,
                    output: Bytes::new(),
                    gas_spent: gas.total_gas_spent(),
                    error: Some(format!("halted: {reason:?}")),
                    logs: 0,
                },
            },
            Err(e) => Outcome {
                success: false,
                output: Bytes::new(),
                gas_spent: 0,
                error: Some(format!("invalid transaction: {e}")),
                logs: 0,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::{Asm, op};

    #[test]
    fn a_program_runs_and_returns_its_output() {
        // mstore(0, 42); return(0, 32)
        let mut a = Asm::new();
        a.push(42)
            .push(0)
            .ops(&[op::MSTORE])
            .push(32)
            .push(0)
            .ops(&[op::RETURN]);
        let mut vm = Vm::new(a.finish());
        let out = vm.call(&Bytes::new());
        assert!(out.success, "{out:?}");
        assert_eq!(out.output[31], 42);
        // 21000 intrinsic + PUSH1 PUSH0 MSTORE(3 + 3 memory) PUSH1 PUSH0 RETURN
        assert_eq!(out.gas_spent, 21_000 + 3 + 2 + 6 + 3 + 2);
        // Nothing is committed: a second call sees the same state.
        assert_eq!(vm.call(&Bytes::new()), out);
    }

    #[test]
    fn a_failing_program_is_reported_as_failed() {
        let mut vm = Vm::new(vec![op::INVALID]);
        let out = vm.call(&Bytes::new());
        assert!(!out.success);
        assert!(out.error.unwrap().contains("halted"));
        let mut vm = Vm::new(vec![op::PUSH0, op::PUSH0, op::REVERT]);
        assert_eq!(vm.call(&Bytes::new()).error.as_deref(), Some("reverted"));
    }

    #[test]
    fn revm_version_matches_the_lockfile() {
        let lock = include_str!("../../../Cargo.lock");
        let at = lock.find("name = \"revm\"\n").expect("revm in Cargo.lock");
        let version = lock[at..].lines().nth(1).unwrap();
        assert_eq!(version, format!("version = \"{REVM_VERSION}\""));
    }
}
