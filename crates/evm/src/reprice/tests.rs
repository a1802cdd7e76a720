use super::*;
use crate::block::Block;
use crate::block::validator;
use crate::block::world::World;
use crate::precompile::tests::ctx;

/// [`make`] with no interrupt and no progress.
fn make_all(
    contracts: &Contracts,
    series: Vec<Series>,
    planned: Vec<Planned>,
    gas_limit: u64,
) -> Result<Made, RepriceError> {
    make(
        contracts,
        series,
        planned,
        gas_limit,
        &std::sync::atomic::AtomicBool::new(false),
        |_, _| {},
    )
}

fn specs() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs")
}

/// Every series of the shipped list, built and calibrated once.
fn all() -> (Reprice, Vec<Series>) {
    static ALL: std::sync::OnceLock<(Reprice, Vec<Series>)> = std::sync::OnceLock::new();
    ALL.get_or_init(|| load(&ctx(), &specs(), "osaka").unwrap())
        .clone()
}

/// The series named, with their controls re-indexed after them.
fn pick(ids: &[&str]) -> Vec<Series> {
    let (_, every) = all();
    let mut out: Vec<Series> = ids
        .iter()
        .map(|id| every.iter().find(|s| s.id == *id).unwrap().clone())
        .collect();
    let n = out.len();
    let mut controls: Vec<Series> = Vec::new();
    for s in &mut out {
        let c = &every[s.control.unwrap()];
        let at = match controls.iter().position(|x| x.id == c.id) {
            Some(at) => at,
            None => {
                controls.push(c.clone());
                controls.len() - 1
            }
        };
        s.control = Some(n + at);
    }
    out.extend(controls);
    out
}

/// Import every block of `made` through dyno's validator (state root
/// included), calling `each` with each block and the world after it.
fn import(made: &Made, mut each: impl FnMut(&Planned, &Block, &World)) -> World {
    let mut world = made.genesis.world.clone();
    let mut parent = made.genesis.header.clone();
    for (p, b) in &made.blocks {
        let v = validator::validate_after(&world, &parent, parent.hash_slow(), b).unwrap();
        world.commit(
            v.executed.changes,
            v.post,
            b.header.number,
            b.header.hash_slow(),
        );
        parent = b.header.clone();
        each(p, b, &world);
    }
    world
}

#[test]
fn every_listed_series_builds_and_costs_what_its_glue_and_price_say() {
    let (list, series) = all();
    let controls = series.iter().filter(|s| s.op.is_none()).count();
    assert_eq!(series.len(), list.ops.len() + controls);
    // arith-binary, arith-ternary, keccak, precompile, one per series of
    // made inputs (2 BN254 pairings, 2 BLS12 pairings, KZG), and the state
    // set's read, store, call and create.
    assert_eq!(controls, 13);
    let fork = Schedule::for_fork(&specs(), "osaka").unwrap();
    let compute = dyno_spec::reprice::schedules(&specs()).unwrap();
    for s in series.iter().filter(|s| s.op.is_some()) {
        let c = &series[s.control.unwrap()];
        assert!(c.id.starts_with("reprice/control/"), "{}", s.id);
        // What a turn costs beyond its control's turn is the operation's
        // price (the precompile's, or the opcode's less the POPs standing
        // in for it): revm's accounting and dyno's schedule agree.
        let extra = s.turn_gas as i64 - c.turn_gas as i64;
        let op = s.op.as_ref().unwrap();
        match op.kind.as_str() {
            // Made inputs ride in calldata, which its control carries too
            // and pays EIP-7623's floor for: the turn still costs at least
            // the precompile's price more.
            "precompile" if s.feed.is_some() => {
                let price = fork_price(s, &fork).unwrap() as i64;
                assert!(
                    s.turn_gas as i64 >= price,
                    "{}: {} against {price}",
                    s.id,
                    s.turn_gas
                );
            }
            "precompile" => {
                let price = fork_price(s, &fork).unwrap() as i64;
                // Less IDENTITY's 15 that the control pays; the call
                // copies the input in and the output back: memory, never
                // the price, differs.
                let price = price - program::IDENTITY_GAS as i64;
                assert!(
                    extra >= price && extra < price + 400,
                    "{}: {extra} against {price}",
                    s.id
                );
            }
            "arith" => {
                // The schedule in force's price, less the POP (two for a
                // three-operand opcode) the control runs instead.
                let per = extra / program::ARITH_STEPS as i64;
                let price = compute[0].price(op, &compute[0]).unwrap() as i64;
                let code = crate::asm::opcode_named(op.opcode.as_deref().unwrap()).unwrap();
                let pops = 2 * (i64::from(code.inputs()) - 1);
                assert_eq!(per, price - pops, "{}", s.id);
            }
            "state" => {
                // Osaka's charges, from EIP-2929, EIP-2200/3529 and the
                // Yellow Paper (not from revm), less the POPs the control
                // has in the access's place.
                let want = match op.access.as_deref().unwrap() {
                    // COLD_SLOAD_COST
                    "sload-cold" | "sload-missing" => 2100,
                    // COLD_ACCOUNT_ACCESS_COST
                    "balance-cold" | "extcodesize-cold" => 2600,
                    // cold slot + SSTORE_SET_GAS, less 2 POPs
                    "sstore-fresh" => 2100 + 20_000 - 4,
                    // cold slot + SSTORE_RESET_GAS - COLD_SLOAD_COST,
                    // less 2 POPs (the clear's refund comes after)
                    "sstore-modify" | "sstore-clear" => 2100 + 2900 - 4,
                    // cold account + G_callvalue, of which the callee
                    // returns its unused 2 300 stipend; less 6 POPs
                    "call-value-cold" => 2600 + 9000 - 2300 - 12,
                    // G_create, EIP-3860's word of initcode (2), the
                    // initcode's PUSH1 PUSH0 and its first memory word
                    // (3 + 2 + 3), 200 a byte of the 32 deposited; less
                    // 2 POPs
                    "create" => 32_000 + 2 + 8 + 200 * 32 - 4,
                    other => panic!("{other}"),
                };
                assert_eq!(extra, want, "{}", s.id);
            }
            _ => {
                let words = op.units.unwrap() as i64;
                assert_eq!(
                    extra / program::KECCAK_STEPS as i64,
                    30 + 6 * words - 2,
                    "{}",
                    s.id
                );
            }
        }
    }
}

#[test]
fn a_small_series_is_valid_block_by_block_and_counted() {
    let series = pick(&[
        "reprice/div/256-by-128",
        "reprice/ecrecover/valid",
        "reprice/bn254-add/chained",
        "reprice/bn254-pairing/2-pairs",
        "reprice/point-evaluation/degree-1",
    ]);
    let planned = plan(&series, &[1], 2, 1, 100_000_000);
    // One warm-up block per series (9 with the four controls), then 2
    // levels of each.
    assert_eq!(planned.len(), 9 + 18);
    assert!(planned[..9].iter().all(|p| !p.measured));
    let contracts = Contracts::load(&ctx()).unwrap();
    let made = make_all(&contracts, series.clone(), planned, 100_000_000).unwrap();
    // Every block imports through dyno's validator, state root included.
    import(&made, |p, b, _| {
        assert!(p.count > 0 && b.header.gas_used > 21_000 * p.turns.len() as u64);
    });
    // Level 2 of the 1M budget holds about twice level 1's operations.
    let of = |level: u64| {
        made.blocks
            .iter()
            .find(|(p, _)| p.measured && p.series == 1 && p.level == level)
            .map(|(p, b)| (p.count, b.header.gas_used))
            .unwrap()
    };
    let ((c1, g1), (c2, g2)) = (of(1), of(2));
    // (level 2's one transaction pays the fixed part once, not twice).
    let fixed = series[1].base_gas / series[1].turn_gas;
    assert!(
        c2 >= 2 * c1 && c2 <= 2 * c1 + fixed + 1,
        "{c1} {c2} {fixed}"
    );
    assert!(g2 > g1 && g2 <= 1_000_000, "{g1} {g2}");
    // The bn254-add chain moves from block to block: its point is kept in
    // storage and is never the same twice.
    let chain = series[2].address;
    let mut points: Vec<U256> = Vec::new();
    import(&made, |p, _, w| {
        if p.series == 2 {
            points.push(w.storage(&chain, &U256::from(1)));
        }
    });
    assert!(points.len() >= 3);
    for (k, pt) in points.iter().enumerate() {
        assert_ne!(*pt, U256::ZERO);
        assert!(!points[..k].contains(pt), "the chain came back to a point");
    }
}

#[test]
fn a_block_whose_count_is_off_by_one_is_refused_before_timing() {
    let series = pick(&["reprice/ecrecover/valid", "reprice/mulmod/256"]);
    let contracts = Contracts::load(&ctx()).unwrap();
    let one = |i: usize, turns: Vec<u64>, count: u64| Planned {
        series: i,
        budget_m: 1,
        level: 1,
        measured: true,
        round: 1,
        turns,
        count,
    };
    // As planned: accepted.
    make_all(
        &contracts,
        series.clone(),
        vec![one(0, vec![3], 3)],
        30_000_000,
    )
    .unwrap();
    // A transaction that runs one more turn than the plan says (a
    // generator bug): revm counts 4 ECRECOVER calls, the plan 3.
    for (turns, count) in [(vec![4], 3), (vec![2], 3), (vec![3], 4)] {
        let err = make_all(
            &contracts,
            series.clone(),
            vec![one(0, turns, count)],
            30_000_000,
        )
        .unwrap_err();
        match err {
            RepriceError::Count(count::CountError::Mismatch {
                planned, counted, ..
            }) => {
                assert_eq!(planned.abs_diff(counted), 1, "{planned} {counted}");
            }
            other => panic!("{other}"),
        }
    }
    // An opcode series counts every execution: 16 a turn.
    make_all(
        &contracts,
        series.clone(),
        vec![one(1, vec![2], 32)],
        30_000_000,
    )
    .unwrap();
    let err = make_all(&contracts, series, vec![one(1, vec![2], 33)], 30_000_000).unwrap_err();
    assert!(
        err.to_string()
            .contains("revm executed 32 operations, the plan says 33"),
        "{err}"
    );
}

/// The dearest block of every series (a whole 100M budget) fits Osaka's
/// per-transaction cap with its margin, calldata floor included, so a
/// default run cannot fail on its last level after minutes of work.
#[test]
fn the_largest_transactions_of_every_series_fit_the_cap() {
    let (_, series) = all();
    let floor = revm::context_interface::cfg::GasParams::new_spec(
        revm::primitives::hardfork::SpecId::OSAKA,
    );
    let planned = plan(&series, &[100], 1, 1, 100_000_000);
    for p in planned.iter().filter(|p| p.measured) {
        let s = &series[p.series];
        assert!(
            p.turns.len() >= 6,
            "{}: {} transactions",
            s.id,
            p.turns.len()
        );
        let n = p.turns[0];
        let data = tx_data(s, n, 1 << 12);
        let gas = (s.base_gas + n * s.turn_gas).max(floor.tx_floor_cost(&data));
        assert!(
            gas + MARGIN <= TX_GAS_CAP,
            "{}: {gas} + margin over the cap",
            s.id
        );
        assert!(
            p.turns.iter().sum::<u64>() * s.turn_gas <= 100_000_000,
            "{}",
            s.id
        );
    }
}

/// A whole 100M block of the control with the most calldata a turn (the
/// KZG inputs, whose transactions pay EIP-7623's floor) is made: its
/// transactions' limits fit what the block has left.
#[test]
fn a_full_block_of_made_inputs_fits_its_gas_limit() {
    let series = pick(&["reprice/point-evaluation/degree-1"]);
    let control = series.iter().position(|s| s.op.is_none()).unwrap();
    let planned: Vec<Planned> = plan(&series, &[100], 1, 1, 100_000_000)
        .into_iter()
        .filter(|p| p.measured && p.series == control)
        .collect();
    let contracts = Contracts::load(&ctx()).unwrap();
    let made = make_all(&contracts, series, planned, 100_000_000).unwrap();
    let used = made.blocks[0].1.header.gas_used;
    assert!(used > 95_000_000, "{used}");
}

/// The state set: every block valid on dyno's validator, every access
/// counted, each transaction on keys no other touched, and the pre-state
/// holding exactly the keys the run reads or changes.
#[test]
fn the_state_set_touches_each_key_once_over_the_prestate_it_needs() {
    let series = pick(&[
        "reprice/sload/cold",
        "reprice/sload/cold-missing",
        "reprice/balance/cold",
        "reprice/extcodesize/cold",
        "reprice/sstore/set",
        "reprice/sstore/modify",
        "reprice/sstore/clear",
        "reprice/call-value/cold",
        "reprice/create/32-byte-code",
    ]);
    let planned = plan(&series, &[1], 2, 1, 30_000_000);
    let contracts = Contracts::load(&ctx()).unwrap();
    let made = make_all(&contracts, series.clone(), planned, 30_000_000).unwrap();
    // (series, first index, turns) of every transaction.
    let mut ranges: Vec<(usize, u64, u64)> = Vec::new();
    let world = import(&made, |p, b, _| {
        for tx in &b.transactions {
            let data = alloy_consensus::Transaction::input(tx);
            let n = U256::from_be_slice(&data[..32]).to::<u64>();
            let first = U256::from_be_slice(&data[32..64]).to::<u64>();
            ranges.push((p.series, first, n));
        }
    });
    for (index, s) in series.iter().enumerate() {
        if s.access.is_none() {
            continue;
        }
        let mut mine: Vec<(u64, u64)> = ranges
            .iter()
            .filter(|r| r.0 == index)
            .map(|r| (r.1, r.2))
            .collect();
        mine.sort();
        // Contiguous from 1, none shared.
        let mut next = 1;
        for (first, n) in &mine {
            assert_eq!(*first, next, "{}", s.id);
            next += n;
        }
        let used = next - 1;
        assert!(used > 0);
        let g = &made.genesis.world;
        let base = s.base;
        let key = |i: u64| base + U256::from(i);
        match s.access.unwrap() {
            state::Access::SloadExisting
            | state::Access::SstoreModify
            | state::Access::SstoreClear => {
                assert_ne!(g.storage(&s.address, &key(1)), U256::ZERO, "{}", s.id);
                assert_ne!(g.storage(&s.address, &key(used)), U256::ZERO, "{}", s.id);
                assert_eq!(
                    g.storage(&s.address, &key(used + 1)),
                    U256::ZERO,
                    "{}",
                    s.id
                );
            }
            state::Access::Balance | state::Access::CallValue | state::Access::ExtCodeSize => {
                assert!(g.account(&state::address(key(used))).is_some(), "{}", s.id);
                assert!(
                    g.account(&state::address(key(used + 1))).is_none(),
                    "{}",
                    s.id
                );
            }
            state::Access::SloadMissing | state::Access::SstoreSet => {
                assert_eq!(g.storage(&s.address, &key(1)), U256::ZERO, "{}", s.id);
            }
            state::Access::Create => {}
        }
        // What the run changed, the run did: every fresh slot set, every
        // cleared slot gone, every modified slot holding its key.
        match s.access.unwrap() {
            state::Access::SstoreSet | state::Access::SstoreModify => {
                assert_eq!(world.storage(&s.address, &key(used)), key(used), "{}", s.id);
            }
            state::Access::SstoreClear => {
                assert_eq!(
                    world.storage(&s.address, &key(used)),
                    U256::ZERO,
                    "{}",
                    s.id
                );
            }
            state::Access::CallValue => {
                let a = world.account(&state::address(key(used))).unwrap();
                assert_eq!(a.balance, U256::from(2), "{}", s.id);
            }
            state::Access::Create => {
                // The contract's nonce counts its creations.
                assert_eq!(
                    world.account(&s.address).unwrap().nonce,
                    1 + used,
                    "{}",
                    s.id
                );
            }
            _ => {}
        }
    }
}

/// A state program whose access is swapped for another opcode is refused
/// by the count before timing (the count follows the access, not the
/// plan's word for it).
#[test]
fn a_state_block_without_its_access_is_refused() {
    let mut series = pick(&["reprice/balance/cold"]);
    // The read control's program (XOR where BALANCE was) under the
    // balance series' name: the plan says BALANCE, revm counts none.
    let control = series[1].program.clone();
    series[0].program.code = control.code;
    let planned = vec![Planned {
        series: 0,
        budget_m: 1,
        level: 1,
        measured: true,
        round: 1,
        turns: vec![5],
        count: 5,
    }];
    let contracts = Contracts::load(&ctx()).unwrap();
    let err = make_all(&contracts, series, planned, 30_000_000).unwrap_err();
    assert!(
        err.to_string()
            .contains("revm executed 0 operations, the plan says 5"),
        "{err}"
    );
}

/// An interrupt ends the making within one transaction, saying how far it
/// got; without one the same plan is made in full.
#[test]
fn an_interrupt_stops_the_making_before_the_next_transaction() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let series = pick(&["reprice/balance/cold"]);
    let plan = |n: usize| -> Vec<Planned> {
        (0..n)
            .map(|_| Planned {
                series: 0,
                budget_m: 1,
                level: 1,
                measured: true,
                round: 1,
                turns: vec![5],
                count: 5,
            })
            .collect()
    };
    let contracts = Contracts::load(&ctx()).unwrap();
    let stop = AtomicBool::new(false);
    let mut seen = 0;
    let err = make(
        &contracts,
        series.clone(),
        plan(3),
        30_000_000,
        &stop,
        |n, _| {
            seen = n;
            if n == 1 {
                stop.store(true, Ordering::Relaxed);
            }
        },
    )
    .unwrap_err();
    assert!(
        matches!(err, RepriceError::Interrupted { made: 1, total: 3 }),
        "{err}"
    );
    assert_eq!(seen, 1, "no block was made after the interrupt");
    let made = make_all(&contracts, series, plan(3), 30_000_000).unwrap();
    assert_eq!(made.blocks.len(), 3);
}

/// Round k holds every series at level k of every budget (the levels
/// cycling), each round shuffled on its own: over a cycle every (budget,
/// level) comes once, and no round's block sits in another round's span.
#[test]
fn rounds_hold_every_series_at_their_levels_and_stay_apart() {
    let series = pick(&["reprice/ecrecover/valid", "reprice/mulmod/256"]);
    let shape = Shape {
        budgets_m: vec![1, 2],
        levels: 3,
        repeats: 1,
        round_levels: 1,
        rounds: 4,
    };
    let planned = plan_rounds(&series, &shape, 30_000_000);
    let warm = planned.iter().take_while(|p| p.round == 0).count();
    assert_eq!(warm, series.len());
    let rounds: Vec<u32> = planned[warm..].iter().map(|p| p.round).collect();
    assert!(
        rounds.is_sorted(),
        "a round's blocks spread into another's: {rounds:?}"
    );
    for round in 1..=4u32 {
        let mine: Vec<&Planned> = planned.iter().filter(|p| p.round == round).collect();
        // Every series at every budget, at one level.
        assert_eq!(mine.len(), series.len() * 2, "round {round}");
        let level = (round as u64 - 1) % 3 + 1;
        assert!(
            mine.iter().all(|p| p.level == level && p.measured),
            "round {round}"
        );
        for i in 0..series.len() {
            let budgets: Vec<u64> = mine
                .iter()
                .filter(|p| p.series == i)
                .map(|p| p.budget_m)
                .collect();
            assert_eq!(budgets.len(), 2, "round {round} series {i}");
        }
    }
    // One round of every level is the plan of old.
    let one = plan(&series, &[1, 2], 3, 1, 30_000_000);
    assert!(one[warm..].iter().all(|p| p.round == 1));
    assert_eq!(one.len(), warm + series.len() * 2 * 3);
}
