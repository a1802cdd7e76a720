//! dyno's load sender against a peer: vegeta (tsenart/vegeta v12, pinned
//! in tools/vegeta and built from the Go module proxy), both at saturation
//! against the same null sink, with the same request body (one signed
//! `eth_sendRawTransaction` of a transfer), the same connection count and
//! the same requests in flight, in one run. Rounds alternate the order
//! (dyno then vegeta, vegeta then dyno) so drift on the machine falls on
//! both alike.
//!
//! ```text
//! scripts/generator-vs-peer.sh          # builds vegeta, runs this, keeps the raw data
//! cargo bench -p dyno-load --bench generator_peer -- --vegeta PATH \
//!     [--connections 4,64] [--seconds 5] [--rounds 6] [--out FILE]
//! ```
//!
//! The sink is dyno's own (`dyno_rpc::NullSink`) on a thread of its own
//! in this process; dyno's sender is the load lab's (`send::send_all`
//! under `max`, every request timed), on a two-worker tokio runtime;
//! vegeta runs as a child process (`attack -rate 0 -max-workers W
//! -max-connections C`). Requests per second are completed requests
//! over each generator's own wall time; latency is from send to reply.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use dyno_load::schedule::Schedule;
use dyno_load::send::{self, Outgoing, Pace, Progress};
use dyno_rpc::{Client, ClientOptions, NullSink, SinkOptions};
use serde_json::{Value, json};

/// Requests queued per connection: the load lab's own setting.
const PER_CONNECTION: usize = dyno_load::drive::IN_FLIGHT_PER_CONNECTION;

struct Args {
    vegeta: PathBuf,
    connections: Vec<usize>,
    seconds: f64,
    rounds: usize,
    out: Option<PathBuf>,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        vegeta: std::env::var_os("DYNO_VEGETA").map_or_else(PathBuf::new, PathBuf::from),
        connections: vec![4, 64],
        seconds: 5.0,
        rounds: 6,
        out: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--vegeta" => a.vegeta = PathBuf::from(value()?),
            "--connections" => {
                a.connections = value()?
                    .split(',')
                    .map(|c| c.trim().parse().map_err(|_| format!("--connections: {c}?")))
                    .collect::<Result<_, _>>()?
            }
            "--seconds" => a.seconds = value()?.parse().map_err(|_| "--seconds: a number")?,
            "--rounds" => a.rounds = value()?.parse().map_err(|_| "--rounds: a number")?,
            "--out" => a.out = Some(PathBuf::from(value()?)),
            "--bench" => {}
            other => return Err(format!("unknown flag {other}")),
        }
    }
    if a.vegeta.as_os_str().is_empty() || !a.vegeta.is_file() {
        return Err(format!(
            "no vegeta at {:?}: build it with tools/vegeta/setup DIR and pass --vegeta DIR/vegeta \
             (or DYNO_VEGETA), or run scripts/generator-vs-peer.sh",
            a.vegeta
        ));
    }
    Ok(a)
}

/// One generator's round.
#[derive(Debug, Clone)]
struct Round {
    requests: u64,
    errors: u64,
    seconds: f64,
    rate: f64,
    p50_us: f64,
    p90_us: f64,
    p99_us: f64,
    max_us: f64,
}

impl Round {
    fn json(&self) -> Value {
        json!({
            "requests": self.requests, "errors": self.errors, "seconds": self.seconds,
            "rate": self.rate, "p50_us": self.p50_us, "p90_us": self.p90_us,
            "p99_us": self.p99_us, "max_us": self.max_us,
        })
    }
}

/// A real signed transfer, as the load lab sends it.
fn body() -> bytes::Bytes {
    use dyno_load::txs::{self, Fees, GasLimits, Kind, Planned, Targets};
    let signer = dyno_eth::signer::Signer::derive(b"dyno-generator-peer", 0);
    let fees = Fees {
        chain_id: 1337,
        max_fee_per_gas: 100_000_000_000,
        max_priority_fee_per_gas: 1_000_000_000,
        max_fee_per_blob_gas: 0,
    };
    let p = Planned {
        sender: 0,
        nonce: 0,
        kind: Kind::Transfer,
        nth: 0,
    };
    let tx = txs::build(0, &p, &fees, &GasLimits::default(), &Targets::default());
    txs::sign_one(1, &signer, tx).body
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    dyno_stats::percentile(sorted, p).unwrap_or(f64::NAN)
}

/// dyno's sender at saturation: `n` requests over `connections`.
fn dyno_round(
    rt: &tokio::runtime::Runtime,
    client: &Client,
    body: &bytes::Bytes,
    connections: usize,
    n: usize,
) -> Round {
    let out: Vec<Outgoing> = (0..n)
        .map(|_| Outgoing {
            body: body.clone(),
            expect: None,
        })
        .collect();
    let in_flight = connections * PER_CONNECTION;
    let start = Instant::now();
    let sent = rt.block_on(send::send_all(
        client,
        &out,
        &Schedule::Max { in_flight },
        &Pace {
            cap: in_flight,
            t0: start,
            check_hashes: false,
        },
        &Arc::new(AtomicBool::new(false)),
        &Arc::new(Progress::default()),
    ));
    let done: Vec<&send::Sent> = sent.iter().flatten().collect();
    let first = done.iter().map(|s| s.sent_ns).min().unwrap_or(0);
    let last = done.iter().map(|s| s.replied_ns).max().unwrap_or(0);
    let seconds = (last.saturating_sub(first)) as f64 / 1e9;
    let ok = done.iter().filter(|s| s.result.is_ok()).count() as u64;
    let mut lat: Vec<f64> = done
        .iter()
        .map(|s| s.replied_ns.saturating_sub(s.sent_ns) as f64 / 1e3)
        .collect();
    lat.sort_by(f64::total_cmp);
    Round {
        requests: done.len() as u64,
        errors: done.len() as u64 - ok,
        seconds,
        rate: ok as f64 / seconds.max(1e-9),
        p50_us: percentile(&lat, 50.0),
        p90_us: percentile(&lat, 90.0),
        p99_us: percentile(&lat, 99.0),
        max_us: lat.last().copied().unwrap_or(f64::NAN),
    }
}

/// vegeta at saturation for `seconds` over `connections`.
fn vegeta_round(
    vegeta: &Path,
    dir: &Path,
    url: &str,
    connections: usize,
    seconds: f64,
) -> Result<Round, String> {
    let targets = dir.join("targets.txt");
    std::fs::write(
        &targets,
        format!(
            "POST {url}\nContent-Type: application/json\n@{}\n",
            dir.join("body.json").display()
        ),
    )
    .map_err(|e| e.to_string())?;
    let results = dir.join("results.bin");
    let w = (connections * PER_CONNECTION).to_string();
    let c = connections.to_string();
    let d = format!("{}ms", (seconds * 1e3) as u64);
    let status = Command::new(vegeta)
        .args(["attack", "-rate", "0", "-max-workers", &w, "-workers", &w])
        .args(["-max-connections", &c, "-connections", &c, "-duration", &d])
        .args(["-keepalive=true", "-timeout", "10s"])
        .arg("-targets")
        .arg(&targets)
        .arg("-output")
        .arg(&results)
        .status()
        .map_err(|e| format!("{}: {e}", vegeta.display()))?;
    if !status.success() {
        return Err(format!("vegeta attack exited {status}"));
    }
    let report = Command::new(vegeta)
        .args(["report", "-type", "json"])
        .arg(&results)
        .output()
        .map_err(|e| e.to_string())?;
    let r: Value = serde_json::from_slice(&report.stdout).map_err(|e| {
        format!(
            "vegeta report: {e}: {}",
            String::from_utf8_lossy(&report.stdout)
        )
    })?;
    let f = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
    let lat = |k: &str| f(&r["latencies"][k]) / 1e3;
    let requests = r["requests"].as_u64().unwrap_or(0);
    let success = f(&r["success"]);
    // Wall time as vegeta counts it: the attack plus the wait for the last
    // replies (ns).
    let seconds = (f(&r["duration"]) + f(&r["wait"])) / 1e9;
    Ok(Round {
        requests,
        errors: requests - (success * requests as f64).round() as u64,
        seconds,
        rate: f(&r["throughput"]),
        p50_us: lat("50th"),
        p90_us: lat("90th"),
        p99_us: lat("99th"),
        max_us: lat("max"),
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    percentile(&v, 50.0)
}

fn main() {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("generator_peer: {e}");
            std::process::exit(2);
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let sink = rt
        .block_on(NullSink::start(SinkOptions {
            own_thread: true,
            ..SinkOptions::default()
        }))
        .expect("the null sink starts");
    let endpoint = sink.endpoint();
    let url = endpoint.url().to_string();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let body = body();
    std::fs::write(dir.path().join("body.json"), &body).expect("the body file");
    // The module version from the binary's build information (`go version
    // -m`; vegeta's own -version is empty in a plain `go build`).
    let version = Command::new("go")
        .arg("version")
        .arg("-m")
        .arg(&a.vegeta)
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .map(str::trim)
                .find(|l| l.starts_with("mod\t") || l.starts_with("mod "))
                .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "))
        })
        .unwrap_or_else(|| "unknown (go version -m failed)".into());
    eprintln!(
        "generator_peer: sink {url}, body {} bytes, {} rounds of {} s, connections {:?}; vegeta {}",
        body.len(),
        a.rounds,
        a.seconds,
        a.connections,
        version
    );
    let mut settings = Vec::new();
    let mut table = String::from(
        "| connections (in flight) | generator | req/s (median of rounds) | P50 µs | P99 µs | dyno / vegeta req/s |\n|---|---|--:|--:|--:|--:|\n",
    );
    for &c in &a.connections {
        let client = rt
            .block_on(Client::connect(
                &endpoint,
                ClientOptions {
                    connections: c,
                    ..ClientOptions::default()
                },
            ))
            .expect("a client of the sink");
        // Calibrate dyno's request count to the round's length.
        let warm = dyno_round(&rt, &client, &body, c, 20_000);
        let mut n = ((warm.rate * a.seconds) as usize).max(10_000);
        let (mut ds, mut vs) = (Vec::new(), Vec::new());
        for round in 0..a.rounds {
            let run_dyno = |ds: &mut Vec<Round>, n: &mut usize| {
                let r = dyno_round(&rt, &client, &body, c, *n);
                *n = ((r.rate * a.seconds) as usize).max(10_000);
                ds.push(r);
            };
            let run_vegeta =
                |vs: &mut Vec<Round>| match vegeta_round(&a.vegeta, dir.path(), &url, c, a.seconds)
                {
                    Ok(r) => vs.push(r),
                    Err(e) => {
                        eprintln!("generator_peer: {e}");
                        std::process::exit(2);
                    }
                };
            if round % 2 == 0 {
                run_dyno(&mut ds, &mut n);
                run_vegeta(&mut vs);
            } else {
                run_vegeta(&mut vs);
                run_dyno(&mut ds, &mut n);
            }
            let (d, v) = (ds.last().unwrap(), vs.last().unwrap());
            eprintln!(
                "  {c} connections, round {}: dyno {:.0} req/s (P50 {:.0} µs, P99 {:.0} µs) · vegeta {:.0} req/s (P50 {:.0} µs, P99 {:.0} µs)",
                round + 1,
                d.rate,
                d.p50_us,
                d.p99_us,
                v.rate,
                v.p50_us,
                v.p99_us
            );
        }
        let ratios: Vec<f64> = ds.iter().zip(&vs).map(|(d, v)| d.rate / v.rate).collect();
        let ratio = median(ratios.clone());
        let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        for (name, rs) in [("dyno", &ds), ("vegeta", &vs)] {
            table.push_str(&format!(
                "| {c} ({}) | {name} | {:.0} | {:.0} | {:.0} | {} |\n",
                c * PER_CONNECTION,
                median(rs.iter().map(|r| r.rate).collect()),
                median(rs.iter().map(|r| r.p50_us).collect()),
                median(rs.iter().map(|r| r.p99_us).collect()),
                if name == "dyno" {
                    format!("{ratio:.2} (rounds {lo:.2}-{hi:.2})")
                } else {
                    String::new()
                }
            ));
        }
        settings.push(json!({
            "connections": c,
            "in_flight": c * PER_CONNECTION,
            "dyno": ds.iter().map(Round::json).collect::<Vec<_>>(),
            "vegeta": vs.iter().map(Round::json).collect::<Vec<_>>(),
            "ratio_per_round": ratios,
            "ratio_median": ratio,
        }));
    }
    rt.block_on(sink.stop());
    println!("{table}");
    let doc = json!({
        "benchmark": "dyno load sender vs vegeta, saturation against dyno's null sink",
        "command": std::env::args().collect::<Vec<_>>().join(" "),
        "vegeta": version,
        "seconds_per_round": a.seconds,
        "rounds": a.rounds,
        "body_bytes": body.len(),
        "cores": std::thread::available_parallelism().map_or(0, |n| n.get()),
        "settings": settings,
    });
    if let Some(out) = &a.out {
        std::fs::write(
            out,
            serde_json::to_string_pretty(&doc).expect("JSON") + "\n",
        )
        .unwrap_or_else(|e| {
            eprintln!("generator_peer: {}: {e}", out.display());
            std::process::exit(2);
        });
        eprintln!("generator_peer: wrote {}", out.display());
    }
}
