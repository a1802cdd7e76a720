use super::*;
use alloy_eips::eip2718::Decodable2718;

fn fees() -> Fees {
    Fees {
        chain_id: 1337,
        max_fee_per_gas: 100_000_000_000,
        max_priority_fee_per_gas: 1_000_000_000,
        max_fee_per_blob_gas: 7_000_000_000,
    }
}

fn gas() -> GasLimits {
    let mut g = GasLimits::default();
    g.set(Kind::Erc20, 80_000);
    g.set(Kind::Store, 60_000);
    g.set(Kind::Deploy, 300_000);
    g.set(Kind::AccessList, 65_000);
    g.set(Kind::SetCode, 120_000);
    g
}

#[test]
fn every_kind_signs_into_its_own_type_and_recovers_to_its_sender() {
    use alloy_consensus::{Transaction, Typed2718};
    use dyno_eth::signer::recover_hash;
    let signers = Signer::derive_many(b"test", 4);
    let mix = Mix(Kind::ALL.iter().map(|k| (*k, 1)).collect());
    let p = plan(16, &[0; 4], &mix);
    let targets = Targets {
        store: Some(Address::repeat_byte(0x11)),
        token: Some(Address::repeat_byte(0x22)),
        blobs: Some(std::sync::Arc::new(
            Blobs::make(3, crate::blobs::Form::CellProofs, 2).unwrap(),
        )),
        authority_seed: b"seed".to_vec(),
        ..Targets::default()
    };
    for (i, pl) in p.iter().enumerate() {
        let s = sign_one(
            i as u64,
            &signers[pl.sender],
            build(i as u64, pl, &fees(), &gas(), &targets),
        );
        let body: serde_json::Value = serde_json::from_slice(&s.body).unwrap();
        let raw = alloy_primitives::hex::decode(body["params"][0].as_str().unwrap()).unwrap();
        assert_eq!(
            raw.first().copied().filter(|b| *b < 0x7f).unwrap_or(0),
            pl.kind.tx_type()
        );
        // The network form: a blob transaction with its sidecar.
        let pooled =
            alloy_consensus::transaction::PooledTransaction::decode_2718(&mut raw.as_slice())
                .unwrap();
        assert_eq!(pooled.ty(), pl.kind.tx_type(), "{:?}", pl.kind);
        assert_eq!(
            *pooled.hash(),
            s.hash,
            "the hash is of the transaction without its sidecar"
        );
        let (hash, sig) = match &pooled {
            alloy_consensus::EthereumTxEnvelope::Legacy(t) => (t.signature_hash(), *t.signature()),
            alloy_consensus::EthereumTxEnvelope::Eip2930(t) => (t.signature_hash(), *t.signature()),
            alloy_consensus::EthereumTxEnvelope::Eip1559(t) => (t.signature_hash(), *t.signature()),
            alloy_consensus::EthereumTxEnvelope::Eip4844(t) => (t.signature_hash(), *t.signature()),
            alloy_consensus::EthereumTxEnvelope::Eip7702(t) => (t.signature_hash(), *t.signature()),
        };
        assert_eq!(
            recover_hash(hash, &sig).unwrap(),
            signers[pl.sender].address
        );
        assert_eq!(pooled.nonce(), pl.nonce);
        assert_eq!(pooled.gas_limit(), gas().of(pl.kind));
        match pl.kind {
            Kind::Blob => {
                let tx = pooled.as_eip4844().unwrap().tx();
                let sc = tx.sidecar();
                let n = Blobs::per_tx(pl.nth);
                assert_eq!(tx.tx().blob_versioned_hashes.len(), n);
                assert_eq!(sc.cell_proofs.len(), 128 * n, "cell proofs for Osaka");
                assert_eq!(tx.tx().max_fee_per_blob_gas, 7_000_000_000);
            }
            Kind::SetCode => {
                let tx = pooled.as_eip7702().unwrap().tx();
                let auth = &tx.authorization_list[0];
                let who = authority(b"seed", pl.nth).address;
                let signed_by =
                    recover_hash(auth.signature_hash(), &auth.signature().unwrap()).unwrap();
                assert_eq!(signed_by, who);
                assert_eq!(*auth.address(), Address::repeat_byte(0x11));
                assert_eq!(auth.nonce(), 0);
                assert_eq!(tx.to, who, "the call goes through the delegated account");
            }
            Kind::AccessList => {
                let tx = pooled.as_eip2930().unwrap().tx();
                assert_eq!(tx.access_list.0[0].storage_keys, vec![store_slot(i as u64)]);
            }
            Kind::Legacy => {
                let tx = pooled.as_legacy().unwrap().tx();
                assert_eq!(tx.chain_id, Some(1337), "EIP-155");
            }
            _ => {}
        }
    }
}

#[test]
fn blob_transactions_get_senders_of_their_own() {
    let mix = Mix(vec![(Kind::Transfer, 3), (Kind::Blob, 1)]);
    assert_eq!(blob_lane(8, &mix), 6);
    let p = plan(40, &[0; 8], &mix);
    for x in &p {
        assert_eq!(x.kind == Kind::Blob, x.sender >= 6, "{x:?}");
    }
    // Consecutive nonces per sender, in each lane.
    for s in 0..8 {
        let nonces: Vec<u64> = p
            .iter()
            .filter(|x| x.sender == s)
            .map(|x| x.nonce)
            .collect();
        assert_eq!(nonces, (0..nonces.len() as u64).collect::<Vec<_>>());
    }
    assert_eq!(blob_lane(8, &Mix::only(Kind::Blob)), 0);
    assert_eq!(blob_lane(8, &Mix::only(Kind::Store)), 8);
    assert_eq!(
        blob_lane(3, &Mix(vec![(Kind::Transfer, 100), (Kind::Blob, 1)])),
        2
    );
    assert_eq!(
        blob_lane(3, &Mix(vec![(Kind::Transfer, 1), (Kind::Blob, 100)])),
        1
    );
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
    let shipped = include_str!("../../../../specs/load/mixes.toml");
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
