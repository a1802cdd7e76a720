//! Replays as ordinary dyno results: one [`BenchResult`] per (id, side),
//! its samples the measured blocks' `engine_newPayload` times (one block
//! per sample, mode `single`), its `blocks` the same blocks with their
//! forkchoice times and the client's own log, its parameters the overall
//! MGas/s (gas / time) and how the client was run.

use std::collections::BTreeMap;

use dyno_format::replay::Block;
use dyno_format::{
    BenchResult, Implementation, Mismatch, Mode, Sample, Verification, VerificationStatus,
};
use serde_json::json;

use crate::blocks::BlockSet;
use crate::drive::{Failure, Replayed};

/// Where a replay's results come from: the runtime every result names.
pub const RUNTIME: &str = "engine-api";
/// The relative slowdown a gate calls a regression of a client's block
/// processing.
pub const REGRESSION_THRESHOLD: f64 = 0.1;

/// One side's results for `set`: `runs` are that side's replays of it, in
/// the order made (run k of A pairs with run k of B).
pub fn results(
    implementation: &Implementation,
    client: &str,
    set: &BlockSet,
    runs: &[&Replayed],
) -> Vec<BenchResult> {
    set.ids()
        .into_iter()
        .map(|id| one(implementation, client, set, runs, &id))
        .collect()
}

fn one(
    implementation: &Implementation,
    client: &str,
    set: &BlockSet,
    runs: &[&Replayed],
    id: &str,
) -> BenchResult {
    let of_id = |i: usize| set.blocks[i].id.as_deref() == Some(id);
    let mut blocks = Vec::new();
    for (k, r) in runs.iter().enumerate() {
        for t in r.timed.iter().filter(|t| of_id(t.index)) {
            let planned = &set.blocks[t.index];
            let b = &planned.payload;
            blocks.push(Block {
                run: k as u32,
                number: b.header.number,
                hash: b.hash.to_string(),
                gas_used: b.header.gas_used,
                transactions: b.transactions.len() as u64,
                new_payload_ns: t.new_payload.as_nanos() as u64,
                forkchoice_ns: t.forkchoice.as_nanos() as u64,
                client_log: t.client_log.clone(),
                round: None,
            });
        }
    }
    let planned = set.blocks.iter().filter(|p| p.id.as_deref() == Some(id));
    let per_run = planned.clone().count();
    let first = set.blocks.iter().position(|p| p.id.as_deref() == Some(id));
    let class = &set.blocks[first.unwrap_or(0)].class;
    let warmup = set
        .blocks
        .iter()
        .filter(|p| p.id.is_none() && &p.class == class)
        .count();

    // The first run that stopped before this id's last block says why.
    let cut = runs.iter().find_map(|r| {
        let f = r.failure.as_ref()?;
        let before_end = match f.index {
            Some(i) => set.blocks[i..].iter().any(|p| p.id.as_deref() == Some(id)),
            None => true,
        };
        before_end.then_some(f)
    });
    let wrong = runs.iter().find_map(|r| {
        let f = r.failure.as_ref()?;
        (f.invalid && f.index.is_some_and(of_id)).then_some(f)
    });
    let verification = match wrong {
        Some(f) => Verification {
            status: VerificationStatus::Failed,
            cases: blocks.len() + 1,
            mismatch: Some(mismatch(set, f)),
        },
        None if blocks.is_empty() => Verification {
            status: VerificationStatus::NotRun,
            cases: 0,
            mismatch: None,
        },
        None => Verification {
            status: VerificationStatus::Passed,
            cases: blocks.len(),
            mismatch: None,
        },
    };

    let samples: Vec<Sample> = blocks
        .iter()
        .map(|b| Sample {
            iters: 1,
            ns: b.new_payload_ns,
        })
        .collect();
    let per_op: Vec<f64> = samples.iter().map(Sample::per_op).collect();
    let stats = dyno_stats::summarize(&per_op);
    let gas: u64 = blocks.iter().map(|b| b.gas_used).sum();
    let ns: u64 = blocks.iter().map(|b| b.new_payload_ns).sum();
    let fc: Vec<f64> = blocks.iter().map(|b| b.forkchoice_ns as f64).collect();

    let mut parameters = BTreeMap::new();
    parameters.insert("set".into(), json!(set.name));
    parameters.insert("class".into(), json!(class));
    parameters.insert("gas_limit".into(), json!(set.gas_limit));
    parameters.insert("client".into(), json!(client));
    if let Some(r) = runs.iter().find(|r| !r.command.is_empty()) {
        parameters.insert("client_command".into(), json!(r.command));
    }
    parameters.insert("runs".into(), json!(runs.len()));
    parameters.insert("blocks_per_run".into(), json!(per_run));
    if ns > 0 && gas > 0 {
        parameters.insert("mgas_per_s".into(), json!(gas as f64 / ns as f64 * 1e3));
    }
    if ns > 0 {
        parameters.insert(
            "blocks_per_s".into(),
            json!(blocks.len() as f64 / ns as f64 * 1e9),
        );
    }
    if !blocks.is_empty() {
        parameters.insert("gas_per_block".into(), json!(gas / blocks.len() as u64));
    }
    if let Some(p50) = dyno_stats::median(&fc) {
        parameters.insert("forkchoice_p50_ns".into(), json!(p50));
    }
    let logged = blocks.iter().filter(|b| b.client_log.is_some()).count();
    parameters.insert("client_log_blocks".into(), json!(logged));
    let unparsed: usize = runs.iter().map(|r| r.unparsed.len()).sum();
    if unparsed > 0 {
        parameters.insert("client_log_unparsed".into(), json!(unparsed));
    }

    BenchResult {
        id: id.into(),
        implementation: implementation.clone(),
        baseline: false,
        parameters,
        unit: "ns".into(),
        mode: (!samples.is_empty()).then_some(Mode::Single),
        verification,
        warmup_iters: (warmup * runs.len()) as u64,
        ops_per_sec: stats.as_ref().map(|s| 1e9 / s.p50),
        stats,
        samples,
        fit: None,
        allocations: None,
        target: None,
        regression_threshold: REGRESSION_THRESHOLD,
        incomplete_reason: cut.map(|f| f.reason.clone()),
        instructions: None,
        reprice: None,
        blocks,
    }
}

fn mismatch(set: &BlockSet, f: &Failure) -> Mismatch {
    let case = f.index.map_or_else(
        || "the client".into(),
        |i| {
            let p = &set.blocks[i];
            format!("block {} ({})", p.payload.header.number, p.payload.hash)
        },
    );
    Mismatch {
        case,
        expected: "VALID".into(),
        actual: f.reason.clone(),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::drive::Timed;

    fn set() -> BlockSet {
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let ctx = dyno_workload::Ctx {
            vectors: repo.join("vectors"),
        };
        let contracts = dyno_evm::block::genesis::Contracts::load(&ctx).unwrap();
        // One warm-up round, two measured: blocks 4..12 are measured.
        crate::blocks::make(&contracts, "30M", 1, 2, dyno_evm::block::fork::Fork::Osaka).unwrap()
    }

    fn timed(index: usize, ms: u64) -> Timed {
        Timed {
            index,
            new_payload: Duration::from_millis(ms),
            forkchoice: Duration::from_millis(1),
            client_log: None,
        }
    }

    fn implementation() -> Implementation {
        Implementation {
            name: "geth".into(),
            version: "1.17.8-stable".into(),
            runtime: RUNTIME.into(),
        }
    }

    #[test]
    fn a_block_the_client_calls_invalid_fails_its_id_and_cuts_the_others() {
        let set = set();
        // Warm-up 0..4 and the first measured round 4..8 accepted; the full
        // block of the second round (index 11) refused.
        let replayed = Replayed {
            version: "1.17.8-stable".into(),
            command: "geth".into(),
            timed: (0..11).map(|i| timed(i, 10 + i as u64)).collect(),
            unparsed: Vec::new(),
            failure: Some(Failure {
                index: Some(11),
                reason: "block 12: engine_newPayloadV4: the client says INVALID: bad root".into(),
                invalid: true,
            }),
            usage: None,
        };
        let results = results(&implementation(), "geth", &set, &[&replayed]);
        assert_eq!(results.len(), 4);
        let full = results.iter().find(|r| r.id.ends_with("-full")).unwrap();
        assert_eq!(full.verification.status, VerificationStatus::Failed);
        let m = full.verification.mismatch.as_ref().unwrap();
        assert!(m.case.starts_with("block 12 (0x"), "{m:?}");
        assert_eq!(m.expected, "VALID");
        assert!(m.actual.contains("INVALID: bad root"), "{m:?}");
        // The blocks timed before it are kept, and the result says it is cut.
        assert_eq!(full.samples.len(), 1, "the first round's full block");
        assert!(full.incomplete_reason.is_some());
        // The other classes: both their blocks timed, so passed and whole.
        for r in results.iter().filter(|r| !r.id.ends_with("-full")) {
            assert_eq!(
                r.verification.status,
                VerificationStatus::Passed,
                "{}",
                r.id
            );
            assert_eq!(r.samples.len(), 2, "{}", r.id);
            assert_eq!(r.warmup_iters, 1, "{}", r.id);
            assert!(r.incomplete_reason.is_none(), "{}", r.id);
        }
        // Samples are the newPayload times, blocks in the same order.
        let transfers = results
            .iter()
            .find(|r| r.id.ends_with("-transfers"))
            .unwrap();
        assert_eq!(transfers.samples[0].ns, 15_000_000);
        assert_eq!(transfers.blocks[0].number, 6);
        assert_eq!(
            transfers.blocks[0].hash,
            set.blocks[5].payload.hash.to_string()
        );
    }
}
