//! Probes a real node's HTTP JSON-RPC endpoint with the client: single
//! calls, a large batch (geth answers it chunked), an error object, and a
//! short bounded burst.
//!
//! ```text
//! cargo run -p dyno-rpc --example probe -- http://127.0.0.1:8545
//! ```

use std::time::Instant;

use dyno_rpc::{Client, ClientOptions, Endpoint, blast};
use serde_json::json;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "http://127.0.0.1:8545".to_owned());
    let endpoint = Endpoint::parse(&url)?;
    let client = Client::connect(
        &endpoint,
        ClientOptions {
            connections: 4,
            ..ClientOptions::default()
        },
    )
    .await?;

    let version: String = client.call("web3_clientVersion", json!([])).await?;
    let chain: String = client.call("eth_chainId", json!([])).await?;
    let head: String = client.call("eth_blockNumber", json!([])).await?;
    println!("{endpoint}: {version}, chain {chain}, head {head}");

    // A large batch: ~0.5 MB of blocks in one response.
    let calls: Vec<(&str, serde_json::Value)> = (0..500)
        .map(|_| ("eth_getBlockByNumber", json!(["0x0", false])))
        .collect();
    let t = Instant::now();
    let out = client.batch(&calls).await?;
    let ok = out.iter().filter(|r| r.is_ok()).count();
    println!(
        "batch of {}: {ok} ok in {:.1?} (first error: {:?})",
        calls.len(),
        t.elapsed(),
        out.iter()
            .find_map(|r| r.as_ref().err().map(|e| e.to_string()))
    );

    // Error objects arrive with HTTP 200 and are classified.
    for (method, params) in [
        ("eth_sendRawTransaction", json!(["0x02"])),
        ("eth_no_such_method", json!([])),
    ] {
        match client.call::<serde_json::Value>(method, params).await {
            Ok(v) => println!("{method}: unexpected success {v}"),
            Err(e) => println!("{method}: {} <- {e}", e.class()),
        }
    }

    // Transaction-pool rejections, through an unlocked dev account (geth
    // --dev, anvil and hardhat all have one): each should land in its class.
    let accounts: Vec<String> = client.call("eth_accounts", json!([])).await?;
    if let Some(from) = accounts.first() {
        let nonce: String = client
            .call("eth_getTransactionCount", json!([from, "pending"]))
            .await?;
        let n = u64::from_str_radix(nonce.trim_start_matches("0x"), 16)?;
        let tx = |extra: serde_json::Value| {
            let mut tx = json!({"from": from, "to": from, "value": "0x0", "gas": "0x5208"});
            for (k, v) in extra.as_object().into_iter().flatten() {
                tx[k] = v.clone();
            }
            json!([tx])
        };
        let hex = |v: u64| format!("0x{v:x}");
        let cases = [
            ("ok", tx(json!({"nonce": hex(n)}))),
            ("same nonce again", tx(json!({"nonce": hex(n)}))),
            ("old nonce", tx(json!({"nonce": hex(n.saturating_sub(1))}))),
            ("gap nonce", tx(json!({"nonce": hex(n + 1000)}))),
            ("gas 1", tx(json!({"gas": "0x1"}))),
            ("gas 2^24+1", tx(json!({"gas": "0x1000001"}))),
            ("gas 1e8", tx(json!({"gas": "0x5f5e100"}))),
            (
                "value 2^200",
                tx(json!({"value": format!("0x1{}", "0".repeat(50))})),
            ),
            (
                "max fee 1 wei",
                tx(json!({"maxFeePerGas": "0x1", "maxPriorityFeePerGas": "0x1"})),
            ),
        ];
        for (what, params) in cases {
            match client.call::<String>("eth_sendTransaction", params).await {
                Ok(hash) => println!("send {what}: ok {hash}"),
                Err(e) => println!("send {what}: {} <- {e}", e.class()),
            }
        }
    }

    // A short, bounded burst of cheap reads.
    let bodies: Vec<bytes::Bytes> = (0..2000u64)
        .map(|i| {
            format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"eth_blockNumber","params":[]}}"#).into()
        })
        .collect();
    let b = blast(&client, &bodies, 16).await;
    println!(
        "burst: {} ok, {} err in {:.2?} = {:.0} req/s",
        b.ok, b.err, b.elapsed, b.rate
    );
    Ok(())
}
