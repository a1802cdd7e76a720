//! The generator's ceiling: the client blasting realistic
//! `eth_sendRawTransaction` bodies at the built-in null sink on loopback,
//! client and sink in one process.
//!
//! ```text
//! cargo bench -p dyno-rpc --bench null_sink                  # sweep, then best at 500 000
//! cargo bench -p dyno-rpc --bench null_sink -- --requests 200000 --sweep 50000
//! cargo bench -p dyno-rpc --bench null_sink -- --only 8x64   # one configuration
//! cargo bench -p dyno-rpc --bench null_sink -- --runtimes multi,multi-own,split,current
//! DYNO_RPC_BENCH_NO_TIMEOUT=1 cargo bench …  # without the per-request timer
//! ```
//!
//! Runtimes: `multi` is one tokio multi-thread runtime (2 workers) running
//! both client and sink; `multi-own` is that runtime for the client with the
//! sink on its own thread (`SinkOptions::own_thread`); `split` is a
//! current-thread runtime for the client and the sink on its own thread (one
//! OS thread each); `current` runs both on one current-thread runtime (one
//! core). The default sweep tries `multi`, `multi-own` and `split`.

use std::time::Duration;

use bytes::Bytes;
use dyno_rpc::{Blast, Client, ClientOptions, Endpoint, NullSink, SinkOptions, blast};

/// A deterministic pseudo-random signed EIP-1559 transfer, hex encoded: the
/// size of a real one (117 bytes), its bytes noise.
fn raw_tx_hex(seed: u64) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut hex = String::from("0x02f872");
    for _ in 0..114 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        hex.push(HEX[(x >> 4) as usize & 15] as char);
        hex.push(HEX[x as usize & 15] as char);
    }
    hex
}

/// This process's CPU time (user + system, all threads) so far, from
/// `/proc/self/stat` (clock ticks of 10 ms); `None` where that is missing.
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are the
    // 14th and 15th fields of the whole line.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut f = rest.split(' ').skip(11);
    let utime: u64 = f.next()?.parse().ok()?;
    let stime: u64 = f.next()?.parse().ok()?;
    Some(Duration::from_millis((utime + stime) * 10))
}

/// A blast and the CPU time the process spent during it.
struct Measured {
    blast: Blast,
    cpu: Option<Duration>,
}

impl Measured {
    /// CPU microseconds per request, client and sink together.
    fn cpu_us_per_request(&self) -> f64 {
        let n = (self.blast.ok + self.blast.err).max(1) as f64;
        self.cpu.map_or(f64::NAN, |c| c.as_secs_f64() * 1e6 / n)
    }
}

fn bodies(n: usize) -> Vec<Bytes> {
    (0..n)
        .map(|i| dyno_rpc::send_raw_transaction_body(i as u64, &raw_tx_hex(i as u64)))
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Rt {
    Multi,
    MultiOwn,
    Split,
    Current,
}

impl Rt {
    fn name(self) -> &'static str {
        match self {
            Rt::Multi => "multi",
            Rt::MultiOwn => "multi-own",
            Rt::Split => "split",
            Rt::Current => "current",
        }
    }

    fn parse(s: &str) -> Rt {
        match s {
            "multi" => Rt::Multi,
            "multi-own" => Rt::MultiOwn,
            "split" => Rt::Split,
            "current" => Rt::Current,
            other => panic!("unknown runtime {other:?}: multi, multi-own, split or current"),
        }
    }
}

fn client_opts(connections: usize) -> ClientOptions {
    let no_timeout = std::env::var_os("DYNO_RPC_BENCH_NO_TIMEOUT").is_some();
    ClientOptions {
        connections,
        request_timeout: (!no_timeout).then_some(Duration::from_secs(10)),
        ..ClientOptions::default()
    }
}

async fn run_client(ep: &Endpoint, bodies: &[Bytes], conns: usize, in_flight: usize) -> Measured {
    let client = Client::connect(ep, client_opts(conns))
        .await
        .expect("connect to the null sink");
    // Warm up the connections and allocator.
    let warm = &bodies[..bodies.len().min(2000)];
    let _ = blast(&client, warm, in_flight).await;
    let before = cpu_time();
    let blast = blast(&client, bodies, in_flight).await;
    let cpu = before.zip(cpu_time()).map(|(b, a)| a.saturating_sub(b));
    Measured { blast, cpu }
}

fn run(rt: Rt, bodies: &[Bytes], conns: usize, in_flight: usize) -> (Measured, u64) {
    let runtime = match rt {
        Rt::Multi | Rt::MultiOwn => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build(),
        Rt::Current | Rt::Split => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
    }
    .expect("tokio runtime");
    runtime.block_on(async {
        let sink = NullSink::start(SinkOptions {
            own_thread: matches!(rt, Rt::MultiOwn | Rt::Split),
            ..SinkOptions::default()
        })
        .await
        .expect("start null sink");
        let m = run_client(&sink.endpoint(), bodies, conns, in_flight).await;
        let served = sink.requests();
        sink.stop().await;
        (m, served)
    })
}

fn parse_pair(s: &str) -> (usize, usize) {
    let (c, f) = s.split_once('x').expect("--only CONNSxINFLIGHT, e.g. 8x64");
    (
        c.parse().expect("connections"),
        f.parse().expect("in-flight"),
    )
}

fn main() {
    let mut requests = 500_000usize;
    let mut sweep = 100_000usize;
    let mut only: Option<(usize, usize)> = None;
    let mut runtimes = vec![Rt::Multi, Rt::MultiOwn, Rt::Split];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--requests" => requests = args.next().and_then(|v| v.parse().ok()).expect("N"),
            "--sweep" => sweep = args.next().and_then(|v| v.parse().ok()).expect("N"),
            "--only" => only = Some(parse_pair(&args.next().expect("CxF"))),
            "--runtimes" => {
                runtimes = args
                    .next()
                    .expect("list")
                    .split(',')
                    .map(Rt::parse)
                    .collect();
            }
            // Flags cargo bench passes to every bench binary.
            "--bench" => {}
            other => eprintln!("ignoring argument {other:?}"),
        }
    }
    let all = bodies(requests.max(sweep));
    println!(
        "null sink ceiling: body {} bytes, {} cores",
        all[0].len(),
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    let configs: Vec<(usize, usize)> = match only {
        Some(p) => vec![p],
        None => {
            let mut v = Vec::new();
            for c in [2, 4, 8, 16, 32] {
                for f in [c, 4 * c] {
                    v.push((c, f));
                }
            }
            v
        }
    };
    let mut best: Option<(f64, Rt, usize, usize)> = None;
    if configs.len() > 1 {
        println!("sweep: {sweep} requests per configuration");
        for &rt in &runtimes {
            for &(c, f) in &configs {
                let (m, _) = run(rt, &all[..sweep], c, f);
                let b = &m.blast;
                println!(
                    "  {:<8} conns {c:>3} in-flight {f:>4}: {:>9.0} req/s  {:>5.1} CPU-µs/req  \
                     (ok {}, err {})",
                    rt.name(),
                    b.rate,
                    m.cpu_us_per_request(),
                    b.ok,
                    b.err
                );
                if best.is_none_or(|(r, ..)| b.rate > r) {
                    best = Some((b.rate, rt, c, f));
                }
            }
        }
    } else {
        best = Some((0.0, runtimes[0], configs[0].0, configs[0].1));
    }
    let Some((_, rt, c, f)) = best else { return };
    let candidates: Vec<Rt> = if configs.len() > 1 {
        vec![rt]
    } else {
        runtimes.clone()
    };
    for rt in candidates {
        let (m, served) = run(rt, &all[..requests], c, f);
        let b = &m.blast;
        println!(
            "best: runtime {} conns {c} in-flight {f}: {} requests in {:.2?} = {:.0} req/s, \
             {:.1} CPU-µs/req (ok {}, err {}, sink served {served})",
            rt.name(),
            b.ok + b.err,
            b.elapsed,
            b.rate,
            m.cpu_us_per_request(),
            b.ok,
            b.err
        );
    }
}
