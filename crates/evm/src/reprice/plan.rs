//! The blocks of a run, in order: which series, budget, level and round
//! each is, and how many operations it holds (`dyno gas --blocks`).

use dyno_spec::reprice::Layout;

use super::{MARGIN, Series};
use crate::block::producer::TX_GAS_CAP;

/// One block of a series.
#[derive(Debug, Clone)]
pub struct Planned {
    /// Index into the series.
    pub series: usize,
    /// Its gas budget (millions) and level (1..=levels); 0 for a warm-up.
    pub budget_m: u64,
    pub level: u64,
    /// Counted, or a warm-up block.
    pub measured: bool,
    /// The round it belongs to (1, 2, ...); 0 for a warm-up block.
    pub round: u32,
    /// Loop turns of each transaction.
    pub turns: Vec<u64>,
    /// The operations the block runs: what the count check must find.
    pub count: u64,
}

/// The transactions' turns for about `gas` gas of `s` in a block of
/// `gas_limit`: as many transactions as the per-transaction cap needs.
fn turns_for(s: &Series, gas: u64, gas_limit: u64) -> Vec<u64> {
    // Two margins under the cap: one for the gas limit's own margin, one
    // for a made input's calldata floor running above the calibrated one.
    let cap = TX_GAS_CAP - 2 * MARGIN;
    let txs = gas.div_ceil(cap).max(1);
    let gas = gas.min(gas_limit - txs * MARGIN);
    let per_tx = gas / txs;
    let n = per_tx.saturating_sub(s.base_gas) / s.turn_gas.max(1);
    vec![n.max(1); txs as usize]
}

/// SplitMix64.
fn mix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Every block to make, in order: one warm-up block per series (at the
/// first budget's lowest level), then every (series, budget, level,
/// repeat) once, shuffled: one round of every level.
pub fn plan(
    series: &[Series],
    budgets_m: &[u64],
    levels: u64,
    repeats: u64,
    gas_limit: u64,
) -> Vec<Planned> {
    let shape = Shape {
        budgets_m: budgets_m.to_vec(),
        levels,
        repeats,
        round_levels: levels,
        rounds: 1,
    };
    plan_rounds(series, &shape, gas_limit)
}

/// How a run's blocks are laid out: a full run's or `--quick`'s
/// ([`layout`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    pub budgets_m: Vec<u64>,
    pub levels: u64,
    pub repeats: u64,
    /// The levels of each budget a round holds (a divisor of `levels`).
    pub round_levels: u64,
    /// The rounds to plan.
    pub rounds: u64,
}

impl Shape {
    /// The levels round `round` (1, 2, ...) holds of every budget: the
    /// next `round_levels` of them, cycling.
    pub fn levels_of(&self, round: u64) -> std::ops::RangeInclusive<u64> {
        let cycle = (self.levels / self.round_levels).max(1);
        let first = ((round - 1) % cycle) * self.round_levels + 1;
        first..=first + self.round_levels - 1
    }
}

/// Every block to make, in order: one warm-up block per series (at the
/// first budget's lowest level, round 0), then round by round every
/// series at the round's levels of every budget, `repeats` times, each
/// round shuffled on its own so that each series sits beside every other,
/// its anchor among them, in every round.
pub fn plan_rounds(series: &[Series], shape: &Shape, gas_limit: u64) -> Vec<Planned> {
    let levels = shape.levels;
    let block = |i: usize, budget_m: u64, level: u64, round: u32| {
        let s = &series[i];
        let turns = turns_for(s, budget_m * 1_000_000 * level / levels, gas_limit);
        let count = turns.iter().sum::<u64>() * s.program.per_turn;
        Planned {
            series: i,
            budget_m,
            level,
            measured: round > 0,
            round,
            turns,
            count,
        }
    };
    let mut all: Vec<Planned> = (0..series.len())
        .map(|i| block(i, shape.budgets_m[0], 1, 0))
        .collect();
    let mut state = 0x5eed_0034;
    for round in 1..=shape.rounds {
        let mut measured = Vec::new();
        for i in 0..series.len() {
            for &b in &shape.budgets_m {
                for level in shape.levels_of(round) {
                    for _ in 0..shape.repeats {
                        measured.push(block(i, b, level, round as u32));
                    }
                }
            }
        }
        for k in (1..measured.len()).rev() {
            let j = (mix(&mut state) % (k as u64 + 1)) as usize;
            measured.swap(k, j);
        }
        all.extend(measured);
    }
    all
}

/// The layout `--quick` or a full run uses; `rounds` (`--rounds`) in
/// place of the list's most rounds.
pub fn layout(l: &Layout, quick: bool, rounds: Option<u64>) -> Shape {
    let (budgets_m, repeats, round_levels, most) = if quick {
        (
            l.quick_budgets_m.clone(),
            l.quick_repeats,
            l.quick_round_levels,
            l.quick_rounds,
        )
    } else {
        (l.budgets_m.clone(), l.repeats, l.round_levels, l.rounds)
    };
    Shape {
        budgets_m,
        levels: l.levels,
        repeats,
        round_levels,
        rounds: rounds.unwrap_or(most),
    }
}
