//! revm over a stored state: a `Database` that reads every account, code
//! and slot from the store with one lookup of its flat key (no cache in
//! front of it but revm's own journal, which keeps what one transaction has
//! touched), and the EVM that runs a benchmark's program on it.
//!
//! The program runs as the token (account 0, the contract that holds the
//! most slots): its storage is the token's, read from the store; its code
//! and balance are the program's and a large balance, served from memory
//! like the caller's account.

use std::cell::Cell;

use alloy_primitives::{Address, B256, Bytes, U256, keccak256};
use revm::ExecuteEvm;
use revm::context::result::ResultAndState;
use revm::database_interface::{DBErrorMarker, Database};
use revm::state::{AccountInfo, Bytecode};

use crate::layout::{self, StoredAccount};
use crate::shape;
use crate::store::Reader;

/// Who sends every transaction (not in the generated state): the lab's caller.
pub const CALLER: Address = dyno_evm::vm::CALLER;

/// Where the program runs: the token's address.
pub fn target() -> Address {
    shape::account(0).address
}

/// A read the store could not answer (an engine error or a value that
/// does not decode).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ReadFault(pub String);

impl DBErrorMarker for ReadFault {}

/// revm's database over a [`Reader`].
pub struct StateDb<'r> {
    reader: &'r dyn Reader,
    target: Address,
    program: Bytecode,
    program_hash: B256,
    buf: Vec<u8>,
    reads: &'r Cell<u64>,
}

impl std::fmt::Debug for StateDb<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateDb").finish_non_exhaustive()
    }
}

impl<'r> StateDb<'r> {
    /// The state behind `reader`, with `program` at [`target`]; `reads`
    /// counts the store's lookups.
    pub fn new(reader: &'r dyn Reader, program: &Bytecode, reads: &'r Cell<u64>) -> Self {
        Self {
            reader,
            target: target(),
            program_hash: program.hash_slow(),
            program: program.clone(),
            buf: Vec::with_capacity(128),
            reads,
        }
    }

    fn read(&mut self, key: &[u8]) -> Result<bool, ReadFault> {
        self.reads.set(self.reads.get() + 1);
        self.reader
            .read(key, &mut self.buf)
            .map_err(|e| ReadFault(e.to_string()))
    }
}

impl Database for StateDb<'_> {
    type Error = ReadFault;

    fn basic(&mut self, address: Address) -> Result<Option<AccountInfo>, ReadFault> {
        if address == CALLER || address == self.target {
            let program = address == self.target;
            return Ok(Some(AccountInfo {
                balance: U256::from(u128::MAX),
                nonce: u64::from(program),
                code_hash: if program {
                    self.program_hash
                } else {
                    layout::KECCAK_EMPTY
                },
                code: Some(if program {
                    self.program.clone()
                } else {
                    Bytecode::default()
                }),
                ..AccountInfo::default()
            }));
        }
        if !self.read(&layout::account_key(&keccak256(address)))? {
            return Ok(None);
        }
        let a = StoredAccount::decode(&self.buf)
            .map_err(|e| ReadFault(format!("account {address}: {e}")))?;
        Ok(Some(AccountInfo {
            balance: a.balance,
            nonce: a.nonce,
            code_hash: a.code_hash,
            // revm asks for the code by its hash when it needs it: a
            // second read, as a client's (EXTCODESIZE, CALL).
            code: (a.code_hash == layout::KECCAK_EMPTY).then(Bytecode::default),
            ..AccountInfo::default()
        }))
    }

    fn code_by_hash(&mut self, code_hash: B256) -> Result<Bytecode, ReadFault> {
        if code_hash == self.program_hash {
            return Ok(self.program.clone());
        }
        if code_hash == layout::KECCAK_EMPTY {
            return Ok(Bytecode::default());
        }
        if !self.read(&layout::code_key(&code_hash))? {
            return Err(ReadFault(format!("no code under its hash {code_hash}")));
        }
        Ok(Bytecode::new_raw(Bytes::copy_from_slice(&self.buf)))
    }

    fn storage(&mut self, address: Address, index: U256) -> Result<U256, ReadFault> {
        let key = layout::storage_key(
            &keccak256(address),
            &layout::hash_slot(&B256::from(index.to_be_bytes::<32>())),
        );
        if !self.read(&key)? {
            return Ok(U256::ZERO);
        }
        layout::decode_value(&self.buf)
            .map_err(|e| ReadFault(format!("slot {index:#x} of {address}: {e}")))
    }

    fn block_hash(&mut self, number: u64) -> Result<B256, ReadFault> {
        Ok(keccak256(number.to_be_bytes()))
    }
}

/// Run `calldata` against the program over `reader`, without committing:
/// the result and the post-state, and the nanoseconds the transaction took
/// (the EVM is built before the clock starts).
pub fn execute(
    reader: &dyn Reader,
    program: &Bytecode,
    calldata: Bytes,
    reads: &Cell<u64>,
) -> (Result<ResultAndState, String>, u64) {
    let mut evm = dyno_evm::vm::lab_evm(StateDb::new(reader, program, reads));
    let mut tx = dyno_evm::vm::lab_tx(CALLER, target());
    tx.data = calldata;
    let t0 = std::time::Instant::now();
    let r = evm.transact(tx);
    let ns = t0.elapsed().as_nanos() as u64;
    (r.map_err(|e| e.to_string()), ns)
}
