//! Talking to the node before and after the timed phase: its identity,
//! fees, funding accounts, deploying contracts, waiting for receipts and
//! scanning blocks. Everything here is outside the timed phase.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use alloy_consensus::TxEip1559;
use alloy_primitives::{Address, B256, Bytes, TxKind, U64, U128, U256};
use dyno_eth::signer::Signer;
use dyno_rpc::{Client, RpcError};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::txs::{self, Fees};

/// A failure while preparing or checking, with what dyno was doing.
#[derive(Debug, thiserror::Error)]
#[error("{doing}: {reason}")]
pub struct ChainError {
    /// What dyno was doing.
    pub doing: String,
    /// What went wrong.
    pub reason: String,
}

fn fail(doing: impl Into<String>) -> impl FnOnce(RpcError) -> ChainError {
    let doing = doing.into();
    move |e| ChainError {
        doing,
        reason: e.to_string(),
    }
}

/// Who pays for the accounts and contracts: the node's unlocked account
/// (`eth_sendTransaction`, the node signs) or a key dyno holds.
#[derive(Debug, Clone)]
pub enum Funder {
    /// An account the node has unlocked (every dev node has one).
    Unlocked(Address),
    /// A funded key (for `--rpc` targets without unlocked accounts).
    Key(Signer),
}

impl Funder {
    /// The paying address.
    pub fn address(&self) -> Address {
        match self {
            Funder::Unlocked(a) => *a,
            Funder::Key(s) => s.address,
        }
    }
}

/// Send `calls` as JSON-RPC batches of at most `chunk`, each result parsed
/// as `T`, in order; `doing` names the step in errors.
pub async fn batched<T: serde::de::DeserializeOwned>(
    client: &Client,
    calls: &[(&str, Value)],
    chunk: usize,
    doing: &str,
) -> Result<Vec<T>, ChainError> {
    let mut out = Vec::with_capacity(calls.len());
    for part in calls.chunks(chunk.max(1)) {
        for r in client.batch(part).await.map_err(fail(doing))? {
            let v = r.map_err(fail(doing))?;
            out.push(serde_json::from_value(v).map_err(|e| ChainError {
                doing: doing.into(),
                reason: e.to_string(),
            })?);
        }
    }
    Ok(out)
}

/// `eth_chainId`.
pub async fn chain_id(client: &Client) -> Result<u64, ChainError> {
    let id: U64 = client
        .call("eth_chainId", json!([]))
        .await
        .map_err(fail("asking for the chain id"))?;
    Ok(id.to())
}

/// `web3_clientVersion`, or `unknown`.
pub async fn client_version(client: &Client) -> String {
    client
        .call::<String>("web3_clientVersion", json!([]))
        .await
        .unwrap_or_else(|_| "unknown".into())
}

/// The first of `eth_accounts`, if the node has one.
pub async fn unlocked_account(client: &Client) -> Option<Address> {
    client
        .call::<Vec<Address>>("eth_accounts", json!([]))
        .await
        .ok()
        .and_then(|a| a.first().copied())
}

/// The latest block's number and base fee.
pub async fn latest(client: &Client) -> Result<(u64, u128), ChainError> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct B {
        number: U64,
        base_fee_per_gas: Option<U128>,
    }
    let b: B = client
        .call("eth_getBlockByNumber", json!(["latest", false]))
        .await
        .map_err(fail("reading the latest block"))?;
    Ok((b.number.to(), b.base_fee_per_gas.map_or(0, |f| f.to())))
}

/// Next nonces (`pending`) of `addresses`, in batches.
pub async fn nonces(client: &Client, addresses: &[Address]) -> Result<Vec<u64>, ChainError> {
    let calls: Vec<(&str, Value)> = addresses
        .iter()
        .map(|a| ("eth_getTransactionCount", json!([a, "pending"])))
        .collect();
    let n: Vec<U64> = batched(client, &calls, 200, "reading nonces").await?;
    Ok(n.into_iter().map(|x| x.to()).collect())
}

/// `eth_estimateGas` of a call from `from`.
pub async fn estimate(
    client: &Client,
    from: Address,
    to: TxKind,
    value: U256,
    input: &Bytes,
) -> Result<u64, ChainError> {
    let mut call = json!({ "from": from, "value": format!("{value:#x}"), "input": input });
    if let TxKind::Call(to) = to {
        call["to"] = json!(to);
    }
    let g: U64 = client
        .call("eth_estimateGas", json!([call]))
        .await
        .map_err(fail("estimating gas"))?;
    Ok(g.to())
}

/// `eth_estimateGas` of a JSON call object (`what` names it in errors).
pub async fn estimate_call(client: &Client, call: Value, what: &str) -> Result<u64, ChainError> {
    let g: U64 = client
        .call("eth_estimateGas", json!([call]))
        .await
        .map_err(fail(format!("estimating the gas of a {what} transaction")))?;
    Ok(g.to())
}

/// What dyno knows of the node's current fork: whether blob transactions
/// need cell proofs (Osaka on), and the blob base fee's update fraction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fork {
    /// Osaka or later.
    pub osaka: bool,
    /// The blob base fee's update fraction, if the node says.
    pub blob_update_fraction: Option<u64>,
    /// A name for messages (`Osaka`, `before Osaka`).
    pub name: String,
    /// Where that came from.
    pub source: String,
}

/// The node's fork, from `eth_config` (EIP-7910): Osaka is on when its
/// current fork has the P256VERIFY precompile (EIP-7951, new in Osaka). A
/// node without `eth_config` is taken to be before Osaka, which blob
/// transactions then show (the node refuses blob proofs if it is not).
pub async fn fork(client: &Client) -> Fork {
    match client.call::<Value>("eth_config", json!([])).await {
        Ok(v) => {
            let current = &v["current"];
            let osaka = current["precompiles"]
                .as_object()
                .is_some_and(|p| p.contains_key("P256VERIFY"));
            let fraction = current["blobSchedule"]["baseFeeUpdateFraction"]
                .as_u64()
                .or_else(|| {
                    current["blobSchedule"]["baseFeeUpdateFraction"]
                        .as_str()
                        .and_then(|s| u64::from_str_radix(s.trim_start_matches("0x"), 16).ok())
                });
            Fork {
                osaka,
                blob_update_fraction: fraction,
                name: if osaka { "Osaka" } else { "before Osaka" }.into(),
                source: "eth_config".into(),
            }
        }
        Err(e) => Fork {
            osaka: false,
            blob_update_fraction: None,
            name: "before Osaka".into(),
            source: format!("assumed: eth_config failed: {e}"),
        },
    }
}

/// A transaction for set-up: what to send, from whom.
#[derive(Debug, Clone)]
pub struct SetupTx {
    /// Recipient or creation.
    pub to: TxKind,
    /// Value, wei.
    pub value: U256,
    /// Calldata or creation code.
    pub input: Bytes,
    /// Gas limit.
    pub gas: u64,
}

/// Send set-up transactions from `funder` (node-signed if unlocked, else
/// signed here with consecutive nonces) in batches; returns their hashes.
pub async fn send_setup(
    client: &Client,
    funder: &Funder,
    fees: &Fees,
    txs_: &[SetupTx],
) -> Result<Vec<B256>, ChainError> {
    // Nonces are explicit even for the node's account: a node may assign
    // the same pending nonce to calls that arrive faster than its pool
    // updates (geth adds to its pool asynchronously).
    let mut nonce = nonces(client, &[funder.address()]).await?[0];
    let mut calls: Vec<(&str, Value)> = Vec::with_capacity(txs_.len());
    for t in txs_ {
        match funder {
            Funder::Unlocked(from) => {
                let mut c = json!({
                    "from": from,
                    "value": format!("{:#x}", t.value),
                    "gas": format!("{:#x}", t.gas),
                    "maxFeePerGas": format!("{:#x}", fees.max_fee_per_gas),
                    "maxPriorityFeePerGas": format!("{:#x}", fees.max_priority_fee_per_gas),
                    "input": t.input,
                    "nonce": format!("{nonce:#x}"),
                });
                if let TxKind::Call(to) = t.to {
                    c["to"] = json!(to);
                }
                calls.push(("eth_sendTransaction", json!([c])));
            }
            Funder::Key(signer) => {
                let tx = TxEip1559 {
                    chain_id: fees.chain_id,
                    nonce,
                    gas_limit: t.gas,
                    max_fee_per_gas: fees.max_fee_per_gas,
                    max_priority_fee_per_gas: fees.max_priority_fee_per_gas,
                    to: t.to,
                    value: t.value,
                    input: t.input.clone(),
                    ..TxEip1559::default()
                };
                calls.push(("eth_sendRawTransaction", json!([raw_hex(signer, tx)])));
            }
        }
        nonce += 1;
    }
    batched(client, &calls, 100, "sending set-up transactions").await
}

/// Sign `tx` and hex-encode its EIP-2718 bytes.
pub fn raw_hex(signer: &Signer, tx: TxEip1559) -> String {
    use alloy_eips::eip2718::Encodable2718;
    format!(
        "0x{}",
        alloy_primitives::hex::encode(signer.sign(tx).encoded_2718())
    )
}

/// Send raw signed transactions in batches; returns their hashes.
pub async fn send_raw(client: &Client, raws: &[String]) -> Result<Vec<B256>, ChainError> {
    let calls: Vec<(&str, Value)> = raws
        .iter()
        .map(|r| ("eth_sendRawTransaction", json!([r])))
        .collect();
    batched(client, &calls, 100, "sending set-up transactions").await
}

/// A receipt's essentials.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Receipt {
    /// `0x1` success, `0x0` reverted.
    pub status: Option<U64>,
    /// The block.
    pub block_number: U64,
    /// A created contract.
    pub contract_address: Option<Address>,
    /// The transaction's EIP-2718 type (`0x0` legacy).
    #[serde(rename = "type", default)]
    pub tx_type: Option<U64>,
    /// Blob gas used (blob transactions).
    #[serde(default)]
    pub blob_gas_used: Option<U64>,
    /// The block's blob base fee (blob transactions).
    #[serde(default)]
    pub blob_gas_price: Option<U128>,
}

/// Receipts of `hashes` (`None` for those not yet included), in batches.
pub async fn receipts(
    client: &Client,
    hashes: &[B256],
) -> Result<Vec<Option<Receipt>>, ChainError> {
    let calls: Vec<(&str, Value)> = hashes
        .iter()
        .map(|h| ("eth_getTransactionReceipt", json!([h])))
        .collect();
    batched(client, &calls, 500, "reading receipts").await
}

/// Wait until every one of `hashes` has a successful receipt, or fail
/// after `timeout` naming how many are missing. `alive` is called between
/// polls and may abort (the node exited).
pub async fn wait_receipts(
    client: &Client,
    hashes: &[B256],
    what: &str,
    timeout: Duration,
    alive: &mut dyn FnMut() -> Result<(), String>,
) -> Result<Vec<Receipt>, ChainError> {
    let deadline = Instant::now() + timeout;
    loop {
        alive().map_err(|reason| ChainError {
            doing: format!("waiting for {what}"),
            reason,
        })?;
        let got = match receipts(client, hashes).await {
            Ok(got) => got,
            // A freshly started geth answers with this until its
            // transaction indexer has caught up: not yet, rather than never.
            Err(e) if e.reason.contains("indexing is in progress") && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
            Err(e) => return Err(e),
        };
        let missing = got.iter().filter(|r| r.is_none()).count();
        if missing == 0 {
            let got: Vec<Receipt> = got.into_iter().flatten().collect();
            if let Some((i, _)) = got
                .iter()
                .enumerate()
                .find(|(_, r)| r.status.is_some_and(|s| s.to::<u64>() == 0))
            {
                return Err(ChainError {
                    doing: format!("waiting for {what}"),
                    reason: format!("transaction {:#x} reverted", hashes[i]),
                });
            }
            return Ok(got);
        }
        if Instant::now() > deadline {
            return Err(ChainError {
                doing: format!("waiting for {what}"),
                reason: format!(
                    "{missing} of {} transactions not included after {timeout:?}; is the node producing blocks?",
                    hashes.len()
                ),
            });
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// For accepted transactions found in no block: does the node still know
/// them (pending in its pool) or not (dropped)?
pub async fn still_known(client: &Client, hashes: &[B256]) -> HashMap<B256, bool> {
    let mut out = HashMap::new();
    for chunk in hashes.chunks(500) {
        let calls: Vec<(&str, Value)> = chunk
            .iter()
            .map(|h| ("eth_getTransactionByHash", json!([h])))
            .collect();
        if let Ok(replies) = client.batch(&calls).await {
            for (h, r) in chunk.iter().zip(replies) {
                if let Ok(v) = r {
                    out.insert(*h, !v.is_null());
                }
            }
        }
    }
    out
}

/// The address a contract created by `deployer` at `nonce` gets.
pub fn create_address(deployer: Address, nonce: u64) -> Address {
    deployer.create(nonce)
}

/// The current head's block number.
pub async fn head(client: &Client) -> Result<u64, ChainError> {
    let n: U64 = client
        .call("eth_blockNumber", json!([]))
        .await
        .map_err(fail("reading the block number"))?;
    Ok(n.to())
}

/// Blocks 1 to `to` as their RLP (`debug_getRawBlock`, geth's debug API),
/// in order.
pub async fn raw_blocks(client: &Client, to: u64) -> Result<Vec<Bytes>, ChainError> {
    let params: Vec<Value> = (1..=to).map(|n| json!([format!("{n:#x}")])).collect();
    let calls: Vec<(&str, Value)> = params
        .into_iter()
        .map(|p| ("debug_getRawBlock", p))
        .collect();
    batched(
        client,
        &calls,
        50,
        "fetching the blocks (debug_getRawBlock)",
    )
    .await
}

/// Wait for the node's RPC to answer `eth_chainId`, up to `timeout`;
/// `alive` may abort (the process exited).
pub async fn wait_ready(
    client: &Client,
    timeout: Duration,
    alive: &mut dyn FnMut() -> Result<(), String>,
) -> Result<Duration, ChainError> {
    let start = Instant::now();
    loop {
        alive().map_err(|reason| ChainError {
            doing: "waiting for the node's RPC".into(),
            reason,
        })?;
        match chain_id(client).await {
            Ok(_) => return Ok(start.elapsed()),
            Err(e) if start.elapsed() > timeout => {
                return Err(ChainError {
                    doing: format!(
                        "waiting {timeout:?} for the node's RPC at {}",
                        client.endpoint()
                    ),
                    reason: e.reason,
                });
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

/// Set-up calls for the ERC-20 deployer: the token's creation with
/// `supply` minted to it, and `Store`'s.
pub fn contract_creations(
    token_code: &Bytes,
    store_code: &Bytes,
    supply: U256,
) -> [(Bytes, &'static str); 2] {
    let mut t = token_code.to_vec();
    t.extend_from_slice(&supply.to_be_bytes::<32>());
    [(t.into(), "Token"), (store_code.clone(), "Store")]
}

/// `Token.transfer(to, amount)` calldata.
pub fn token_transfer(to: Address, amount: U256) -> Bytes {
    txs::calldata_transfer(to, amount)
}
