//! The transactions of a load run: what each one does, who sends it with
//! which nonce, and pre-signing them all before the timed phase.
//!
//! Signing uses libsecp256k1's recoverable signature, which returns the
//! recovery id with the signature: no trial recovery to find `v`, the hot
//! spot the FISCO BCOS SDK study removed to go from 8 000 to 30 000 tx/s.

use std::time::Instant;

use alloy_consensus::{
    TxEip1559, TxEip2930, TxEip4844, TxEip4844Variant, TxEip4844WithSidecar, TxEip7702, TxEnvelope,
    TxLegacy, TypedTransaction,
};
use alloy_eips::eip2718::Encodable2718;
use alloy_eips::eip2930::{AccessList, AccessListItem};
use alloy_eips::eip7702::{Authorization, SignedAuthorization};
use alloy_primitives::{Address, B256, Bytes, TxKind, U256, keccak256};
use dyno_eth::abi::calldata;
use dyno_eth::signer::Signer;
use serde::{Deserialize, Serialize};

use crate::blobs::Blobs;

/// What a transaction does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// An EIP-1559 value transfer to a fresh address.
    Transfer,
    /// `Token.transfer(to, 1)` on the ERC-20 deployed before the run.
    Erc20,
    /// `Store.write(seed, 1)`: one fresh storage slot written.
    Store,
    /// The creation of a `Store` contract.
    Deploy,
    /// A type-0 (legacy, EIP-155) value transfer to a fresh address.
    Legacy,
    /// A type-1 (EIP-2930) `Store.write(seed, 1)` whose access list names
    /// the contract and the slot it writes.
    AccessList,
    /// A type-3 (EIP-4844) transaction carrying 1 to 6 blobs
    /// ([`crate::blobs`]), sent to a fresh address.
    Blob,
    /// A type-4 (EIP-7702) transaction whose one authorization, signed by
    /// a fresh account of its own, delegates that account to `Store`; the
    /// transaction then calls the account, so `Store.write(seed, 1)` runs
    /// as the delegated code on the account's own storage.
    SetCode,
}

impl Kind {
    /// Every kind, in a fixed order.
    pub const ALL: [Kind; 8] = [
        Kind::Transfer,
        Kind::Erc20,
        Kind::Store,
        Kind::Deploy,
        Kind::Legacy,
        Kind::AccessList,
        Kind::Blob,
        Kind::SetCode,
    ];

    /// The name used in specs, ids and CSV.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Transfer => "transfer",
            Kind::Erc20 => "erc20",
            Kind::Store => "store",
            Kind::Deploy => "deploy",
            Kind::Legacy => "legacy",
            Kind::AccessList => "accesslist",
            Kind::Blob => "blob",
            Kind::SetCode => "setcode",
        }
    }

    /// The EIP-2718 type its transactions have (0 for legacy), which
    /// their receipts must show.
    pub fn tx_type(self) -> u8 {
        match self {
            Kind::Legacy => 0,
            Kind::AccessList => 1,
            Kind::Transfer | Kind::Erc20 | Kind::Store | Kind::Deploy => 2,
            Kind::Blob => 3,
            Kind::SetCode => 4,
        }
    }

    /// Whether it calls or creates one of the contracts deployed before
    /// the run (`Token`, `Store`).
    pub fn needs_contracts(self) -> bool {
        !matches!(self, Kind::Transfer | Kind::Legacy | Kind::Blob)
    }

    /// Whether its gas is known without asking the node: a plain value
    /// transfer costs 21 000.
    pub fn plain_transfer(self) -> bool {
        matches!(self, Kind::Transfer | Kind::Legacy | Kind::Blob)
    }

    /// Parse a name from a spec or the command line.
    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// Ratios of kinds: `(kind, weight)`, weights positive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mix(pub Vec<(Kind, u32)>);

impl Mix {
    /// Only one kind.
    pub fn only(kind: Kind) -> Self {
        Mix(vec![(kind, 1)])
    }

    /// The kinds with a positive weight.
    pub fn kinds(&self) -> impl Iterator<Item = Kind> + '_ {
        self.0.iter().filter(|(_, w)| *w > 0).map(|(k, _)| *k)
    }

    /// `n` kinds in the mix's exact ratios, spread evenly.
    pub fn sequence(&self, n: usize) -> Vec<Kind> {
        interleave(&self.0, n)
    }
}

/// `n` items in the exact ratios of `weights`, spread evenly (smooth
/// weighted round robin: deterministic, and every prefix is close to the
/// ratio). Empty if every weight is zero.
pub fn interleave<T: Copy>(weights: &[(T, u32)], n: usize) -> Vec<T> {
    let total: i64 = weights.iter().map(|(_, w)| i64::from(*w)).sum();
    let mut current = vec![0i64; weights.len()];
    let mut out = Vec::with_capacity(n);
    if total == 0 {
        return out;
    }
    for _ in 0..n {
        let mut best = 0;
        for (j, (_, w)) in weights.iter().enumerate() {
            current[j] += i64::from(*w);
            if current[j] > current[best] {
                best = j;
            }
        }
        current[best] -= total;
        out.push(weights[best].0);
    }
    out
}

/// The mixes of a `specs/load/mixes.toml` file, by name; `path` names it
/// in errors, which give its line and key (parsed by `dyno_spec::mixes`).
pub fn mixes_from_toml(
    text: &str,
    path: &std::path::Path,
) -> Result<std::collections::BTreeMap<String, Mix>, dyno_spec::SpecError> {
    let kinds: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
    Ok(dyno_spec::mixes::parse_mixes(text, path, &kinds)?
        .into_iter()
        .map(|m| {
            let weights = m
                .weights
                .iter()
                .map(|(k, w)| (Kind::parse(k).expect("parse_mixes checks the kinds"), *w))
                .collect();
            (m.name, Mix(weights))
        })
        .collect())
}

/// The fee every transaction offers, fixed before signing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fees {
    /// EIP-155 chain id.
    pub chain_id: u64,
    /// maxFeePerGas, wei.
    pub max_fee_per_gas: u128,
    /// maxPriorityFeePerGas, wei.
    pub max_priority_fee_per_gas: u128,
    /// maxFeePerBlobGas of blob transactions, wei.
    pub max_fee_per_blob_gas: u128,
}

/// Gas limit per kind (21 000 for a plain transfer when not set).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GasLimits(pub std::collections::BTreeMap<Kind, u64>);

impl GasLimits {
    /// The limit for `kind`.
    pub fn of(&self, kind: Kind) -> u64 {
        self.0.get(&kind).copied().unwrap_or(21_000)
    }

    /// Set the limit of `kind`.
    pub fn set(&mut self, kind: Kind, gas: u64) {
        self.0.insert(kind, gas);
    }
}

/// Addresses, code and blobs the kinds need.
#[derive(Debug, Clone, Default)]
pub struct Targets {
    /// The ERC-20 every sender holds tokens of.
    pub token: Option<Address>,
    /// The `Store` contract.
    pub store: Option<Address>,
    /// `Store`'s creation code (deployments).
    pub store_code: Bytes,
    /// The blobs of blob transactions, made before signing.
    pub blobs: Option<std::sync::Arc<Blobs>>,
    /// The seed the set-code transactions' authorities are derived from.
    pub authority_seed: Vec<u8>,
}

/// The account that authorizes the `n`-th set-code transaction's
/// delegation: derived from `seed` and `n`, used once, never a sender (so
/// geth's pool, which allows a delegated sender one transaction in flight,
/// never holds a sender back).
pub fn authority(seed: &[u8], n: u64) -> Signer {
    Signer::derive(&[b"dyno-load-authority/".as_slice(), seed].concat(), n)
}

/// The storage slot of `Store.slots[keccak256(abi.encode(seed, 0))]`,
/// which `Store.write(seed, 1)` sets to 1 (the mapping is slot 0).
pub fn store_slot(seed: u64) -> B256 {
    let key = keccak256([U256::from(seed).to_be_bytes::<32>(), [0u8; 32]].concat());
    keccak256([key.0, [0u8; 32]].concat())
}

/// What EIP-7702 puts in a delegated account's code: `0xef0100 ‖ address`.
pub fn delegation_code(to: Address) -> Bytes {
    [[0xef, 0x01, 0x00].as_slice(), to.as_slice()]
        .concat()
        .into()
}

/// One planned transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Planned {
    /// Index into the senders.
    pub sender: usize,
    /// Its nonce.
    pub nonce: u64,
    /// What it does.
    pub kind: Kind,
    /// How many of its kind come before it in the plan.
    pub nth: u64,
}

/// Which senders send blob transactions: `blob..` of `senders`, the rest
/// the other kinds. A node keeps an account's blob transactions in a pool
/// of their own (geth's blob pool refuses an account that has transactions
/// in the other pool, and the other pool one with blob transactions), so a
/// mix gives blob transactions their own senders, in proportion to their
/// share (at least one, and at least one left for the rest). Returns the
/// first blob sender.
pub fn blob_lane(senders: usize, mix: &Mix) -> usize {
    let total: u64 = mix.0.iter().map(|(_, w)| u64::from(*w)).sum();
    let blob: u64 = mix
        .0
        .iter()
        .filter(|(k, _)| *k == Kind::Blob)
        .map(|(_, w)| u64::from(*w))
        .sum();
    if blob == 0 {
        return senders;
    }
    if blob == total || senders < 2 {
        return 0;
    }
    let share = ((senders as u64 * blob + total / 2) / total).clamp(1, senders as u64 - 1);
    senders - share as usize
}

/// Plan `n` transactions over `senders` accounts whose next nonces are
/// `nonces`: round robin over senders (blob transactions over their own,
/// [`blob_lane`]), so consecutive nonces of one sender are many sends
/// apart and arrive in order.
pub fn plan(n: usize, nonces: &[u64], mix: &Mix) -> Vec<Planned> {
    let kinds = mix.sequence(n);
    let mut next = nonces.to_vec();
    let senders = nonces.len().max(1);
    let lane = blob_lane(senders, mix);
    let mut turn = [0usize; 2];
    let mut nth = std::collections::BTreeMap::<Kind, u64>::new();
    kinds
        .into_iter()
        .map(|kind| {
            let (first, count, t) = match (kind == Kind::Blob, lane) {
                (true, _) => (lane, senders - lane, 1),
                (false, 0) => (0, senders, 0),
                (false, l) => (0, l, 0),
            };
            let sender = first + turn[t] % count.max(1);
            turn[t] += 1;
            let nonce = next[sender];
            next[sender] += 1;
            let k = nth.entry(kind).or_default();
            let planned = Planned {
                sender,
                nonce,
                kind,
                nth: *k,
            };
            *k += 1;
            planned
        })
        .collect()
}

/// The recipient of transfer `i`: a fresh address, so every transfer
/// touches a new account as real traffic does.
pub fn recipient(i: u64) -> Address {
    let h = keccak256([b"dyno-load-recipient".as_slice(), &i.to_be_bytes()].concat());
    Address::from_slice(&h[12..])
}

/// `transfer(to, amount)` calldata of an ERC-20.
pub fn calldata_transfer(to: Address, amount: U256) -> Bytes {
    calldata(
        "transfer(address,uint256)",
        &[U256::from_be_slice(to.as_slice()), amount],
    )
}

/// To, value and input of a kind's transaction: `i` is its place in the
/// run, `nth` its place among its kind.
pub fn call_of(kind: Kind, i: u64, nth: u64, targets: &Targets) -> (TxKind, U256, Bytes) {
    let write = || calldata("write(uint256,uint256)", &[U256::from(i), U256::from(1u64)]);
    match kind {
        Kind::Transfer | Kind::Legacy => {
            (TxKind::Call(recipient(i)), U256::from(1u64), Bytes::new())
        }
        Kind::Blob => (TxKind::Call(recipient(i)), U256::ZERO, Bytes::new()),
        Kind::Erc20 => (
            TxKind::Call(targets.token.unwrap_or_default()),
            U256::ZERO,
            calldata_transfer(recipient(i), U256::from(1u64)),
        ),
        Kind::Store | Kind::AccessList => (
            TxKind::Call(targets.store.unwrap_or_default()),
            U256::ZERO,
            write(),
        ),
        Kind::SetCode => (
            TxKind::Call(authority(&targets.authority_seed, nth).address),
            U256::ZERO,
            write(),
        ),
        Kind::Deploy => (TxKind::Create, U256::ZERO, targets.store_code.clone()),
    }
}

/// The access list of an `accesslist` transaction: the `Store` contract
/// and the slot `Store.write(i, 1)` sets. Empty for the other kinds.
pub fn access_list(kind: Kind, i: u64, targets: &Targets) -> AccessList {
    match kind {
        Kind::AccessList => AccessList(vec![AccessListItem {
            address: targets.store.unwrap_or_default(),
            storage_keys: vec![store_slot(i)],
        }]),
        _ => AccessList::default(),
    }
}

/// The signed authorization of the `nth` set-code transaction: its own
/// authority ([`authority`]), at nonce 0, delegating to `Store`.
pub fn authorization(chain_id: u64, nth: u64, targets: &Targets) -> SignedAuthorization {
    let auth = Authorization {
        chain_id: U256::from(chain_id),
        address: targets.store.unwrap_or_default(),
        nonce: 0,
    };
    let sig = authority(&targets.authority_seed, nth).sign_hash(auth.signature_hash());
    auth.into_signed(sig)
}

/// The unsigned transaction for plan entry `i`, of its kind's type. A blob
/// transaction carries its sidecar (the network form), so `targets` must
/// hold the run's blobs when the plan has any.
pub fn build(
    i: u64,
    p: &Planned,
    fees: &Fees,
    gas: &GasLimits,
    targets: &Targets,
) -> TypedTransaction {
    let (to, value, input) = call_of(p.kind, i, p.nth, targets);
    let gas_limit = gas.of(p.kind);
    let eip1559 = || TxEip1559 {
        chain_id: fees.chain_id,
        nonce: p.nonce,
        gas_limit,
        max_fee_per_gas: fees.max_fee_per_gas,
        max_priority_fee_per_gas: fees.max_priority_fee_per_gas,
        to,
        value,
        input: input.clone(),
        access_list: access_list(p.kind, i, targets),
    };
    let address = match to {
        TxKind::Call(a) => a,
        TxKind::Create => Address::ZERO,
    };
    match p.kind {
        Kind::Legacy => TxLegacy {
            chain_id: Some(fees.chain_id),
            nonce: p.nonce,
            gas_price: fees.max_fee_per_gas,
            gas_limit,
            to,
            value,
            input,
        }
        .into(),
        Kind::AccessList => TxEip2930 {
            chain_id: fees.chain_id,
            nonce: p.nonce,
            gas_price: fees.max_fee_per_gas,
            gas_limit,
            to,
            value,
            access_list: access_list(p.kind, i, targets),
            input,
        }
        .into(),
        Kind::Blob => {
            let blobs = targets
                .blobs
                .as_ref()
                .expect("a plan with blob transactions has its blobs made in prepare");
            let which = blobs.of_tx(p.nth);
            let tx = TxEip4844 {
                chain_id: fees.chain_id,
                nonce: p.nonce,
                gas_limit,
                max_fee_per_gas: fees.max_fee_per_gas,
                max_priority_fee_per_gas: fees.max_priority_fee_per_gas,
                to: address,
                value,
                access_list: AccessList::default(),
                blob_versioned_hashes: blobs.hashes(&which),
                max_fee_per_blob_gas: fees.max_fee_per_blob_gas,
                input,
            };
            TypedTransaction::Eip4844(TxEip4844Variant::TxEip4844WithSidecar(
                TxEip4844WithSidecar::from_tx_and_sidecar(tx, blobs.sidecar(&which)),
            ))
        }
        Kind::SetCode => TxEip7702 {
            chain_id: fees.chain_id,
            nonce: p.nonce,
            gas_limit,
            max_fee_per_gas: fees.max_fee_per_gas,
            max_priority_fee_per_gas: fees.max_priority_fee_per_gas,
            to: address,
            value,
            access_list: AccessList::default(),
            authorization_list: vec![authorization(fees.chain_id, p.nth, targets)],
            input,
        }
        .into(),
        Kind::Transfer | Kind::Erc20 | Kind::Store | Kind::Deploy => eip1559().into(),
    }
}

/// A signed transaction, ready to send.
#[derive(Debug, Clone)]
pub struct SignedTx {
    /// Its hash, which the node must return.
    pub hash: B256,
    /// The `eth_sendRawTransaction` request body.
    pub body: bytes::Bytes,
}

/// The JSON-RPC body sending raw transaction bytes.
pub fn raw_body(id: u64, raw: &[u8]) -> bytes::Bytes {
    let mut s = String::with_capacity(80 + raw.len() * 2);
    s.push_str(r#"{"jsonrpc":"2.0","id":"#);
    s.push_str(&id.to_string());
    s.push_str(r#","method":"eth_sendRawTransaction","params":["0x"#);
    s.push_str(&alloy_primitives::hex::encode(raw));
    s.push_str(r#""]}"#);
    s.into()
}

/// Sign a transaction of any type into its envelope.
pub fn sign_typed(signer: &Signer, tx: TypedTransaction) -> TxEnvelope {
    match tx {
        TypedTransaction::Legacy(t) => signer.sign(t).into(),
        TypedTransaction::Eip2930(t) => signer.sign(t).into(),
        TypedTransaction::Eip1559(t) => signer.sign(t).into(),
        TypedTransaction::Eip4844(t) => TxEnvelope::Eip4844(signer.sign(t)),
        TypedTransaction::Eip7702(t) => signer.sign(t).into(),
    }
}

/// Sign one transaction and build its request body: the EIP-2718 bytes
/// (a blob transaction's with its sidecar, as the network carries it).
pub fn sign_one(id: u64, signer: &Signer, tx: TypedTransaction) -> SignedTx {
    let signed = sign_typed(signer, tx);
    let raw = signed.encoded_2718();
    SignedTx {
        hash: *signed.tx_hash(),
        body: raw_body(id, &raw),
    }
}

/// Signing throughput, as the SDK study reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SigningReport {
    /// Transactions signed on one thread for the serial figure (7 rounds,
    /// each followed by as many bare signatures).
    pub serial_txs: usize,
    /// Serial: signed transactions per second (sign, RLP-encode, hash, JSON body).
    pub serial_tx_per_s: f64,
    /// Serial: microseconds per transaction.
    pub serial_us_per_tx: f64,
    /// Threads used for the parallel run.
    pub threads: usize,
    /// Transactions signed in parallel (all of the run's).
    pub parallel_txs: usize,
    /// Parallel: transactions per second over all threads.
    pub parallel_tx_per_s: f64,
    /// Parallel rate divided by threads.
    pub per_core_tx_per_s: f64,
    /// Bare libsecp256k1 `sign_ecdsa_recoverable` on one thread, signatures/s:
    /// the ceiling the per-core figure is set against.
    pub libsecp256k1_sign_per_s: f64,
    /// serial_tx_per_s / libsecp256k1_sign_per_s: what building, hashing
    /// and encoding cost on top of the signature itself, on one core.
    pub fraction_of_libsecp256k1: f64,
}

/// Sign every planned transaction on `threads` threads, in contiguous
/// chunks, one per thread, untimed: what [`presign`] times, and what a
/// fleet's orchestrator signs again to know each transaction's hash
/// (signatures are deterministic, RFC 6979). Output order follows `plan`.
pub fn sign_all(
    plan: &[Planned],
    signers: &[Signer],
    fees: &Fees,
    gas: &GasLimits,
    targets: &Targets,
    threads: usize,
    first_id: u64,
) -> Vec<SignedTx> {
    let threads = threads.max(1);
    let tx_of = |i: usize| build(i as u64, &plan[i], fees, gas, targets);
    let mut out: Vec<Option<SignedTx>> = vec![None; plan.len()];
    let chunk = plan.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        for (c, slots) in out.chunks_mut(chunk).enumerate() {
            let tx_of = &tx_of;
            s.spawn(move || {
                for (j, slot) in slots.iter_mut().enumerate() {
                    let i = c * chunk + j;
                    *slot = Some(sign_one(
                        first_id + i as u64,
                        &signers[plan[i].sender],
                        tx_of(i),
                    ));
                }
            });
        }
    });
    out.into_iter()
        .map(|s| s.expect("every slot signed"))
        .collect()
}

/// Sign every planned transaction in parallel on `threads` threads (all
/// cores by default), after timing a serial sample and bare libsecp256k1
/// signing for the report. Output order follows `plan`; ids are `first_id + i`.
pub fn presign(
    plan: &[Planned],
    signers: &[Signer],
    fees: &Fees,
    gas: &GasLimits,
    targets: &Targets,
    threads: usize,
    first_id: u64,
) -> (Vec<SignedTx>, SigningReport) {
    let threads = threads.max(1);
    let tx_of = |i: usize| build(i as u64, &plan[i], fees, gas, targets);

    // Serial against bare libsecp256k1, interleaved in rounds so that a
    // machine whose speed drifts (other work, frequency changes) affects
    // both alike; each figure is the median round's rate.
    let key = secp256k1::SecretKey::from_byte_array([7u8; 32]).expect("a valid key");
    let per_round = plan.len().clamp(1, 400);
    let rounds = 7;
    let mut serial_rates = Vec::with_capacity(rounds);
    let mut bare_rates = Vec::with_capacity(rounds);
    for r in 0..rounds {
        let start = Instant::now();
        for j in 0..per_round {
            let i = (r * per_round + j) % plan.len();
            std::hint::black_box(sign_one(
                first_id + i as u64,
                &signers[plan[i].sender],
                tx_of(i),
            ));
        }
        serial_rates.push(per_round as f64 / start.elapsed().as_secs_f64().max(1e-9));
        let start = Instant::now();
        for j in 0..per_round {
            let digest = keccak256(((r * per_round + j) as u64).to_be_bytes());
            std::hint::black_box(
                secp256k1::SECP256K1
                    .sign_ecdsa_recoverable(secp256k1::Message::from_digest(digest.0), &key),
            );
        }
        bare_rates.push(per_round as f64 / start.elapsed().as_secs_f64().max(1e-9));
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let serial_rate = median(serial_rates);
    let bare_rate = median(bare_rates);
    let serial_n = per_round * rounds;

    // Parallel: all of them, in contiguous chunks, one per thread.
    let start = Instant::now();
    let signed = sign_all(plan, signers, fees, gas, targets, threads, first_id);
    let parallel = start.elapsed();

    let parallel_rate = plan.len() as f64 / parallel.as_secs_f64().max(1e-9);
    let per_core = parallel_rate / threads as f64;
    let report = SigningReport {
        serial_txs: serial_n,
        serial_tx_per_s: serial_rate,
        serial_us_per_tx: 1e6 / serial_rate,
        threads,
        parallel_txs: plan.len(),
        parallel_tx_per_s: parallel_rate,
        per_core_tx_per_s: per_core,
        libsecp256k1_sign_per_s: bare_rate,
        fraction_of_libsecp256k1: serial_rate / bare_rate,
    };
    (signed, report)
}

/// The JSON call object of a kind's transaction (for `eth_estimateGas`
/// and `eth_sendTransaction`): from, to, value, input, and its type's own
/// fields (`type`, an access list, an authorization list); no gas or fees.
pub fn call_json(
    kind: Kind,
    i: u64,
    nth: u64,
    from: Address,
    chain_id: u64,
    targets: &Targets,
) -> serde_json::Value {
    let (to, value, input) = call_of(kind, i, nth, targets);
    let mut call = serde_json::json!({
        "from": from,
        "value": format!("{value:#x}"),
        "input": input,
        "type": format!("{:#x}", kind.tx_type()),
    });
    if let TxKind::Call(to) = to {
        call["to"] = serde_json::json!(to);
    }
    let list = access_list(kind, i, targets);
    if !list.0.is_empty() {
        call["accessList"] = serde_json::Value::Array(
            list.0
                .iter()
                .map(|item| {
                    serde_json::json!({
                        "address": item.address,
                        "storageKeys": item.storage_keys,
                    })
                })
                .collect(),
        );
    }
    if kind == Kind::SetCode {
        let a = authorization(chain_id, nth, targets);
        call["authorizationList"] = serde_json::json!([{
            "chainId": format!("{:#x}", a.chain_id()),
            "address": a.address(),
            "nonce": format!("{:#x}", a.nonce()),
            "yParity": format!("{:#x}", a.y_parity()),
            "r": format!("{:#x}", a.r()),
            "s": format!("{:#x}", a.s()),
        }]);
    }
    call
}

/// The `eth_sendTransaction` call object for plan entry `i`, signed by the
/// node's unlocked account `from` (the A/B's node-signed side). The node
/// picks the nonce. Legacy and access-list transactions offer a gas price,
/// the others EIP-1559 fees; blob and set-code transactions are signed by
/// dyno only (the caller refuses them here).
pub fn node_call(
    i: u64,
    from: Address,
    kind: Kind,
    fees: &Fees,
    gas: &GasLimits,
    targets: &Targets,
) -> serde_json::Value {
    let mut call = call_json(kind, i, i, from, fees.chain_id, targets);
    call["gas"] = serde_json::json!(format!("{:#x}", gas.of(kind)));
    if matches!(kind, Kind::Legacy | Kind::AccessList) {
        call["gasPrice"] = serde_json::json!(format!("{:#x}", fees.max_fee_per_gas));
    } else {
        call["maxFeePerGas"] = serde_json::json!(format!("{:#x}", fees.max_fee_per_gas));
        call["maxPriorityFeePerGas"] =
            serde_json::json!(format!("{:#x}", fees.max_priority_fee_per_gas));
    }
    call
}

/// The `eth_sendTransaction` request body for `call`.
pub fn node_body(id: u64, call: &serde_json::Value) -> bytes::Bytes {
    serde_json::to_vec(&serde_json::json!({
        "jsonrpc": "2.0", "id": id, "method": "eth_sendTransaction", "params": [call],
    }))
    .expect("a JSON value serializes")
    .into()
}

#[cfg(test)]
mod tests;
