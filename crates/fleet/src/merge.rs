//! The workers' raw records brought together: each request in its place
//! in the whole schedule, checked that exactly its own worker reported it,
//! and each worker's share of the merged, settled run.
//!
//! Nothing here averages: the run's figures are computed by the load lab
//! from the merged records, as for a run from one machine, and a worker's
//! breakdown from its own records among them.

use dyno_format::load::WorkerInfo;
use dyno_load::record::TxRecord;
use dyno_load::send;
use dyno_load::summary;

use crate::wire;

/// Every worker's reports merged into one entry per planned transaction
/// (`None`: never reported sent), with what did not fit.
#[derive(Debug, Default)]
pub struct Merged {
    /// One per planned transaction, times from the common start.
    pub sends: Vec<Option<send::Sent>>,
    /// Reports that could not be placed, in words.
    pub problems: Vec<String>,
}

/// Merge `reports` (worker index, its records) into `total` places.
/// `owner[i]` is the worker whose share holds place `i`; a record from
/// another worker, outside the schedule, or reported twice with different
/// contents is a problem and is left out.
pub fn merge(total: usize, owner: &[Option<usize>], reports: &[(usize, &[wire::Sent])]) -> Merged {
    let mut sends: Vec<Option<send::Sent>> = vec![None; total];
    let mut from: Vec<Option<usize>> = vec![None; total];
    let mut problems = Vec::new();
    for (worker, items) in reports {
        for s in *items {
            let i = s.index as usize;
            if i >= total {
                problems.push(format!(
                    "worker #{worker} reported transaction {i}, beyond the schedule's {total}"
                ));
                continue;
            }
            if owner.get(i).copied().flatten() != Some(*worker) {
                problems.push(format!(
                    "worker #{worker} reported transaction {i}, which is not in its share"
                ));
                continue;
            }
            let entry = send::Sent {
                intended_ns: s.intended_ns,
                sent_ns: s.sent_ns,
                replied_ns: s.replied_ns,
                result: match (&s.hash, &s.error_class) {
                    (Some(h), None) => Ok(*h),
                    (_, class) => Err((
                        class.clone().unwrap_or_else(|| "unknown".into()),
                        s.error.clone().unwrap_or_default(),
                    )),
                },
            };
            match &sends[i] {
                Some(prev) if *prev != entry => problems.push(format!(
                    "worker #{worker} reported transaction {i} twice, differently"
                )),
                Some(_) => {}
                None => {
                    sends[i] = Some(entry);
                    from[i] = Some(*worker);
                }
            }
        }
    }
    Merged { sends, problems }
}

/// A worker's share of the settled run: its counts, rates and send lag,
/// from its own records. The identity, clocks and end state are filled in
/// by the caller.
pub fn share_of(records: &[TxRecord], owner: &[Option<usize>], worker: usize) -> Share {
    let mine: Vec<TxRecord> = records
        .iter()
        .filter(|r| owner.get(r.index as usize).copied().flatten() == Some(worker))
        .cloned()
        .collect();
    let counts = summary::counts(&mine);
    let throughput = summary::throughput(&mine);
    let included: Vec<u64> = mine.iter().filter_map(|r| r.included_ns).collect();
    let included_rate = match (included.iter().min(), included.iter().max()) {
        (Some(&a), Some(&b)) if b > a => (included.len() - 1) as f64 / ((b - a) as f64 / 1e9),
        _ => 0.0,
    };
    Share {
        planned: mine.len() as u64,
        sent: counts.submitted,
        accepted: counts.accepted,
        rejected: counts.rejected,
        included: counts.included,
        sent_rate: throughput.sent_average,
        included_rate,
        lag: summary::latency(&summary::lags(&mine)),
    }
}

/// A worker's part of the run.
#[derive(Debug, Clone, PartialEq)]
pub struct Share {
    /// Transactions in its share.
    pub planned: u64,
    /// Reported sent.
    pub sent: u64,
    /// Accepted.
    pub accepted: u64,
    /// Refused.
    pub rejected: u64,
    /// In a block.
    pub included: u64,
    /// Sent per second.
    pub sent_rate: f64,
    /// Included per second, over its own inclusions' span.
    pub included_rate: f64,
    /// Send lag, ms.
    pub lag: dyno_format::load::LatencyStats,
}

impl Share {
    /// Into the Result's form, with the rest of what is known of it.
    pub fn into_info(self, base: WorkerInfo) -> WorkerInfo {
        WorkerInfo {
            planned: self.planned,
            sent: self.sent,
            accepted: self.accepted,
            rejected: self.rejected,
            included: self.included,
            sent_rate: self.sent_rate,
            included_rate: self.included_rate,
            lag: self.lag,
            ..base
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::B256;
    use dyno_load::schedule::Schedule;
    use dyno_load::txs::Kind;

    /// Three workers' records of a 300-transaction run, interleaved, with
    /// acceptance latencies of very different spreads: worker 0 answers in
    /// 1-10 ms, worker 1 in 20-29 ms, worker 2 in 100-1090 ms.
    fn reports() -> (Vec<Option<usize>>, Vec<Vec<wire::Sent>>) {
        let owner: Vec<Option<usize>> = (0..300).map(|i| Some(i % 3)).collect();
        let mut by = vec![Vec::new(), Vec::new(), Vec::new()];
        for i in 0..300u64 {
            let w = (i % 3) as usize;
            let k = i / 3;
            let latency_ms = match w {
                0 => 1 + k % 10,
                1 => 20 + k % 10,
                _ => 100 + (k % 100) * 10,
            };
            let intended = i * 2_000_000;
            by[w].push(wire::Sent {
                index: i,
                intended_ns: intended,
                sent_ns: intended + 50_000,
                replied_ns: intended + latency_ms * 1_000_000,
                hash: Some(B256::with_last_byte(i as u8)),
                error_class: None,
                error: None,
            });
        }
        (owner, by)
    }

    /// The run's 300 records with the merged sends put in and settled, as
    /// the load lab does (no block seen: accepted ones stay pending).
    fn settled(merged: &Merged) -> Vec<TxRecord> {
        let mut records: Vec<TxRecord> = (0..300)
            .map(|i| TxRecord::planned(i, Kind::Transfer, Some(i as usize % 9), Some(i / 9)))
            .collect();
        let schedule = Schedule::Fixed { rate: 500.0 };
        dyno_load::drive::fill(&mut records, &merged.sends, &schedule);
        summary::settle(&mut records, &[], &[], &[], &Default::default());
        records
    }

    fn exact_quantile(values: &mut [f64], q: f64) -> f64 {
        values.sort_by(f64::total_cmp);
        let rank = ((q * values.len() as f64).ceil() as usize).max(1);
        values[rank - 1]
    }

    fn accepted_latency(records: &[TxRecord]) -> dyno_format::load::LatencyStats {
        summary::latencies(records)["accepted"].clone()
    }

    #[test]
    fn merged_percentiles_are_those_of_the_concatenated_raw_records() {
        let (owner, by) = reports();
        let refs: Vec<(usize, &[wire::Sent])> = by
            .iter()
            .enumerate()
            .map(|(w, v)| (w, v.as_slice()))
            .collect();
        let merged = merge(300, &owner, &refs);
        assert!(merged.problems.is_empty(), "{:?}", merged.problems);
        let records = settled(&merged);
        let stats = accepted_latency(&records);
        assert_eq!(stats.n, 300);

        // The same percentiles, exactly, from the workers' raw records
        // concatenated: HDR keeps 3 significant digits.
        let mut raw: Vec<f64> = by
            .iter()
            .flatten()
            .map(|s| (s.replied_ns - s.intended_ns) as f64 / 1e6)
            .collect();
        for (q, got) in [(0.5, stats.p50), (0.9, stats.p90), (0.99, stats.p99)] {
            let want = exact_quantile(&mut raw, q);
            assert!(
                (got - want).abs() <= want * 1e-3 + 1e-3,
                "p{}: merged {got} ms, from the raw records {want} ms",
                q * 100.0
            );
        }

        // Averaging the workers' own percentiles would be another figure.
        let per_worker_p99: Vec<f64> = (0..3)
            .map(|w| {
                let mine: Vec<TxRecord> = records
                    .iter()
                    .filter(|r| owner[r.index as usize] == Some(w))
                    .cloned()
                    .collect();
                accepted_latency(&mine).p99
            })
            .collect();
        let averaged = per_worker_p99.iter().sum::<f64>() / 3.0;
        assert!(
            (averaged - stats.p99).abs() > 100.0,
            "averaged {averaged} vs merged {}",
            stats.p99
        );

        // Each worker's share counts its own records.
        let share = share_of(&records, &owner, 2);
        assert_eq!((share.planned, share.sent, share.accepted), (100, 100, 100));
        assert!((share.lag.p50 - 0.05).abs() < 1e-3, "{:?}", share.lag);
    }

    #[test]
    fn a_record_outside_its_share_or_repeated_differently_is_left_out_and_said() {
        let (owner, mut by) = reports();
        // Worker 1 reports one of worker 0's, and repeats one of its own
        // with another reply time; worker 2 one beyond the schedule.
        let stolen = by[0][5].clone();
        by[1].push(stolen.clone());
        let mut changed = by[1][0].clone();
        changed.replied_ns += 1;
        by[1].push(changed);
        let same = by[1][1].clone();
        by[1].push(same);
        let beyond = wire::Sent {
            index: 999,
            ..by[2][0].clone()
        };
        by[2].push(beyond);
        let refs: Vec<(usize, &[wire::Sent])> = by
            .iter()
            .enumerate()
            .map(|(w, v)| (w, v.as_slice()))
            .collect();
        let merged = merge(300, &owner, &refs);
        assert_eq!(merged.problems.len(), 3, "{:?}", merged.problems);
        assert!(merged.problems[0].contains("not in its share"));
        assert!(merged.problems[1].contains("twice, differently"));
        assert!(merged.problems[2].contains("beyond the schedule"));
        // The stolen one stays worker 0's own; the identical repeat is one.
        assert_eq!(
            merged.sends[stolen.index as usize]
                .as_ref()
                .unwrap()
                .replied_ns,
            stolen.replied_ns
        );
        assert_eq!(merged.sends.iter().flatten().count(), 300);
    }

    #[test]
    fn a_lost_workers_unreported_transactions_stay_unsent() {
        let (owner, by) = reports();
        // Worker 2 reported only its first 40 before it was lost.
        let refs = [
            (0, by[0].as_slice()),
            (1, by[1].as_slice()),
            (2, &by[2][..40]),
        ];
        let merged = merge(300, &owner, &refs);
        assert_eq!(merged.sends.iter().flatten().count(), 240);
        let records = settled(&merged);
        let lost = share_of(&records, &owner, 2);
        assert_eq!((lost.planned, lost.sent), (100, 40));
        assert_eq!(share_of(&records, &owner, 0).sent, 100);
    }
}
