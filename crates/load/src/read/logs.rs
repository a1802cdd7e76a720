//! The eth_getLogs study: responses of 100 to 20 000 Transfer logs, checked log by log, against a client's body limit.

use super::*;

/// `keccak256("Transfer(address,address,uint256)")`: topic 0 of every log.
pub const TRANSFER_TOPIC: B256 =
    alloy_primitives::b256!("ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef");

/// Gas one log of `Logs.emitTransfers` costs (measured on geth).
pub const GAS_PER_LOG: u64 = 1_922;

/// The per-transaction gas cap of EIP-7825 (geth, and anvil with
/// `--enable-tx-gas-limit`).
pub const TX_GAS_CAP: u64 = 16_777_216;

/// Most logs one transaction may emit under [`TX_GAS_CAP`], with room for
/// the call's own cost.
pub const MAX_LOGS_PER_TX: usize = 8_500;

/// The key index of the read paths' deployer under the run's seed.
pub(crate) const DEPLOYER_INDEX: u64 = u64::MAX - 1;

/// Logs the read load's `eth_getLogs` calls return (one block).
pub const READ_LOAD_LOGS: usize = 20;

/// The read load's token supply, all held by the deployer.
pub(crate) const READ_TOKEN_SUPPLY: u64 = 1_000_000_000_000;

// ---------------------------------------------------------------------------
// Set-up shared by both: a funded deployer and its contracts.

/// A funded deployer and what it deployed.
#[derive(Debug)]
pub(crate) struct Deployer {
    pub(crate) signer: Signer,
    pub(crate) fees: Fees,
    pub(crate) nonce: u64,
    pub(crate) logs: Address,
    pub(crate) token: Option<Address>,
}

/// [`chain::wait_receipts`] with the set-up's time limit, aborting if the
/// node exits.
pub(crate) async fn wait_receipts(
    c: &Connected,
    hashes: &[B256],
    what: &str,
) -> Result<Vec<chain::Receipt>, LoadError> {
    let mut alive = || c.alive("during the read-path set-up");
    Ok(chain::wait_receipts(
        &c.client,
        hashes,
        what,
        Duration::from_secs(120),
        &mut alive,
    )
    .await?)
}

/// Fund the deployer for `gas` gas at the max fee (plus 1 ether), then
/// deploy `Logs` (and `Token`, all its supply to the deployer, if
/// `with_token`), waiting for every receipt.
pub(crate) async fn deploy(
    c: &Connected,
    opts: &Options,
    gas: u64,
    with_token: bool,
    say: &dyn Fn(&str),
) -> Result<Deployer, LoadError> {
    let signer = Signer::derive(opts.seed.as_bytes(), DEPLOYER_INDEX);
    let (_, base_fee) = chain::latest(&c.client).await?;
    let fees = crate::drive::fees(c.info.chain_id, base_fee, opts);
    let funder = crate::drive::funder(c, opts)?;
    let budget = U256::from(u128::from(gas) * fees.max_fee_per_gas + 10u128.pow(18));
    let hashes = chain::send_setup(
        &c.client,
        &funder,
        &fees,
        &[SetupTx {
            to: TxKind::Call(signer.address),
            value: budget,
            input: Bytes::new(),
            gas: 21_000,
        }],
    )
    .await?;
    wait_receipts(c, &hashes, "the read-path deployer's funding").await?;

    let code = |name: &str| {
        dyno_eth::contracts::contract_at(&opts.contracts, name)
            .map(|c| c.bytecode)
            .map_err(|e| LoadError::Other(e.to_string()))
    };
    let mut creations: Vec<(Bytes, &str)> = vec![(code("Logs")?.into(), "Logs")];
    if with_token {
        let mut t = code("Token")?;
        t.extend_from_slice(&U256::from(READ_TOKEN_SUPPLY).to_be_bytes::<32>());
        creations.push((t.into(), "Token"));
    }
    let mut nonce = chain::nonces(&c.client, &[signer.address]).await?[0];
    let mut raws = Vec::new();
    let mut want = Vec::new();
    for (code, _) in &creations {
        let est =
            chain::estimate(&c.client, signer.address, TxKind::Create, U256::ZERO, code).await?;
        raws.push(chain::raw_hex(
            &signer,
            TxEip1559 {
                chain_id: fees.chain_id,
                nonce,
                gas_limit: est * 13 / 10,
                max_fee_per_gas: fees.max_fee_per_gas,
                max_priority_fee_per_gas: fees.max_priority_fee_per_gas,
                to: TxKind::Create,
                input: code.clone(),
                ..TxEip1559::default()
            },
        ));
        want.push(signer.address.create(nonce));
        nonce += 1;
    }
    let hashes = chain::send_raw(&c.client, &raws).await?;
    let receipts = wait_receipts(c, &hashes, "the read-path contract deployments").await?;
    for ((r, w), (_, name)) in receipts.iter().zip(&want).zip(&creations) {
        if r.contract_address != Some(*w) {
            return Err(LoadError::Other(format!(
                "deploying {name} created {:?}, expected {w:#x}",
                r.contract_address
            )));
        }
    }
    say(&format!(
        "deployed Logs at {:#x}{} from {:#x}",
        want[0],
        want.get(1)
            .map(|t| format!(" and Token at {t:#x}"))
            .unwrap_or_default(),
        signer.address
    ));
    Ok(Deployer {
        signer,
        fees,
        nonce,
        logs: want[0],
        token: want.get(1).copied(),
    })
}

/// `emitTransfers(start, n)` calldata.
pub fn emit_calldata(start: u64, n: u64) -> Bytes {
    let mut d = dyno_eth::abi::selector("emitTransfers(uint256,uint256)").to_vec();
    d.extend_from_slice(&U256::from(start).to_be_bytes::<32>());
    d.extend_from_slice(&U256::from(n).to_be_bytes::<32>());
    d.into()
}

/// Blocks and transactions that hold emitted logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Emitted {
    pub(crate) from_block: u64,
    pub(crate) to_block: u64,
    pub(crate) txs: u64,
}

/// Emit `n` logs with `k = start..start + n` in transactions of at most
/// `per_tx`, each sent only after the previous one's receipt, so each
/// lands in a later block than the one before.
pub(crate) async fn emit(
    c: &Connected,
    d: &mut Deployer,
    start: u64,
    n: usize,
    per_tx: usize,
) -> Result<Emitted, LoadError> {
    let mut blocks = Vec::new();
    let mut k = start;
    let end = start + n as u64;
    while k < end {
        let m = (end - k).min(per_tx as u64);
        let input = emit_calldata(k, m);
        let est = chain::estimate(
            &c.client,
            d.signer.address,
            TxKind::Call(d.logs),
            U256::ZERO,
            &input,
        )
        .await?;
        let raw = chain::raw_hex(
            &d.signer,
            TxEip1559 {
                chain_id: d.fees.chain_id,
                nonce: d.nonce,
                gas_limit: (est * 12 / 10 + 20_000).min(TX_GAS_CAP.max(est)),
                max_fee_per_gas: d.fees.max_fee_per_gas,
                max_priority_fee_per_gas: d.fees.max_priority_fee_per_gas,
                to: TxKind::Call(d.logs),
                input,
                ..TxEip1559::default()
            },
        );
        let hashes = chain::send_raw(&c.client, &[raw]).await?;
        d.nonce += 1;
        let r = wait_receipts(
            c,
            &hashes,
            &format!("the transaction emitting logs {k}..{}", k + m),
        )
        .await?;
        blocks.push(r[0].block_number.to::<u64>());
        k += m;
    }
    Ok(Emitted {
        from_block: blocks.iter().copied().min().unwrap_or(0),
        to_block: blocks.iter().copied().max().unwrap_or(0),
        txs: blocks.len() as u64,
    })
}

/// A JSON-RPC request body.
pub(crate) fn request_body(id: u64, method: &str, params: serde_json::Value) -> bytes::Bytes {
    serde_json::to_vec(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))
        .expect("a JSON value serializes")
        .into()
}

/// `eth_getLogs` of `address`'s logs in blocks `from..=to`.
pub fn get_logs_body(id: u64, from: u64, to: u64, address: Address) -> bytes::Bytes {
    request_body(
        id,
        "eth_getLogs",
        json!([{
            "fromBlock": format!("{from:#x}"),
            "toBlock": format!("{to:#x}"),
            "address": address,
        }]),
    )
}

// ---------------------------------------------------------------------------
// eth_getLogs study.

/// What [`logs_study`] measures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogsOptions {
    /// Log counts, one `eth_getLogs` response size each.
    pub sizes: Vec<usize>,
    /// The response-size limit to flag, bytes.
    pub body_limit: usize,
    /// Timed `eth_getLogs` calls per size.
    pub repeats: usize,
    /// Most logs per transaction (at most [`MAX_LOGS_PER_TX`]).
    pub logs_per_tx: usize,
}

impl Default for LogsOptions {
    /// 100, 1 000, 5 000 and 20 000 logs; a 64 KiB limit (the Java SDK
    /// study's); 10 calls each; 2 500 logs a transaction.
    fn default() -> Self {
        LogsOptions {
            sizes: vec![100, 1_000, 5_000, 20_000],
            body_limit: 64 * 1024,
            repeats: 10,
            logs_per_tx: 2_500,
        }
    }
}

/// The JSON-RPC envelope with typed logs: what an SDK parses an
/// `eth_getLogs` reply into.
#[derive(Debug, Deserialize)]
pub struct LogsReply {
    /// The request id.
    pub id: serde_json::Value,
    /// The logs.
    pub result: Vec<Log>,
}

/// Why a response is not the expected one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LogsMismatch {
    /// Not a JSON-RPC result with an array of logs.
    #[error("the reply does not parse as a list of logs: {0}")]
    Parse(String),
    /// Too few or too many.
    #[error("{got} logs, expected {want}")]
    Count {
        /// Returned.
        got: usize,
        /// Expected.
        want: usize,
    },
    /// One log differs.
    #[error("log {index} (k = {k}): {what}")]
    Log {
        /// Position in the reply.
        index: usize,
        /// The `emitTransfers` counter it should carry.
        k: u64,
        /// What differs.
        what: String,
    },
}

/// The topics and data `emitTransfers` gives counter `k`:
/// `Transfer(address(uint160(k)), address(uint160(~k)), k)`.
pub fn expected_log(k: u64) -> ([B256; 3], B256) {
    let word = U256::from(k);
    let mut to = (!word).to_be_bytes::<32>();
    to[..12].fill(0);
    let from = B256::from(word);
    ([TRANSFER_TOPIC, from, B256::from(to)], from)
}

/// Check that `body` carries exactly `n` logs of `address`, the `i`-th
/// being `emitTransfers`' log for `k = start + i`, in blocks `from..=to`.
pub fn verify_logs(
    body: &[u8],
    n: usize,
    start: u64,
    address: Address,
    blocks: (u64, u64),
) -> Result<(), LogsMismatch> {
    let reply: LogsReply =
        serde_json::from_slice(body).map_err(|e| LogsMismatch::Parse(e.to_string()))?;
    if reply.result.len() != n {
        return Err(LogsMismatch::Count {
            got: reply.result.len(),
            want: n,
        });
    }
    for (i, log) in reply.result.iter().enumerate() {
        let k = start + i as u64;
        let bad = |what: String| LogsMismatch::Log { index: i, k, what };
        let (topics, data) = expected_log(k);
        if log.address() != address {
            return Err(bad(format!(
                "address {:#x}, expected {address:#x}",
                log.address()
            )));
        }
        if log.topics() != topics {
            return Err(bad(format!(
                "topics {:?}, expected {topics:?}",
                log.topics()
            )));
        }
        if log.data().data.as_ref() != data.as_slice() {
            return Err(bad(format!("data {}, expected {data}", log.data().data)));
        }
        if log.removed {
            return Err(bad("marked removed".into()));
        }
        match log.block_number {
            Some(b) if (blocks.0..=blocks.1).contains(&b) => {}
            other => {
                return Err(bad(format!(
                    "block {other:?}, outside the queried {}..={}",
                    blocks.0, blocks.1
                )));
            }
        }
    }
    Ok(())
}

/// Median parse times of `body` (raw tree, typed records), ns, and the
/// parses timed for each. Each parse includes dropping its output, and
/// checks the count is `n`.
pub fn parse_times(body: &[u8], n: usize) -> Result<(f64, f64, u64), LogsMismatch> {
    let raw = || -> Result<usize, LogsMismatch> {
        let v: serde_json::Value =
            serde_json::from_slice(body).map_err(|e| LogsMismatch::Parse(e.to_string()))?;
        v.get("result")
            .and_then(serde_json::Value::as_array)
            .map(Vec::len)
            .ok_or_else(|| LogsMismatch::Parse("no result array".into()))
    };
    let typed = || -> Result<usize, LogsMismatch> {
        serde_json::from_slice::<LogsReply>(body)
            .map(|r| r.result.len())
            .map_err(|e| LogsMismatch::Parse(e.to_string()))
    };
    let time = |f: &dyn Fn() -> Result<usize, LogsMismatch>| -> Result<u64, LogsMismatch> {
        let t = Instant::now();
        let got = std::hint::black_box(f()?);
        let ns = t.elapsed().as_nanos() as u64;
        if got != n {
            return Err(LogsMismatch::Count { got, want: n });
        }
        Ok(ns)
    };
    // One untimed round to warm caches and the allocator, and to size the
    // run: about 0.25 s per parser, 5 to 201 parses.
    time(&raw)?;
    time(&typed)?;
    let once = time(&raw)?.max(1);
    let reps = (250_000_000 / once).clamp(5, 201) | 1;
    let mut r = Vec::with_capacity(reps as usize);
    let mut t = Vec::with_capacity(reps as usize);
    for _ in 0..reps {
        // Interleaved, so drift in the machine's state hits both alike.
        r.push(time(&raw)?);
        t.push(time(&typed)?);
    }
    Ok((median(&mut r), median(&mut t), reps))
}

pub(crate) fn median(v: &mut [u64]) -> f64 {
    v.sort_unstable();
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2] as f64,
        n => (v[n / 2 - 1] as f64 + v[n / 2] as f64) / 2.0,
    }
}

/// Size in words for people: `58.3 KiB`, `12.1 MiB`.
pub(crate) fn human_bytes(b: u64) -> String {
    match b {
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / f64::from(1u32 << 20)),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

/// Deploy `Logs`, then for each size emit exactly that many logs in a fresh
/// block range and call `eth_getLogs` over it: one untimed call, then
/// `repeats` timed ones, each response checked; then time parsing the
/// body, raw against typed.
pub async fn logs_study(
    c: &Connected,
    opts: &Options,
    lo: &LogsOptions,
    say: &dyn Fn(&str),
) -> Result<LogsStudy, LoadError> {
    if lo.sizes.is_empty() || lo.sizes.contains(&0) {
        return Err(LoadError::Other(
            "eth_getLogs study: give at least one log count, each above 0".into(),
        ));
    }
    if lo.repeats == 0 {
        return Err(LoadError::Other(
            "eth_getLogs study: repeats must be at least 1".into(),
        ));
    }
    if lo.logs_per_tx == 0 || lo.logs_per_tx > MAX_LOGS_PER_TX {
        return Err(LoadError::Other(format!(
            "eth_getLogs study: {} logs per transaction; give 1 to {MAX_LOGS_PER_TX} (at {GAS_PER_LOG} gas a log, more passes the {TX_GAS_CAP}-gas per-transaction cap of EIP-7825)",
            lo.logs_per_tx
        )));
    }
    let total: usize = lo.sizes.iter().sum();
    let txs: usize = lo.sizes.iter().map(|n| n.div_ceil(lo.logs_per_tx)).sum();
    let gas = (total as u64 * GAS_PER_LOG * 13 / 10) + txs as u64 * 100_000 + 2_000_000;
    let mut d = deploy(c, opts, gas, false, say).await?;

    // A client of its own: one connection, room for a 20 000-log reply
    // (about 13 MB) many times over, and more patience than the node's own
    // 30 s limit so the node's error is the one reported.
    let client = Client::connect(
        c.client.endpoint(),
        ClientOptions {
            connections: 1,
            request_timeout: Some(opts.request_timeout.max(Duration::from_secs(120))),
            max_response_bytes: 256 << 20,
            ..ClientOptions::default()
        },
    )
    .await?;

    let mut sizes = Vec::with_capacity(lo.sizes.len());
    let mut notes = vec![format!(
        "logs were emitted at most {} per transaction, each transaction sent after the previous one's receipt, so no block held more than {} logs: geth's address-filtered eth_getLogs over 15 000-20 000 logs packed into 1-2 blocks hits its 30 s timeout (nodes/README.md)",
        lo.logs_per_tx, lo.logs_per_tx
    )];
    let mut start = 1u64;
    for &n in &lo.sizes {
        say(&format!(
            "emitting {n} logs in {} transaction(s)",
            n.div_ceil(lo.logs_per_tx)
        ));
        let e = emit(c, &mut d, start, n, lo.logs_per_tx).await?;
        let blocks = (e.from_block, e.to_block);
        let body = get_logs_body(1, e.from_block, e.to_block, d.logs);
        let doing = format!(
            "eth_getLogs of {n} logs over blocks {}..={}",
            e.from_block, e.to_block
        );
        let check = |raw: &RawResponse| -> Result<(), LoadError> {
            let chain_err = |reason: String| {
                LoadError::Chain(ChainError {
                    doing: doing.clone(),
                    reason,
                })
            };
            raw.reply().map_err(|e| chain_err(e.to_string()))?;
            verify_logs(&raw.body, n, start, d.logs, blocks)
                .map_err(|e| chain_err(format!("wrong response: {e}")))
        };

        // First call: untimed for the statistics, checked log by log.
        let t = Instant::now();
        let first = client.post(body.clone()).await.map_err(|e| {
            LoadError::Chain(ChainError {
                doing: doing.clone(),
                reason: e.to_string(),
            })
        })?;
        let first_call_ns = t.elapsed().as_nanos() as u64;
        check(&first)?;

        let mut lat = Vec::with_capacity(lo.repeats);
        let mut largest = first.body.len();
        for _ in 0..lo.repeats {
            let t = Instant::now();
            let r = client.post(body.clone()).await;
            let ns = t.elapsed().as_nanos() as u64;
            let r = r.map_err(|e| {
                LoadError::Chain(ChainError {
                    doing: doing.clone(),
                    reason: e.to_string(),
                })
            })?;
            // The same bytes as the checked reply are the same logs;
            // anything else is checked afresh.
            if r.body != first.body || r.status != first.status {
                check(&r)?;
            }
            largest = largest.max(r.body.len());
            lat.push(ns);
        }

        let body_bytes = first.body.clone();
        let (parse_raw_ns, parse_typed_ns, parse_reps) =
            tokio::task::spawn_blocking(move || parse_times(&body_bytes, n))
                .await
                .map_err(|e| LoadError::Other(format!("the parse timing task failed: {e}")))?
                .map_err(|e| {
                    LoadError::Chain(ChainError {
                        doing: doing.clone(),
                        reason: format!("parsing the checked reply again: {e}"),
                    })
                })?;
        let response_bytes = first.body.len() as u64;
        let over_limit = largest > lo.body_limit;
        let latency = summary::latency(&lat);
        say(&format!(
            "{n} logs: {} ({:.0} B/log), eth_getLogs P50 {:.2} ms, parse raw {:.2} ms, typed {:.2} ms ({:.2}x)",
            human_bytes(response_bytes),
            response_bytes as f64 / n as f64,
            latency.p50,
            parse_raw_ns / 1e6,
            parse_typed_ns / 1e6,
            parse_typed_ns / parse_raw_ns.max(1.0)
        ));
        if over_limit {
            notes.push(format!(
                "{n} logs: the {} response ({largest} bytes) is {:.1}x the {} body limit ({} bytes over); a client that buffers at most {} bytes (64 KiB is a common HTTP client default, e.g. Netty's HttpObjectAggregator in the Java SDK study) would fail this call",
                human_bytes(largest as u64),
                largest as f64 / lo.body_limit as f64,
                human_bytes(lo.body_limit as u64),
                largest - lo.body_limit,
                lo.body_limit
            ));
        }
        sizes.push(LogsSize {
            logs: n as u64,
            blocks: [e.from_block, e.to_block],
            txs: e.txs,
            response_bytes,
            bytes_per_log: response_bytes as f64 / n as f64,
            over_limit,
            first_call_ms: first_call_ns as f64 / 1e6,
            latency,
            parse_raw_ns,
            parse_typed_ns,
            typed_over_raw: parse_typed_ns / parse_raw_ns.max(1.0),
            parse_reps,
            verified: true,
        });
        start += n as u64;
    }
    if let Some(s) = sizes.iter().find(|s| s.over_limit) {
        notes.push(format!(
            "at about {:.0} bytes a log, a {}-byte limit holds about {} logs",
            s.bytes_per_log,
            lo.body_limit,
            (lo.body_limit as f64 / s.bytes_per_log).floor()
        ));
    }
    Ok(LogsStudy {
        node: c.info.clone(),
        contract: format!("{:#x}", d.logs),
        body_limit_bytes: lo.body_limit as u64,
        repeats: lo.repeats as u64,
        logs_per_tx: lo.logs_per_tx as u64,
        sizes,
        notes,
    })
}

// ---------------------------------------------------------------------------
// Read load.
