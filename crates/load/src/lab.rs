//! One load run against one node: prepare (accounts, contracts, fees, gas),
//! pre-sign, measure the generator's ceiling, send on the schedule while
//! following the chain and the node's CPU and memory, wait for inclusion
//! and finality, check the count against a scan of the chain, summarise.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use alloy_primitives::{Address, B256, Bytes, TxKind, U256};
use dyno_eth::signer::Signer;
use dyno_format::load::{
    ChainScan, FeeInfo, GeneratorInfo, LoadResult, NodeInfo, OnChain, SigningInfo,
};
use dyno_rpc::{Client, ClientOptions, Endpoint};

use crate::chain::{self, ChainError, Funder, SetupTx};
use crate::onchain;
use crate::procstat::ProcSampler;
use crate::record::{Mark, TxRecord};
use crate::schedule::Schedule;
use crate::send::{self, Outgoing, Progress};
use crate::summary;
use crate::track::{self, Seen};
use crate::txs::{self, Fees, GasLimits, Kind, Mix, SignedTx, SigningReport, Targets};
use dyno_node::{self as node, LocalNode};

/// Where the load goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// Start a dev node installed in `home` (by `dyno setup NAME`).
    Start(node::Kind, PathBuf),
    /// Start a client from a command line; its RPC answers at `url`.
    Cmd {
        /// Shell command line (`{datadir}` and `{port}` are filled in).
        cmd: String,
        /// RPC URL (`{port}` filled in).
        url: String,
    },
    /// A node already running.
    Rpc(String),
}

impl Target {
    /// The name in results.
    pub fn name(&self) -> String {
        match self {
            Target::Start(k, _) => k.as_str().into(),
            Target::Cmd { .. } => "cmd".into(),
            Target::Rpc(_) => "rpc".into(),
        }
    }
}

/// Who signs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignerMode {
    /// dyno pre-signs; `eth_sendRawTransaction`.
    Client,
    /// The node signs for its unlocked account; `eth_sendTransaction`.
    Node,
}

impl SignerMode {
    /// `client` or `node`.
    pub fn as_str(self) -> &'static str {
        match self {
            SignerMode::Client => "client",
            SignerMode::Node => "node",
        }
    }
}

/// Everything a load run needs to know.
#[derive(Debug, Clone)]
pub struct Options {
    /// Transactions per run.
    pub txs: usize,
    /// Sending accounts.
    pub accounts: usize,
    /// The schedule.
    pub schedule: Schedule,
    /// The schedule as given.
    pub schedule_text: String,
    /// Kinds and ratios.
    pub mix: Mix,
    /// A name for the workload in ids (`transfer`, `mix`, ...).
    pub workload_name: String,
    /// Seconds between blocks for started dev nodes.
    pub block_time: u64,
    /// Seed of the account keys.
    pub seed: String,
    /// maxPriorityFeePerGas, wei.
    pub tip_wei: u128,
    /// maxFeePerGas, wei; `None`: max(100 gwei, 10 × base fee) + tip.
    pub max_fee_wei: Option<u128>,
    /// Connections to the node.
    pub connections: usize,
    /// Most requests in flight under an open-loop schedule.
    pub open_loop_cap: usize,
    /// A send later than this is late.
    pub lag_threshold: Duration,
    /// How long to wait for inclusion after the last send, and after each
    /// new inclusion.
    pub inclusion_timeout: Duration,
    /// How long to wait for the `finalized` tag to pass the last inclusion
    /// (zero: do not wait).
    pub finality_timeout: Duration,
    /// Tracker poll interval.
    pub poll: Duration,
    /// One request's time limit.
    pub request_timeout: Duration,
    /// Where the compiled contracts are.
    pub contracts: PathBuf,
    /// A funded key for targets without an unlocked account.
    pub funder_key: Option<B256>,
    /// Signing threads (0: all cores).
    pub threads: usize,
    /// Requests for the null-sink self-test (0: skip it).
    pub self_test_requests: usize,
    /// The node's Prometheus endpoint, for a node dyno did not start (a
    /// started geth serves its own).
    pub metrics_url: Option<String>,
    /// Seconds between scrapes of the node's metrics.
    pub metrics_interval: Duration,
    /// A genesis JSON to start a dev geth on (`dyno load --record`),
    /// instead of geth's own dev genesis; it turns geth's `debug` API on.
    pub genesis: Option<String>,
}

/// Why a load run could not be done at all.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// Starting the node failed.
    #[error(transparent)]
    Node(#[from] node::NodeError),
    /// An RPC step outside the timed phase failed.
    #[error(transparent)]
    Chain(#[from] ChainError),
    /// The endpoint is not usable.
    #[error(transparent)]
    Rpc(#[from] dyno_rpc::RpcError),
    /// Something else, said plainly.
    #[error("{0}")]
    Other(String),
}

/// A finished (or cut short) run: its summary and raw data.
#[derive(Debug)]
pub struct Outcome {
    /// The summary for the result file.
    pub result: LoadResult,
    /// One record per planned transaction.
    pub records: Vec<TxRecord>,
    /// Head progress.
    pub head: Vec<Mark>,
    /// Safe progress.
    pub safe: Vec<Mark>,
    /// Finalized progress.
    pub finalized: Vec<Mark>,
    /// The node's metrics, every scrape, when it serves them.
    pub scraped: Option<crate::scrape::Scraped>,
}

/// A node, started or not, with a client for it.
#[derive(Debug)]
pub struct Connected {
    /// The started process, if dyno started it.
    pub local: Option<Arc<Mutex<LocalNode>>>,
    /// Load client.
    pub client: Client,
    /// A separate client for the tracker, so it never queues behind load.
    pub tracker: Client,
    /// What is known of it.
    pub info: NodeInfo,
    /// Its JSON-RPC URL as given (`info.url` is redacted for results).
    pub url: String,
    /// Its unlocked account, if any.
    pub unlocked: Option<Address>,
    /// Where it serves Prometheus metrics: a started geth's, or
    /// `--metrics-url`.
    pub metrics_url: Option<String>,
}

impl Connected {
    /// `Err` with the node's last output if a started node has exited.
    pub fn alive(&self, when: &str) -> Result<(), String> {
        match &self.local {
            Some(n) => n
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .check_alive(when)
                .map_err(|e| e.to_string()),
            None => Ok(()),
        }
    }

    /// Stop a started node and remove its data.
    pub fn stop(&self) {
        if let Some(n) = &self.local {
            n.lock()
                .unwrap_or_else(|p| p.into_inner())
                .stop(Duration::from_secs(10));
        }
    }
}

/// Start (or reach) the target and wait until its RPC answers.
pub async fn connect(
    target: &Target,
    opts: &Options,
    say: &dyn Fn(&str),
) -> Result<Connected, LoadError> {
    let (local, url) = match target {
        Target::Start(kind, home) => {
            let n = match (&opts.genesis, kind) {
                (None, _) => LocalNode::start(*kind, home, opts.block_time)?,
                (Some(g), node::Kind::Geth) => {
                    LocalNode::start_geth_dev_on(home, opts.block_time, g)?
                }
                (Some(_), _) => {
                    return Err(LoadError::Other(format!(
                        "only geth starts on a genesis dyno writes, not {}",
                        kind.as_str()
                    )));
                }
            };
            say(&format!(
                "started {} at {} ({})",
                kind.as_str(),
                n.url,
                n.version.as_deref().unwrap_or("version unknown")
            ));
            let url = n.url.clone();
            (Some(Arc::new(Mutex::new(n))), url)
        }
        Target::Cmd { cmd, url } => {
            let n = LocalNode::start_cmd(cmd, url)?;
            let url = n.url.clone();
            (Some(Arc::new(Mutex::new(n))), url)
        }
        Target::Rpc(url) => (None, url.clone()),
    };
    let endpoint = Endpoint::parse(&url)?;
    let client_opts = ClientOptions {
        connections: opts.connections,
        request_timeout: Some(opts.request_timeout),
        ..ClientOptions::default()
    };
    let connect_until_ready = async {
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            if let Some(n) = &local {
                n.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .check_alive("while starting")?;
            }
            match Client::connect(&endpoint, client_opts.clone()).await {
                Ok(c) => break Ok::<Client, LoadError>(c),
                Err(e) if local.is_none() || Instant::now() > deadline => break Err(e.into()),
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    };
    let client = connect_until_ready.await?;
    let local2 = local.clone();
    let mut alive = move || match &local2 {
        Some(n) => n
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .check_alive("while starting")
            .map_err(|e| e.to_string()),
        None => Ok(()),
    };
    let ready = chain::wait_ready(&client, Duration::from_secs(90), &mut alive).await?;
    let tracker = Client::connect(
        &endpoint,
        ClientOptions {
            connections: 2,
            request_timeout: Some(opts.request_timeout),
            ..ClientOptions::default()
        },
    )
    .await?;
    if matches!(target, Target::Start(node::Kind::Hardhat, _)) {
        // Hardhat logs every request; at thousands a second that costs it
        // CPU the measurement should not include.
        let _ = client
            .call::<serde_json::Value>("hardhat_setLoggingEnabled", serde_json::json!([false]))
            .await;
    }
    let chain_id = chain::chain_id(&client).await?;
    let version = chain::client_version(&client).await;
    let unlocked = chain::unlocked_account(&client).await;
    say(&format!(
        "{} is ready after {:.1} s: {version}, chain id {chain_id}",
        dyno_format::redact::url(&url),
        ready.as_secs_f64()
    ));
    let command = local
        .as_ref()
        .map(|n| n.lock().unwrap_or_else(|p| p.into_inner()).command.clone())
        .unwrap_or_default();
    let metrics_url = opts.metrics_url.clone().or_else(|| {
        local.as_ref().and_then(|n| {
            n.lock()
                .unwrap_or_else(|p| p.into_inner())
                .metrics_url
                .clone()
        })
    });
    Ok(Connected {
        local,
        client,
        tracker,
        info: NodeInfo {
            name: target.name(),
            version,
            command: dyno_format::redact::command_line(&command),
            url: dyno_format::redact::url(&url),
            chain_id,
            local: !matches!(target, Target::Rpc(_)),
        },
        url: url.clone(),
        metrics_url,
        unlocked,
    })
}

/// Accounts, contracts, fees and gas, prepared on one node.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The senders.
    pub senders: Vec<Signer>,
    /// Their next nonces.
    pub nonces: Vec<u64>,
    /// Contract addresses.
    pub targets: Targets,
    /// Fees.
    pub fees: Fees,
    /// The fee strategy in words.
    pub fee_info: FeeInfo,
    /// Gas limits.
    pub gas: GasLimits,
    /// The block before the timed phase.
    pub start_block: u64,
    /// What is known of the node's fork (blob proofs and fees).
    pub fork: chain::Fork,
}

const TOKEN_SUPPLY: u64 = 1_000_000_000_000;

/// The most distinct blobs a run makes: cell proofs cost 179 ms a blob on
/// one core (c-kzg; `benches/blob_proofs.rs`, docs/load.md), so the blob
/// transactions share this many, in turn ([`crate::blobs::Blobs::of_tx`]).
pub const BLOB_SET: usize = 24;

/// Who pays for set-up: `--funder-key`, else the node's unlocked account.
pub fn funder(c: &Connected, opts: &Options) -> Result<Funder, LoadError> {
    match (&opts.funder_key, c.unlocked) {
        (Some(k), _) => Signer::from_secret(k.0)
            .map(Funder::Key)
            .map_err(|e| LoadError::Other(format!("--funder-key: {e}"))),
        (None, Some(a)) => Ok(Funder::Unlocked(a)),
        (None, None) => Err(LoadError::Other(format!(
            "{} has no unlocked account to pay for set-up from; pass --funder-key with a funded key (or set DYNO_FUNDER_KEY)",
            c.info.url
        ))),
    }
}

/// The stated fee strategy: `--tip-gwei`, and `--max-fee-gwei` or
/// max(100 gwei, 10 × `base_fee`) + tip.
pub fn fees(chain_id: u64, base_fee: u128, opts: &Options) -> Fees {
    let max_fee_per_gas = opts
        .max_fee_wei
        .unwrap_or_else(|| 100_000_000_000u128.max(base_fee.saturating_mul(10)) + opts.tip_wei);
    Fees {
        chain_id,
        max_priority_fee_per_gas: opts.tip_wei,
        max_fee_per_gas,
        // From Osaka the blob base fee has a reserve price of base fee /
        // 16 (EIP-7918); the cap of the gas price covers it many times.
        max_fee_per_blob_gas: max_fee_per_gas,
    }
}

/// Fund the senders and a deployer from the node's unlocked account (or
/// the funder key), deploy `Token` and `Store` from the deployer (nonces 0
/// and 1, so their addresses are the same on every fresh node), hand every
/// sender tokens, and estimate gas per kind.
pub async fn prepare(
    c: &Connected,
    opts: &Options,
    fixed: Option<(&Fees, &GasLimits)>,
    say: &dyn Fn(&str),
) -> Result<Prepared, LoadError> {
    let seed = opts.seed.as_bytes();
    let senders = Signer::derive_many(seed, opts.accounts as u64);
    let deployer = Signer::derive(seed, u64::MAX);
    let funder = funder(c, opts)?;
    let (_, base_fee) = chain::latest(&c.client).await?;
    let fees = match fixed {
        Some((f, _)) => Fees {
            chain_id: c.info.chain_id,
            ..*f
        },
        None => fees(c.info.chain_id, base_fee, opts),
    };
    let strategy = if opts.max_fee_wei.is_some() {
        "fixed maxFeePerGas and maxPriorityFeePerGas from the command line".to_string()
    } else {
        "maxPriorityFeePerGas fixed (--tip-gwei); maxFeePerGas = max(100 gwei, 10 × the base fee before the run) + tip, fixed before signing so the base fee can rise tenfold under load before a transaction is priced out".to_string()
    };
    let fee_info = FeeInfo {
        strategy,
        base_fee_at_start: base_fee,
        max_fee_per_gas: fees.max_fee_per_gas,
        max_priority_fee_per_gas: fees.max_priority_fee_per_gas,
    };
    let contract = |name: &str| {
        dyno_eth::contracts::contract_at(&opts.contracts, name)
            .map(|c| Bytes::from(c.bytecode))
            .map_err(|e| LoadError::Other(e.to_string()))
    };
    let token_code = contract("Token")?;
    let store_code = contract("Store")?;
    let needs_contracts = opts.mix.kinds().any(Kind::needs_contracts);
    let needs_token = opts.mix.kinds().any(|k| k == Kind::Erc20);

    // 1. Fund: each sender can pay for twice its share at the max fee
    // (blob senders for their blobs too).
    let per_sender = opts.txs.div_ceil(opts.accounts.max(1)) as u128;
    let worst_gas: u128 = 2_000_000;
    let worst_blob_gas = u128::from(crate::blobs::GAS_PER_BLOB) * crate::blobs::MAX_PER_TX as u128;
    let budget = U256::from(
        per_sender
            * (worst_gas * fees.max_fee_per_gas + worst_blob_gas * fees.max_fee_per_blob_gas)
            * 2
            + 10u128.pow(18),
    );
    let mut funding: Vec<SetupTx> = senders
        .iter()
        .map(|s| SetupTx {
            to: TxKind::Call(s.address),
            value: budget,
            input: Bytes::new(),
            gas: 21_000,
        })
        .collect();
    if needs_contracts {
        funding.push(SetupTx {
            to: TxKind::Call(deployer.address),
            value: U256::from(10u128.pow(19) + 200 * worst_gas * fees.max_fee_per_gas),
            input: Bytes::new(),
            gas: 21_000,
        });
    }
    say(&format!(
        "funding {} accounts from {:#x}",
        funding.len(),
        funder.address()
    ));
    let hashes = chain::send_setup(&c.client, &funder, &fees, &funding).await?;
    let mut alive = || c.alive("during set-up");
    chain::wait_receipts(
        &c.client,
        &hashes,
        "the funding transactions",
        Duration::from_secs(120),
        &mut alive,
    )
    .await?;

    // 2. Contracts from the deployer, at fixed addresses.
    let mut targets = Targets {
        store_code: store_code.clone(),
        authority_seed: seed.to_vec(),
        ..Targets::default()
    };
    if needs_contracts {
        let base = chain::nonces(&c.client, &[deployer.address]).await?[0];
        let mut raws = Vec::new();
        let mut nonce = base;
        for (code, name) in
            chain::contract_creations(&token_code, &store_code, U256::from(TOKEN_SUPPLY))
        {
            let gas = chain::estimate(
                &c.client,
                deployer.address,
                TxKind::Create,
                U256::ZERO,
                &code,
            )
            .await?;
            let tx = alloy_consensus::TxEip1559 {
                chain_id: fees.chain_id,
                nonce,
                gas_limit: gas * 13 / 10,
                max_fee_per_gas: fees.max_fee_per_gas,
                max_priority_fee_per_gas: fees.max_priority_fee_per_gas,
                to: TxKind::Create,
                input: code,
                ..Default::default()
            };
            raws.push(chain::raw_hex(&deployer, tx));
            if name == "Token" {
                targets.token = Some(deployer.address.create(nonce));
            } else {
                targets.store = Some(deployer.address.create(nonce));
            }
            nonce += 1;
        }
        let hashes = chain::send_raw(&c.client, &raws).await?;
        let rs = chain::wait_receipts(
            &c.client,
            &hashes,
            "the contract deployments",
            Duration::from_secs(120),
            &mut alive,
        )
        .await?;
        for (r, want) in rs.iter().zip([targets.token, targets.store]) {
            if r.contract_address != want {
                return Err(LoadError::Other(format!(
                    "a deployment created {:?}, expected {want:?}",
                    r.contract_address
                )));
            }
        }
        say(&format!(
            "deployed Token at {:#x} and Store at {:#x}",
            targets.token.unwrap_or_default(),
            targets.store.unwrap_or_default()
        ));
        if needs_token {
            let share = U256::from(TOKEN_SUPPLY / (opts.accounts as u64 + 1));
            let input_gas = chain::estimate(
                &c.client,
                deployer.address,
                TxKind::Call(targets.token.unwrap_or_default()),
                U256::ZERO,
                &txs::calldata_transfer(senders[0].address, share),
            )
            .await?;
            let raws: Vec<String> = senders
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    chain::raw_hex(
                        &deployer,
                        alloy_consensus::TxEip1559 {
                            chain_id: fees.chain_id,
                            nonce: nonce + i as u64,
                            gas_limit: input_gas * 13 / 10,
                            max_fee_per_gas: fees.max_fee_per_gas,
                            max_priority_fee_per_gas: fees.max_priority_fee_per_gas,
                            to: TxKind::Call(targets.token.unwrap_or_default()),
                            input: txs::calldata_transfer(s.address, share),
                            ..Default::default()
                        },
                    )
                })
                .collect();
            let hashes = chain::send_raw(&c.client, &raws).await?;
            chain::wait_receipts(
                &c.client,
                &hashes,
                "the token hand-out",
                Duration::from_secs(120),
                &mut alive,
            )
            .await?;
        }
    }

    // 3. Gas per kind: estimated once (on the first node) with 30% headroom;
    // a plain value transfer (of any type) costs 21 000.
    let gas = match fixed {
        Some((_, g)) => g.clone(),
        None => {
            let mut g = GasLimits::default();
            for kind in opts.mix.kinds() {
                if kind.plain_transfer() {
                    g.set(kind, 21_000);
                    continue;
                }
                let call = txs::call_json(kind, 0, 0, senders[0].address, fees.chain_id, &targets);
                let est = chain::estimate_call(&c.client, call, kind.as_str()).await?;
                g.set(kind, est * 13 / 10);
            }
            g
        }
    };

    // 4. Blobs, in the form the node's fork asks for.
    let fork = chain::fork(&c.client).await;
    let blob_txs = opts
        .mix
        .sequence(opts.txs)
        .iter()
        .filter(|k| **k == Kind::Blob)
        .count() as u64;
    if blob_txs > 0 {
        let form = if fork.osaka {
            crate::blobs::Form::CellProofs
        } else {
            crate::blobs::Form::BlobProofs
        };
        let needed: u64 = (0..blob_txs)
            .map(|n| crate::blobs::Blobs::per_tx(n) as u64)
            .sum();
        let distinct = needed.min(BLOB_SET as u64) as usize;
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let start = Instant::now();
        let made = crate::blobs::Blobs::make(distinct, form, threads)
            .map_err(|e| LoadError::Other(e.to_string()))?;
        say(&format!(
            "made {distinct} distinct blobs with {} ({}: {}) in {:.1} s for {blob_txs} blob transactions carrying {needed}",
            form.as_str(),
            fork.name,
            fork.source,
            start.elapsed().as_secs_f64()
        ));
        targets.blobs = Some(Arc::new(made));
    }
    let addresses: Vec<Address> = senders.iter().map(|s| s.address).collect();
    let nonces = chain::nonces(&c.client, &addresses).await?;
    let start_block = chain::head(&c.client).await?;
    Ok(Prepared {
        senders,
        nonces,
        targets,
        fees,
        fee_info,
        gas,
        start_block,
        fork,
    })
}

/// Chain id, nonces, token, store, gas, fees and the blobs' form: what
/// pre-signed transactions depend on.
type SigningKey = (
    u64,
    Vec<u64>,
    Option<Address>,
    Option<Address>,
    GasLimits,
    Fees,
    Option<crate::blobs::Form>,
);

/// Pre-signed transactions, kept to reuse on every node whose chain id,
/// nonces and contract addresses match.
#[derive(Debug, Clone)]
pub struct Presigned {
    /// What the signatures depend on.
    key: SigningKey,
    /// The plan.
    pub plan: Vec<txs::Planned>,
    /// The signed transactions.
    pub signed: Vec<SignedTx>,
    /// Signing throughput when they were signed.
    pub report: SigningReport,
}

/// Sign the run's transactions for `p`, or reuse `cache` if it matches.
pub fn presign(
    p: &Prepared,
    opts: &Options,
    cache: &mut Option<Presigned>,
    say: &dyn Fn(&str),
) -> Presigned {
    let key = (
        p.fees.chain_id,
        p.nonces.clone(),
        p.targets.token,
        p.targets.store,
        p.gas.clone(),
        p.fees,
        p.targets.blobs.as_ref().map(|b| b.form),
    );
    if let Some(c) = cache
        && c.key == key
    {
        say("reusing the pre-signed transactions (same chain id, nonces and contracts)");
        return c.clone();
    }
    let plan = txs::plan(opts.txs, &p.nonces, &opts.mix);
    let threads = if opts.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        opts.threads
    };
    let (signed, report) = txs::presign(&plan, &p.senders, &p.fees, &p.gas, &p.targets, threads, 1);
    say(&format!(
        "pre-signed {} transactions: {:.0} tx/s serial ({:.1} µs/tx, {:.0}% of bare libsecp256k1 signing at {:.0}/s), {:.0} tx/s on {} threads ({:.0} per core)",
        signed.len(),
        report.serial_tx_per_s,
        report.serial_us_per_tx,
        report.fraction_of_libsecp256k1 * 100.0,
        report.libsecp256k1_sign_per_s,
        report.parallel_tx_per_s,
        report.threads,
        report.per_core_tx_per_s,
    ));
    let out = Presigned {
        key,
        plan,
        signed,
        report,
    };
    *cache = Some(out.clone());
    out
}

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

/// How the timed phase ended early, if it did.
fn stop_reason(c: &Connected, seen: &Seen, interrupted: bool) -> Option<String> {
    if interrupted {
        return Some("interrupted (Ctrl-C)".into());
    }
    if let Err(e) = c.alive("during the timed phase") {
        return Some(e);
    }
    if seen.failures >= 50 {
        return Some(format!(
            "the node stopped answering ({} polls in a row failed: {})",
            seen.failures,
            seen.last_error.as_deref().unwrap_or("?")
        ));
    }
    None
}

/// What every timed phase of a command shares.
#[derive(Clone, Copy)]
pub struct Session<'a> {
    /// The options.
    pub opts: &'a Options,
    /// The generator's ceiling, measured once.
    pub self_test_rate: Option<f64>,
    /// Set by Ctrl-C.
    pub interrupt: &'a Arc<AtomicBool>,
    /// Progress messages for people.
    pub say: &'a (dyn Fn(&str) + Sync),
    /// Draw a live progress line (stderr is a terminal).
    pub live: bool,
}

impl std::fmt::Debug for Session<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("live", &self.live)
            .finish_non_exhaustive()
    }
}

/// The timed phase and everything after it, for one signing mode.
pub async fn run(
    c: &Connected,
    p: &Prepared,
    pre: Option<&Presigned>,
    mode: SignerMode,
    session: &Session<'_>,
) -> Outcome {
    let opts = session.opts;
    // Requests and records.
    let (out, records): (Vec<Outgoing>, Vec<TxRecord>) = match (mode, pre) {
        (SignerMode::Client, Some(pre)) => pre
            .plan
            .iter()
            .zip(&pre.signed)
            .enumerate()
            .map(|(i, (pl, s))| {
                (
                    Outgoing {
                        body: s.body.clone(),
                        expect: Some(s.hash),
                    },
                    TxRecord::planned(i as u64, pl.kind, Some(pl.sender), Some(pl.nonce)),
                )
            })
            .unzip(),
        _ => {
            let from = c.unlocked.unwrap_or_default();
            // Nonces are dyno's even here: nodes may hand concurrent calls
            // from one account the same nonce (anvil does).
            let first = chain::nonces(&c.client, &[from]).await.map_or(0, |n| n[0]);
            opts.mix
                .sequence(opts.txs)
                .into_iter()
                .enumerate()
                .map(|(i, kind)| {
                    let mut call =
                        txs::node_call(i as u64, from, kind, &p.fees, &p.gas, &p.targets);
                    call["nonce"] = serde_json::json!(format!("{:#x}", first + i as u64));
                    (
                        Outgoing {
                            body: txs::node_body(i as u64 + 1, &call),
                            expect: None,
                        },
                        TxRecord::planned(i as u64, kind, None, Some(first + i as u64)),
                    )
                })
                .unzip()
        }
    };
    let phase = Phase {
        mode,
        signing: pre.map(|pre| &pre.report),
        lead: Duration::from_millis(200),
    };
    timed(
        c,
        p,
        records,
        &phase,
        session,
        |t0, stop, progress| async move {
            tokio::time::sleep_until(t0.into()).await;
            send::send_all(
                &c.client,
                &out,
                &opts.schedule,
                &send::Pace {
                    cap: opts.open_loop_cap,
                    t0,
                    check_hashes: true,
                },
                &stop,
                &progress,
            )
            .await
        },
    )
    .await
}

/// What a timed phase is, beside its records.
#[derive(Debug, Clone, Copy)]
pub struct Phase<'a> {
    /// Who signed.
    pub mode: SignerMode,
    /// The signing report, when dyno signed.
    pub signing: Option<&'a SigningReport>,
    /// From now to the start (`t0`): long enough for the senders to be
    /// told it.
    pub lead: Duration,
}

/// The timed phase for `records` (one per planned transaction, in the
/// schedule's order), whoever sends them: `send` is given the start, the
/// stop flag and the progress counters, and returns what happened to each
/// request (`None`: never sent), its times counted from the start. The
/// chain is followed from here, and everything after the sends (inclusion,
/// finality, the recount, the on-chain check, the summary) is the same for
/// every sender: dyno's own on this machine, or a fleet's workers.
pub async fn timed<F, Fut>(
    c: &Connected,
    p: &Prepared,
    mut records: Vec<TxRecord>,
    phase: &Phase<'_>,
    session: &Session<'_>,
    send: F,
) -> Outcome
where
    F: FnOnce(Instant, Arc<AtomicBool>, Arc<Progress>) -> Fut,
    Fut: std::future::Future<Output = Vec<Option<send::Sent>>>,
{
    let Session {
        opts,
        self_test_rate,
        interrupt,
        say,
        live,
    } = *session;
    let mode = phase.mode;
    let seen = Arc::new(Mutex::new(Seen::default()));
    let stop_tracking = Arc::new(AtomicBool::new(false));
    let stop_sending = Arc::new(AtomicBool::new(false));
    let t0 = Instant::now() + phase.lead;
    let scraper = c
        .metrics_url
        .clone()
        .map(|u| crate::scrape::Scraper::start(u, opts.metrics_interval, t0));
    let tracker = tokio::spawn(track::follow(
        c.tracker.clone(),
        p.start_block,
        t0,
        opts.poll,
        seen.clone(),
        stop_tracking.clone(),
    ));
    // Watchdog: node exit, node silence, Ctrl-C; and the node's /proc.
    let progress = Arc::new(Progress::default());
    let sampler = Arc::new(Mutex::new(c.local.as_ref().and_then(|n| {
        n.lock()
            .unwrap_or_else(|pp| pp.into_inner())
            .pid()
            .map(|pid| ProcSampler::new(pid, t0))
    })));
    let reason: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
    let watchdog = {
        let (seen, stop_sending, reason, sampler, interrupt, progress) = (
            seen.clone(),
            stop_sending.clone(),
            reason.clone(),
            sampler.clone(),
            interrupt.clone(),
            progress.clone(),
        );
        let local = c.local.clone();
        let planned = records.len();
        let seen2 = seen.clone();
        let check = move || -> Option<String> {
            let seen = &seen2;
            if interrupt.load(Ordering::Relaxed) {
                return Some("interrupted (Ctrl-C)".into());
            }
            if let Some(n) = &local
                && let Err(e) = n
                    .lock()
                    .unwrap_or_else(|pp| pp.into_inner())
                    .check_alive("during the timed phase")
            {
                return Some(e.to_string());
            }
            let s = seen.lock().unwrap_or_else(|pp| pp.into_inner());
            (s.failures >= 50).then(|| {
                format!(
                    "the node stopped answering ({} polls in a row failed: {})",
                    s.failures,
                    s.last_error.as_deref().unwrap_or("?")
                )
            })
        };
        async move {
            let mut tick = tokio::time::interval(Duration::from_millis(250));
            let mut n = 0u64;
            loop {
                tick.tick().await;
                n += 1;
                if n.is_multiple_of(2)
                    && let Some(s) = sampler.lock().unwrap_or_else(|pp| pp.into_inner()).as_mut()
                {
                    s.sample();
                }
                if let Some(r) = check() {
                    reason
                        .lock()
                        .unwrap_or_else(|pp| pp.into_inner())
                        .get_or_insert(r);
                    stop_sending.store(true, Ordering::SeqCst);
                }
                if live && n.is_multiple_of(4) {
                    let s = seen.lock().unwrap_or_else(|pp| pp.into_inner());
                    eprint!(
                        "\r\x1b[2K  sent {}/{planned} · replies {} ({} errors) · head {} · in blocks {}",
                        progress.sent.load(Ordering::Relaxed),
                        progress.replied.load(Ordering::Relaxed),
                        progress.errors.load(Ordering::Relaxed),
                        s.head.last().map_or(0, |m| m.number),
                        s.hashes.len(),
                    );
                }
            }
        }
    };
    let watchdog = tokio::spawn(watchdog);

    // Send.
    let sends = send(t0, stop_sending.clone(), progress.clone()).await;
    let send_done = Instant::now();
    fill(&mut records, &sends, &opts.schedule);
    let accepted: Vec<B256> = records
        .iter()
        .filter(|r| r.accepted())
        .filter_map(|r| r.hash)
        .collect();

    // Wait for inclusion, then finality.
    let cut = || reason.lock().unwrap_or_else(|pp| pp.into_inner()).clone();
    if cut().is_none() {
        // The timeout runs from the last send, and again from each new
        // inclusion: a node still including (blob transactions go in at
        // a few a block) is waited for; a node that has stopped is not.
        let mut deadline = send_done + opts.inclusion_timeout;
        let mut included = 0;
        loop {
            let (all_in, now_in) = {
                let s = seen.lock().unwrap_or_else(|pp| pp.into_inner());
                let n = accepted.iter().filter(|h| s.hashes.contains(*h)).count();
                (n == accepted.len(), n)
            };
            if now_in > included {
                included = now_in;
                deadline = deadline.max(Instant::now() + opts.inclusion_timeout);
            }
            if all_in || Instant::now() > deadline || cut().is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let mut notes = Vec::new();
    if cut().is_none() && !opts.finality_timeout.is_zero() {
        let last_block = {
            let s = seen.lock().unwrap_or_else(|pp| pp.into_inner());
            s.blocks
                .iter()
                .filter(|b| b.txs.iter().any(|h| accepted.contains(h)))
                .map(|b| b.number)
                .max()
        };
        if let Some(last_block) = last_block {
            say(&format!(
                "waiting up to {:?} for block {last_block} to be finalized",
                opts.finality_timeout
            ));
            let deadline = Instant::now() + opts.finality_timeout;
            loop {
                let (done, unsupported) = {
                    let s = seen.lock().unwrap_or_else(|pp| pp.into_inner());
                    (
                        s.finalized.last().is_some_and(|m| m.number >= last_block),
                        s.unsupported.iter().any(|u| u.contains("`finalized`")),
                    )
                };
                if done || unsupported || cut().is_some() {
                    break;
                }
                if Instant::now() > deadline {
                    notes.push(format!(
                        "block {last_block} was not finalized within {:?} (--finality-timeout)",
                        opts.finality_timeout
                    ));
                    break;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
    stop_tracking.store(true, Ordering::SeqCst);
    let _ = tracker.await;
    let scraped = match scraper {
        Some(s) => tokio::task::spawn_blocking(move || s.finish()).await.ok(),
        None => None,
    };
    if let Some(s) = &scraped
        && s.points.is_empty()
    {
        notes.push(format!(
            "the node's metrics at {} never answered: {}",
            s.url,
            s.last_error.as_deref().unwrap_or("no scrape")
        ));
    }
    watchdog.abort();
    if live {
        eprint!("\r\x1b[2K");
    }
    let duration_s = t0.elapsed().as_secs_f64();
    let interrupted = interrupt.load(Ordering::Relaxed);
    let seen = Arc::try_unwrap(seen).map_or_else(
        |a| std::mem::take(&mut *a.lock().unwrap_or_else(|pp| pp.into_inner())),
        |m| m.into_inner().unwrap_or_else(|pp| pp.into_inner()),
    );
    let incomplete = cut().or_else(|| stop_reason(c, &seen, interrupted));
    notes.extend(seen.unsupported.iter().cloned());

    // Settle every record; ask about the missing; scan the chain.
    let node_up = incomplete.is_none() || interrupted;
    let missing: Vec<B256> = accepted
        .iter()
        .filter(|h| !seen.hashes.contains(*h))
        .copied()
        .collect();
    let known = if node_up && !missing.is_empty() {
        chain::still_known(&c.client, &missing).await
    } else {
        HashMap::new()
    };
    summary::settle(
        &mut records,
        &seen.blocks,
        &seen.safe,
        &seen.finalized,
        &known,
    );
    let mut counts = summary::counts(&records);
    let ours: HashMap<B256, ()> = accepted.iter().map(|h| (*h, ())).collect();
    let mut chain_scan = None;
    let mut onchain_check = None;
    let mut blob_fee = summary::BlobFee {
        update_fraction: p.fork.blob_update_fraction,
        ..Default::default()
    };
    if node_up {
        match scan(&c.client, p.start_block, &ours).await {
            Ok(s) => {
                let matches = s.2 == counts.included;
                chain_scan = Some(ChainScan {
                    from_block: s.0,
                    to_block: s.1,
                    found: s.2,
                    matches,
                });
                if !matches {
                    notes.push(format!(
                        "the chain scan found {} of this run's transactions in blocks {}..={}, but the tracker counted {} included",
                        s.2, s.0, s.1, counts.included
                    ));
                }
            }
            Err(e) => notes.push(format!("the chain scan failed: {e}")),
        }
        let included: Vec<&TxRecord> = records
            .iter()
            .filter(|r| r.block.is_some() && r.hash.is_some())
            .collect();
        let hashes: Vec<B256> = included.iter().filter_map(|r| r.hash).collect();
        match chain::receipts(&c.client, &hashes).await {
            Ok(rs) => {
                counts.reverted = rs
                    .iter()
                    .flatten()
                    .filter(|r| r.status.is_some_and(|s| s.to::<u64>() == 0))
                    .count() as u64;
                // The on-chain check of every included transaction.
                let expected = onchain::expected(&records, &p.targets);
                let pairs: Vec<(&onchain::Expected, &chain::Receipt)> = included
                    .iter()
                    .zip(&rs)
                    .filter_map(|(r, rc)| Some((expected.get(r.index as usize)?, rc.as_ref()?)))
                    .collect();
                let mut check = OnChain::default();
                blob_fee.from_receipts = onchain::receipts(&pairs, &mut check);
                let checked: Vec<&onchain::Expected> = pairs.iter().map(|(e, _)| *e).collect();
                if let Err(e) = onchain::state(
                    &c.client,
                    &checked,
                    p.targets.store.unwrap_or_default(),
                    &mut check,
                )
                .await
                {
                    notes.push(format!("the on-chain check could not read the state: {e}"));
                }
                if check.failures > 0 {
                    notes.push(format!(
                        "the on-chain check failed {} time(s): {}",
                        check.failures,
                        check.problems.first().map_or("", String::as_str)
                    ));
                }
                onchain_check = Some(check);
            }
            Err(e) => notes.push(format!("reading receipts failed: {e}")),
        }
    }

    let lags = summary::lags(&records);
    let threshold_ns = opts.lag_threshold.as_nanos() as u64;
    let late = lags.iter().filter(|&&l| l > threshold_ns).count();
    let late_fraction = if lags.is_empty() {
        0.0
    } else {
        late as f64 / lags.len() as f64
    };
    let throughput = summary::throughput(&records);
    let intended_rate = opts.schedule.mean_rate(opts.txs);
    let generator = GeneratorInfo {
        intended_rate,
        achieved_send_rate: throughput.sent_average,
        lag: summary::latency(&lags),
        lag_threshold_ms: opts.lag_threshold.as_secs_f64() * 1e3,
        late_fraction,
        saturated: intended_rate.is_some() && late_fraction > 0.01,
        max_in_flight: opts.schedule.in_flight(opts.open_loop_cap) as u64,
        connections: opts.connections as u64,
        self_test_rate,
    };
    if generator.saturated {
        notes.push(format!(
            "generator saturated: {:.1}% of sends were more than {:.0} ms behind the schedule; the node was offered less than the intended rate",
            late_fraction * 100.0,
            generator.lag_threshold_ms
        ));
    }
    let (blocks, block_summary) = summary::blocks(&seen.blocks, &ours, &blob_fee);
    let resources = sampler
        .lock()
        .unwrap_or_else(|pp| pp.into_inner())
        .as_ref()
        .and_then(ProcSampler::finish);
    let workload: BTreeMap<String, u32> = opts
        .mix
        .0
        .iter()
        .map(|(k, w)| (k.as_str().to_string(), *w))
        .collect();
    let gas_limits: BTreeMap<String, u64> = opts
        .mix
        .kinds()
        .map(|k| (k.as_str().to_string(), p.gas.of(k)))
        .collect();
    let signing = phase.signing.map(signing_info);
    let result = LoadResult {
        id: format!("load/{}/{}", opts.workload_name, opts.schedule),
        node: c.info.clone(),
        signer: mode.as_str().into(),
        workload,
        schedule: opts.schedule_text.clone(),
        planned: opts.txs as u64,
        accounts: match mode {
            SignerMode::Client => opts.accounts as u64,
            SignerMode::Node => 1,
        },
        fees: p.fee_info.clone(),
        gas_limits,
        signing,
        generator,
        counts,
        throughput,
        latency: summary::latencies(&records),
        chain_scan,
        blocks,
        block_summary,
        resources,
        files: BTreeMap::new(),
        duration_s,
        complete: incomplete.is_none(),
        incomplete_reason: incomplete,
        notes,
        onchain: onchain_check,
        node_metrics: scraped
            .as_ref()
            .filter(|s| !s.points.is_empty())
            .map(crate::scrape::summary),
        fleet: None,
    };
    Outcome {
        result,
        records,
        head: seen.head,
        safe: seen.safe,
        finalized: seen.finalized,
        scraped,
    }
}

/// Put what happened to each request into its record; a request never
/// sent keeps the schedule's intended time.
pub fn fill(records: &mut [TxRecord], sends: &[Option<send::Sent>], schedule: &Schedule) {
    for (r, s) in records.iter_mut().zip(sends) {
        if let Some(s) = s {
            r.intended_ns = s.intended_ns;
            r.sent_ns = Some(s.sent_ns);
            r.replied_ns = Some(s.replied_ns);
            match &s.result {
                Ok(h) => r.hash = Some(*h),
                Err((class, msg)) => {
                    r.error_class = Some(class.clone());
                    r.error = Some(msg.clone());
                }
            }
        } else if let Some(off) = schedule.offset(r.index) {
            r.intended_ns = off.as_nanos() as u64;
        }
    }
}

/// Count this run's transactions in blocks after `start_block`, fetched
/// afresh: (from, to, found).
pub async fn scan(
    client: &Client,
    start_block: u64,
    ours: &HashMap<B256, ()>,
) -> Result<(u64, u64, u64), String> {
    let head = chain::head(client).await.map_err(|e| e.to_string())?;
    if head <= start_block {
        return Ok((start_block + 1, head, 0));
    }
    let blocks = track::fetch_blocks(client, start_block + 1, head).await?;
    let found = blocks
        .iter()
        .flat_map(|b| b.transactions.iter())
        .filter(|h| ours.contains_key(*h))
        .count() as u64;
    Ok((start_block + 1, head, found))
}

/// The format's copy of a signing report.
pub fn signing_info(r: &SigningReport) -> SigningInfo {
    SigningInfo {
        serial_txs: r.serial_txs as u64,
        serial_tx_per_s: r.serial_tx_per_s,
        serial_us_per_tx: r.serial_us_per_tx,
        threads: r.threads as u64,
        parallel_txs: r.parallel_txs as u64,
        parallel_tx_per_s: r.parallel_tx_per_s,
        per_core_tx_per_s: r.per_core_tx_per_s,
        libsecp256k1_sign_per_s: r.libsecp256k1_sign_per_s,
        fraction_of_libsecp256k1: r.fraction_of_libsecp256k1,
    }
}
