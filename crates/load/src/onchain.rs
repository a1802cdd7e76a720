//! The on-chain check of a run: for every included transaction, what the
//! chain shows against what its kind must leave there. The receipt's type
//! is the kind's EIP-2718 type; a blob transaction's receipt shows the
//! blob gas of its blobs; a set-code transaction's authority now has the
//! delegation (`0xef0100 ‖ Store`) as its code and, in its own storage,
//! the slot `Store.write` set through it; an access-list transaction's
//! slot is set in `Store`. A failure is a wrong result.

use std::collections::BTreeMap;

use alloy_primitives::{Address, B256, U256};
use dyno_format::load::OnChain;
use dyno_rpc::Client;
use serde_json::{Value, json};

use crate::blobs::{Blobs, GAS_PER_BLOB};
use crate::chain::{self, Receipt};
use crate::record::TxRecord;
use crate::txs::{self, Kind, Targets};

/// Problems kept in the result; the count has them all.
const KEEP: usize = 20;

/// What one included transaction must show.
#[derive(Debug, Clone, PartialEq)]
pub struct Expected {
    /// Its place in the run.
    pub index: u64,
    /// Its kind.
    pub kind: Kind,
    /// Blobs it carries.
    pub blobs: usize,
    /// The set-code authority, which must hold the delegation.
    pub authority: Option<Address>,
    /// A storage slot it sets to 1: (account, slot).
    pub slot: Option<(Address, B256)>,
}

/// What each of `records` must show, from its kind and its place among
/// its kind (the plan's order).
pub fn expected(records: &[TxRecord], targets: &Targets) -> Vec<Expected> {
    let mut nth: BTreeMap<Kind, u64> = BTreeMap::new();
    records
        .iter()
        .map(|r| {
            let n = nth.entry(r.kind).or_default();
            let k = *n;
            *n += 1;
            let store = targets.store.unwrap_or_default();
            let authority = (r.kind == Kind::SetCode)
                .then(|| txs::authority(&targets.authority_seed, k).address);
            Expected {
                index: r.index,
                kind: r.kind,
                blobs: if r.kind == Kind::Blob {
                    Blobs::per_tx(k)
                } else {
                    0
                },
                authority,
                slot: match r.kind {
                    Kind::AccessList => Some((store, txs::store_slot(r.index))),
                    Kind::SetCode => authority.map(|a| (a, txs::store_slot(r.index))),
                    _ => None,
                },
            }
        })
        .collect()
}

/// The receipts' side of the check (types, blob gas), and the blob base
/// fee per block the receipts show.
pub fn receipts(checked: &[(&Expected, &Receipt)], out: &mut OnChain) -> BTreeMap<u64, u128> {
    let mut fees = BTreeMap::new();
    for (e, r) in checked {
        out.checked += 1;
        // A receipt without `type` says nothing of it (taken as 0, a
        // legacy transaction's check could never fail).
        let ty = r.tx_type.map(|t| t.to::<u64>());
        let shown = ty.map_or("missing".into(), |t| t.to_string());
        *out.by_type.entry(shown.clone()).or_default() += 1;
        if ty != Some(u64::from(e.kind.tx_type())) {
            fail(
                out,
                format!(
                    "transaction {} ({}): its receipt says type {shown}, not {}",
                    e.index,
                    e.kind.as_str(),
                    e.kind.tx_type()
                ),
            );
        }
        if e.kind == Kind::Blob {
            out.blob_txs += 1;
            out.blobs += e.blobs as u64;
            let used = r.blob_gas_used.map_or(0, |g| g.to::<u64>());
            out.blob_gas_used += used;
            let want = e.blobs as u64 * GAS_PER_BLOB;
            if used != want {
                fail(
                    out,
                    format!(
                        "blob transaction {}: its receipt shows {used} blob gas, not {want} ({} blobs)",
                        e.index, e.blobs
                    ),
                );
            }
            match r.blob_gas_price {
                Some(p) => {
                    fees.insert(r.block_number.to::<u64>(), p.to::<u128>());
                }
                None => fail(
                    out,
                    format!(
                        "blob transaction {}: its receipt has no blobGasPrice",
                        e.index
                    ),
                ),
            }
        }
    }
    fees
}

/// The state's side: every authority's code and every written slot, read
/// in batches.
pub async fn state(
    client: &Client,
    checked: &[&Expected],
    store: Address,
    out: &mut OnChain,
) -> Result<(), chain::ChainError> {
    let authorities: Vec<(u64, Address)> = checked
        .iter()
        .filter_map(|e| e.authority.map(|a| (e.index, a)))
        .collect();
    let calls: Vec<(&str, Value)> = authorities
        .iter()
        .map(|(_, a)| ("eth_getCode", json!([a, "latest"])))
        .collect();
    // Read as text: a node's malformed answer is this check's failure, not
    // an error that hides the rest.
    let codes: Vec<String> =
        chain::batched(client, &calls, 200, "reading the authorities' code").await?;
    let want = txs::delegation_code(store);
    for ((index, a), code) in authorities.iter().zip(&codes) {
        if code.eq_ignore_ascii_case(&want.to_string()) {
            out.delegations += 1;
        } else {
            fail(
                out,
                format!(
                    "set-code transaction {index}: authority {a:#x} has code {code}, not the delegation {want}"
                ),
            );
        }
    }
    let slots: Vec<(u64, Address, B256)> = checked
        .iter()
        .filter_map(|e| e.slot.map(|(a, s)| (e.index, a, s)))
        .collect();
    let calls: Vec<(&str, Value)> = slots
        .iter()
        .map(|(_, a, s)| ("eth_getStorageAt", json!([a, s, "latest"])))
        .collect();
    let values: Vec<U256> =
        chain::batched(client, &calls, 200, "reading the written slots").await?;
    for ((index, a, s), v) in slots.iter().zip(&values) {
        out.slots += 1;
        if *v != U256::from(1u64) {
            fail(
                out,
                format!("transaction {index}: slot {s} of {a:#x} holds {v}, not the 1 written"),
            );
        }
    }
    Ok(())
}

fn fail(out: &mut OnChain, problem: String) {
    out.failures += 1;
    if out.problems.len() < KEEP {
        out.problems.push(problem);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::{U64, U128};

    fn receipt(ty: u64, blob_gas: Option<u64>) -> Receipt {
        Receipt {
            status: Some(U64::from(1)),
            block_number: U64::from(7),
            contract_address: None,
            tx_type: Some(U64::from(ty)),
            blob_gas_used: blob_gas.map(U64::from),
            blob_gas_price: blob_gas.map(|_| U128::from(3)),
        }
    }

    fn records(kinds: &[Kind]) -> Vec<TxRecord> {
        kinds
            .iter()
            .enumerate()
            .map(|(i, k)| TxRecord::planned(i as u64, *k, Some(0), Some(i as u64)))
            .collect()
    }

    /// Against dyno's null sink, which answers `eth_getCode` with `0x01`
    /// (no delegation) and `eth_getStorageAt` with `0x1` (the value
    /// written): every set-code authority is reported, no slot is.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_authority_without_the_delegation_is_reported() {
        let sink = dyno_rpc::NullSink::start(dyno_rpc::SinkOptions::default())
            .await
            .unwrap();
        let client = dyno_rpc::Client::connect(&sink.endpoint(), Default::default())
            .await
            .unwrap();
        let t = Targets {
            store: Some(Address::repeat_byte(1)),
            authority_seed: b"s".to_vec(),
            ..Targets::default()
        };
        let e = expected(
            &records(&[Kind::SetCode, Kind::AccessList, Kind::SetCode]),
            &t,
        );
        let checked: Vec<&Expected> = e.iter().collect();
        let mut out = OnChain::default();
        state(&client, &checked, Address::repeat_byte(1), &mut out)
            .await
            .unwrap();
        assert_eq!((out.delegations, out.slots), (0, 3));
        assert_eq!(out.failures, 2, "{:?}", out.problems);
        assert!(
            out.problems[0].contains("has code 0x1, not the delegation 0xef0100"),
            "{:?}",
            out.problems
        );
        sink.stop().await;
    }

    #[test]
    fn right_receipts_pass_and_a_wrong_type_or_blob_gas_fails() {
        let t = Targets {
            store: Some(Address::repeat_byte(1)),
            authority_seed: b"s".to_vec(),
            ..Targets::default()
        };
        let kinds = [Kind::Legacy, Kind::Blob, Kind::Blob, Kind::SetCode];
        let e = expected(&records(&kinds), &t);
        assert_eq!((e[1].blobs, e[2].blobs), (1, 2));
        assert_eq!(e[3].authority, Some(txs::authority(b"s", 0).address));
        let good = [
            receipt(0, None),
            receipt(3, Some(GAS_PER_BLOB)),
            receipt(3, Some(2 * GAS_PER_BLOB)),
            receipt(4, None),
        ];
        let pairs: Vec<_> = e.iter().zip(good.iter()).collect();
        let mut out = OnChain::default();
        let fees = receipts(&pairs, &mut out);
        assert_eq!(out.failures, 0, "{:?}", out.problems);
        assert_eq!((out.checked, out.blob_txs, out.blobs), (4, 2, 3));
        assert_eq!(out.blob_gas_used, 3 * GAS_PER_BLOB);
        assert_eq!(fees.get(&7), Some(&3));
        assert_eq!(out.by_type["3"], 2);

        // A node that mined the legacy transaction as type 2 and dropped a
        // blob: both reported.
        let bad = [
            receipt(2, None),
            receipt(3, Some(GAS_PER_BLOB)),
            receipt(3, Some(GAS_PER_BLOB)),
            receipt(4, None),
        ];
        let pairs: Vec<_> = e.iter().zip(bad.iter()).collect();
        let mut out = OnChain::default();
        receipts(&pairs, &mut out);
        assert_eq!(out.failures, 2);
        assert!(
            out.problems[0].contains("type 2, not 0"),
            "{:?}",
            out.problems
        );
        assert!(
            out.problems[1].contains("131072 blob gas, not 262144"),
            "{:?}",
            out.problems
        );

        // A node whose receipts carry no type: the legacy transaction's
        // check fails too (a missing type is not type 0).
        let untyped: Vec<Receipt> = good
            .iter()
            .cloned()
            .map(|mut r| {
                r.tx_type = None;
                r
            })
            .collect();
        let pairs: Vec<_> = e.iter().zip(untyped.iter()).collect();
        let mut out = OnChain::default();
        receipts(&pairs, &mut out);
        assert_eq!(out.failures, 4, "{:?}", out.problems);
        assert!(
            out.problems[0].contains("type missing, not 0"),
            "{:?}",
            out.problems
        );
        assert_eq!(out.by_type["missing"], 4);
    }
}
