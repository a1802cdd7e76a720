//! The sender: requests go out at their intended times whatever the node
//! does (open loop), each on its own task, and every reply is timed.
//!
//! The generator measures itself: each record keeps the intended and the
//! actual send time, so its lag behind the schedule is known per request.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use alloy_primitives::B256;
use dyno_rpc::Client;

use crate::schedule::Schedule;

/// One request to send.
#[derive(Debug, Clone)]
pub struct Outgoing {
    /// The JSON-RPC body.
    pub body: bytes::Bytes,
    /// The transaction hash the node must answer with, when dyno signed it.
    pub expect: Option<B256>,
}

/// What happened to one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Sent {
    /// Intended send time, ns since `t0` (the actual one under `max`).
    pub intended_ns: u64,
    /// Actual send time.
    pub sent_ns: u64,
    /// When the reply (or the failure) came.
    pub replied_ns: u64,
    /// The hash, or the error's class and message.
    pub result: Result<B256, (String, String)>,
}

/// Counters for a progress display.
#[derive(Debug, Default)]
pub struct Progress {
    /// Requests written.
    pub sent: AtomicU64,
    /// Replies received.
    pub replied: AtomicU64,
    /// Replies that were errors.
    pub errors: AtomicU64,
}

/// Turn a JSON-RPC reply into the hash it carries, checking it against the
/// hash dyno computed: a node that answers with another hash is wrong.
pub fn hash_of(
    reply: Result<dyno_rpc::Reply, dyno_rpc::RpcError>,
    expect: Option<B256>,
) -> Result<B256, (String, String)> {
    match reply {
        Ok(r) => {
            let Some(hash) = r.as_str().and_then(|s| s.parse::<B256>().ok()) else {
                return Err((
                    "invalid_response".into(),
                    format!("result is not a transaction hash: {}", r.raw()),
                ));
            };
            match expect {
                Some(want) if want != hash => Err((
                    "hash_mismatch".into(),
                    format!(
                        "the node returned {hash:#x}, but the signed transaction's hash is {want:#x}"
                    ),
                )),
                _ => Ok(hash),
            }
        }
        Err(e) => Err((e.class().as_str().to_string(), e.to_string())),
    }
}

/// How [`send_all`] paces and checks.
#[derive(Debug, Clone, Copy)]
pub struct Pace {
    /// Most requests in flight under an open-loop schedule.
    pub cap: usize,
    /// The start: intended times count from here.
    pub t0: Instant,
    /// Check each returned hash against the signed one.
    pub check_hashes: bool,
}

/// Send `out` on `schedule` from `t0`, at most `cap` requests in flight
/// (the schedule's own cap under `max`). Stops starting new requests when
/// `stop` is set, but waits for those in flight. Returns one entry per
/// request, `None` for those never sent.
///
/// A pool of `cap` sender tasks claims requests in order; each sleeps until
/// its request's intended time, sends, and waits for the reply. While a
/// sender is free at every intended time this is an open loop; when all
/// are busy the next send is late, and its lag says so. A fixed pool
/// avoids a task spawn and a cross-thread wake-up per request, which
/// halved the generator's ceiling when it had them.
pub async fn send_all(
    client: &Client,
    out: &[Outgoing],
    schedule: &Schedule,
    pace: &Pace,
    stop: &Arc<AtomicBool>,
    progress: &Arc<Progress>,
) -> Vec<Option<Sent>> {
    send_share(
        client,
        out,
        schedule,
        pace,
        stop,
        progress,
        Share::default(),
    )
    .await
}

/// A share of a schedule, for a fleet's worker: `positions[i]` is the
/// place of `out[i]` in the whole schedule (its intended time is the
/// whole schedule's for that place), and every record is also passed to
/// `stream` the moment its reply is in, so a worker can report as it goes.
#[derive(Debug, Default)]
pub struct Share {
    /// Places in the whole schedule (`None`: `out`'s own order).
    pub positions: Option<Arc<Vec<u64>>>,
    /// Where each record goes as soon as it is complete.
    pub stream: Option<tokio::sync::mpsc::UnboundedSender<(usize, Sent)>>,
}

/// [`send_all`] for a share of a schedule (see [`Share`]).
pub async fn send_share(
    client: &Client,
    out: &[Outgoing],
    schedule: &Schedule,
    pace: &Pace,
    stop: &Arc<AtomicBool>,
    progress: &Arc<Progress>,
    share: Share,
) -> Vec<Option<Sent>> {
    let Pace {
        cap,
        t0,
        check_hashes,
    } = *pace;
    let workers = schedule.in_flight(cap).max(1).min(out.len().max(1));
    let shared = Arc::new((out.to_vec(), schedule.clone(), AtomicUsize::new(0)));
    let ns = move |t: Instant| t.saturating_duration_since(t0).as_nanos() as u64;
    let mut pool = tokio::task::JoinSet::new();
    for _ in 0..workers {
        let (shared, client, stop, progress) = (
            shared.clone(),
            client.clone(),
            stop.clone(),
            progress.clone(),
        );
        let (positions, stream) = (share.positions.clone(), share.stream.clone());
        pool.spawn(async move {
            let (out, schedule, next) = &*shared;
            let mut mine: Vec<(usize, Sent)> = Vec::new();
            loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(o) = out.get(i) else { break };
                let place = positions.as_ref().map_or(i as u64, |p| p[i]);
                let intended = schedule.offset(place).map(|d| t0 + d);
                if let Some(at) = intended
                    && at > Instant::now()
                {
                    tokio::time::sleep_until(at.into()).await;
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                }
                let sent = Instant::now();
                progress.sent.fetch_add(1, Ordering::Relaxed);
                let reply = client.post(o.body.clone()).await.and_then(|r| r.reply());
                let replied = Instant::now();
                let result = hash_of(reply, if check_hashes { o.expect } else { None });
                progress.replied.fetch_add(1, Ordering::Relaxed);
                if result.is_err() {
                    progress.errors.fetch_add(1, Ordering::Relaxed);
                }
                let record = Sent {
                    intended_ns: intended.map_or_else(|| ns(sent), ns),
                    sent_ns: ns(sent),
                    replied_ns: ns(replied),
                    result,
                };
                if let Some(s) = &stream {
                    let _ = s.send((i, record.clone()));
                }
                mine.push((i, record));
            }
            mine
        });
    }
    let mut records: Vec<Option<Sent>> = vec![None; out.len()];
    while let Some(done) = pool.join_next().await {
        for (i, s) in done.unwrap_or_default() {
            records[i] = Some(s);
        }
    }
    records
}

#[cfg(test)]
mod tests {
    use super::*;
    use dyno_rpc::{ClientOptions, NullSink, SinkOptions};

    fn bodies(n: usize) -> Vec<Outgoing> {
        (0..n)
            .map(|i| Outgoing {
                body: crate::txs::raw_body(i as u64, &[0x02, 0xf8, i as u8]),
                expect: Some(B256::repeat_byte(0x22)),
            })
            .collect()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_request_is_recorded_and_errors_with_http_200_count_as_errors() {
        let sink = NullSink::start(SinkOptions {
            error_every: 10,
            ..SinkOptions::default()
        })
        .await
        .unwrap();
        let client = Client::connect(&sink.endpoint(), ClientOptions::default())
            .await
            .unwrap();
        let out = bodies(100);
        let progress = Arc::new(Progress::default());
        let stop = Arc::new(AtomicBool::new(false));
        let recs = send_all(
            &client,
            &out,
            &"max:16".parse().unwrap(),
            &Pace {
                cap: 1,
                t0: Instant::now(),
                check_hashes: false,
            },
            &stop,
            &progress,
        )
        .await;
        assert!(recs.iter().all(Option::is_some));
        let errors: Vec<_> = recs
            .iter()
            .flatten()
            .filter_map(|s| s.result.as_ref().err())
            .collect();
        assert_eq!(errors.len(), 10);
        assert!(
            errors.iter().all(|(class, _)| class == "nonce_too_low"),
            "{errors:?}"
        );
        assert_eq!(progress.replied.load(Ordering::Relaxed), 100);
        assert_eq!(sink.requests(), 100);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_fixed_rate_is_kept_and_latency_counts_from_the_intended_time() {
        let sink = NullSink::start(SinkOptions::default()).await.unwrap();
        let client = Client::connect(&sink.endpoint(), ClientOptions::default())
            .await
            .unwrap();
        let out = bodies(20);
        let stop = Arc::new(AtomicBool::new(false));
        let t0 = Instant::now();
        let recs = send_all(
            &client,
            &out,
            &"200".parse().unwrap(),
            &Pace {
                cap: 64,
                t0,
                check_hashes: false,
            },
            &stop,
            &Arc::new(Progress::default()),
        )
        .await;
        // 20 at 200/s: the last is intended at 95 ms, and never sent before.
        let last = recs[19].as_ref().unwrap();
        assert_eq!(last.intended_ns, 95_000_000);
        assert!(last.sent_ns >= last.intended_ns);
        assert!(t0.elapsed().as_millis() >= 95);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_wrong_hash_is_an_error_not_an_acceptance() {
        let sink = NullSink::start(SinkOptions::default()).await.unwrap();
        let client = Client::connect(&sink.endpoint(), ClientOptions::default())
            .await
            .unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let recs = send_all(
            &client,
            &bodies(3),
            &"max:1".parse().unwrap(),
            &Pace {
                cap: 1,
                t0: Instant::now(),
                check_hashes: true,
            },
            &stop,
            &Arc::new(Progress::default()),
        )
        .await;
        let (class, msg) = recs[0].as_ref().unwrap().result.clone().unwrap_err();
        assert_eq!(class, "hash_mismatch");
        assert!(msg.contains("0x2222"), "{msg}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn stop_leaves_the_rest_unsent() {
        let sink = NullSink::start(SinkOptions::default()).await.unwrap();
        let client = Client::connect(&sink.endpoint(), ClientOptions::default())
            .await
            .unwrap();
        let stop = Arc::new(AtomicBool::new(true));
        let recs = send_all(
            &client,
            &bodies(5),
            &"max".parse().unwrap(),
            &Pace {
                cap: 1,
                t0: Instant::now(),
                check_hashes: false,
            },
            &stop,
            &Arc::new(Progress::default()),
        )
        .await;
        assert!(recs.iter().all(Option::is_none));
    }
}
