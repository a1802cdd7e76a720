//! Accounts, contracts, fees and gas, prepared on one node before anything is timed.

use super::*;

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

pub(crate) const TOKEN_SUPPLY: u64 = 1_000_000_000_000;

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
