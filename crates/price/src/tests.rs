use dyno_format::fixture;
use dyno_format::replay::Block;

use dyno_format::gas::Estimate;
use dyno_format::reprice::{Fit, Isolation};
use dyno_format::state::ScheduleName;
use dyno_format::{BenchResult, Mode, Sample};
use serde_json::json;

use crate::blocks::{ANCHOR_MGAS, price_with};
use crate::fit::{fit_results, joint_fits};
use crate::peer::{compare, parse_peer};

/// A uniform draw in [0, 1) from a SplitMix64 stream.
fn uniform(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
}

/// Roughly normal noise of standard deviation `sd` (a sum of 12 uniforms).
fn noise(state: &mut u64, sd: f64) -> f64 {
    ((0..12).map(|_| uniform(state)).sum::<f64>() - 6.0) * sd
}

/// A series' result as a replay leaves it and `annotate` marks it: one
/// sample per block, `iters` the count, the client's execution time in
/// its log at `exec_share` of dyno's time (none if `None`).
fn series(
    id: &str,
    control: Option<&str>,
    points: &[(u64, f64)],
    exec_share: Option<f64>,
) -> BenchResult {
    let mut r = fixture::result(id, "geth", None);
    r.samples = points
        .iter()
        .map(|&(count, ns)| Sample {
            iters: count,
            ns: ns as u64,
        })
        .collect();
    r.blocks = points
        .iter()
        .enumerate()
        .map(|(k, &(count, ns))| Block {
            run: 0,
            number: k as u64 + 1,
            hash: format!("0x{k:064x}"),
            // Each operation at least 1 gas, as every block can hold.
            gas_used: count * 100 + 21_000,
            transactions: 1,
            new_payload_ns: ns as u64,
            forkchoice_ns: 0,
            client_log: exec_share
                .map(|s| json!({"timing": {"execution_ms": ns * s / 1e6, "total_ms": ns / 1e6}})),
            round: None,
        })
        .collect();
    r.reprice = Some(Isolation {
        op: id.split('/').nth(1).unwrap().into(),
        param: id.rsplit('/').next().unwrap().into(),
        units: None,
        control: control.map(String::from),
        fits: Vec::new(),
        anchor: None,
    });
    r
}

/// A series' fit on dyno's newPayload time.
fn payload_fit(r: &BenchResult) -> &Fit {
    r.reprice.as_ref().unwrap().fit("new_payload").unwrap()
}

/// 15 levels (5 at each of 3 budgets) of up to `max` operations, twice.
fn counts(max: u64) -> Vec<u64> {
    let mut c = Vec::new();
    for budget in [3, 6, 10] {
        for level in 1..=5 {
            c.push(max * budget * level / 50);
            c.push(max * budget * level / 50);
        }
    }
    c
}

const CONTROL: &str = "reprice/control/precompile";
const OP: &str = "reprice/ecrecover/valid";

/// Blocks of an operation costing `op` ns beside glue costing `glue` ns a
/// turn, a block's fixed cost 2 ms, noise of 1% of the largest block.
fn planted(state: &mut u64, op: f64, glue: f64) -> Vec<BenchResult> {
    let xs = counts(20_000);
    let top = 2e6 + (op + glue) * 20_000.0;
    let sd = 0.01 * top;
    let control: Vec<(u64, f64)> = xs
        .iter()
        .map(|&x| (x, 2e6 + glue * x as f64 + noise(state, sd)))
        .collect();
    let with_op: Vec<(u64, f64)> = xs
        .iter()
        .map(|&x| (x, 2.1e6 + (op + glue) * x as f64 + noise(state, sd)))
        .collect();
    vec![
        series(OP, Some(CONTROL), &with_op, Some(0.8)),
        series(CONTROL, None, &control, Some(0.8)),
    ]
}

#[test]
fn a_planted_cost_is_recovered_through_the_fit_and_the_glue() {
    let (op, glue) = (3_100.0, 420.0);
    let mut covered = (0, 0);
    let mut state = 34;
    for _ in 0..200 {
        let mut results = planted(&mut state, op, glue);
        fit_results(&mut results);
        let iso = results[0].reprice.as_ref().unwrap();
        let f = iso.fit("new_payload").unwrap();
        assert!(f.kept && f.r_squared > 0.99, "{f:?}");
        let net = f.net_per_op_ns.unwrap();
        let robust = f.net_robust_per_op_ns.unwrap();
        covered.0 += usize::from(net.lower <= op && op <= net.upper);
        covered.1 += usize::from(robust.lower <= op && op <= robust.upper);
        // Within 5% every time: a bias would show here.
        assert!((net.value - op).abs() < 0.05 * op, "{net:?}");
        // The control's own fit is the glue, and has no net figure.
        let c = payload_fit(&results[1]);
        assert!((c.per_op_ns.value - glue).abs() < 0.25 * glue, "{c:?}");
        assert!(c.net_per_op_ns.is_none());
        // The client's own execution time is fitted too: 80% of it.
        let e = iso.fit("client_execution").unwrap();
        let net_e = e.net_per_op_ns.unwrap().value;
        assert!((net_e - 0.8 * op).abs() < 0.05 * op, "{net_e}");
    }
    // The intervals are 95% ones, the difference's half-widths added in
    // quadrature (conservative): at least about 95% of them hold the truth.
    assert!(covered.0 >= 186 && covered.1 >= 186, "{covered:?} of 200");
    // The result reads as a fitted one: time against operations.
    let mut results = planted(&mut state, op, glue);
    fit_results(&mut results);
    assert_eq!(results[0].mode, Some(Mode::LinearFit));
    let ols = results[0].fit.as_ref().unwrap();
    assert!((ols.slope - op - glue).abs() < 0.05 * op);
}

/// A control that counts two operations a loop turn (the POPs standing in
/// for a two-operand access) has its glue subtracted per turn, not per
/// count: the planted cost comes back, not the cost plus half the glue.
#[test]
fn a_control_counting_two_a_turn_is_subtracted_per_turn() {
    let (op, glue) = (2_000.0, 900.0);
    let mut state = 8038;
    let mut results = planted(&mut state, op, glue);
    // The control's blocks count 2 POPs a turn; the op's 1 SSTORE.
    for s in &mut results[1].samples {
        s.iters *= 2;
    }
    results[0].parameters.insert("per_turn".into(), json!(1));
    results[1].parameters.insert("per_turn".into(), json!(2));
    fit_results(&mut results);
    let f = payload_fit(&results[0]);
    let net = f.net_per_op_ns.unwrap();
    assert!((net.value - op).abs() < 0.05 * op, "{net:?}");
    // Per count, the control's slope is half the glue a turn.
    let c = payload_fit(&results[1]);
    assert!(
        (c.per_op_ns.value - glue / 2.0).abs() < 0.25 * glue,
        "{c:?}"
    );
    let robust = f.net_robust_per_op_ns.unwrap();
    assert!((robust.value - op).abs() < 0.05 * op, "{robust:?}");
}

#[test]
fn a_fit_that_fails_the_rule_is_reported_not_dropped() {
    let mut state = 7;
    // No cost at all: the block time is noise around 5 ms.
    let flat: Vec<(u64, f64)> = counts(1_000)
        .into_iter()
        .map(|x| (x, 5e6 + noise(&mut state, 2e5)))
        .collect();
    let control: Vec<(u64, f64)> = counts(1_000)
        .into_iter()
        .map(|x| (x, 5e6 + noise(&mut state, 2e5)))
        .collect();
    let mut results = vec![
        series(OP, Some(CONTROL), &flat, None),
        series(CONTROL, None, &control, None),
    ];
    fit_results(&mut results);
    let iso = results[0].reprice.as_ref().unwrap();
    // Only dyno's time: no block has a client log, so no client fits.
    assert_eq!(iso.fits.len(), 1);
    let f = &iso.fits[0];
    assert!(!f.kept, "{f:?}");
    assert!(f.r_squared < 0.5 || f.per_op_ns.p >= 0.05, "{f:?}");
    assert_eq!(f.n, 30);
    assert!(f.net_per_op_ns.is_some(), "the figures stay, rule or not");
}

#[test]
fn a_client_log_missing_for_one_block_leaves_that_measure_out() {
    let mut state = 9;
    let mut results = planted(&mut state, 1000.0, 100.0);
    results[0].blocks[3].client_log = None;
    fit_results(&mut results);
    let times: Vec<&str> = results[0]
        .reprice
        .as_ref()
        .unwrap()
        .fits
        .iter()
        .map(|f| f.time.as_str())
        .collect();
    assert_eq!(times, ["new_payload"]);
    // The control kept all three; the op has no execution fit to net.
    assert_eq!(results[1].reprice.as_ref().unwrap().fits.len(), 3);
}

/// A pricing of two series in geth (its execution time and newPayload)
/// and revm (newPayload only), per operation ns as given.
fn priced_for_compare() -> dyno_format::reprice::Pricing {
    let row = |id: &str, client: &str, time: &str, ns: f64| dyno_format::reprice::Row {
        id: id.into(),
        level: "block".into(),
        client: client.into(),
        time: time.into(),
        n: 15,
        ns: Estimate::exact(ns),
        robust_ns: None,
        r_squared: Some(0.99),
        p: Some(1e-9),
        kept: true,
        net: true,
        gas: Estimate::exact(ns / 10.0),
        prices: vec![],
        vs_library: None,
        anchor: None,
    };
    dyno_format::reprice::Pricing {
        anchor_mgas: 100.0,
        schedules: vec![],
        rows: vec![
            row(
                "reprice/ecrecover/valid",
                "geth",
                "client_execution",
                40_000.0,
            ),
            row("reprice/ecrecover/valid", "geth", "new_payload", 41_000.0),
            row("reprice/ecrecover/valid", "revm", "new_payload", 30_000.0),
            row(
                "reprice/bn254-add/chained",
                "geth",
                "client_execution",
                4_000.0,
            ),
            row("reprice/bn254-add/chained", "geth", "new_payload", 9_000.0),
            row("reprice/bn254-add/chained", "revm", "new_payload", 6_000.0),
        ],
        run_id: "r".into(),
        compared: vec![],
        joint: vec![],
    }
}

#[test]
fn a_peers_table_is_set_beside_dynos_within_each_client() {
    let csv = "client,operation,parameter,gas,stderr\n\
               nethermind,ECRECOVER,,900,3\n\
               nethermind,bn254-add,chained,300,1\n";
    let peer = parse_peer(csv, "peer.csv").unwrap();
    let mut p = priced_for_compare();
    compare(&mut p, &peer, "peer.csv").unwrap();
    let add = p
        .compared
        .iter()
        .find(|c| c.id == "reprice/bn254-add/chained")
        .unwrap();
    assert_eq!(add.peer_client, "nethermind");
    assert!((add.peer_ratio - 300.0 / 900.0).abs() < 1e-12);
    // geth by its own execution time, revm by dyno's newPayload.
    assert_eq!(
        add.ours,
        vec![("geth".to_string(), 0.1), ("revm".to_string(), 0.2)]
    );
    let ecrecover = &p.compared[0];
    assert_eq!(ecrecover.id, "reprice/ecrecover/valid");
    assert!((ecrecover.peer_ratio - 1.0).abs() < 1e-12);
}

#[test]
fn a_bad_peer_table_is_refused_naming_its_line() {
    let e = parse_peer("op,client,gas\n", "peer.csv")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("peer.csv:1") && e.contains("operation, parameter, client and gas"),
        "{e}"
    );
    let e = parse_peer(
        "operation,parameter,client,gas\necrecover,,geth,fast\n",
        "peer.csv",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("peer.csv:2") && e.contains("\"fast\""), "{e}");
    let mut p = priced_for_compare();
    let unknown = parse_peer(
        "operation,parameter,client,gas\necrecover,,g,1\nsha256,,g,2\n",
        "p.csv",
    )
    .unwrap();
    let e = compare(&mut p, &unknown, "p.csv").unwrap_err().to_string();
    assert!(
        e.contains("p.csv:3") && e.contains("bn254-add/chained"),
        "{e}"
    );
    let no_anchor = parse_peer(
        "operation,parameter,client,gas\nbn254-add,chained,g,2\n",
        "p.csv",
    )
    .unwrap();
    let e = compare(&mut p, &no_anchor, "p.csv")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("p.csv:2") && e.contains("no ecrecover row"),
        "{e}"
    );
}

/// A peer table as a spreadsheet writes it (a byte-order mark, quoted
/// fields, a comma inside quotes) reads as the plain one does; a header
/// with no rows, a row given twice and an unclosed quote are refused by
/// name and line, never compared as nothing.
#[test]
fn a_peer_table_is_read_as_rfc_4180_and_silent_cases_are_refused() {
    let plain = parse_peer(
        "operation,parameter,client,gas,note\necrecover,,nethermind,900,x\n",
        "p.csv",
    )
    .unwrap();
    let quoted = parse_peer(
        "\u{feff}\"operation\",\"parameter\",\"client\",\"gas\",\"note\"\r\n\
         \"ECRECOVER\",\"\",\"nethermind\",\"900\",\"a, b \"\"c\"\"\"\r\n",
        "p.csv",
    )
    .unwrap();
    assert_eq!(plain, quoted);
    let e = parse_peer("operation,parameter,client,gas\n", "p.csv")
        .unwrap_err()
        .to_string();
    assert!(e.contains("a header and no rows"), "{e}");
    let e = parse_peer(
        "operation,parameter,client,gas\necrecover,,g,1\nsha256,,g,2\nECRECOVER,,g,3\n",
        "p.csv",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("p.csv:4") && e.contains("given twice") && e.contains("line 2"),
        "{e}"
    );
    let e = parse_peer(
        "operation,parameter,client,gas\n\"ecrecover,,g,1\n",
        "p.csv",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("p.csv: line 2") && e.contains("never closed"),
        "{e}"
    );
}

/// A saved run's counts are checked before pricing: a block counting no
/// operation (the probe's zeroed counts, once reported as "no op-isolation
/// results") or more operations than the gas it used (a corrupt count,
/// once priced as a negative cost with exit 0) is refused by name; the
/// same run untouched prices.
#[test]
fn a_saved_run_with_impossible_counts_is_refused_naming_the_block() {
    let mut state = 7;
    let results = planted(&mut state, 3_000.0, 400.0);
    let good = fixture::run("r", results.clone());
    price_with(&[], &good, ANCHOR_MGAS, &[]).unwrap();
    let mut zero = fixture::run("r", results.clone());
    zero.results[0].samples[4].iters = 0;
    let e = price_with(&[], &zero, ANCHOR_MGAS, &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("reprice/ecrecover/valid in geth: block 5 counts 0 operations")
            && e.contains("damaged"),
        "{e}"
    );
    let mut corrupt = fixture::run("r", results);
    corrupt.results[1].samples[2].iters = 10_000_000_000;
    let e = price_with(&[], &corrupt, ANCHOR_MGAS, &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("block 3 counts 10000000000 operations in") && e.contains("at least 1"),
        "{e}"
    );
}

/// An operation at three parameters (a hash over 1, 8 and 32 words)
/// costing `base + per_unit × words` beside its glue: the joint fit
/// recovers both, with the schedule's line through its prices, and a
/// price that is not a line in the parameter gets none.
#[test]
fn the_joint_fit_recovers_a_planted_base_and_per_unit_cost() {
    let (base, per_unit, glue) = (210.0, 48.0, 90.0);
    let mut state = 7904;
    let xs = counts(40_000);
    let mut results = Vec::new();
    let ctl = "reprice/control/keccak";
    for words in [1u64, 8, 32] {
        let op = base + per_unit * words as f64;
        let top = 2e6 + (op + glue) * 40_000.0;
        let pts: Vec<(u64, f64)> = xs
            .iter()
            .map(|&x| {
                let t = 2.05e6 + (op + glue) * x as f64;
                (x, t + noise(&mut state, 0.005 * top))
            })
            .collect();
        let id = format!("reprice/keccak256/{}", 32 * words);
        let mut r = series(&id, Some(ctl), &pts, Some(0.8));
        r.reprice.as_mut().unwrap().units = Some(words);
        // Today's price, 30 + 6 a word; a made-up one off the line at 32.
        r.parameters
            .insert("gas_osaka".into(), json!(30 + 6 * words));
        let odd = if words == 32 { 1000 } else { 12 + 3 * words };
        r.parameters.insert("gas_odd".into(), json!(odd));
        results.push(r);
    }
    let control: Vec<(u64, f64)> = xs
        .iter()
        .map(|&x| (x, 2e6 + glue * x as f64 + noise(&mut state, 2e3)))
        .collect();
    results.push(series(ctl, None, &control, Some(0.8)));
    fit_results(&mut results);
    let names = ["osaka", "odd"].map(|n| ScheduleName {
        name: n.into(),
        status: String::new(),
        source: String::new(),
    });
    let joint = joint_fits(&results, &names, 100.0);
    let j = joint.iter().find(|j| j.time == "new_payload").unwrap();
    assert_eq!(j.series.len(), 3);
    assert_eq!(j.n, 3 * xs.len());
    assert!(j.kept && j.r_squared > 0.99, "{j:?}");
    for (c, want) in [(&j.per_op_ns, base), (&j.per_unit_ns, per_unit)] {
        assert!(c.lower <= want && want <= c.upper, "{c:?} against {want}");
    }
    assert!((j.gas_per_unit.value - per_unit * 0.1).abs() < 0.5);
    assert_eq!(j.prices[0], Some((30.0, 6.0)));
    assert_eq!(j.prices[1], None);
    // The client's execution time is fitted on its own: 80% of dyno's.
    let e = joint.iter().find(|j| j.time == "client_execution").unwrap();
    assert!((e.per_unit_ns.value - 0.8 * per_unit).abs() < 0.05 * per_unit);
    // One parameter alone is no joint fit.
    results.drain(1..3);
    assert!(joint_fits(&results, &names, 100.0).is_empty());
}

/// Rounds of blocks: in each round, every series at 3 counts, each block
/// `fixed + per_op × count` ns times the round's host speed, plus noise of
/// 0.5% of the block; the anchor (ECRECOVER, 3 µs an operation), a series
/// at `op` ns and their control at 0.2 µs a turn, all in client "geth".
fn rounds_of(state: &mut u64, op: f64, speeds: &[f64], only_series: bool) -> Vec<BenchResult> {
    let anchor = "reprice/ecrecover/valid";
    let other = "reprice/sha256/1";
    let cases = [
        (anchor, 3000.0 + 200.0),
        (other, op + 200.0),
        (CONTROL, 200.0),
    ];
    let mut out = Vec::new();
    for (id, per_op) in cases {
        let mut points = Vec::new();
        let mut rounds = Vec::new();
        for (k, speed) in speeds.iter().enumerate() {
            // A slowdown planted in the series' blocks only (a check
            // that must move the ratio), or in every block (the host).
            let speed = if only_series && id != other {
                1.0
            } else {
                *speed
            };
            for count in [1_000u64, 2_000, 3_000] {
                let ns = (1e6 + per_op * count as f64) * speed;
                let ns = ns + noise(state, 0.005 * ns);
                points.push((count, ns));
                rounds.push(k as u32 + 1);
            }
        }
        let control = (id != CONTROL).then_some(CONTROL);
        let mut r = series(id, control, &points, None);
        for (b, round) in r.blocks.iter_mut().zip(rounds) {
            b.round = Some(round);
        }
        out.push(r);
    }
    out
}

#[test]
fn a_host_that_slows_between_rounds_moves_the_times_not_the_anchor_ratios() {
    let mut state = 53;
    // Half the rounds on a host 30% slower (a CPU hog started halfway).
    let speeds = [1.0, 1.0, 1.0, 1.3, 1.3, 1.3];
    let mut results = rounds_of(&mut state, 6000.0, &speeds, false);
    crate::anchor::anchor_ratios(&mut results);
    let sha = results.iter().find(|r| r.id == "reprice/sha256/1").unwrap();
    let a = sha.reprice.as_ref().unwrap().anchor.as_ref().unwrap();
    assert_eq!(a.rounds.len(), 6);
    // The absolute figure moved with the host: 6 µs, then 7.8 µs.
    let (before, after) = (
        a.per_op_ns[..3].iter().sum::<f64>() / 3.0,
        a.per_op_ns[3..].iter().sum::<f64>() / 3.0,
    );
    assert!((after / before - 1.3).abs() < 0.03, "{before} {after}");
    // The ratio did not: 6 µs over 3 µs in every round, inside its interval.
    let [lo, hi] = a.interval.unwrap();
    assert!(lo <= 2.0 && 2.0 <= hi, "{a:?}");
    assert!((a.ratio - 2.0).abs() < 0.02, "{a:?}");
    assert!(a.reached, "{a:?}");
    // Nothing for the anchor itself or the control.
    for id in ["reprice/ecrecover/valid", CONTROL] {
        let r = results.iter().find(|r| r.id == id).unwrap();
        assert!(r.reprice.as_ref().unwrap().anchor.is_none(), "{id}");
    }
    assert_eq!(crate::anchor::reached(&results), (1, 1));
}

#[test]
fn a_slowdown_of_the_series_alone_moves_its_ratio_out_of_reach() {
    let mut state = 54;
    let speeds = [1.0, 1.0, 1.0, 1.3, 1.3, 1.3];
    let mut results = rounds_of(&mut state, 6000.0, &speeds, true);
    crate::anchor::anchor_ratios(&mut results);
    let sha = results.iter().find(|r| r.id == "reprice/sha256/1").unwrap();
    let a = sha.reprice.as_ref().unwrap().anchor.as_ref().unwrap();
    // The ratio follows the series: 2.0, then about 2.7; the rounds
    // disagree, so its interval is wide and the target is missed.
    assert!(a.rounds[0] < 2.1 && a.rounds[5] > 2.5, "{a:?}");
    assert!(!a.reached, "{a:?}");
}

#[test]
fn the_anchor_ratio_is_net_of_each_side_s_own_glue() {
    let mut state = 55;
    let mut results = rounds_of(&mut state, 6000.0, &[1.0, 1.0, 1.0], false);
    crate::anchor::anchor_ratios(&mut results);
    let sha = results.iter().find(|r| r.id == "reprice/sha256/1").unwrap();
    let a = sha.reprice.as_ref().unwrap().anchor.as_ref().unwrap();
    // (6000 + 200) / (3000 + 200) = 1.94 with the glue left in.
    assert!((a.ratio - 2.0).abs() < 0.02, "{a:?}");
    assert!(
        a.per_op_ns.iter().all(|ns| (ns - 6000.0).abs() < 150.0),
        "{a:?}"
    );
}
