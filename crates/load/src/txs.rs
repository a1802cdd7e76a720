//! The transactions of a load run: what each one does, who sends it with
//! which nonce, and pre-signing them all before the timed phase.
//!
//! Signing uses libsecp256k1's recoverable signature, which returns the
//! recovery id with the signature: no trial recovery to find `v`, the hot
//! spot the FISCO BCOS SDK study removed to go from 8 000 to 30 000 tx/s.

use std::time::Instant;

use alloy_consensus::TxEip1559;
use alloy_eips::eip2718::Encodable2718;
use alloy_primitives::{Address, B256, Bytes, TxKind, U256, keccak256};
use dyno_eth::abi::calldata;
use dyno_eth::signer::Signer;
use serde::{Deserialize, Serialize};

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
}

impl Kind {
    /// Every kind, in a fixed order.
    pub const ALL: [Kind; 4] = [Kind::Transfer, Kind::Erc20, Kind::Store, Kind::Deploy];

    /// The name used in specs, ids and CSV.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Transfer => "transfer",
            Kind::Erc20 => "erc20",
            Kind::Store => "store",
            Kind::Deploy => "deploy",
        }
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
}

/// Gas limit per kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GasLimits {
    /// Value transfer.
    pub transfer: u64,
    /// ERC-20 transfer.
    pub erc20: u64,
    /// Storage write.
    pub store: u64,
    /// Contract creation.
    pub deploy: u64,
}

impl GasLimits {
    /// The limit for `kind`.
    pub fn of(&self, kind: Kind) -> u64 {
        match kind {
            Kind::Transfer => self.transfer,
            Kind::Erc20 => self.erc20,
            Kind::Store => self.store,
            Kind::Deploy => self.deploy,
        }
    }
}

/// Addresses and code the contract kinds need.
#[derive(Debug, Clone, Default)]
pub struct Targets {
    /// The ERC-20 every sender holds tokens of.
    pub token: Option<Address>,
    /// The `Store` contract.
    pub store: Option<Address>,
    /// `Store`'s creation code (deployments).
    pub store_code: Bytes,
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
}

/// Plan `n` transactions over `senders` accounts whose next nonces are
/// `nonces`: round robin over senders, so consecutive nonces of one sender
/// are `senders` sends apart and arrive in order.
pub fn plan(n: usize, nonces: &[u64], mix: &Mix) -> Vec<Planned> {
    let kinds = mix.sequence(n);
    let mut next = nonces.to_vec();
    let senders = nonces.len().max(1);
    kinds
        .into_iter()
        .enumerate()
        .map(|(i, kind)| {
            let sender = i % senders;
            let nonce = next[sender];
            next[sender] += 1;
            Planned {
                sender,
                nonce,
                kind,
            }
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

/// To, value and input of a kind's `i`-th transaction.
pub fn call_of(kind: Kind, i: u64, targets: &Targets) -> (TxKind, U256, Bytes) {
    match kind {
        Kind::Transfer => (TxKind::Call(recipient(i)), U256::from(1u64), Bytes::new()),
        Kind::Erc20 => (
            TxKind::Call(targets.token.unwrap_or_default()),
            U256::ZERO,
            calldata_transfer(recipient(i), U256::from(1u64)),
        ),
        Kind::Store => (
            TxKind::Call(targets.store.unwrap_or_default()),
            U256::ZERO,
            calldata("write(uint256,uint256)", &[U256::from(i), U256::from(1u64)]),
        ),
        Kind::Deploy => (TxKind::Create, U256::ZERO, targets.store_code.clone()),
    }
}

/// The unsigned transaction for plan entry `i`.
pub fn build(i: u64, p: &Planned, fees: &Fees, gas: &GasLimits, targets: &Targets) -> TxEip1559 {
    let (to, value, input) = call_of(p.kind, i, targets);
    TxEip1559 {
        chain_id: fees.chain_id,
        nonce: p.nonce,
        gas_limit: gas.of(p.kind),
        max_fee_per_gas: fees.max_fee_per_gas,
        max_priority_fee_per_gas: fees.max_priority_fee_per_gas,
        to,
        value,
        input,
        ..TxEip1559::default()
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

/// Sign one transaction and build its request body.
pub fn sign_one(id: u64, signer: &Signer, tx: TxEip1559) -> SignedTx {
    let signed = signer.sign(tx);
    let raw = signed.encoded_2718();
    SignedTx {
        hash: *signed.hash(),
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
    let mut out: Vec<Option<SignedTx>> = vec![None; plan.len()];
    let chunk = plan.len().div_ceil(threads).max(1);
    let start = Instant::now();
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
    let parallel = start.elapsed();
    let signed: Vec<SignedTx> = out
        .into_iter()
        .map(|s| s.expect("every slot signed"))
        .collect();

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

/// The `eth_sendTransaction` call object for plan entry `i`, signed by the
/// node's unlocked account `from` (the A/B's node-signed side). The node
/// picks the nonce.
pub fn node_call(
    i: u64,
    from: Address,
    kind: Kind,
    fees: &Fees,
    gas: &GasLimits,
    targets: &Targets,
) -> serde_json::Value {
    let (to, value, input) = call_of(kind, i, targets);
    let mut call = serde_json::json!({
        "from": from,
        "value": format!("{value:#x}"),
        "gas": format!("{:#x}", gas.of(kind)),
        "maxFeePerGas": format!("{:#x}", fees.max_fee_per_gas),
        "maxPriorityFeePerGas": format!("{:#x}", fees.max_priority_fee_per_gas),
        "input": input,
    });
    if let TxKind::Call(to) = to {
        call["to"] = serde_json::json!(to);
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
mod tests {
    use super::*;
    use alloy_eips::eip2718::Decodable2718;

    fn fees() -> Fees {
        Fees {
            chain_id: 1337,
            max_fee_per_gas: 100_000_000_000,
            max_priority_fee_per_gas: 1_000_000_000,
        }
    }

    fn gas() -> GasLimits {
        GasLimits {
            transfer: 21_000,
            erc20: 80_000,
            store: 60_000,
            deploy: 300_000,
        }
    }

    #[test]
    fn mix_keeps_its_ratios_in_every_prefix() {
        let mix = Mix(vec![
            (Kind::Transfer, 7),
            (Kind::Erc20, 2),
            (Kind::Deploy, 1),
        ]);
        let seq = mix.sequence(1000);
        let count = |k| seq.iter().filter(|&&x| x == k).count();
        assert_eq!(count(Kind::Transfer), 700);
        assert_eq!(count(Kind::Erc20), 200);
        assert_eq!(count(Kind::Deploy), 100);
        let first10 = &seq[..10];
        assert_eq!(first10.iter().filter(|&&k| k == Kind::Deploy).count(), 1);
    }

    #[test]
    fn mixes_parse_and_bad_kinds_are_named() {
        let p = std::path::Path::new("mixes.toml");
        let m = mixes_from_toml("[mix.a]\ntransfer = 3\nerc20 = 1\n", p).unwrap();
        assert_eq!(m["a"], Mix(vec![(Kind::Erc20, 1), (Kind::Transfer, 3)]));
        let e = mixes_from_toml("[mix.b]\nswap = 1\n", p)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("mixes.toml:2: unknown kind \"swap\""), "{e}");
        let shipped = include_str!("../../../specs/load/mixes.toml");
        assert!(mixes_from_toml(shipped, p).unwrap().contains_key("mix"));
    }

    #[test]
    fn plan_round_robins_senders_with_consecutive_nonces() {
        let p = plan(7, &[5, 0, 9], &Mix::only(Kind::Transfer));
        let got: Vec<(usize, u64)> = p.iter().map(|x| (x.sender, x.nonce)).collect();
        assert_eq!(
            got,
            vec![(0, 5), (1, 0), (2, 9), (0, 6), (1, 1), (2, 10), (0, 7)]
        );
    }

    #[test]
    fn presigned_transactions_decode_and_recover_to_their_sender() {
        let signers = Signer::derive_many(b"test", 3);
        let p = plan(
            30,
            &[0, 0, 0],
            &Mix(vec![(Kind::Transfer, 1), (Kind::Store, 1)]),
        );
        let targets = Targets {
            store: Some(Address::repeat_byte(0x11)),
            ..Targets::default()
        };
        let (signed, report) = presign(&p, &signers, &fees(), &gas(), &targets, 2, 100);
        assert_eq!(signed.len(), 30);
        assert_eq!(report.parallel_txs, 30);
        assert!(report.serial_tx_per_s > 0.0 && report.fraction_of_libsecp256k1 > 0.0);
        for (i, s) in signed.iter().enumerate() {
            let body: serde_json::Value = serde_json::from_slice(&s.body).unwrap();
            assert_eq!(body["id"], 100 + i as u64);
            assert_eq!(body["method"], "eth_sendRawTransaction");
            let raw = alloy_primitives::hex::decode(body["params"][0].as_str().unwrap()).unwrap();
            assert_eq!(keccak256(&raw), s.hash);
            let env = alloy_consensus::TxEnvelope::decode_2718(&mut raw.as_slice()).unwrap();
            let tx = env.as_eip1559().unwrap();
            assert_eq!(tx.tx().nonce, p[i].nonce);
            let from = dyno_eth::signer::recover(tx).unwrap();
            assert_eq!(from, signers[p[i].sender].address);
        }
    }

    #[test]
    fn node_calls_omit_the_nonce_and_the_recipient_of_a_creation() {
        let t = Targets {
            store_code: Bytes::from_static(&[0x60, 0x00]),
            ..Targets::default()
        };
        let c = node_call(3, Address::ZERO, Kind::Deploy, &fees(), &gas(), &t);
        assert!(c.get("nonce").is_none() && c.get("to").is_none());
        assert_eq!(c["input"], "0x6000");
        let c = node_call(3, Address::ZERO, Kind::Transfer, &fees(), &gas(), &t);
        assert_eq!(c["to"], serde_json::json!(recipient(3)));
        assert_eq!(c["gas"], "0x5208");
    }
}
