//! [`blast`]: the generator's ceiling, as many requests as fast as possible.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;

use crate::client::Client;
use crate::error::ErrorClass;

/// The outcome of [`blast`].
#[derive(Debug, Clone, PartialEq)]
pub struct Blast {
    /// Requests answered with a JSON-RPC result.
    pub ok: u64,
    /// Requests that failed (transport, HTTP status or JSON-RPC error).
    pub err: u64,
    /// Failures by class.
    pub errors: BTreeMap<ErrorClass, u64>,
    /// Wall time from the first send to the last answer.
    pub elapsed: Duration,
    /// Completed requests (ok + err) per second.
    pub rate: f64,
}

/// Sends every body in `bodies` over `client` as fast as possible, with at
/// most `in_flight` requests outstanding (at least 1), and parses each
/// response far enough to tell a result from an error object.
///
/// Must run inside a tokio runtime: the `in_flight` senders are spawned as
/// tasks so a multi-thread runtime spreads them over its workers.
pub async fn blast(client: &Client, bodies: &[Bytes], in_flight: usize) -> Blast {
    let bodies: Arc<[Bytes]> = bodies.into();
    let next = Arc::new(AtomicUsize::new(0));
    let workers = in_flight.max(1).min(bodies.len().max(1));
    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..workers {
        let (client, bodies, next) = (client.clone(), bodies.clone(), next.clone());
        tasks.spawn(async move {
            let mut ok = 0u64;
            let mut errors: BTreeMap<ErrorClass, u64> = BTreeMap::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(body) = bodies.get(i) else { break };
                match client.post(body.clone()).await.and_then(|r| r.reply()) {
                    Ok(_) => ok += 1,
                    Err(e) => *errors.entry(e.class()).or_default() += 1,
                }
            }
            (ok, errors)
        });
    }
    let mut out = Blast {
        ok: 0,
        err: 0,
        errors: BTreeMap::new(),
        elapsed: Duration::ZERO,
        rate: 0.0,
    };
    while let Some(joined) = tasks.join_next().await {
        let Ok((ok, errors)) = joined else {
            continue; // a panicking worker: its requests simply do not count
        };
        out.ok += ok;
        for (class, n) in errors {
            out.err += n;
            *out.errors.entry(class).or_default() += n;
        }
    }
    out.elapsed = start.elapsed();
    let secs = out.elapsed.as_secs_f64();
    out.rate = if secs > 0.0 {
        (out.ok + out.err) as f64 / secs
    } else {
        0.0
    };
    out
}
