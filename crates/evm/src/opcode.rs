//! opcode suite: the marginal cost of the costly opcodes, in revm.
//!
//! Each benchmark is a short, stack-neutral *sequence* around one opcode
//! (`DUP3 DUP3 ADD POP` for ADD), run in a loop inside one transaction.
//! One `run(iters)` executes exactly `iters` sequences: `iters / 64` turns
//! of a loop whose body is the sequence unrolled 64 times, then
//! `iters % 64` turns of a loop with one copy. The engine fits time against
//! `iters`: the slope is one sequence plus 1/64 of a loop turn (the
//! `opcode/loop/empty` benchmark measures a turn, so that share can be
//! judged), the intercept the transaction around it.
//!
//! Before timing, the program's last instructions run the opcode once more
//! and return the result, which must equal an independent expectation:
//! arithmetic results from `vectors/opcode.json` (Python integers),
//! KECCAK256 digests from `vectors/hash.json`, and for memory, storage,
//! calls, creation and logs a value that proves the operation happened (the
//! word stored, the callee's answer, the new contract's code size, the
//! number of logs).
//!
//! Gas per sequence comes from revm's own accounting of the same program
//! (two runs that differ by one sequence), recorded as `gas_per_op`;
//! MGas/s = gas_per_op / ns.

use std::collections::BTreeMap;
use std::hint::black_box;

use dyno_workload::{BenchDef, BuildError, Ctx, Mismatch, Param, Workload, hex, seq, unhex};
use revm::primitives::{Bytes, U256};

use crate::asm::{Asm, op};
use crate::vm::{CALLEE, Outcome, REVM_VERSION, Vm};

/// The group of every id here.
pub const GROUP: &str = "opcode";
/// Copies of the sequence in one turn of the main loop.
pub const UNROLL: u64 = 64;
/// Where input data is copied to in memory; below it is scratch space.
const DATA: u64 = 0x100;
/// Storage slots set in the pre-state for the SLOAD/SSTORE benchmarks, and
/// the mask that keeps keys inside them.
const SLOTS: u64 = 1 << 17;

/// How a benchmark's program checks itself.
#[derive(Debug, Clone)]
enum Expect {
    /// The returned word.
    Word([u8; 32]),
    /// The returned word, and one log per sequence.
    Logs([u8; 32]),
    /// The number of sequences run.
    Count,
}

/// One opcode benchmark, ready to assemble.
#[derive(Debug, Clone)]
struct Bench {
    /// Pushes what the sequence needs (left on the stack under the loop
    /// counter).
    setup: Vec<u8>,
    /// The sequence: stack-neutral, may read the loop counter (on top).
    body: Vec<u8>,
    /// After the loops: leaves one word on the stack to return.
    check: Vec<u8>,
    /// Input bytes copied to memory at `DATA` before the loops.
    data: Vec<u8>,
    /// Code at [`CALLEE`], if the sequence calls it.
    callee: Option<Vec<u8>>,
    /// Pre-set storage slots.
    slots: u64,
    expect: Expect,
}

fn ops(f: impl FnOnce(&mut Asm)) -> Vec<u8> {
    let mut a = Asm::new();
    f(&mut a);
    a.finish()
}

/// The operation `f` leaves one word; the sequence drops it.
fn dropped(f: impl FnOnce(&mut Asm)) -> Vec<u8> {
    ops(|x| {
        f(x);
        x.ops(&[op::POP]);
    })
}

/// Assemble the two-loop program around `b`.
fn program(b: &Bench) -> Vec<u8> {
    let mut a = Asm::new();
    // memory[DATA..] = calldata[64..]
    a.push(64).ops(&[op::CALLDATASIZE, op::SUB]);
    a.push(64).push(DATA).ops(&[op::CALLDATACOPY]);
    a.ops(&b.setup);
    for (word, copies) in [(0u64, UNROLL), (32, 1)] {
        let (top, end) = (a.label(), a.label());
        a.push(word).ops(&[op::CALLDATALOAD]);
        a.mark(top);
        a.ops(&[op::DUP1, op::ISZERO]).jumpi(end);
        for _ in 0..copies {
            a.ops(&b.body);
        }
        a.push(1).ops(&[op::SWAP1, op::SUB]);
        a.jump(top);
        a.mark(end);
        a.ops(&[op::POP]);
    }
    a.ops(&b.check);
    a.push(0)
        .ops(&[op::MSTORE])
        .push(32)
        .push(0)
        .ops(&[op::RETURN]);
    a.finish()
}

/// An opcode loop in revm.
pub struct OpcodeWorkload {
    vm: Vm,
    data: Vec<u8>,
    expect: Expect,
    calldata: BTreeMap<u64, Bytes>,
    gas_per_op: Option<u64>,
}

impl std::fmt::Debug for OpcodeWorkload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpcodeWorkload").finish_non_exhaustive()
    }
}

impl OpcodeWorkload {
    fn new(b: &Bench) -> Self {
        let code = program(b);
        let vm = match (&b.callee, b.slots) {
            (Some(callee), _) => Vm::with_callee(code, callee.clone()),
            (None, 0) => Vm::new(code),
            (None, slots) => Vm::with_storage(code, slots),
        };
        Self {
            vm,
            data: b.data.clone(),
            expect: b.expect.clone(),
            calldata: BTreeMap::new(),
            gas_per_op: None,
        }
    }

    /// Run exactly `n` sequences.
    fn call(&mut self, n: u64) -> Outcome {
        let data = &self.data;
        let calldata = self
            .calldata
            .entry(n)
            .or_insert_with(|| {
                let mut d = U256::from(n / UNROLL).to_be_bytes_vec();
                d.extend_from_slice(&U256::from(n % UNROLL).to_be_bytes::<32>());
                d.extend_from_slice(data);
                Bytes::from(d)
            })
            .clone();
        self.vm.call(&calldata)
    }

    fn check(&self, n: u64, out: &Outcome) -> Result<(), Mismatch> {
        let count = word(U256::from(n));
        let (word, logs) = match &self.expect {
            Expect::Word(w) => (w, None),
            Expect::Logs(w) => (w, Some(n as usize)),
            Expect::Count => (&count, None),
        };
        let got_logs = logs.map(|_| out.logs);
        if out.success && out.output[..] == word[..] && got_logs == logs {
            return Ok(());
        }
        let show = |w: &[u8], l: Option<usize>| match l {
            Some(l) => format!("{} and {l} logs", hex(w)),
            None => hex(w),
        };
        Err(Mismatch {
            case: format!("{n} sequences"),
            expected: show(word, logs),
            actual: if out.success {
                show(&out.output, got_logs)
            } else {
                format!(
                    "transaction failed: {}",
                    out.error.as_deref().unwrap_or("?")
                )
            },
        })
    }
}

impl Workload for OpcodeWorkload {
    fn verify(&mut self) -> Result<(), Mismatch> {
        // 67 sequences are one turn of the unrolled loop and 3 of the
        // short one; 130 are two and 2. The difference is 63 sequences and
        // no loop overhead (a turn of either loop costs the same gas).
        let (n1, n2) = (UNROLL + 3, 2 * UNROLL + 2);
        let first = self.call(n1);
        self.check(n1, &first)?;
        let second = self.call(n2);
        self.check(n2, &second)?;
        let extra = second.gas_spent - first.gas_spent;
        debug_assert_eq!(
            extra % (UNROLL - 1),
            0,
            "gas of 63 identical sequences: {extra} ({first:?} {second:?})"
        );
        self.gas_per_op = Some(extra / (UNROLL - 1));
        Ok(())
    }

    #[inline(never)]
    fn run(&mut self, iters: u64) {
        black_box(self.call(black_box(iters)));
    }

    fn cases(&self) -> usize {
        1
    }

    fn fitted(&self) -> bool {
        true
    }

    fn facts(&self) -> Vec<(&'static str, Param)> {
        self.gas_per_op
            .map(|g| vec![("gas_per_op", Param::Int(g))])
            .unwrap_or_default()
    }
}

fn word(v: U256) -> [u8; 32] {
    v.to_be_bytes()
}

/// `vectors/opcode.json`: the operands and each op's result.
#[derive(serde::Deserialize)]
struct OpcodeFile {
    operands: BTreeMap<String, String>,
    cases: Vec<OpcodeCase>,
}

#[derive(serde::Deserialize)]
struct OpcodeCase {
    op: String,
    arity: u8,
    result: String,
}

const FILE: &str = "opcode.json";

/// An arithmetic opcode (revm's `code`) on the vectors' operands: `name`
/// is its case in `vectors/opcode.json`.
fn arith(ctx: &Ctx, name: &str, code: op::OpCode, what: &str) -> Result<Bench, BuildError> {
    let path = ctx.path(FILE);
    let bad = |reason: String| BuildError::vectors(&path, reason);
    let file: OpcodeFile = ctx.vector_json(FILE)?;
    let case = file
        .cases
        .iter()
        .find(|c| c.op == name)
        .ok_or_else(|| BuildError::NoVector {
            path: path.clone(),
            what: what.to_string(),
        })?;
    let operand = |k: &str| -> Result<Vec<u8>, BuildError> {
        let s = file
            .operands
            .get(k)
            .ok_or_else(|| bad(format!("operands.{k} is missing")))?;
        unhex(s).map_err(|e| bad(format!("operands.{k}: {e}")))
    };
    let result: [u8; 32] = unhex(&case.result)
        .ok()
        .and_then(|r| r.try_into().ok())
        .ok_or_else(|| bad(format!("{name}: result is not a 32-byte hex word")))?;
    let opcode = code.get();
    let arity = code.inputs();
    if case.arity != arity {
        return Err(bad(format!(
            "{name}: arity {} where revm's {} takes {arity} operands",
            case.arity,
            code.as_str()
        )));
    }
    let (a, b, c) = (operand("a")?, operand("b")?, operand("c")?);
    let setup = ops(|x| {
        x.push_bytes(&c).push_bytes(&b).push_bytes(&a);
    });
    // Stack in the loop: [n, a, b, c]; after it: [a, b, c].
    let (body, check) = if arity == 3 {
        (
            vec![op::DUP4, op::DUP4, op::DUP4, opcode, op::POP],
            vec![op::DUP3, op::DUP3, op::DUP3, opcode],
        )
    } else {
        (
            vec![op::DUP3, op::DUP3, opcode, op::POP],
            vec![op::DUP2, op::DUP2, opcode],
        )
    };
    Ok(Bench {
        setup,
        body,
        check,
        data: Vec::new(),
        callee: None,
        slots: 0,
        expect: Expect::Word(result),
    })
}

fn keccak(ctx: &Ctx, len: usize, what: &str) -> Result<Bench, BuildError> {
    let case = dyno_micro::hash::load(ctx, "keccak256", len, what)?.swap_remove(0);
    let hash = |x: &mut Asm| {
        x.push(len as u64).push(DATA).ops(&[op::KECCAK256]);
    };
    Ok(Bench {
        setup: Vec::new(),
        body: dropped(hash),
        check: ops(hash),
        data: case.data,
        callee: None,
        slots: 0,
        expect: Expect::Word(case.digest.try_into().expect("keccak is 32 bytes")),
    })
}

/// Memory: MLOAD and MSTORE of one word, MCOPY of `len` bytes.
fn memory(kind: &str, len: usize) -> Bench {
    let data = seq(0x3e, 2 * len.max(32));
    let first: [u8; 32] = data[..32].try_into().expect("32 bytes");
    let (body, check, expect) = match kind {
        // The word at DATA, loaded and dropped.
        "mload" => (
            ops(|x| {
                x.push(DATA).ops(&[op::MLOAD, op::POP]);
            }),
            ops(|x| {
                x.push(DATA).ops(&[op::MLOAD]);
            }),
            first,
        ),
        // The loop counter stored at DATA: the last stored is 1.
        "mstore" => (
            ops(|x| {
                x.ops(&[op::DUP1]).push(DATA).ops(&[op::MSTORE]);
            }),
            ops(|x| {
                x.push(DATA).ops(&[op::MLOAD]);
            }),
            word(U256::from(1)),
        ),
        // The first `len` bytes copied over the next `len`.
        _ => (
            ops(|x| {
                x.push(len as u64)
                    .push(DATA)
                    .push(DATA + len as u64)
                    .ops(&[op::MCOPY]);
            }),
            ops(|x| {
                x.push(DATA + len as u64).ops(&[op::MLOAD]);
            }),
            first,
        ),
    };
    Bench {
        setup: Vec::new(),
        body,
        check,
        data,
        callee: None,
        slots: 0,
        expect: Expect::Word(expect),
    }
}

/// Storage: the key comes from memory[0]; a cold run moves to the next key
/// each time, a warm run stays on key 0. The two sequences differ only in
/// the increment (1 or 0), so their difference is the cold access.
fn storage(kind: &str, cold: bool) -> Bench {
    let step = u64::from(cold);
    let next_key = |x: &mut Asm| {
        // key = (key + step) & (SLOTS - 1); memory[0] = key
        x.ops(&[op::PUSH1, step as u8, op::ADD])
            .push(SLOTS - 1)
            .ops(&[op::AND])
            .push(0)
            .ops(&[op::MSTORE]);
    };
    let body = if kind == "sload" {
        ops(|x| {
            x.push(0).ops(&[op::MLOAD, op::DUP1, op::SLOAD, op::POP]);
            next_key(x);
        })
    } else {
        // Store the loop counter at the key.
        ops(|x| {
            x.push(0).ops(&[op::MLOAD, op::DUP2, op::DUP2, op::SSTORE]);
            next_key(x);
        })
    };
    // A cold run must have moved through one key per sequence; a warm
    // SLOAD reads slot 7 (2^64 + 7 in the pre-state); a warm SSTORE's last
    // write to key 0 is the short loop's last counter, 1.
    let (check, expect) = match (cold, kind) {
        (true, _) => (
            ops(|x| {
                x.push(0).ops(&[op::MLOAD]);
            }),
            Expect::Count,
        ),
        (false, "sload") => (
            ops(|x| {
                x.push(7).ops(&[op::SLOAD]);
            }),
            Expect::Word(word(crate::vm::slot_value(7))),
        ),
        (false, _) => (
            ops(|x| {
                x.push(0).ops(&[op::SLOAD]);
            }),
            Expect::Word(word(U256::from(1))),
        ),
    };
    Bench {
        setup: Vec::new(),
        body,
        check,
        data: Vec::new(),
        callee: None,
        slots: SLOTS,
        expect,
    }
}

/// The CALL family against a callee that returns the word 42.
fn call(kind: &str) -> Bench {
    let callee = ops(|x| {
        x.push(42)
            .push(0)
            .ops(&[op::MSTORE])
            .push(32)
            .push(0)
            .ops(&[op::RETURN]);
    });
    let (opcode, value) = match kind {
        "call" => (op::CALL, true),
        "callcode" => (op::CALLCODE, true),
        "delegatecall" => (op::DELEGATECALL, false),
        _ => (op::STATICCALL, false),
    };
    // call(gas, callee, [value,] 0, 0, 0, 32): the answer lands at 0.
    let invoke = move |x: &mut Asm| {
        x.push(32).push(0).push(0).push(0);
        if value {
            x.push(0);
        }
        x.push_bytes(CALLEE.as_slice()).ops(&[op::GAS, opcode]);
    };
    Bench {
        setup: Vec::new(),
        body: dropped(invoke),
        check: ops(|x| {
            invoke(x);
            x.ops(&[op::POP]).push(0).ops(&[op::MLOAD]);
        }),
        data: Vec::new(),
        callee: Some(callee),
        slots: 0,
        expect: Expect::Word(word(U256::from(42))),
    }
}

/// CREATE and CREATE2 of a contract whose code is one byte (STOP); the
/// check returns the last new contract's code size. CREATE2 salts with
/// the remaining gas, which differs on every call.
fn create(two: bool) -> Bench {
    // init code: mstore8(0, 0); return(0, 1)
    let init = ops(|x| {
        x.push(0)
            .push(0)
            .ops(&[op::MSTORE8])
            .push(1)
            .push(0)
            .ops(&[op::RETURN]);
    });
    let len = init.len() as u64;
    let mut padded = init.clone();
    padded.resize(32, 0);
    let invoke = move |x: &mut Asm| {
        if two {
            x.ops(&[op::GAS]);
        }
        x.push(len).push(DATA).push(0);
        x.ops(&[if two { op::CREATE2 } else { op::CREATE }]);
    };
    Bench {
        setup: Vec::new(),
        body: dropped(invoke),
        check: ops(|x| {
            invoke(x);
            x.ops(&[op::EXTCODESIZE]);
        }),
        data: padded,
        callee: None,
        slots: 0,
        expect: Expect::Word(word(U256::from(1))),
    }
}

/// LOGn of 32 bytes of memory with n topics.
fn log(topics: u8) -> Bench {
    Bench {
        setup: Vec::new(),
        body: ops(|x| {
            for t in 0..topics {
                x.push(u64::from(t) + 1);
            }
            x.push(32).push(DATA).ops(&[op::LOG0 + topics]);
        }),
        check: ops(|x| {
            x.push(1);
        }),
        data: seq(0x10 + u64::from(topics), 32),
        callee: None,
        slots: 0,
        expect: Expect::Logs(word(U256::from(1))),
    }
}

/// The loop alone: a turn of the short loop with nothing in it.
fn empty() -> Bench {
    Bench {
        setup: Vec::new(),
        body: Vec::new(),
        check: ops(|x| {
            x.push(1);
        }),
        data: Vec::new(),
        callee: None,
        slots: 0,
        expect: Expect::Word(word(U256::from(1))),
    }
}

mod entries;
use entries::{Entry, entries};

/// Every opcode benchmark.
pub fn defs() -> Vec<BenchDef> {
    entries().iter().map(def).collect()
}

fn def(e: &'static Entry) -> BenchDef {
    let what = format!("{} revm", e.id());
    let make = e.make;
    BenchDef {
        cases: make
            .portable()
            .then_some(cases as dyno_workload::AdapterCases),
        group: GROUP,
        op: &e.op,
        input: e.input.clone(),
        implementation: "revm",
        version: REVM_VERSION,
        params: vec![
            ("sequence", Param::Text(e.sequence.clone())),
            ("unroll", Param::Int(UNROLL)),
        ],
        build: Box::new(move |ctx: &Ctx| {
            let bench = make.bench(ctx, &what)?;
            Ok(Box::new(OpcodeWorkload::new(&bench)) as Box<dyn Workload>)
        }),
    }
}

/// The cases of a portable id in the adapter protocol's form, or `None`
/// for an id this suite does not export. One case: `code`, the two-loop
/// program of [`program`] (built here once, so no adapter assembles its
/// own), `data`, the bytes after the two count words of the calldata, and
/// `unroll`; the calldata that runs exactly N sequences is the word
/// N / unroll, the word N % unroll, then `data`. Expected: `output`, the
/// word the program returns for any N of at least 1 (the opcode's result
/// from the vectors, run once more after the loops).
pub fn cases(ctx: &Ctx, id: &str) -> Option<Result<Vec<dyno_protocol::Case>, BuildError>> {
    let e = entries()
        .iter()
        .find(|e| e.make.portable() && e.id() == id)?;
    let hexed =
        |b: &[u8]| serde_json::Value::String(format!("0x{}", alloy_primitives::hex::encode(b)));
    Some(e.make.bench(ctx, &format!("{id} adapters")).map(|b| {
        let Expect::Word(out) = b.expect else {
            unreachable!("a portable benchmark returns one word")
        };
        vec![dyno_protocol::Case::new(
            [
                ("code", hexed(&program(&b))),
                ("data", hexed(&b.data)),
                ("unroll", serde_json::json!(UNROLL)),
            ],
            [("output", hexed(&out))],
        )]
    }))
}

#[cfg(test)]
mod tests;
