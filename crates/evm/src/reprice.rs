//! Op-isolation blocks (`dyno gas --blocks`, issue 34): for every
//! operation of `specs/operations.toml`, a series of blocks that repeat it a
//! known number of times, the count varied over levels at each gas budget,
//! and a control series per kind of glue that runs the same loop without
//! it. Replayed into a client, block time against count gives the
//! operation's cost inside that client, the way the 2026 repricing EIPs
//! measure it (EIP-7904, EIP-8038).
//!
//! - [`program`]: the contracts (one per series) and their controls;
//! - [`count`]: the count check: each block re-executed under an inspector
//!   before anything is timed, refused unless revm ran exactly the planned
//!   number of operations.
//!
//! A series lives in one genesis with every series' contract, [`SENDERS`]
//! funded senders and a raised gas limit; its blocks are interleaved with
//! the other series' in a shuffled order (so a drift of the machine cannot
//! line up with the count), after one warm-up block per series.

pub mod count;
pub mod inputs;
mod plan;
pub mod program;
pub mod state;
pub use plan::{Planned, Shape, layout, plan, plan_rounds};

use std::path::Path;

use alloy_consensus::TxEip1559;
use alloy_primitives::{Address, TxKind, U256};
use dyno_spec::reprice::{Op, Reprice, Vary};
use dyno_workload::Ctx;
use revm_precompile::{PrecompileSpecId, PrecompileStatus, Precompiles};

use crate::block::Block;
use crate::block::executor::CHAIN_ID;
use crate::block::genesis::{Contracts, Genesis};
use crate::block::producer::{self, MAX_FEE, ProduceError, TIP, TX_GAS_CAP};
use crate::block::world::Allocated;
use crate::gas::Schedule;
use crate::vm::Vm;
use program::{Call, Program};

pub use dyno_format::reprice::{CONTROL, GROUP};
/// Funded senders in the genesis.
pub const SENDERS: u64 = 64;
/// Gas a transaction may take beyond its calibrated cost.
const MARGIN: u64 = 60_000;
/// Where series `i`'s contract lives: this address plus `i`.
const FIRST_CONTRACT: u64 = 0x7e_9000;

/// One series of blocks: an operation at one parameter, or a control.
#[derive(Debug, Clone)]
pub struct Series {
    /// `reprice/<op>/<param>`, or `reprice/control/<glue>`.
    pub id: String,
    /// The entry of specs/operations.toml; `None` for a control.
    pub op: Option<Op>,
    /// The control series this one's glue is subtracted with (its index).
    pub control: Option<usize>,
    /// The precompile's input before any call changes it (`precompile`).
    pub template: Option<Vec<u8>>,
    /// The precompile dyno's gas schedules know it by.
    pub precompile: Option<String>,
    /// Each call's input made fresh, in calldata (`vary = "calldata"`);
    /// its control carries the same bytes.
    pub feed: Option<inputs::Feed>,
    /// The state access a `state` series makes on a new key a call, and
    /// the base of its keys ([`state`]).
    pub access: Option<state::Access>,
    pub base: U256,
    pub address: Address,
    pub program: Program,
    /// Gas of a transaction of no turns, and of one turn (revm's own
    /// accounting, calibrated once).
    pub base_gas: u64,
    pub turn_gas: u64,
}

/// Why the series or their blocks could not be made.
#[derive(Debug, thiserror::Error)]
pub enum RepriceError {
    #[error("{}:{line}: {id}: {reason}", path.display())]
    Input {
        path: std::path::PathBuf,
        line: usize,
        id: String,
        reason: String,
    },
    #[error("calibrating {id}: {reason}")]
    Calibration { id: String, reason: String },
    #[error("producing the blocks of {id}: {source}")]
    Produce { id: String, source: ProduceError },
    #[error(transparent)]
    Count(#[from] count::CountError),
    #[error("interrupted after {made} of {total} blocks were made")]
    Interrupted { made: usize, total: usize },
}

/// The glue a control stands for: one control per kind of loop, and one
/// per series of made inputs (their calldata, copied each call, is glue
/// too, and its length is the series').
fn glue(op: &Op, opcode: Option<(u8, bool)>, access: Option<state::Access>) -> String {
    if let Some(a) = access {
        return a.glue().into();
    }
    match (op.kind.as_str(), opcode) {
        ("arith", Some((_, true))) => "arith-ternary".into(),
        ("arith", _) => "arith-binary".into(),
        ("keccak", _) => "keccak".into(),
        _ if op.vary.contains(&Vary::Calldata) => format!("calldata-{}-{}", op.op, op.param),
        _ => "precompile".into(),
    }
}

/// A MODEXP input of shape `B-E-M` (lengths in bytes): the base a fixed
/// pattern (its first word replaced each call), the exponent all ones
/// bits (the most squarings its length allows), an odd modulus with its
/// top bit set.
fn modexp_input(param: &str) -> Result<Vec<u8>, String> {
    let lens: Vec<usize> = param
        .split('-')
        .map(|p| p.parse().map_err(|_| ()))
        .collect::<Result<_, _>>()
        .map_err(|()| {
            format!("param {param:?}: write base-exp-mod lengths in bytes, e.g. 32-32-32")
        })?;
    let [b, e, m] = lens[..] else {
        return Err(format!("param {param:?}: three lengths, base-exp-mod"));
    };
    if b < 32 || e == 0 || m == 0 || b.max(e).max(m) > 1024 {
        return Err(format!(
            "param {param:?}: the base at least 32 bytes (its first word varies), every length 1-1024 (EIP-7823)"
        ));
    }
    let mut input = Vec::with_capacity(96 + b + e + m);
    for len in [b, e, m] {
        input.extend_from_slice(&U256::from(len).to_be_bytes::<32>());
    }
    input.extend(std::iter::repeat_n(0x5a, b));
    input.extend(std::iter::repeat_n(0xff, e));
    let mut modulus = vec![0xc3u8; m];
    modulus[0] |= 0x80;
    modulus[m - 1] |= 1;
    input.extend(modulus);
    Ok(input)
}

/// Every series `list` asks for, with its control series after them,
/// each program calibrated in revm. `fork` gives the precompiles'
/// addresses; `ctx` the precompile suite's vectors the inputs start from.
pub fn series(ctx: &Ctx, list: &Reprice, fork: &Schedule) -> Result<Vec<Series>, RepriceError> {
    let mut out: Vec<Series> = Vec::new();
    let mut controls: Vec<(String, Program, Option<inputs::Feed>)> = Vec::new();
    let mut control_of: Vec<String> = Vec::new();
    for op in &list.ops {
        let bad = |reason: String| RepriceError::Input {
            path: list.path.clone(),
            line: op.line,
            id: op.id(),
            reason,
        };
        let opcode = match op.kind.as_str() {
            "arith" => {
                let name = op.opcode.as_deref().unwrap_or_default();
                let code = crate::asm::opcode_named(name)
                    .ok_or_else(|| bad(format!("revm has no opcode named {name:?}")))?;
                // Two operands (the second a 128-bit word) or three (a
                // full-width modulus), and one result: revm's own arity.
                if !(2..=3).contains(&code.inputs()) || code.outputs() != 1 {
                    return Err(bad(format!(
                        "{name} takes {} operands and returns {}: an arith series repeats an \
                         opcode of 2 or 3 operands and one result",
                        code.inputs(),
                        code.outputs()
                    )));
                }
                Some((code.get(), code.inputs() == 3))
            }
            "keccak" if op.opcode.as_deref() == Some("KECCAK256") => None,
            "keccak" => return Err(bad("a keccak series counts KECCAK256".into())),
            _ => None,
        };
        let access = match op.access.as_deref() {
            Some(name) => {
                let a = state::Access::from_name(name).ok_or_else(|| {
                    bad(format!("access {name:?}: not a state access dyno repeats"))
                })?;
                let counts = a.opcode().0;
                if op.opcode.as_deref() != Some(counts) {
                    return Err(bad(format!(
                        "access {name:?} counts {counts}: write opcode = {counts:?}"
                    )));
                }
                Some(a)
            }
            None => None,
        };
        let base = state::base(out.len());
        let mut feed = None;
        let (program, control, template, precompile) = match op.kind.as_str() {
            "state" => {
                let a = access.expect("a state series has its access");
                (
                    state::program(a, base, false),
                    state::program(a, base, true),
                    None,
                    None,
                )
            }
            "arith" => {
                let (code, ternary) = opcode.expect("arith has its opcode");
                (
                    program::arith(code, ternary, false),
                    program::arith(code, ternary, true),
                    None,
                    None,
                )
            }
            "keccak" => {
                let words = op.units.unwrap_or(1);
                (
                    program::keccak(words, false),
                    program::keccak(words, true),
                    None,
                    None,
                )
            }
            _ => {
                let (name, mut template) = precompile_input(ctx, op).map_err(bad)?;
                if op.vary.contains(&Vary::Calldata) {
                    let f = inputs::Feed::new(ctx, &name, &template, op.units.unwrap_or(0))
                        .map_err(bad)?;
                    template = f.input(0);
                    feed = Some(f);
                }
                let call = call_of(fork, &name, template.clone(), op).map_err(bad)?;
                (
                    program::precompile(&call, false),
                    program::precompile(&call, true),
                    Some(template),
                    Some(name),
                )
            }
        };
        let g = glue(op, opcode, access);
        if !controls.iter().any(|(n, ..)| *n == g) {
            controls.push((g.clone(), control, feed.clone()));
        }
        control_of.push(g);
        out.push(Series {
            id: op.id(),
            op: Some(op.clone()),
            control: None,
            template,
            precompile,
            feed,
            access,
            base,
            address: Address::ZERO,
            program,
            base_gas: 0,
            turn_gas: 0,
        });
    }
    let first_control = out.len();
    for (s, g) in out.iter_mut().zip(&control_of) {
        s.control =
            Some(first_control + controls.iter().position(|(n, ..)| n == g).expect("added"));
    }
    for (g, program, feed) in controls {
        out.push(Series {
            id: format!("{GROUP}/{CONTROL}/{g}"),
            op: None,
            control: None,
            template: None,
            precompile: None,
            feed,
            // A control touches no key.
            access: None,
            base: U256::ZERO,
            address: Address::ZERO,
            program,
            base_gas: 0,
            turn_gas: 0,
        });
    }
    for (i, s) in out.iter_mut().enumerate() {
        s.address = Address::from_word(U256::from(FIRST_CONTRACT + i as u64).into());
        calibrate(s)?;
    }
    Ok(out)
}

/// The precompile (dyno's name) and the input a series starts from.
fn precompile_input(ctx: &Ctx, op: &Op) -> Result<(String, Vec<u8>), String> {
    let input = op.input.as_deref().unwrap_or_default();
    if input == "modexp" {
        return Ok(("modexp".into(), modexp_input(&op.param)?));
    }
    let (name, mut bytes) = crate::precompile::input_of(ctx, input)
        .ok_or_else(|| {
            format!("input {input:?}: not a vector of the precompile suite (`dyno list precompile` shows them), nor `modexp`")
        })?
        .map_err(|e| format!("input {input:?}: {e}"))?;
    if name == "blake2f" {
        // Rounds are the first four bytes; the series' units say how many.
        let rounds = u32::try_from(op.units.unwrap_or(12))
            .map_err(|_| "blake2f rounds must fit 32 bits".to_string())?;
        bytes[..4].copy_from_slice(&rounds.to_be_bytes());
    }
    Ok((name.to_string(), bytes))
}

/// How a series calls its precompile: the template's output length from
/// revm's Osaka precompile (which must succeed on it), where it goes.
fn call_of(fork: &Schedule, name: &str, template: Vec<u8>, op: &Op) -> Result<Call, String> {
    let address =
        Address::from_word(U256::from(fork.get(name).map_err(|e| e.to_string())?.address).into());
    let precompiles = Precompiles::new(PrecompileSpecId::OSAKA);
    let p = precompiles
        .get(&address)
        .ok_or_else(|| format!("revm has no Osaka precompile at {address}"))?;
    let out = p
        .execute(&template, 1 << 40, 0)
        .map_err(|e| format!("the input fails in revm: {e}"))?;
    if !matches!(out.status, PrecompileStatus::Success) {
        return Err(format!("the input fails in revm: {:?}", out.status));
    }
    let out_len = out.bytes.len().max(32);
    let mut words = Vec::new();
    let mut chain = None;
    let per_call = if op.vary.contains(&Vary::Calldata) {
        template.len()
    } else {
        0
    };
    for v in &op.vary {
        match *v {
            Vary::Calldata if op.vary.len() == 1 => continue,
            Vary::Calldata => {
                return Err("vary: `calldata` makes the whole input; nothing else can vary".into());
            }
            Vary::Word(at) if at + 32 <= template.len() => words.push(at),
            Vary::Chain(at) if at + out_len <= template.len() => chain = Some(at),
            _ => {
                return Err(format!(
                    "vary {v:?}: reaches past the {}-byte input (the output is {out_len} bytes)",
                    template.len()
                ));
            }
        }
    }
    // Every precompile program writes one word a turn, so that all share
    // one control's glue: a chain alone writes its word past the input,
    // where the call never reads.
    let past_input = template.len().div_ceil(32) * 32;
    match words.len() {
        0 if per_call > 0 => {}
        0 => words.push(past_input + out_len.div_ceil(32) * 32),
        1 => {}
        _ => return Err("vary: one `word@N` at most (the control writes one word a turn)".into()),
    }
    Ok(Call {
        address,
        out_offset: chain.unwrap_or(past_input),
        out_len,
        chained: chain.is_some(),
        words,
        template,
        per_call,
    })
}

/// The calldata of a transaction of `s` running `n` turns from `seed`:
/// `n ‖ seed`, then each turn's made input where the series has them
/// (indices from `seed`, so that no two transactions share one).
pub fn tx_data(s: &Series, n: u64, seed: u64) -> Vec<u8> {
    let mut data = program::calldata(n, seed);
    if let Some(feed) = &s.feed {
        for j in 0..n {
            data.extend(feed.input((seed << 20) + j));
        }
    }
    data
}

/// A series' gas: a transaction's fixed part, and the difference a turn
/// makes, in a fresh revm (storage empty: its dearest case). A
/// transaction of mostly calldata (a control carrying made inputs) pays
/// EIP-7623's floor instead, which the lab's EVM does not charge: both
/// lines are measured and the larger base and turn kept, so the gas
/// limit covers whichever applies at any number of turns.
fn calibrate(s: &mut Series) -> Result<(), RepriceError> {
    let fail = |reason: String| RepriceError::Calibration {
        id: s.id.clone(),
        reason,
    };
    let floor = revm::context_interface::cfg::GasParams::new_spec(
        revm::primitives::hardfork::SpecId::OSAKA,
    );
    // Executed gas and floor gas of `n` turns.
    // A state series on the pre-state its keys need (its dearest case is
    // the one it meets: every key as the run finds it).
    const TURNS: u64 = 8;
    let alloc = s.access.map(|a| {
        state::prestate(
            a,
            crate::vm::TARGET,
            s.program.code.clone(),
            s.base,
            1..=1 + TURNS,
        )
    });
    let gas = |n: u64| {
        let mut vm = match &alloc {
            Some(alloc) => Vm::with_alloc(alloc),
            None => Vm::new(s.program.code.clone()),
        };
        // A late seed: made inputs from a large index carry as many
        // non-zero bytes as any a run makes (the calldata floor counts them).
        // A state series' seed is its first key's index.
        let seed = if s.access.is_some() { 1 } else { 1 << 24 };
        let data = tx_data(s, n, seed);
        let out = vm.call(&data.clone().into());
        if out.success {
            Ok((out.gas_spent, floor.tx_floor_cost(&data)))
        } else {
            Err(fail(format!("{n} turns: {:?}", out.error)))
        }
    };
    // From one turn, so that both runs store an accumulator (a run of no
    // turns stores none and costs a different SSTORE).
    let ((e1, f1), (en, fn_)) = (gas(1)?, gas(1 + TURNS)?);
    let line = |g1: u64, gn: u64| {
        let turn = (gn - g1).div_ceil(TURNS);
        (g1.saturating_sub(turn), turn)
    };
    let (exec, floor) = (line(e1, en), line(f1, fn_));
    s.base_gas = exec.0.max(floor.0);
    s.turn_gas = exec.1.max(floor.1);
    Ok(())
}

/// The genesis and the blocks, each checked by count before it is kept.
#[derive(Debug, Clone)]
pub struct Made {
    pub genesis: Genesis,
    pub series: Vec<Series>,
    pub blocks: Vec<(Planned, Block)>,
}

/// The genesis with `extra` (every series' contract and the pre-state its
/// accesses touch: its state root is seconds of work, more in a debug
/// build), built on a thread of its own while `stop` is heard every 20 ms;
/// `None` once it is set (the thread is left to end with the process).
fn genesis_until(
    contracts: &Contracts,
    gas_limit: u64,
    extra: Vec<Allocated>,
    stop: &std::sync::atomic::AtomicBool,
) -> Option<Genesis> {
    let contracts = contracts.clone();
    let building =
        std::thread::spawn(move || Genesis::with_alloc(&contracts, SENDERS, gas_limit, &extra));
    while !building.is_finished() {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    Some(
        building
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p)),
    )
}

/// Produce `planned` on a genesis holding every series' contract, each
/// block executed, its operations counted by an inspector and refused
/// unless they are as planned. `progress(done, total)` after each. `stop`
/// is looked at before every transaction: set, the making ends within one
/// transaction's execution, as [`RepriceError::Interrupted`].
pub fn make(
    contracts: &Contracts,
    series: Vec<Series>,
    planned: Vec<Planned>,
    gas_limit: u64,
    stop: &std::sync::atomic::AtomicBool,
    mut progress: impl FnMut(usize, usize),
) -> Result<Made, RepriceError> {
    let genesis = genesis_until(contracts, gas_limit, alloc(&series, &planned), stop).ok_or(
        RepriceError::Interrupted {
            made: 0,
            total: planned.len(),
        },
    )?;
    let floor = revm::context_interface::cfg::GasParams::new_spec(
        revm::primitives::hardfork::SpecId::OSAKA,
    );
    let mut world = genesis.world.clone();
    let mut parent = genesis.header.clone();
    let mut blocks = Vec::with_capacity(planned.len());
    let mut cursor = 0usize;
    let mut seed = 0u64;
    // A state series' transactions take its keys' indices in turn, from 1.
    let mut next_key = vec![1u64; series.len()];
    let total = planned.len();
    // Each block is counted on a second thread while the next is made (the
    // count re-executes every block in order on its own overlay of the
    // genesis): production is not timed, and the two cores halve it. The
    // first miscount stops it.
    let failed = std::sync::atomic::AtomicBool::new(false);
    let (jobs, queue) = std::sync::mpsc::sync_channel::<(Block, program::Counted, u64)>(4);
    let start = &genesis.world;
    std::thread::scope(|scope| -> Result<(), RepriceError> {
        let counter = scope.spawn(|| -> Result<(), count::CountError> {
            let mut recount = count::Recount::new(start);
            for (block, what, planned) in queue {
                if let Err(e) = recount.check_until(&block, what, planned, stop) {
                    failed.store(true, std::sync::atomic::Ordering::Relaxed);
                    return Err(e);
                }
            }
            Ok(())
        });
        let produced = (|| -> Result<(), RepriceError> {
            for p in planned {
                if failed.load(std::sync::atomic::Ordering::Relaxed) {
                    break;
                }
                let s = &series[p.series];
                let produce = |source: ProduceError| RepriceError::Produce {
                    id: s.id.clone(),
                    source,
                };
                let (block, done) = producer::seal(&world, &parent, gas_limit, |executor| {
                    let mut txs = Vec::with_capacity(p.turns.len());
                    for &n in &p.turns {
                        if stop.load(std::sync::atomic::Ordering::Relaxed) {
                            return Err(ProduceError::Interrupted);
                        }
                        let signer = &genesis.senders[cursor % genesis.senders.len()];
                        cursor += 1;
                        seed += 1;
                        let nonce = world.account(&signer.address).map_or(0, |a| a.nonce);
                        let data = if s.access.is_some() {
                            next_key[p.series] += n;
                            tx_data(s, n, next_key[p.series] - n)
                        } else {
                            tx_data(s, n, seed)
                        };
                        // Calibrated gas, or EIP-7623's floor on this very calldata
                        // where that is more (made inputs vary in their zero bytes).
                        let gas = (s.base_gas + n * s.turn_gas).max(floor.tx_floor_cost(&data));
                        let tx = signer.sign(TxEip1559 {
                            chain_id: CHAIN_ID,
                            nonce,
                            gas_limit: (gas + MARGIN).min(TX_GAS_CAP).max(gas),
                            max_fee_per_gas: MAX_FEE,
                            max_priority_fee_per_gas: TIP,
                            to: TxKind::Call(s.address),
                            value: U256::ZERO,
                            input: data.into(),
                            ..TxEip1559::default()
                        });
                        let index = txs.len();
                        let result = executor.execute(&tx, signer.address).map_err(|source| {
                            ProduceError::Rejected {
                                index,
                                what: "op-isolation call",
                                source,
                            }
                        })?;
                        if !result.is_success() {
                            return Err(ProduceError::Failed {
                                index,
                                what: "op-isolation call",
                                result: format!("{result:?}"),
                            });
                        }
                        txs.push(tx);
                    }
                    Ok(txs)
                })
                .map_err(produce)?;
                let expected = p.count + p.turns.len() as u64 * s.program.per_tx;
                let _ = jobs.send((block.clone(), s.program.counted, expected));
                let hash = block.header.hash_slow();
                world.commit(done.executed.changes, done.post, block.header.number, hash);
                parent = block.header.clone();
                blocks.push((p, block));
                progress(blocks.len(), total);
            }
            Ok(())
        })();
        drop(jobs);
        let counted = counter.join().expect("the count thread does not panic");
        let interrupted = matches!(
            produced,
            Err(RepriceError::Produce {
                source: ProduceError::Interrupted,
                ..
            })
        ) || matches!(counted, Err(count::CountError::Interrupted { .. }));
        if interrupted {
            return Err(RepriceError::Interrupted {
                made: blocks.len(),
                total,
            });
        }
        produced?;
        counted?;
        Ok(())
    })?;
    Ok(Made {
        genesis,
        series,
        blocks,
    })
}

/// Every series' contract as the genesis holds it, with the pre-state of
/// each `state` series: exactly the keys `planned` touches (its
/// transactions take indices 1, 2, ... in turn).
pub fn alloc(series: &[Series], planned: &[Planned]) -> Vec<Allocated> {
    let mut used = vec![0u64; series.len()];
    for p in planned {
        used[p.series] += p.turns.iter().sum::<u64>();
    }
    let mut out = Vec::new();
    for (s, used) in series.iter().zip(used) {
        let code = s.program.code.clone();
        match s.access {
            Some(a) => out.extend(state::prestate(a, s.address, code, s.base, 1..=used)),
            None => out.push(Allocated {
                address: s.address,
                balance: U256::ZERO,
                nonce: 1,
                code: code.into(),
                storage: Vec::new(),
            }),
        }
    }
    out
}

/// The nominal gas of one operation of `s` under the fork's precompile
/// schedule (`price = "fork"` series): the precompile's price on its
/// template input.
pub fn fork_price(s: &Series, fork: &Schedule) -> Option<u64> {
    fork.nominal_gas(s.precompile.as_deref()?, s.template.as_deref()?)
        .ok()
}

/// Read specs/operations.toml and the fork's schedule, and build the series.
pub fn load(ctx: &Ctx, specs: &Path, fork: &str) -> Result<(Reprice, Vec<Series>), String> {
    let list = dyno_spec::reprice::load(specs).map_err(|e| e.to_string())?;
    let schedules = dyno_spec::reprice::schedules(specs).map_err(|e| e.to_string())?;
    list.check_prices(&schedules).map_err(|e| e.to_string())?;
    let fork = Schedule::for_fork(specs, fork).map_err(|e| e.to_string())?;
    let series = series(ctx, &list, &fork).map_err(|e| e.to_string())?;
    Ok((list, series))
}

#[cfg(test)]
mod tests;
