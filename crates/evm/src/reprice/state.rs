//! The state set (EIP-8038): programs that touch one new key a call, and
//! the pre-state they touch.
//!
//! A `state` series' transaction reads `n ‖ first` from calldata and makes
//! `n` accesses to the keys `base + first`, `base + first + 1`, ...: every
//! key of every transaction of the run is a different one, so each access
//! is cold twice over: cold in EIP-2929's sense (first touch in its
//! transaction) and never touched before by the client since it started
//! (`super::make` hands each transaction the next unused indices). The
//! keys that must exist (`sload-cold`, `balance-cold`, ...) are in the
//! genesis, written by [`prestate`] for exactly the indices the run uses;
//! a client that loads the genesis in another process (`geth init`) starts
//! with none of them in memory.
//!
//! What each access's loop turn does (stack `[acc, i, n]`, `K = base + i`):
//!
//! | access | turn | control (same glue, no access) |
//! |---|---|---|
//! | `sload-*`, `balance-cold`, `extcodesize-cold` | `K OP XOR` | `K XOR` (counts XOR) |
//! | `sstore-*` | `K DUP1 PUSH32 mask AND SWAP1 SSTORE` (value `K`, or 0 to clear) | the same, `POP POP` |
//! | `call-value-cold` | `CALL(0, K, 1 wei, no input, no output) XOR` | its 7 operands, 6 `POP`s and `XOR` |
//! | `create` | `CREATE(0, initcode) XOR` (the state suite's initcode: 32 zero bytes of code) | its 3 operands, 2 `POP`s and `XOR` |
//!
//! Every result that can be (a loaded value, a balance, a code size, a
//! call's success, a new address) is XORed into the accumulator stored at
//! the end, so the state root commits to what the client read.

use alloy_primitives::{Address, Bytes, U256};

use super::program::{Counted, Program};
use crate::asm::{Asm, Label, op};
use crate::block::world::Allocated;

/// The initcode a `create` turn runs (the state suite's,
/// `dyno_state::access::INITCODE`): `PUSH1 32 PUSH0 RETURN`, 32 zero bytes
/// of code.
pub const INITCODE: [u8; 4] = [0x60, 0x20, 0x5f, 0xf3];
/// The balance of a `call-value-cold` contract: enough for every wei a run sends.
const CALLER_BALANCE: u64 = 1 << 62;

/// One state access a series repeats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    SloadExisting,
    SloadMissing,
    Balance,
    ExtCodeSize,
    SstoreSet,
    SstoreModify,
    SstoreClear,
    CallValue,
    Create,
}

impl Access {
    /// From the state suite's name (`specs/operations.toml`'s `access`).
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "sload-cold" => Self::SloadExisting,
            "sload-missing" => Self::SloadMissing,
            "balance-cold" => Self::Balance,
            "extcodesize-cold" => Self::ExtCodeSize,
            "sstore-fresh" => Self::SstoreSet,
            "sstore-modify" => Self::SstoreModify,
            "sstore-clear" => Self::SstoreClear,
            "call-value-cold" => Self::CallValue,
            "create" => Self::Create,
            _ => return None,
        })
    }

    /// The opcode it counts, by name and value.
    pub fn opcode(self) -> (&'static str, u8) {
        match self {
            Self::SloadExisting | Self::SloadMissing => ("SLOAD", op::SLOAD),
            Self::Balance => ("BALANCE", op::BALANCE),
            Self::ExtCodeSize => ("EXTCODESIZE", op::EXTCODESIZE),
            Self::SstoreSet | Self::SstoreModify | Self::SstoreClear => ("SSTORE", op::SSTORE),
            Self::CallValue => ("CALL", op::CALL),
            Self::Create => ("CREATE", op::CREATE),
        }
    }

    /// The control series it shares (the same glue).
    pub fn glue(self) -> &'static str {
        match self {
            Self::SloadExisting | Self::SloadMissing | Self::Balance | Self::ExtCodeSize => {
                "state-read"
            }
            Self::SstoreSet | Self::SstoreModify | Self::SstoreClear => "state-store",
            Self::CallValue => "state-call",
            Self::Create => "state-create",
        }
    }
}

/// The key base of the series at `index`: `(0x5eed_8038 + index) << 64`,
/// so no two series share a key and a key's low 160 bits are an address.
pub fn base(index: usize) -> U256 {
    U256::from(0x5eed_8038u64 + index as u64) << 64
}

/// A key's address (BALANCE, EXTCODESIZE and CALL take its low 160 bits).
pub fn address(key: U256) -> Address {
    Address::from_word(key.into())
}

/// Index `i`'s key.
fn key(base: U256, i: u64) -> U256 {
    base + U256::from(i)
}

/// What an existing slot holds: its index with the top bit set (never the
/// key a `sstore-modify` writes, never zero).
fn held(i: u64) -> U256 {
    (U256::from(1) << 255) | U256::from(i)
}

/// An existing contract's distinct code (`extcodesize-cold`): `PUSH8 i
/// POP STOP`, a code hash of its own so that no code cache answers for it.
pub fn code_of(i: u64) -> Bytes {
    let mut c = vec![op::PUSH8];
    c.extend_from_slice(&i.to_be_bytes());
    c.extend_from_slice(&[op::POP, op::STOP]);
    c.into()
}

fn push32(a: &mut Asm, v: U256) {
    a.ops(&[op::PUSH32]).ops(&v.to_be_bytes::<32>());
}

/// `K = base + i` on top, with `depth` items above the accumulator.
fn push_key(a: &mut Asm, base: U256, depth: u8) {
    a.ops(&[op::DUP2 + depth]);
    push32(a, base);
    a.ops(&[op::ADD]);
}

/// The program that makes `access` once a turn on keys from `base`; with
/// `control`, the same glue without it.
pub fn program(access: Access, base: U256, control: bool) -> Program {
    let mut a = Asm::new();
    let (top, end): (Label, Label) = (a.label(), a.label());
    // [acc = 1, i = first, n]
    a.push(0).ops(&[op::CALLDATALOAD]);
    a.push(32).ops(&[op::CALLDATALOAD]);
    a.push(1);
    if access == Access::Create {
        // memory[28..32] = the initcode, once.
        a.push_bytes(&INITCODE).push(0).ops(&[op::MSTORE]);
    }
    a.mark(top);
    a.ops(&[op::DUP3, op::ISZERO]).jumpi(end);
    let (_, opcode) = access.opcode();
    let counted = match access {
        Access::SloadExisting | Access::SloadMissing | Access::Balance | Access::ExtCodeSize => {
            push_key(&mut a, base, 0);
            if control {
                a.ops(&[op::XOR]);
                (Counted::Opcode(op::XOR), 1)
            } else {
                a.ops(&[opcode, op::XOR]);
                (Counted::Opcode(opcode), 1)
            }
        }
        Access::SstoreSet | Access::SstoreModify | Access::SstoreClear => {
            push_key(&mut a, base, 0);
            let mask = if access == Access::SstoreClear {
                U256::ZERO
            } else {
                U256::MAX
            };
            a.ops(&[op::DUP1]);
            push32(&mut a, mask);
            a.ops(&[op::AND, op::SWAP1]);
            if control {
                a.ops(&[op::POP, op::POP]);
                (Counted::Opcode(op::POP), 2)
            } else {
                a.ops(&[op::SSTORE]);
                (Counted::Opcode(op::SSTORE), 1)
            }
        }
        Access::CallValue => {
            // retLen, retOffset, argsLen, argsOffset, value, address, gas
            a.ops(&[op::PUSH0, op::PUSH0, op::PUSH0, op::PUSH0]).push(1);
            push_key(&mut a, base, 5);
            a.ops(&[op::PUSH0]);
            if control {
                a.ops(&[op::POP; 6]);
                a.ops(&[op::XOR]);
                (Counted::Opcode(op::POP), 6)
            } else {
                a.ops(&[op::CALL, op::XOR]);
                (Counted::Opcode(op::CALL), 1)
            }
        }
        Access::Create => {
            // size, offset, value
            a.push(INITCODE.len() as u64)
                .push(32 - INITCODE.len() as u64)
                .ops(&[op::PUSH0]);
            if control {
                a.ops(&[op::POP, op::POP, op::XOR]);
                (Counted::Opcode(op::POP), 2)
            } else {
                a.ops(&[op::CREATE, op::XOR]);
                (Counted::Opcode(op::CREATE), 1)
            }
        }
    };
    // i += 1; n -= 1
    a.ops(&[op::SWAP1]).push(1).ops(&[op::ADD, op::SWAP1]);
    a.ops(&[op::SWAP2])
        .push(1)
        .ops(&[op::SWAP1, op::SUB, op::SWAP2]);
    a.jump(top);
    a.mark(end);
    a.push(0).ops(&[op::SSTORE, op::STOP]);
    Program {
        code: a.finish(),
        counted: counted.0,
        per_turn: counted.1,
        // The accumulator's SSTORE, which an SSTORE series counts too.
        per_tx: u64::from(counted.0 == Counted::Opcode(op::SSTORE)),
    }
}

/// What must exist before a series of `access` uses indices `indices`:
/// its contract (`code` at `contract`) with the slots it reads or
/// changes and the balance it sends, and the accounts it touches.
pub fn prestate(
    access: Access,
    contract: Address,
    code: Vec<u8>,
    base: U256,
    indices: std::ops::RangeInclusive<u64>,
) -> Vec<Allocated> {
    let mut storage = Vec::new();
    let mut accounts = Vec::new();
    match access {
        Access::SloadExisting | Access::SstoreModify | Access::SstoreClear => {
            storage = indices.map(|i| (key(base, i), held(i))).collect();
            storage.sort();
        }
        Access::Balance | Access::CallValue => {
            accounts = indices
                .map(|i| Allocated {
                    address: address(key(base, i)),
                    balance: U256::from(1),
                    nonce: 0,
                    code: Bytes::new(),
                    storage: Vec::new(),
                })
                .collect();
        }
        Access::ExtCodeSize => {
            accounts = indices
                .map(|i| Allocated {
                    address: address(key(base, i)),
                    balance: U256::ZERO,
                    nonce: 1,
                    code: code_of(i),
                    storage: Vec::new(),
                })
                .collect();
        }
        Access::SloadMissing | Access::SstoreSet | Access::Create => {}
    }
    let balance = if access == Access::CallValue {
        U256::from(CALLER_BALANCE)
    } else {
        U256::ZERO
    };
    let mut out = vec![Allocated {
        address: contract,
        balance,
        nonce: 1,
        code: code.into(),
        storage,
    }];
    out.extend(accounts);
    out
}
