//! Deterministic synthetic load runs, shared by the tests and the example.

#![allow(dead_code, unreachable_pub)]

use dyno_plot::{BlockGas, BlockMark, NodeSeries, ThroughputPoint, TxPoint};

/// A synthetic load run: the inputs of `LoadPlots`.
#[derive(Debug, Default)]
pub struct Run {
    pub txs: Vec<TxPoint>,
    pub blocks: Vec<BlockGas>,
    pub head: Vec<BlockMark>,
    pub safe: Vec<BlockMark>,
    pub finalized: Vec<BlockMark>,
    pub throughput: Vec<ThroughputPoint>,
    pub node: Vec<NodeSeries>,
}

/// A small, deterministic pseudo-random generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next_f64(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `n` transactions sent at `rate` tx/s against a node that makes a block
/// every second and includes up to 600 transactions per block for the first
/// fifth of the run, then only 78-92 % of the offered rate, so that a queue
/// (and latency) builds up; blocks are seen 20-80 ms after they are made,
/// one transaction in 1500 is rejected, and those still queued at the end
/// are never included. Safe lags head by 8 blocks, finalized by 32 in
/// 8-block steps.
pub fn run(n: usize, rate: f64) -> Run {
    let mut rng = Rng(0x5EED);
    let duration = n as f64 / rate;
    let first_block = 20_480u64;
    let sends: Vec<f64> = (0..n).map(|i| i as f64 / rate).collect();
    let mut latency: Vec<Option<f64>> = vec![None; n];
    let mut block_of: Vec<Option<u64>> = vec![None; n];
    let mut blocks_seen = Vec::new();
    let mut ok = vec![true; n];
    let mut head = Vec::new();
    let mut safe = Vec::new();
    let mut finalized = Vec::new();
    let mut included_at: Vec<f64> = Vec::new();

    let mut next = 0usize; // next queued transaction, in send order
    let blocks = duration.floor() as u64;
    for b in 1..=blocks {
        let made = b as f64;
        let seen = made + 0.02 + 0.06 * rng.next_f64();
        let capacity = if made < duration / 5.0 {
            600
        } else {
            (rate * (0.78 + 0.14 * rng.next_f64())) as usize
        };
        let mut taken = 0;
        while next < n && sends[next] < made && taken < capacity {
            if rng.next_f64() < 1.0 / 1500.0 {
                ok[next] = false;
            } else {
                latency[next] = Some((seen - sends[next]) * 1000.0);
                block_of[next] = Some(first_block + b);
                included_at.push(seen);
                taken += 1;
            }
            next += 1;
        }
        let number = first_block + b;
        head.push(BlockMark { t_s: seen, number });
        blocks_seen.push(BlockGas {
            number,
            t_s: seen,
            gas_used: 21_000 * taken as u64,
            gas_limit: 30_000_000,
        });
        safe.push(BlockMark {
            t_s: seen + 0.01,
            number: number - 8,
        });
        if b % 8 == 0 {
            finalized.push(BlockMark {
                t_s: seen + 0.02,
                number: number - 32,
            });
        }
    }
    // Rejections also happen among the queued-at-the-end transactions.
    for ok in &mut ok[next..] {
        if rng.next_f64() < 1.0 / 1500.0 {
            *ok = false;
        }
    }

    let txs = (0..n)
        .map(|i| TxPoint {
            t_s: sends[i],
            latency_ms: if ok[i] { latency[i] } else { None },
            ok: ok[i],
            block: if ok[i] { block_of[i] } else { None },
        })
        .collect();
    let windows = duration.ceil() as usize;
    let mut sent = vec![0u32; windows];
    let mut incl = vec![0u32; windows + 1];
    for &t in &sends {
        sent[(t as usize).min(windows - 1)] += 1;
    }
    for &t in &included_at {
        incl[(t as usize).min(windows)] += 1;
    }
    let throughput = (0..windows)
        .map(|w| ThroughputPoint {
            t_s: w as f64,
            sent_per_s: f64::from(sent[w]),
            included_per_s: f64::from(incl[w]),
        })
        .collect();
    // The node's metrics, scraped once a second: the pool fills while the
    // load is sent and drains after; a block takes longer to insert as
    // blocks fill; the database writes in bursts.
    let secs = duration.ceil() as usize + 5;
    let series = |name: &str, f: &dyn Fn(f64) -> f64| NodeSeries {
        name: name.into(),
        points: (0..secs).map(|s| (s as f64, f(s as f64))).collect(),
    };
    let node = vec![
        series("txpool admitted /s", &|t| {
            if t < duration { rate } else { 0.0 }
        }),
        series("txpool pending", &|t| {
            if t < duration { rate * 0.8 } else { 0.0 }
        }),
        series("block insert P50 ms", &|t| {
            if t < duration { 20.0 } else { 1.0 }
        }),
        series("block execution P50 ms", &|t| {
            if t < duration { 12.0 } else { 0.5 }
        }),
        series("db write bytes /s", &|t| {
            if (t as u64).is_multiple_of(4) {
                2e6
            } else {
                0.0
            }
        }),
    ];
    Run {
        txs,
        blocks: blocks_seen,
        head,
        safe,
        finalized,
        throughput,
        node,
    }
}
