//! The accesses: for each, the keys one transaction touches, the program
//! that touches them, and what the program must return.
//!
//! Every program is one loop over keys passed in calldata (word 0 the count
//! N, words 1..=P the keys; the loop takes keys N down to 1), adding what
//! each access yields to an accumulator that it returns:
//!
//! ```text
//! acc = 0; n = calldata[0]
//! while n != 0 { acc += ACCESS(calldata[32 n]); n -= 1 }
//! return acc
//! ```
//!
//! A cold access takes a different key in every iteration (at most
//! [`POOL`] per transaction, so cold means cold); a warm one takes the same
//! key every time (the first iteration pays the cold access). The keys are
//! picked from the generated state by [`crate::shape::picks`], the same
//! every run, and the expected sums come from the state's definition, never
//! from the store or revm.

use alloy_primitives::{Address, B256, U256, keccak256};

use dyno_evm::asm::{Asm, op};

use crate::shape;

/// Keys in one transaction's calldata: the most iterations one run takes.
pub const POOL: usize = 512;

/// What a transaction's keys are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keys {
    /// Existing slots of the token.
    TokenSlots,
    /// Slots no contract holds.
    MissingSlots,
    /// Existing accounts, contracts or not (the token excepted).
    Accounts,
    /// Existing contracts (the token excepted).
    Contracts,
    /// Existing accounts without code.
    Eoas,
    /// Addresses no state holds.
    MissingAccounts,
    /// Salts (CREATE2) or nothing (CREATE): fresh addresses every time.
    Salts,
}

/// What one iteration does to its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// SLOAD of the key.
    Sload,
    /// BALANCE of the key.
    Balance,
    /// EXTCODESIZE of the key.
    ExtCodeSize,
    /// EXTCODEHASH of the key.
    ExtCodeHash,
    /// CALL with 1 wei to the key, then its (now warm) BALANCE.
    CallValue,
    /// SSTORE of the key as its own value, then its (now warm) SLOAD.
    Sstore,
    /// SSTORE of zero, then its (now warm) SLOAD.
    SstoreClear,
    /// CREATE of a 32-byte contract, then its EXTCODESIZE.
    Create,
    /// CREATE2 of the same, salted with the key, then its EXTCODESIZE.
    Create2,
}

/// One access kind: its id part, what it does, to which keys, and whether
/// it repeats one key (warm).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// The id's op part: `sload-cold`.
    pub name: &'static str,
    /// What it does.
    pub op: Op,
    /// Whose keys.
    pub keys: Keys,
    /// One key repeated: the warm control.
    pub warm: bool,
    /// In words.
    pub about: &'static str,
}

const fn access(name: &'static str, op: Op, keys: Keys, warm: bool, about: &'static str) -> Access {
    Access {
        name,
        op,
        keys,
        warm,
        about,
    }
}

/// Every access kind, in the order tables show them.
pub const ACCESSES: &[Access] = &[
    access(
        "sload-cold",
        Op::Sload,
        Keys::TokenSlots,
        false,
        "SLOAD of an existing slot, cold",
    ),
    access(
        "sload-missing",
        Op::Sload,
        Keys::MissingSlots,
        false,
        "SLOAD of a slot that holds nothing, cold",
    ),
    access(
        "sload-warm",
        Op::Sload,
        Keys::TokenSlots,
        true,
        "SLOAD of a slot already read (the control)",
    ),
    access(
        "balance-cold",
        Op::Balance,
        Keys::Accounts,
        false,
        "BALANCE of an existing account, cold",
    ),
    access(
        "balance-missing",
        Op::Balance,
        Keys::MissingAccounts,
        false,
        "BALANCE of an absent account, cold",
    ),
    access(
        "balance-warm",
        Op::Balance,
        Keys::Accounts,
        true,
        "BALANCE of an account already touched (the control)",
    ),
    access(
        "extcodesize-cold",
        Op::ExtCodeSize,
        Keys::Contracts,
        false,
        "EXTCODESIZE of an existing contract, cold (account and code read)",
    ),
    access(
        "extcodesize-missing",
        Op::ExtCodeSize,
        Keys::MissingAccounts,
        false,
        "EXTCODESIZE of an absent account, cold",
    ),
    access(
        "extcodehash-cold",
        Op::ExtCodeHash,
        Keys::Contracts,
        false,
        "EXTCODEHASH of an existing contract, cold",
    ),
    access(
        "extcodehash-missing",
        Op::ExtCodeHash,
        Keys::MissingAccounts,
        false,
        "EXTCODEHASH of an absent account, cold",
    ),
    access(
        "call-value-cold",
        Op::CallValue,
        Keys::Eoas,
        false,
        "CALL with 1 wei to an existing account without code, cold",
    ),
    access(
        "call-value-warm",
        Op::CallValue,
        Keys::Eoas,
        true,
        "CALL with 1 wei to an account already touched (the control)",
    ),
    access(
        "sstore-fresh",
        Op::Sstore,
        Keys::MissingSlots,
        false,
        "SSTORE to a slot that held nothing (0 to non-zero), cold",
    ),
    access(
        "sstore-modify",
        Op::Sstore,
        Keys::TokenSlots,
        false,
        "SSTORE changing an existing slot, cold",
    ),
    access(
        "sstore-clear",
        Op::SstoreClear,
        Keys::TokenSlots,
        false,
        "SSTORE of zero to an existing slot (refund), cold",
    ),
    access(
        "sstore-warm",
        Op::Sstore,
        Keys::TokenSlots,
        true,
        "SSTORE to a slot already written (the control)",
    ),
    access(
        "create",
        Op::Create,
        Keys::Salts,
        false,
        "CREATE of a 32-byte contract at a fresh address",
    ),
    access(
        "create2",
        Op::Create2,
        Keys::Salts,
        false,
        "CREATE2 of a 32-byte contract at a fresh address",
    ),
];

/// The access kind named `name`.
pub fn find(name: &str) -> Option<&'static Access> {
    ACCESSES.iter().find(|a| a.name == name)
}

/// The initcode CREATE and CREATE2 run: return 32 bytes of memory (zeros)
/// as the new contract's code. `PUSH1 32 PUSH0 RETURN`.
pub const INITCODE: [u8; 4] = [0x60, 0x20, 0x5f, 0xf3];
/// The size of the code it leaves.
pub const CREATED_SIZE: u64 = 32;

fn word(a: &Address) -> B256 {
    let mut w = B256::ZERO;
    w[12..].copy_from_slice(a.as_slice());
    w
}

/// The `POOL` keys one transaction may take, for a state of `n` accounts,
/// and what each key's access yields (from the state's definition).
pub fn keys(a: &Access, n: u64) -> Vec<(B256, U256)> {
    let mut out: Vec<(B256, U256)> = match a.keys {
        Keys::TokenSlots => shape::picks("token-slots", POOL, shape::token_slots(n))
            .into_iter()
            .map(|j| shape::slot(0, j))
            .collect(),
        Keys::MissingSlots => (0..POOL as u64)
            .map(|m| (shape::missing_slot(m), U256::ZERO))
            .collect(),
        Keys::Accounts => shape::picks("accounts", POOL, n - 1)
            .into_iter()
            .map(|m| shape::account(m + 1))
            .map(|acc| (word(&acc.address), acc.balance))
            .collect(),
        Keys::Contracts => shape::picks("contracts", POOL, n / shape::CONTRACT_EVERY - 1)
            .into_iter()
            .map(|m| (m + 1) * shape::CONTRACT_EVERY)
            .map(|i| (word(&shape::account(i).address), i))
            .map(|(w, i)| {
                let code = shape::code(i);
                let yields = match a.op {
                    Op::ExtCodeHash => U256::from_be_bytes(keccak256(&code).0),
                    _ => U256::from(code.len()),
                };
                (w, yields)
            })
            .collect(),
        Keys::Eoas => {
            let per = shape::CONTRACT_EVERY - 1;
            shape::picks("eoas", POOL, n - n.div_ceil(shape::CONTRACT_EVERY))
                .into_iter()
                .map(|m| (m / per) * shape::CONTRACT_EVERY + m % per + 1)
                .map(shape::account)
                .map(|acc| (word(&acc.address), acc.balance))
                .collect()
        }
        Keys::MissingAccounts => (0..POOL as u64)
            .map(|m| (word(&shape::missing_account(m)), U256::ZERO))
            .collect(),
        Keys::Salts => (0..POOL as u64)
            .map(|m| (shape::tag("salt", &[m]), U256::from(CREATED_SIZE)))
            .collect(),
    };
    if a.warm
        && let Some(&first) = out.first()
    {
        out = vec![first; POOL];
    }
    out
}

/// What the program returns after `count` iterations over `keys` (it takes
/// keys `count-1` down to 0): the sum of what each yields, with what the
/// operation adds (1 wei per call, the key as an SSTORE's value).
pub fn expected(a: &Access, keys: &[(B256, U256)], count: usize) -> U256 {
    let mut acc = U256::ZERO;
    for (k, (key, yields)) in keys[..count].iter().enumerate() {
        let add = match a.op {
            Op::Sload | Op::Balance | Op::ExtCodeSize | Op::ExtCodeHash => *yields,
            // The k-th call (counted from the end) to a warm account has
            // seen count - k calls of 1 wei; a cold one, one.
            Op::CallValue if a.warm => *yields + U256::from(count - k),
            Op::CallValue => *yields + U256::from(1),
            Op::Sstore => U256::from_be_bytes(key.0),
            Op::SstoreClear => U256::ZERO,
            Op::Create | Op::Create2 => *yields,
        };
        acc = acc.wrapping_add(add);
    }
    acc
}

/// For SSTOREs, what each key's slot of the target holds before and after
/// its iteration (from the state's definition): the token's value or
/// zero, then the key itself or zero (a clear). `None` for other ops.
pub fn writes(a: &Access, keys: &[(B256, U256)]) -> Option<Vec<(U256, U256)>> {
    matches!(a.op, Op::Sstore | Op::SstoreClear).then(|| {
        keys.iter()
            .map(|(key, yields)| {
                let original = match a.keys {
                    Keys::TokenSlots => *yields,
                    _ => U256::ZERO,
                };
                let new = match a.op {
                    Op::SstoreClear => U256::ZERO,
                    _ => U256::from_be_bytes(key.0),
                };
                (original, new)
            })
            .collect()
    })
}

/// The program of access `a`.
pub fn program(a: &Access) -> Vec<u8> {
    let mut x = Asm::new();
    let (top, end) = (x.label(), x.label());
    if matches!(a.op, Op::Create | Op::Create2) {
        // memory[28..32] = INITCODE
        x.push_bytes(&INITCODE).push(0).ops(&[op::MSTORE]);
    }
    x.push(0); // acc
    x.push(0).ops(&[op::CALLDATALOAD]); // n   [n, acc]
    x.mark(top);
    x.ops(&[op::DUP1, op::ISZERO]).jumpi(end);
    x.ops(&[op::DUP1]).push(5).ops(&[op::SHL, op::CALLDATALOAD]); // [key, n, acc]
    match a.op {
        Op::Sload => {
            x.ops(&[op::SLOAD]);
        }
        Op::Balance => {
            x.ops(&[op::BALANCE]);
        }
        Op::ExtCodeSize => {
            x.ops(&[op::EXTCODESIZE]);
        }
        Op::ExtCodeHash => {
            x.ops(&[op::EXTCODEHASH]);
        }
        Op::CallValue => {
            // call(gas 0 (+ the 2300 stipend), key, 1 wei, no data), then
            // balance(key)
            x.push(0).push(0).push(0).push(0).push(1);
            x.ops(&[op::DUP6])
                .push(0)
                .ops(&[op::CALL, op::POP, op::BALANCE]);
        }
        Op::Sstore => {
            x.ops(&[op::DUP1, op::DUP1, op::SSTORE, op::SLOAD]);
        }
        Op::SstoreClear => {
            x.push(0).ops(&[op::DUP2, op::SSTORE, op::SLOAD]);
        }
        Op::Create => {
            x.ops(&[op::POP]).push(4).push(28).push(0);
            x.ops(&[op::CREATE, op::EXTCODESIZE]);
        }
        Op::Create2 => {
            x.push(4).push(28).push(0);
            x.ops(&[op::CREATE2, op::EXTCODESIZE]);
        }
    }
    // [v, n, acc] -> [n, acc + v]
    x.ops(&[op::SWAP1, op::SWAP2, op::ADD, op::SWAP1]);
    x.push(1).ops(&[op::SWAP1, op::SUB]);
    x.jump(top);
    x.mark(end);
    x.ops(&[op::POP]).push(0).ops(&[op::MSTORE]);
    x.push(32).push(0).ops(&[op::RETURN]);
    x.finish()
}

/// The calldata of `count` iterations over `keys` (always every key, so
/// that every count costs the same intrinsic gas).
pub fn calldata(keys: &[(B256, U256)], count: usize) -> Vec<u8> {
    let mut d = Vec::with_capacity(32 * (keys.len() + 1));
    d.extend_from_slice(&U256::from(count).to_be_bytes::<32>());
    for (k, _) in keys {
        d.extend_from_slice(k.as_slice());
    }
    d
}
