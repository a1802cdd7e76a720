//! tx suite: whole transactions in revm, from pre-state to post-state.
//!
//! Five transactions, each executed on the same committed pre-state and
//! never committed itself, so every execution starts alike:
//!
//! - `transfer`: a value transfer between two accounts (21 000 gas);
//! - `erc20-transfer`: `Token.transfer`, a simple contract call;
//! - `store-write`: `Store.write(seed, 50)`, a storage-heavy call that sets
//!   50 fresh slots;
//! - `deploy-erc20`: the creation of `Token`, constructor included;
//! - `loop`: `Loop.spin(10 000)`, a tight loop of arithmetic.
//!
//! The contracts are the Solidity sources in `contracts/`, compiled by the
//! pinned `solc` npm package; dyno reads `contracts/build/<Name>.json`
//! (bytecode checked in beside the source, with a recompile test).
//!
//! Before timing, each post-state is checked: the recipient's new balance,
//! the token's `Transfer` log and `true`, 50 changed slots, the deployed
//! runtime code equal to solc's, the loop's result equal to the same
//! recurrence computed in Rust. The transaction's gas (after refunds, as a
//! receipt counts it) is recorded as `gas_per_op`, so MGas/s = gas / time.
//! Transactions are executed unsigned (the sender is given): signature
//! checks belong to block validation, which measures them.

use std::hint::black_box;
use std::path::PathBuf;

use dyno_workload::{BenchDef, BuildError, Ctx, Mismatch, Param, Workload, hex};
use revm::context::TxEnv;
use revm::context::result::{ExecutionResult, Output, ResultAndState};
use revm::primitives::{Address, TxKind, U256, address, keccak256};

use crate::vm::{CALLER, REVM_VERSION, Vm};

/// The group of every id here.
pub const GROUP: &str = "tx";
/// The recipient of transfers: an account that does not exist before.
const RECIPIENT: Address = address!("0x00000000000000000000000000000000000b0b00");
/// Tokens minted to the caller when the token is deployed.
const SUPPLY: u64 = 1_000_000_000;
/// Slots `store-write` sets.
const STORE_SLOTS: u64 = 50;
/// Iterations of `loop`.
const LOOP_N: u64 = 10_000;

/// Where the compiled contracts are: `$DYNO_CONTRACTS`, else `build/` in the
/// `contracts` folder beside the vectors folder.
pub fn contracts_dir(ctx: &Ctx) -> PathBuf {
    std::env::var_os("DYNO_CONTRACTS").map_or_else(
        || {
            ctx.vectors
                .parent()
                .unwrap_or(&ctx.vectors)
                .join("contracts/build")
        },
        PathBuf::from,
    )
}

pub use dyno_eth::abi::{calldata, selector};
pub use dyno_eth::contracts::Contract;

/// Load `contracts/build/<name>.json`.
pub fn contract(ctx: &Ctx, name: &str) -> Result<Contract, BuildError> {
    dyno_eth::contracts::contract_at(&contracts_dir(ctx), name).map_err(|e| BuildError::Vectors {
        path: e.path,
        reason: e.reason,
    })
}

fn address_word(a: Address) -> U256 {
    U256::from_be_slice(a.as_slice())
}

/// What a post-state must show.
type Check = Box<dyn Fn(&ResultAndState) -> Result<(), (String, String)>>;

/// One transaction on a fixed pre-state.
pub struct TxWorkload {
    vm: Vm,
    tx: TxEnv,
    check: Check,
    gas: Option<u64>,
}

impl std::fmt::Debug for TxWorkload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TxWorkload").finish_non_exhaustive()
    }
}

impl Workload for TxWorkload {
    fn verify(&mut self) -> Result<(), Mismatch> {
        let mismatch = |(expected, actual): (String, String)| Mismatch {
            case: "post-state".into(),
            expected,
            actual,
        };
        let r = self
            .vm
            .transact(self.tx.clone())
            .map_err(|e| mismatch(("a valid transaction".into(), e)))?;
        if !r.result.is_success() {
            return Err(mismatch(("success".into(), format!("{:?}", r.result))));
        }
        (self.check)(&r).map_err(mismatch)?;
        self.gas = Some(r.result.tx_gas_used());
        Ok(())
    }

    #[inline(never)]
    fn run(&mut self, iters: u64) {
        for _ in 0..iters {
            black_box(self.vm.transact(black_box(self.tx.clone())).ok());
        }
    }

    fn cases(&self) -> usize {
        1
    }

    fn facts(&self) -> Vec<(&'static str, Param)> {
        self.gas
            .map(|g| vec![("gas_per_op", Param::Int(g))])
            .unwrap_or_default()
    }
}

fn expect(
    ok: bool,
    expected: impl Into<String>,
    actual: impl FnOnce() -> String,
) -> Result<(), (String, String)> {
    if ok {
        Ok(())
    } else {
        Err((expected.into(), actual()))
    }
}

/// The caller's pre-state with `name` deployed (and `args` appended to its
/// creation code): the VM and the contract's address.
fn with_contract(
    ctx: &Ctx,
    name: &str,
    args: &[U256],
) -> Result<(Vm, Address, Contract), BuildError> {
    let c = contract(ctx, name)?;
    let mut init = c.bytecode.clone();
    for a in args {
        init.extend_from_slice(&a.to_be_bytes::<32>());
    }
    let mut vm = Vm::new(Vec::new());
    let at = vm.deploy(init).map_err(|e| BuildError::Vectors {
        path: contracts_dir(ctx).join(format!("{name}.json")),
        reason: format!("the pre-state could not deploy {name}: {e}"),
    })?;
    Ok((vm, at, c))
}

fn transfer(_: &Ctx) -> Result<TxWorkload, BuildError> {
    let vm = Vm::new(Vec::new());
    let mut tx = vm.tx();
    tx.kind = TxKind::Call(RECIPIENT);
    tx.value = U256::from(1_000_000_007u64);
    let check: Check = Box::new(|r| {
        let got = r.state.get(&RECIPIENT).map(|a| a.info.balance);
        expect(
            got == Some(U256::from(1_000_000_007u64)),
            "recipient balance 1000000007",
            || format!("{got:?}"),
        )?;
        let gas = r.result.tx_gas_used();
        expect(gas == 21_000, "21000 gas", || gas.to_string())
    });
    Ok(TxWorkload {
        vm,
        tx,
        check,
        gas: None,
    })
}

fn erc20_transfer(ctx: &Ctx) -> Result<TxWorkload, BuildError> {
    let (vm, token, _) = with_contract(ctx, "Token", &[U256::from(SUPPLY)])?;
    let mut tx = vm.tx();
    tx.kind = TxKind::Call(token);
    tx.data = calldata(
        "transfer(address,uint256)",
        &[address_word(RECIPIENT), U256::from(1000)],
    );
    let topic = keccak256("Transfer(address,address,uint256)");
    let check: Check = Box::new(move |r| {
        let ExecutionResult::Success { output, logs, .. } = &r.result else {
            unreachable!("checked for success");
        };
        let ok = U256::from(1).to_be_bytes::<32>();
        expect(output.data()[..] == ok, "returns true", || {
            hex(output.data())
        })?;
        let log = logs.first();
        let shown = || format!("{log:?}");
        let l = log.ok_or_else(|| ("a Transfer log".to_string(), shown()))?;
        let topics = l.data.topics();
        expect(
            l.address == token
                && topics.len() == 3
                && topics[0] == topic
                && topics[1].as_slice()[12..] == CALLER[..]
                && topics[2].as_slice()[12..] == RECIPIENT[..]
                && l.data.data[..] == U256::from(1000).to_be_bytes::<32>(),
            "Transfer(caller, recipient, 1000) from the token",
            shown,
        )
    });
    Ok(TxWorkload {
        vm,
        tx,
        check,
        gas: None,
    })
}

fn store_write(ctx: &Ctx) -> Result<TxWorkload, BuildError> {
    let (vm, store, _) = with_contract(ctx, "Store", &[])?;
    let mut tx = vm.tx();
    tx.kind = TxKind::Call(store);
    tx.data = calldata(
        "write(uint256,uint256)",
        &[U256::from(0x5eed), U256::from(STORE_SLOTS)],
    );
    let check: Check = Box::new(move |r| {
        let changed: Vec<U256> = r
            .state
            .get(&store)
            .map(|a| {
                a.storage
                    .values()
                    .filter(|s| s.is_changed())
                    .map(|s| s.present_value)
                    .collect()
            })
            .unwrap_or_default();
        let mut values: Vec<u64> = changed.iter().map(|v| v.to::<u64>()).collect();
        values.sort_unstable();
        let want: Vec<u64> = (1..=STORE_SLOTS).collect();
        expect(
            values == want,
            format!("{STORE_SLOTS} slots set to 1..={STORE_SLOTS}"),
            || format!("{} changed slots: {values:?}", values.len()),
        )
    });
    Ok(TxWorkload {
        vm,
        tx,
        check,
        gas: None,
    })
}

fn deploy(ctx: &Ctx) -> Result<TxWorkload, BuildError> {
    let c = contract(ctx, "Token")?;
    let vm = Vm::new(Vec::new());
    let mut tx = vm.tx();
    tx.kind = TxKind::Create;
    let mut init = c.bytecode.clone();
    init.extend_from_slice(&U256::from(SUPPLY).to_be_bytes::<32>());
    tx.data = init.into();
    let runtime = c.deployed;
    let check: Check = Box::new(move |r| {
        let ExecutionResult::Success {
            output: Output::Create(_, Some(at)),
            ..
        } = &r.result
        else {
            return Err(("a created contract".into(), format!("{:?}", r.result)));
        };
        let code = r
            .state
            .get(at)
            .and_then(|a| a.info.code.as_ref())
            .map(|c| c.original_bytes().to_vec())
            .unwrap_or_default();
        expect(
            code == runtime,
            format!("solc's runtime code {}", hex(&runtime)),
            || hex(&code),
        )
    });
    Ok(TxWorkload {
        vm,
        tx,
        check,
        gas: None,
    })
}

/// `Loop.spin`'s recurrence: acc = acc * 31 + i, wrapping, for i < n.
pub fn spin(n: u64) -> U256 {
    (0..n).fold(U256::ZERO, |acc, i| {
        acc.wrapping_mul(U256::from(31)).wrapping_add(U256::from(i))
    })
}

fn tight_loop(ctx: &Ctx) -> Result<TxWorkload, BuildError> {
    let (vm, looper, _) = with_contract(ctx, "Loop", &[])?;
    let mut tx = vm.tx();
    tx.kind = TxKind::Call(looper);
    tx.data = calldata("spin(uint256)", &[U256::from(LOOP_N)]);
    let want = spin(LOOP_N).to_be_bytes::<32>();
    let check: Check = Box::new(move |r| {
        let out = r.result.output().map(|b| b.to_vec()).unwrap_or_default();
        expect(out[..] == want, hex(want), || hex(&out))
    });
    Ok(TxWorkload {
        vm,
        tx,
        check,
        gas: None,
    })
}

type Make = fn(&Ctx) -> Result<TxWorkload, BuildError>;

const TXS: [(&str, &str, Make); 5] = [
    ("transfer", "value", transfer),
    ("erc20-transfer", "token", erc20_transfer),
    ("store-write", "50-slots", store_write),
    ("deploy-erc20", "token", deploy),
    ("loop", "10000-iterations", tight_loop),
];

/// Every transaction benchmark.
pub fn defs() -> Vec<BenchDef> {
    TXS.iter()
        .map(|&(op, input, make)| BenchDef {
            cases: None,
            group: GROUP,
            op,
            input: input.to_string(),
            implementation: "revm",
            version: REVM_VERSION,
            params: Vec::new(),
            build: Box::new(move |ctx: &Ctx| Ok(Box::new(make(ctx)?) as Box<dyn Workload>)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::precompile::tests::ctx;

    fn gas(w: &TxWorkload) -> u64 {
        match w.facts().as_slice() {
            [("gas_per_op", Param::Int(g))] => *g,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn tx_every_transaction_reaches_its_post_state() {
        let ctx = ctx();
        for (op, _, make) in TXS {
            let mut w = make(&ctx).unwrap();
            w.verify().unwrap_or_else(|e| panic!("{op}: {e}"));
            assert!(gas(&w) >= 21_000, "{op}: {}", gas(&w));
            // Nothing is committed: a second run sees the same pre-state.
            w.verify().unwrap_or_else(|e| panic!("{op} again: {e}"));
        }
    }

    #[test]
    fn tx_selectors_and_the_loop_recurrence() {
        assert_eq!(
            selector("transfer(address,uint256)"),
            [0xa9, 0x05, 0x9c, 0xbb]
        );
        assert_eq!(spin(0), U256::ZERO);
        // ((0 * 31 + 0) * 31 + 1) * 31 + 2
        assert_eq!(spin(3), U256::from(33));
    }

    #[test]
    fn tx_a_wrong_post_state_is_a_mismatch() {
        let ctx = ctx();
        let mut w = erc20_transfer(&ctx).unwrap();
        // Send more than the supply: the token reverts.
        w.tx.data = calldata(
            "transfer(address,uint256)",
            &[address_word(RECIPIENT), U256::from(SUPPLY + 1)],
        );
        let err = w.verify().unwrap_err();
        assert!(err.actual.contains("Revert"), "{err}");
        let mut w = tight_loop(&ctx).unwrap();
        w.tx.data = calldata("spin(uint256)", &[U256::from(LOOP_N - 1)]);
        assert!(w.verify().is_err());
    }
}
