//! The contracts that repeat one operation, and their controls.
//!
//! Every program reads `n` (loop turns) and a seed from calldata, keeps an
//! accumulator and a 256-bit word `x` on the stack (`x₀ = seed · C`, then
//! `x += C₂` each turn, `C` and `C₂` odd, so no two turns of any
//! transaction see the same `x`), XORs every operation's result into the
//! accumulator and stores it in slot 0 at the end. The state root commits
//! to every result: a client that computes one wrongly disagrees with
//! dyno's root and its block is not VALID.
//!
//! - `arith`: [`ARITH_STEPS`] times a turn, `PUSH32 A_j, DUP3, OP, XOR`
//!   (ternary ops push a modulus too), with `A_j` distinct constants: the
//!   operation on `x` and a new operand each step. The control pops the
//!   operands instead (`POP`, or `POP POP`).
//! - `keccak`: `x` stored at memory 0 each turn, then [`KECCAK_STEPS`]
//!   times `PUSH size, PUSH j, KECCAK256, XOR`: `units` words from byte
//!   `j`, each window a different message. Memory is grown once, before
//!   the loop. The control pops the offset instead.
//! - `precompile`: the input starts as a template appended to the code
//!   (copied to memory once); each turn writes `x` where `word@N` says, and
//!   STATICCALLs the precompile with the whole input, writing its output
//!   at `chain@N` (over the input, so the next call starts from this
//!   result: the chain is kept in storage between transactions and never
//!   repeats) or after the input; a call that fails reverts the
//!   transaction. Where no changed word keeps an input valid (pairings,
//!   POINT_EVALUATION), each call's whole input is made by dyno
//!   (`super::inputs`) and copied from calldata instead. The control calls IDENTITY (0x04) with no input and no
//!   output, the bytecode suite's control (a call to an address without
//!   code costs revm an account load more: `crate::bytecode`).
//!
//! Nothing in the glue executes the counted opcode: the count check
//! (`super::count`) counts every execution of it in the transaction.

use revm::primitives::{Address, U256, address, keccak256};

use crate::asm::{Asm, op};

/// Operations per loop turn of an `arith` program.
pub const ARITH_STEPS: u64 = 16;
/// Operations per loop turn of a `keccak` program.
pub const KECCAK_STEPS: u64 = 4;
/// The precompile control's target.
pub const IDENTITY: Address = address!("0x0000000000000000000000000000000000000004");
/// What IDENTITY charges for no input.
pub const IDENTITY_GAS: u64 = 15;

/// What a block's count check counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    /// Executions of this opcode.
    Opcode(u8),
    /// Calls into this address.
    Calls(Address),
}

/// One runtime program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    pub code: Vec<u8>,
    pub counted: Counted,
    /// Counted operations per loop turn.
    pub per_turn: u64,
    /// Counted operations a transaction makes outside its loop (an SSTORE
    /// series' accumulator, stored at the end): the count check expects
    /// them, the fit's count leaves them out.
    pub per_tx: u64,
}

/// A 256-bit constant from a label: keccak-256 of it, top bit and low bit
/// set (a full-width odd number).
fn constant(label: &str) -> U256 {
    let mut b = keccak256(label.as_bytes()).0;
    b[0] |= 0x80;
    b[31] |= 1;
    U256::from_be_bytes(b)
}

/// `x₀ = seed · C`.
pub fn multiplier() -> U256 {
    constant("dyno reprice x multiplier")
}

/// `x += C₂` each turn.
pub fn increment() -> U256 {
    constant("dyno reprice x increment")
}

fn word(v: U256) -> [u8; 32] {
    v.to_be_bytes()
}

/// `[acc, x, n]` from calldata `n ‖ seed`, `acc = 1`.
fn prologue(a: &mut Asm) {
    a.push(0).ops(&[op::CALLDATALOAD]);
    a.push(32).ops(&[op::CALLDATALOAD]);
    a.push_bytes(&word(multiplier())).ops(&[op::MUL]);
    // The accumulator starts at 1: a control's XORs of the same constants
    // cancel every second turn, and a stored 0 would cost a transaction
    // less gas than its neighbours.
    a.push(1);
}

/// `x += C₂; n -= 1` on `[acc, x, n]`, then back to `top`.
fn turn_end(a: &mut Asm, top: crate::asm::Label) {
    a.ops(&[op::SWAP1])
        .push_bytes(&word(increment()))
        .ops(&[op::ADD, op::SWAP1]);
    a.ops(&[op::SWAP2])
        .push(1)
        .ops(&[op::SWAP1, op::SUB, op::SWAP2]);
    a.jump(top);
}

/// `opcode` (a two-operand op on a 128-bit second operand, or a
/// three-operand op with a full-width modulus) [`ARITH_STEPS`] times a
/// turn; with `control`, the operands popped instead.
pub fn arith(opcode: u8, ternary: bool, control: bool) -> Program {
    let mut a = Asm::new();
    let (top, end) = (a.label(), a.label());
    prologue(&mut a);
    a.mark(top);
    a.ops(&[op::DUP3, op::ISZERO]).jumpi(end);
    for j in 0..ARITH_STEPS {
        let operand = constant(&format!("dyno reprice operand {j}"));
        if ternary {
            a.push_bytes(&word(constant(&format!("dyno reprice modulus {j}"))));
            a.push_bytes(&word(operand)).ops(&[op::DUP4]);
            a.ops(if control {
                &[op::POP, op::POP]
            } else {
                std::slice::from_ref(&opcode)
            });
        } else {
            // A 128-bit operand: the long division of 256 by 128 bits.
            a.push_bytes(&word(operand >> 128)).ops(&[op::DUP3]);
            a.ops(if control {
                &[op::POP]
            } else {
                std::slice::from_ref(&opcode)
            });
        }
        a.ops(&[op::XOR]);
    }
    turn_end(&mut a, top);
    a.mark(end);
    a.push(0).ops(&[op::SSTORE, op::STOP]);
    let pops = if ternary { 2 } else { 1 };
    Program {
        code: a.finish(),
        counted: if control {
            Counted::Opcode(op::POP)
        } else {
            Counted::Opcode(opcode)
        },
        per_turn: if control {
            ARITH_STEPS * pops
        } else {
            ARITH_STEPS
        },
        per_tx: 0,
    }
}

/// KECCAK256 over `words` 32-byte words, [`KECCAK_STEPS`] times a turn;
/// with `control`, the offset popped instead.
pub fn keccak(words: u64, control: bool) -> Program {
    let size = words * 32;
    let mut a = Asm::new();
    let (top, end) = (a.label(), a.label());
    prologue(&mut a);
    // Grow memory past every window once, outside the loop.
    a.push(0).push(size + 32).ops(&[op::MSTORE]);
    a.mark(top);
    a.ops(&[op::DUP3, op::ISZERO]).jumpi(end);
    a.ops(&[op::DUP2]).push(0).ops(&[op::MSTORE]);
    for j in 0..KECCAK_STEPS {
        a.push(size).push(j);
        a.ops(&[if control { op::POP } else { op::KECCAK256 }, op::XOR]);
    }
    turn_end(&mut a, top);
    a.mark(end);
    a.push(0).ops(&[op::SSTORE, op::STOP]);
    Program {
        code: a.finish(),
        counted: Counted::Opcode(if control { op::POP } else { op::KECCAK256 }),
        per_turn: KECCAK_STEPS,
        per_tx: 0,
    }
}

/// How a precompile program calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub address: Address,
    /// The input every call starts from.
    pub template: Vec<u8>,
    /// Byte offsets that get `x` before each call.
    pub words: Vec<usize>,
    /// Where the output goes and how long it is; with `chained`, over the
    /// input (kept in storage slots 1.. between transactions).
    pub out_offset: usize,
    pub out_len: usize,
    pub chained: bool,
    /// Bytes of each call's whole input carried in calldata after `n ‖
    /// seed` (the turn counting down from `n` reads chunk `n − 1`); 0 when
    /// the input lives in memory.
    pub per_call: usize,
}

/// One STATICCALL of `call` a turn; `control`: IDENTITY with no input and
/// no output, the same words written, no chain kept.
pub fn precompile(call: &Call, control: bool) -> Program {
    let l = call.template.len() as u64;
    let chain_words = if call.chained && !control {
        call.out_len.div_ceil(32) as u64
    } else {
        0
    };
    let out_offset = call.out_offset as u64;
    let mut a = Asm::new();
    let (top, end, fail, fresh, data) = (a.label(), a.label(), a.label(), a.label(), a.label());
    // memory[0..l] = the template (after the JUMPDEST of `data`).
    a.push(l).push_label(data).push(1).ops(&[op::ADD]).push(0);
    a.ops(&[op::CODECOPY]);
    if chain_words > 0 {
        a.push(1).ops(&[op::SLOAD, op::ISZERO]).jumpi(fresh);
        for w in 0..chain_words {
            a.push(1 + w).ops(&[op::SLOAD]);
            a.push(out_offset + 32 * w).ops(&[op::MSTORE]);
        }
        a.mark(fresh);
    }
    prologue(&mut a);
    a.mark(top);
    a.ops(&[op::DUP3, op::ISZERO]).jumpi(end);
    for &at in &call.words {
        a.ops(&[op::DUP2]).push(at as u64).ops(&[op::MSTORE]);
    }
    let per_call = call.per_call as u64;
    if per_call > 0 {
        // memory[0..L] = calldata[64 + (n - 1)·L ..][..L]
        a.push(per_call)
            .ops(&[op::DUP4])
            .push(1)
            .ops(&[op::SWAP1, op::SUB]);
        a.push(per_call).ops(&[op::MUL]).push(64).ops(&[op::ADD]);
        a.push(0).ops(&[op::CALLDATACOPY]);
    }
    let (target, in_len, out_len) = if control {
        (IDENTITY, 0, 0)
    } else if per_call > 0 {
        (call.address, per_call, call.out_len as u64)
    } else {
        (call.address, l, call.out_len as u64)
    };
    a.push(out_len).push(out_offset).push(in_len).push(0);
    a.push_bytes(target.as_slice())
        .ops(&[op::GAS, op::STATICCALL]);
    a.ops(&[op::ISZERO]).jumpi(fail);
    a.push(out_offset).ops(&[op::MLOAD, op::XOR]);
    turn_end(&mut a, top);
    a.mark(end);
    for w in 0..chain_words {
        a.push(out_offset + 32 * w).ops(&[op::MLOAD]);
        a.push(1 + w).ops(&[op::SSTORE]);
    }
    a.push(0).ops(&[op::SSTORE, op::STOP]);
    a.mark(fail);
    a.push(0).push(0).ops(&[op::REVERT]);
    a.mark(data);
    let mut code = a.finish();
    code.extend_from_slice(&call.template);
    Program {
        code,
        counted: Counted::Calls(target),
        per_turn: 1,
        per_tx: 0,
    }
}

/// Calldata for `n` turns from seed `seed`.
pub fn calldata(n: u64, seed: u64) -> Vec<u8> {
    let mut data = U256::from(n).to_be_bytes::<32>().to_vec();
    data.extend_from_slice(&U256::from(seed).to_be_bytes::<32>());
    data
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vm::Vm;
    use alloy_primitives::Bytes;

    /// Runs `code` for `n` turns: (success, gas, slot 0 after).
    fn run(code: &[u8], n: u64) -> (bool, u64) {
        let mut vm = Vm::new(code.to_vec());
        let out = vm.call(&Bytes::from(calldata(n, 7)));
        (out.success, out.gas_spent)
    }

    /// Every arith series of the operation table, its opcode's byte and
    /// arity from revm, costs per operation what the schedule in force
    /// (specs/gas/compute/schedules.toml) prices it at, less the POPs
    /// its control runs instead.
    #[test]
    fn arith_programs_run_and_cost_more_than_their_controls() {
        let specs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs");
        let schedules = dyno_spec::reprice::schedules(&specs).unwrap();
        let table = dyno_spec::operations::builtin();
        let mut seen = 0;
        for op in table.reprice.ops.iter().filter(|o| o.kind == "arith") {
            let name = op.opcode.as_deref().unwrap();
            let code = crate::asm::opcode_named(name).unwrap();
            let ternary = code.inputs() == 3;
            let p = arith(code.get(), ternary, false);
            let c = arith(code.get(), ternary, true);
            let (ok, g1) = run(&p.code, 1);
            let (_, g3) = run(&p.code, 3);
            let (okc, c1) = run(&c.code, 1);
            let (_, c3) = run(&c.code, 3);
            assert!(ok && okc, "{name}");
            let per_op = ((g3 - g1) - (c3 - c1)) as f64 / 2.0 / ARITH_STEPS as f64;
            let gas = schedules[0].price(op, &schedules[0]).unwrap() as f64;
            let pops = if ternary { 4.0 } else { 2.0 };
            assert_eq!(per_op, gas - pops, "{name}");
            seen += 1;
        }
        assert!(seen >= 6, "{seen} arith series");
    }

    #[test]
    fn the_keccak_program_charges_its_words() {
        for words in [1u64, 8] {
            let (ok, g1) = run(&keccak(words, false).code, 1);
            let (_, g2) = run(&keccak(words, false).code, 2);
            let (_, c1) = run(&keccak(words, true).code, 1);
            let (_, c2) = run(&keccak(words, true).code, 2);
            assert!(ok);
            let per_op = ((g2 - g1) - (c2 - c1)) / KECCAK_STEPS;
            // 30 + 6 per word, less the POP (2) that stands in for it.
            assert_eq!(per_op, 30 + 6 * words - 2);
        }
    }
}
