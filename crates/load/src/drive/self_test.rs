//! The generator's ceiling against the built-in null sink on loopback.

use super::*;

/// Requests queued per connection in the self-test, so a connection never
/// waits for the generator between requests.
pub const IN_FLIGHT_PER_CONNECTION: usize = 4;

/// The generator's ceiling: the same sender, at max rate with one request
/// in flight per connection (HTTP/1.1 carries one at a time), against the
/// built-in null sink on loopback. Requests/s.
pub async fn self_test(
    bodies: &[Outgoing],
    requests: usize,
    connections: usize,
) -> Result<f64, LoadError> {
    let sink = dyno_rpc::NullSink::start(dyno_rpc::SinkOptions::default()).await?;
    let client = Client::connect(
        &sink.endpoint(),
        ClientOptions {
            connections,
            ..ClientOptions::default()
        },
    )
    .await?;
    let out: Vec<Outgoing> = bodies.iter().cycle().take(requests).cloned().collect();
    let stop = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let recs = send::send_all(
        &client,
        &out,
        &Schedule::Max {
            in_flight: connections * IN_FLIGHT_PER_CONNECTION,
        },
        &send::Pace {
            cap: connections * IN_FLIGHT_PER_CONNECTION,
            t0: start,
            check_hashes: false,
        },
        &stop,
        &Arc::new(Progress::default()),
    )
    .await;
    let elapsed = start.elapsed().as_secs_f64();
    let ok = recs.iter().flatten().filter(|r| r.result.is_ok()).count();
    sink.stop().await;
    Ok(ok as f64 / elapsed.max(1e-9))
}

/// Realistic `eth_sendRawTransaction` bodies for a self-test without a
/// node: `n` transfers signed for chain 1337 from accounts of `seed`.
pub fn self_test_bodies(n: usize, seed: &str) -> Vec<Outgoing> {
    let signers = Signer::derive_many(seed.as_bytes(), 10);
    let plan = txs::plan(n, &[0; 10], &Mix::only(Kind::Transfer));
    let fees = Fees {
        chain_id: 1337,
        max_fee_per_gas: 100_000_000_000,
        max_priority_fee_per_gas: 1_000_000_000,
        max_fee_per_blob_gas: 100_000_000_000,
    };
    let (signed, _) = txs::presign(
        &plan,
        &signers,
        &fees,
        &GasLimits::default(),
        &Targets::default(),
        1,
        1,
    );
    signed
        .into_iter()
        .map(|s| Outgoing {
            body: s.body,
            expect: None,
        })
        .collect()
}
