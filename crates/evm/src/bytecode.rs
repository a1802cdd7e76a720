//! Bytecode mode: each precompile called N times from EVM bytecode, in revm.
//!
//! The program (see [`precompile_loop`]) copies its input from calldata to
//! memory once, then STATICCALLs the target N times with that input. After
//! the loop it returns two words: the last call's success flag and the
//! keccak-256 of the last call's return data. Before any timing the
//! workload runs it with N = 2 and checks both words against the vector's
//! expected output: a call that failed is a mismatch, never a timing.
//!
//! Each `run(iters)` is one transaction with N = iters, so the engine fits
//! time against N (the workload is [`Workload::fitted`]): the slope is the
//! cost of one loop iteration (the call and the loop around it), the
//! intercept the transaction around the loop.
//!
//! The control is the same program calling IDENTITY (0x04) with no input:
//! the same loop and the same STATICCALL into the precompile table, with
//! nothing to compute or copy. Its slope is the loop and call overhead;
//! `dyno gas` subtracts it to give ns per precompile call. Every
//! precompile's loop runs the control beside each of its own samples, with
//! the same N, in alternating order (the workload times both itself), and
//! records the control's times as `control_samples`: the difference is then
//! taken sample by sample, from the same seconds of the machine, instead of
//! against a control measured minutes apart. The control is also a
//! benchmark of its own, `precompile-bytecode/noop/identity-empty`. (A call
//! to an address with no code is not a fair control: revm loads the
//! account and its code first, which makes it about 400 ns dearer than
//! calling a precompile, so the cheap precompiles came out negative.)
//!
//! Gas is read the same way: revm's own gas accounting of the same
//! program, as a slope against N. For each precompile it equals the fork
//! schedule's price plus the loop's fixed gas (a test checks this).

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Instant;

use dyno_workload::{BenchDef, Ctx, Mismatch, Param, Workload, hex};
use revm::primitives::{Address, Bytes, U256, address, keccak256};

use crate::asm::{Asm, op};
use crate::precompile::{self, Pick};
use crate::vm::{REVM_VERSION, Vm};

/// The group of every bytecode-mode id.
pub const GROUP: &str = dyno_format::gas::BYTECODE_GROUP;

/// The no-op control's target: IDENTITY, called with no input.
pub const NOOP_TARGET: Address = address!("0x0000000000000000000000000000000000000004");

/// What IDENTITY charges for no input (15 + 3 per word, no words).
pub const NOOP_GAS: u64 = 15;

/// A program that STATICCALLs `target` N times with calldata[32..] as
/// input, N being calldata[0..32]; it returns the last call's success flag
/// and the keccak-256 of its return data, as two words.
pub fn precompile_loop(target: Address) -> Vec<u8> {
    let mut a = Asm::new();
    let (top, end) = (a.label(), a.label());
    // L = calldatasize - 32; memory[0..L] = calldata[32..]
    a.push(32).ops(&[op::CALLDATASIZE, op::SUB]);
    a.ops(&[op::DUP1]).push(32).push(0).ops(&[op::CALLDATACOPY]);
    // stack: [n, success, L]
    a.push(0).push(0).ops(&[op::CALLDATALOAD]);
    a.mark(top);
    a.ops(&[op::DUP1, op::ISZERO]).jumpi(end);
    a.ops(&[op::SWAP1, op::POP]);
    // staticcall(gas, target, 0, L, 0, 0)
    a.push(0).push(0).ops(&[op::DUP4]).push(0);
    a.push_bytes(target.as_slice())
        .ops(&[op::GAS, op::STATICCALL]);
    // [success, n, L] -> [n - 1, success, L]
    a.ops(&[op::SWAP1]).push(1).ops(&[op::SWAP1, op::SUB]);
    a.jump(top);
    a.mark(end);
    a.ops(&[op::POP]);
    // memory[0..] = returndata; return (success, keccak(returndata))
    a.ops(&[op::RETURNDATASIZE]).push(0).push(0);
    a.ops(&[op::RETURNDATACOPY, op::RETURNDATASIZE]).push(0);
    a.ops(&[op::KECCAK256]).push(32).ops(&[op::MSTORE]);
    a.push(0)
        .ops(&[op::MSTORE])
        .push(64)
        .push(0)
        .ops(&[op::RETURN]);
    a.finish()
}

/// What the loop returns when the last call succeeded with `output`.
pub fn expected_return(output: &[u8]) -> Vec<u8> {
    let mut r = U256::from(1).to_be_bytes_vec();
    r.extend_from_slice(keccak256(output).as_slice());
    r
}

pub use dyno_format::gas::CONTROL_SAMPLES;

/// A loop program in revm, run as one transaction per sample.
pub struct LoopWorkload {
    vm: Vm,
    input: Vec<u8>,
    expected: Vec<u8>,
    /// Calldata per N, built outside the timed call.
    calldata: BTreeMap<u64, Bytes>,
    /// The no-op control, run beside every sample with the same N.
    control: Option<Box<LoopWorkload>>,
    /// The control's `(N, ns)`, in the order timed.
    control_ns: Vec<(u64, u64)>,
}

impl std::fmt::Debug for LoopWorkload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopWorkload")
            .field("input_bytes", &self.input.len())
            .finish_non_exhaustive()
    }
}

impl LoopWorkload {
    /// A loop calling `target` with `input`, whose last call must return
    /// `output`.
    pub fn new(target: Address, input: Vec<u8>, output: &[u8]) -> Self {
        Self {
            vm: Vm::new(precompile_loop(target)),
            input,
            expected: expected_return(output),
            calldata: BTreeMap::new(),
            control: None,
            control_ns: Vec::new(),
        }
    }

    /// The no-op control: IDENTITY with no input.
    pub fn control() -> Self {
        Self::new(NOOP_TARGET, Vec::new(), &[])
    }

    /// This loop with the control timed beside each of its samples.
    pub fn with_control(mut self) -> Self {
        self.control = Some(Box::new(Self::control()));
        self
    }

    fn timed(&mut self, n: u64) -> u64 {
        let t0 = Instant::now();
        self.run(n);
        t0.elapsed().as_nanos() as u64
    }

    fn calldata(&mut self, n: u64) -> Bytes {
        let input = &self.input;
        self.calldata
            .entry(n)
            .or_insert_with(|| {
                let mut d = U256::from(n).to_be_bytes_vec();
                d.extend_from_slice(input);
                Bytes::from(d)
            })
            .clone()
    }

    /// Run the loop `n` times: the outcome and gas spent.
    pub fn call(&mut self, n: u64) -> crate::vm::Outcome {
        let data = self.calldata(n);
        self.vm.call(&data)
    }
}

/// Render a loop's return for a person: the flag, then the hash.
fn show_return(out: &crate::vm::Outcome) -> String {
    if !out.success {
        return format!(
            "transaction failed: {}",
            out.error.as_deref().unwrap_or("?")
        );
    }
    match out.output.get(31) {
        Some(1) => format!("success, output keccak {}", hex(&out.output[32..])),
        Some(_) => "the precompile call failed (success flag 0)".into(),
        None => format!("unexpected return {}", hex(&out.output)),
    }
}

impl Workload for LoopWorkload {
    fn verify(&mut self) -> Result<(), Mismatch> {
        if let Some(c) = self.control.as_mut() {
            c.verify().map_err(|m| Mismatch {
                case: format!("the no-op control: {}", m.case),
                ..m
            })?;
        }
        let out = self.call(2);
        if out.success && out.output[..] == self.expected[..] {
            return Ok(());
        }
        Err(Mismatch {
            case: "last of 2 calls".into(),
            expected: format!("success, output keccak {}", hex(&self.expected[32..])),
            actual: show_return(&out),
        })
    }

    #[inline(never)]
    fn run(&mut self, iters: u64) {
        let data = self.calldata(iters);
        black_box(self.vm.call(black_box(&data)));
    }

    fn cases(&self) -> usize {
        1
    }

    fn fitted(&self) -> bool {
        true
    }

    /// With a control: this loop and the control, `iters` each, in turn
    /// (which goes first alternates); this loop's time is the sample, the
    /// control's is kept.
    fn time(&mut self, iters: u64) -> Option<Result<u64, String>> {
        let mut control = self.control.take()?;
        let control_first = self.control_ns.len() % 2 == 1;
        let (ns, control_ns) = if control_first {
            let c = control.timed(iters);
            (self.timed(iters), c)
        } else {
            let ns = self.timed(iters);
            (ns, control.timed(iters))
        };
        self.control = Some(control);
        self.control_ns.push((iters, control_ns));
        Some(Ok(ns))
    }

    fn facts(&self) -> Vec<(&'static str, Param)> {
        if self.control.is_none() {
            return Vec::new();
        }
        vec![(CONTROL_SAMPLES, Param::Samples(self.control_ns.clone()))]
    }
}

/// The bytecode-mode benchmarks: every precompile input of the direct
/// suite on revm's default backend, and the no-op control.
pub fn defs() -> Vec<BenchDef> {
    let mut defs: Vec<BenchDef> = precompile::picks()
        .map(|(op, pick)| def(op.op, op.address(), pick))
        .collect();
    defs.push(noop_def());
    defs
}

fn def(op_name: &'static str, address: u64, pick: Pick) -> BenchDef {
    let input = precompile::sanitize(pick.name);
    let what = format!("{GROUP}/{op_name}/{input} revm");
    BenchDef {
        cases: Some(crate::precompile::cases),
        group: GROUP,
        op: op_name,
        input,
        implementation: "revm",
        version: REVM_VERSION,
        params: vec![
            ("input_bytes", Param::Int(pick.bytes)),
            ("address", Param::Text(format!("{address:#x}"))),
        ],
        build: Box::new(move |ctx: &Ctx| {
            let (input, output) = precompile::case(ctx, op_name, pick, &what)?;
            let target = revm::precompile::u64_to_address(address);
            let w = LoopWorkload::new(target, input, &output).with_control();
            Ok(Box::new(w) as Box<dyn Workload>)
        }),
    }
}

fn noop_def() -> BenchDef {
    BenchDef {
        cases: Some(crate::precompile::cases),
        group: GROUP,
        op: "noop",
        input: "identity-empty".into(),
        implementation: "revm",
        version: REVM_VERSION,
        params: vec![
            ("input_bytes", Param::Int(0)),
            ("address", Param::Text("0x4".into())),
        ],
        build: Box::new(|_: &Ctx| Ok(Box::new(LoopWorkload::control()) as Box<dyn Workload>)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geth;
    use crate::precompile::tests::ctx;

    /// Gas of one more loop iteration, from revm's accounting.
    fn gas_slope(w: &mut LoopWorkload) -> u64 {
        let (g2, g3) = (w.call(2).gas_spent, w.call(3).gas_spent);
        g3 - g2
    }

    #[test]
    fn bytecode_every_precompile_input_agrees_with_direct_mode() {
        let ctx = ctx();
        let defs = defs();
        let ops: std::collections::BTreeSet<&str> = defs.iter().map(|d| d.op).collect();
        assert_eq!(ops.len(), 19, "18 precompiles and the no-op: {ops:?}");
        for d in defs {
            let mut w = (d.build)(&ctx).unwrap();
            w.verify()
                .unwrap_or_else(|e| panic!("{} {}: {e}", d.id(), d.implementation));
            assert!(w.fitted());
        }
    }

    #[test]
    fn a_loop_times_its_control_beside_each_sample() {
        let mut w = LoopWorkload::new(NOOP_TARGET, Vec::new(), &[]).with_control();
        w.verify().unwrap();
        for n in [10, 20, 30] {
            let ns = w.time(n).unwrap().unwrap();
            assert!(ns > 0);
        }
        let facts = w.facts();
        let [(name, Param::Samples(control))] = facts.as_slice() else {
            panic!("{facts:?}");
        };
        assert_eq!(*name, CONTROL_SAMPLES);
        let iters: Vec<u64> = control.iter().map(|s| s.0).collect();
        assert_eq!(iters, [10, 20, 30]);
        assert!(control.iter().all(|s| s.1 > 0));
        // Without a control the engine times it, and nothing is recorded.
        let mut plain = LoopWorkload::control();
        assert!(plain.time(10).is_none());
        assert!(plain.facts().is_empty());
    }

    #[test]
    fn bytecode_loop_gas_is_the_schedule_price_plus_the_loop() {
        let ctx = ctx();
        let noop = {
            let mut w = LoopWorkload::new(NOOP_TARGET, Vec::new(), &[]);
            w.verify().unwrap();
            gas_slope(&mut w)
        };
        let specs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs");
        let schedule = crate::gas::Schedule::for_fork(&specs, "osaka").unwrap();
        let mut checked = 0;
        for (op, pick) in precompile::picks() {
            let (input, output) = precompile::case(&ctx, op.op, pick, "test").unwrap();
            let mut w = LoopWorkload::new(
                revm::precompile::u64_to_address(op.address()),
                input.clone(),
                &output,
            );
            // Precompiles are warm from the start of a transaction, so the
            // loops differ only by the two calls' prices.
            let nominal = schedule.nominal_gas(op.op, &input).unwrap();
            assert_eq!(
                gas_slope(&mut w),
                noop - NOOP_GAS + nominal,
                "{} {}",
                op.op,
                pick.name
            );
            checked += 1;
        }
        assert!(checked >= 50, "{checked}");
    }

    #[test]
    fn bytecode_a_failing_call_is_reported_as_failed_not_timed() {
        // geth's invalid G1 point: the precompile fails, STATICCALL
        // returns 0, and the workload refuses to be timed (the engine
        // times nothing whose verify failed).
        let v = geth::load("fail-blsG1Add.json").unwrap().remove(0);
        let target = revm::precompile::u64_to_address(0x0b);
        let mut w = LoopWorkload::new(target, v.input.clone(), &[0u8; 128]);
        let err = w.verify().unwrap_err();
        assert!(err.actual.contains("call failed"), "{err}");
        assert!(err.expected.starts_with("success"), "{err}");
    }
}
