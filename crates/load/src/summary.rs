//! From raw records to the summary: inclusion matched by hash, statuses,
//! counts, throughput windows, HDR latency percentiles and the block view.

use std::collections::{BTreeMap, HashMap};

use alloy_primitives::B256;
use dyno_format::load::{BlockInfo, BlockSummary, Counts, LatencyStats, Throughput};
use hdrhistogram::Histogram;

use crate::record::{BlockSeen, Mark, Status, TxRecord};

/// Match accepted transactions to the blocks that hold them, and give each
/// its inclusion, safe and finalized times and final status. `known` says,
/// for an accepted transaction found in no block, whether the node still
/// knows it (pending) or not (dropped); `None` means it was not asked.
pub fn settle(
    records: &mut [TxRecord],
    blocks: &[BlockSeen],
    safe: &[Mark],
    finalized: &[Mark],
    known: &HashMap<B256, bool>,
) {
    let mut at: HashMap<B256, (u64, u64)> = HashMap::new();
    for b in blocks {
        for h in &b.txs {
            at.entry(*h).or_insert((b.number, b.seen_ns));
        }
    }
    let first_reaching =
        |marks: &[Mark], number: u64| marks.iter().find(|m| m.number >= number).map(|m| m.t_ns);
    for r in records.iter_mut() {
        if r.sent_ns.is_none() {
            r.status = Status::NotSent;
            continue;
        }
        if !r.accepted() {
            r.status = Status::Rejected;
            continue;
        }
        let hash = r.hash.expect("accepted has a hash");
        match at.get(&hash) {
            Some(&(number, seen)) => {
                r.block = Some(number);
                // Seen no earlier than the reply: a block seen before the
                // reply arrived still counts from when dyno could know.
                r.included_ns = Some(seen.max(r.replied_ns.unwrap_or(0)));
                r.safe_ns = first_reaching(safe, number).map(|t| t.max(r.included_ns.unwrap_or(0)));
                r.finalized_ns =
                    first_reaching(finalized, number).map(|t| t.max(r.included_ns.unwrap_or(0)));
                r.status = if r.finalized_ns.is_some() {
                    Status::Finalized
                } else if r.safe_ns.is_some() {
                    Status::Safe
                } else {
                    Status::Included
                };
            }
            None => {
                r.status = match known.get(&hash) {
                    Some(false) => Status::Dropped,
                    _ => Status::Pending,
                };
            }
        }
    }
}

/// Count where every transaction ended.
pub fn counts(records: &[TxRecord]) -> Counts {
    let mut c = Counts::default();
    for r in records {
        if r.sent_ns.is_some() {
            c.submitted += 1;
        }
        match r.status {
            Status::NotSent => c.not_sent += 1,
            Status::Rejected => {
                c.rejected += 1;
                let class = r.error_class.clone().unwrap_or_else(|| "unknown".into());
                *c.rejected_by_class.entry(class).or_default() += 1;
            }
            Status::Pending => {
                c.accepted += 1;
                c.pending += 1;
            }
            Status::Dropped => {
                c.accepted += 1;
                c.dropped += 1;
            }
            Status::Included | Status::Safe | Status::Finalized => {
                c.accepted += 1;
                c.included += 1;
                if r.safe_ns.is_some() {
                    c.safe += 1;
                }
                if r.finalized_ns.is_some() {
                    c.finalized += 1;
                }
            }
        }
    }
    c
}

/// Percentiles of `values_ns` through an HDR histogram (1 µs to 1 hour, 3
/// significant digits), in milliseconds, with the median's distribution-free
/// 95% interval from the exact values.
pub fn latency(values_ns: &[u64]) -> LatencyStats {
    let mut h = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).expect("valid bounds");
    for &v in values_ns {
        h.saturating_record((v / 1_000).max(1));
    }
    let ms = |us: u64| us as f64 / 1e3;
    let mut sorted: Vec<f64> = values_ns.iter().map(|&v| v as f64 / 1e6).collect();
    sorted.sort_by(f64::total_cmp);
    if values_ns.is_empty() {
        return LatencyStats {
            n: 0,
            p50: 0.0,
            p90: 0.0,
            p95: 0.0,
            p99: 0.0,
            p999: 0.0,
            max: 0.0,
            mean: 0.0,
            p50_ci: None,
        };
    }
    LatencyStats {
        n: h.len(),
        p50: ms(h.value_at_quantile(0.50)),
        p90: ms(h.value_at_quantile(0.90)),
        p95: ms(h.value_at_quantile(0.95)),
        p99: ms(h.value_at_quantile(0.99)),
        p999: ms(h.value_at_quantile(0.999)),
        max: ms(h.max()),
        mean: h.mean() / 1e3,
        p50_ci: dyno_stats::median_ci(&sorted, 0.95),
    }
}

/// Latency from the intended send time to each stage: `accepted` (the
/// node's reply), `included`, `safe`, `finalized`; and `rejected` (the reply
/// of a refusal).
pub fn latencies(records: &[TxRecord]) -> BTreeMap<String, LatencyStats> {
    let stage = |f: &dyn Fn(&TxRecord) -> Option<u64>| -> Vec<u64> {
        records
            .iter()
            .filter_map(|r| f(r).map(|t| t.saturating_sub(r.intended_ns)))
            .collect()
    };
    let mut out = BTreeMap::new();
    out.insert(
        "accepted".into(),
        latency(&stage(&|r| r.accepted().then_some(r.replied_ns).flatten())),
    );
    out.insert("included".into(), latency(&stage(&|r| r.included_ns)));
    out.insert("safe".into(), latency(&stage(&|r| r.safe_ns)));
    out.insert("finalized".into(), latency(&stage(&|r| r.finalized_ns)));
    let rejected = stage(&|r| {
        (r.status == Status::Rejected)
            .then_some(r.replied_ns)
            .flatten()
    });
    if !rejected.is_empty() {
        out.insert("rejected".into(), latency(&rejected));
    }
    out
}

/// Send lag: actual minus intended send time, for every sent transaction.
pub fn lags(records: &[TxRecord]) -> Vec<u64> {
    records
        .iter()
        .filter_map(|r| r.sent_ns.map(|s| s.saturating_sub(r.intended_ns)))
        .collect()
}

/// Throughput over 1 s windows from the start.
pub fn throughput(records: &[TxRecord]) -> Throughput {
    let sec = |ns: u64| (ns / 1_000_000_000) as usize;
    let last = records
        .iter()
        .flat_map(|r| [r.sent_ns, r.included_ns])
        .flatten()
        .max()
        .unwrap_or(0);
    let n = sec(last) + 1;
    let mut sent = vec![0u64; n];
    let mut included = vec![0u64; n];
    for r in records {
        if let Some(t) = r.sent_ns {
            sent[sec(t)] += 1;
        }
        if let Some(t) = r.included_ns {
            included[sec(t)] += 1;
        }
    }
    let total_included: u64 = included.iter().sum();
    let total_sent: u64 = sent.iter().sum();
    let last_inclusion = records.iter().filter_map(|r| r.included_ns).max();
    let first_inclusion = records.iter().filter_map(|r| r.included_ns).min();
    let first_send = records.iter().filter_map(|r| r.sent_ns).min();
    let last_send = records.iter().filter_map(|r| r.sent_ns).max();
    let average = match last_inclusion {
        Some(t) if t > 0 => total_included as f64 / (t as f64 / 1e9),
        _ => 0.0,
    };
    let sent_average = match (first_send, last_send) {
        (Some(a), Some(b)) if b > a => total_sent as f64 / ((b - a) as f64 / 1e9),
        _ => total_sent as f64,
    };
    // Blocks arrive in lumps, so 1 s windows are noisy; the steady rate is
    // what was included after the first block that held this run's
    // transactions, over the time from that block to the last one.
    let sustained = match (first_inclusion, last_inclusion) {
        (Some(a), Some(b)) if b > a => {
            let after = records
                .iter()
                .filter(|r| r.included_ns.is_some_and(|t| t > a))
                .count();
            after as f64 / ((b - a) as f64 / 1e9)
        }
        _ => average,
    };
    Throughput {
        peak_1s: included.iter().copied().max().unwrap_or(0) as f64,
        average,
        sustained,
        sent_average,
        windows: (0..n)
            .map(|i| [i as f64, sent[i] as f64, included[i] as f64])
            .collect(),
    }
}

/// What a block's blob base fee is read from: the fork's update fraction
/// (`eth_config`), else the blob gas price in this run's blob receipts,
/// by block.
#[derive(Debug, Clone, Default)]
pub struct BlobFee {
    /// The fork's update fraction.
    pub update_fraction: Option<u64>,
    /// Block number → a receipt's `blobGasPrice`.
    pub from_receipts: std::collections::BTreeMap<u64, u128>,
}

/// The per-block view and its summary, for blocks seen during the run.
pub fn blocks(
    blocks: &[BlockSeen],
    ours: &HashMap<B256, ()>,
    blob_fee: &BlobFee,
) -> (Vec<BlockInfo>, Option<BlockSummary>) {
    let infos: Vec<BlockInfo> = blocks
        .iter()
        .map(|b| BlockInfo {
            number: b.number,
            seen_s: b.seen_ns as f64 / 1e9,
            timestamp: b.timestamp,
            txs: b.txs.len() as u64,
            ours: b.txs.iter().filter(|h| ours.contains_key(*h)).count() as u64,
            gas_used: b.gas_used,
            gas_limit: b.gas_limit,
            base_fee: b.base_fee,
            blob_gas_used: b.blob_gas_used,
            excess_blob_gas: b.excess_blob_gas,
            blob_base_fee: match (b.excess_blob_gas, blob_fee.update_fraction) {
                (Some(excess), Some(f)) => Some(crate::blobs::base_fee(excess, f)),
                _ => blob_fee.from_receipts.get(&b.number).copied(),
            },
        })
        .collect();
    if infos.is_empty() {
        return (infos, None);
    }
    let loaded: Vec<&BlockInfo> = infos.iter().filter(|b| b.ours > 0).collect();
    let fill: Vec<f64> = loaded
        .iter()
        .map(|b| b.gas_used as f64 / b.gas_limit.max(1) as f64)
        .collect();
    let mut intervals: Vec<f64> = infos
        .windows(2)
        .map(|w| w[1].timestamp.saturating_sub(w[0].timestamp) as f64)
        .collect();
    intervals.sort_by(f64::total_cmp);
    let summary = BlockSummary {
        blocks: infos.len() as u64,
        mean_gas_fill: dyno_stats::mean(&fill).unwrap_or(0.0),
        max_txs: infos.iter().map(|b| b.ours).max().unwrap_or(0),
        mean_txs: if loaded.is_empty() {
            0.0
        } else {
            loaded.iter().map(|b| b.ours as f64).sum::<f64>() / loaded.len() as f64
        },
        median_interval_s: dyno_stats::percentile(&intervals, 50.0).unwrap_or(0.0),
    };
    (infos, Some(summary))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::txs::Kind;

    fn h(i: u8) -> B256 {
        B256::repeat_byte(i)
    }

    fn sent(i: u64, hash: Option<B256>, err: Option<&str>) -> TxRecord {
        let mut r = TxRecord::planned(i, Kind::Transfer, Some(0), Some(i));
        r.intended_ns = i * 100_000_000;
        r.sent_ns = Some(r.intended_ns + 1_000);
        r.replied_ns = Some(r.intended_ns + 2_000_000);
        r.hash = hash;
        r.error_class = err.map(String::from);
        r
    }

    fn block(number: u64, seen_ns: u64, txs: Vec<B256>) -> BlockSeen {
        BlockSeen {
            number,
            seen_ns,
            timestamp: number,
            gas_used: 21_000 * txs.len() as u64,
            gas_limit: 30_000_000,
            base_fee: Some(7),
            blob_gas_used: Some(131_072),
            excess_blob_gas: Some(5_007_716 * number),
            tx_count: txs.len(),
            ours: txs.len(),
            txs,
        }
    }

    #[test]
    fn every_transaction_gets_exactly_one_status() {
        let mut recs = vec![
            sent(0, Some(h(1)), None),
            sent(1, Some(h(2)), None),
            sent(2, None, Some("nonce_too_low")),
            sent(3, Some(h(4)), None),
            sent(4, Some(h(5)), None),
            TxRecord::planned(5, Kind::Transfer, Some(0), Some(5)),
        ];
        let blocks = vec![
            block(10, 1_000_000_000, vec![h(1)]),
            block(11, 2_000_000_000, vec![h(2), h(9)]),
        ];
        let safe = vec![Mark {
            t_ns: 1_500_000_000,
            number: 10,
        }];
        let fin = vec![
            Mark {
                t_ns: 3_000_000_000,
                number: 10,
            },
            Mark {
                t_ns: 4_000_000_000,
                number: 11,
            },
        ];
        let known = HashMap::from([(h(4), true), (h(5), false)]);
        settle(&mut recs, &blocks, &safe, &fin, &known);
        let st: Vec<Status> = recs.iter().map(|r| r.status).collect();
        assert_eq!(
            st,
            vec![
                Status::Finalized,
                Status::Finalized,
                Status::Rejected,
                Status::Pending,
                Status::Dropped,
                Status::NotSent
            ]
        );
        assert_eq!(recs[0].block, Some(10));
        assert_eq!(recs[0].safe_ns, Some(1_500_000_000));
        assert_eq!(recs[1].safe_ns, None);
        assert_eq!(recs[1].finalized_ns, Some(4_000_000_000));
        let c = counts(&recs);
        assert_eq!(
            (
                c.submitted,
                c.accepted,
                c.rejected,
                c.included,
                c.safe,
                c.finalized,
                c.pending,
                c.dropped,
                c.not_sent
            ),
            (5, 4, 1, 2, 1, 2, 1, 1, 1)
        );
        assert_eq!(c.rejected_by_class["nonce_too_low"], 1);
        // Every sent transaction is in exactly one bucket.
        assert_eq!(c.accepted + c.rejected, c.submitted);
        assert_eq!(c.included + c.pending + c.dropped, c.accepted);
    }

    #[test]
    fn latency_is_from_the_intended_time_not_the_send() {
        let mut r = sent(0, Some(h(1)), None);
        r.intended_ns = 0;
        r.sent_ns = Some(500_000_000); // the generator was half a second late
        r.replied_ns = Some(501_000_000);
        let l = latencies(&[r]);
        assert!(
            (l["accepted"].p50 - 501.0).abs() < 1.0,
            "{:?}",
            l["accepted"]
        );
        assert_eq!(l["included"].n, 0);
    }

    #[test]
    fn hdr_percentiles_track_exact_ones() {
        let v: Vec<u64> = (1..=10_000u64).map(|i| i * 1_000_000).collect(); // 1..10000 ms
        let l = latency(&v);
        assert_eq!(l.n, 10_000);
        assert!((l.p50 - 5000.0).abs() / 5000.0 < 0.002, "{}", l.p50);
        assert!((l.p99 - 9900.0).abs() / 9900.0 < 0.002, "{}", l.p99);
        assert!((l.max - 10_000.0).abs() / 10_000.0 < 0.002);
        let ci = l.p50_ci.unwrap();
        assert!(ci.lower < 5000.5 && ci.upper > 5000.5);
    }

    #[test]
    fn throughput_windows_count_sends_and_inclusions() {
        let mut recs: Vec<TxRecord> = (0..50).map(|i| sent(i, Some(h(1)), None)).collect();
        for (i, r) in recs.iter_mut().enumerate() {
            r.included_ns = Some(1_000_000_000 + (i as u64 / 10) * 1_000_000_000);
        }
        let t = throughput(&recs);
        assert_eq!(t.windows.len(), 6);
        assert_eq!(t.windows[0][1], 10.0);
        assert_eq!(t.peak_1s, 10.0);
        assert!((t.average - 50.0 / 5.0).abs() < 1e-9);
    }

    #[test]
    fn the_blob_base_fee_comes_from_the_excess_else_from_the_receipts() {
        let blocks = vec![block(1, 0, vec![h(1)]), block(2, 1, vec![h(2)])];
        let ours: HashMap<B256, ()> = [(h(1), ())].into_iter().collect();
        let known = BlobFee {
            update_fraction: Some(5_007_716),
            from_receipts: [(1, 99)].into_iter().collect(),
        };
        let (infos, _) = super::blocks(&blocks, &ours, &known);
        // e^1 and e^2, floored by EIP-4844's integer approximation.
        assert_eq!(infos[0].blob_base_fee, Some(2));
        assert_eq!(infos[1].blob_base_fee, Some(7));
        assert_eq!(infos[0].blob_gas_used, Some(131_072));
        let unknown = BlobFee {
            update_fraction: None,
            from_receipts: [(1, 99)].into_iter().collect(),
        };
        let (infos, _) = super::blocks(&blocks, &ours, &unknown);
        assert_eq!(infos[0].blob_base_fee, Some(99));
        assert_eq!(infos[1].blob_base_fee, None);
    }
}
