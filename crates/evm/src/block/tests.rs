use alloy_consensus::SignableTransaction;
use alloy_consensus::proofs::calculate_transaction_root;
use alloy_primitives::{B64, B256, Bloom, Bytes, Signature, TxKind, U256};

use super::genesis::{LOOP, STORE, TOKEN, token_balance_slot};
use super::signer::RecoveryError;
use super::validator::{check_header, validate};
use super::*;
use crate::precompile::tests::ctx;

fn contracts() -> Contracts {
    Contracts::load(&ctx()).expect("contracts/build")
}

/// A small mix block (3M gas limit, 1.5M filled) on 32 senders.
fn small() -> (Genesis, Block) {
    make_block(&contracts(), 32, Spec::standard(Kind::Mix, 3_000_000)).unwrap()
}

fn err(g: &Genesis, b: &Block) -> BlockError {
    validate(&g.world, &g.header, b).expect_err("the block must be rejected")
}

/// Recompute the transactions root after changing the body.
fn reseal(b: &mut Block) {
    b.header.transactions_root = calculate_transaction_root(&b.transactions);
}

#[test]
fn block_every_kind_validates_and_its_root_matches_a_from_scratch_root() {
    let contracts = contracts();
    let limit = 30_000_000;
    for kind in Kind::ALL {
        let (g, b) = make_block(&contracts, 128, Spec::standard(kind, limit)).unwrap();
        verify_block(&g.world, &g.header, &b).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        let txs = &b.transactions;
        let calls = |to: alloy_primitives::Address| {
            txs.iter().filter(|t| t.tx().to == TxKind::Call(to)).count()
        };
        match kind {
            Kind::Empty => {
                assert!(txs.is_empty());
                assert_eq!(b.header.gas_used, 0);
                // Only the system calls touched the state.
                let v = validate(&g.world, &g.header, &b).unwrap();
                for c in &v.executed.changes {
                    assert!(
                        genesis::SYSTEM_CONTRACTS
                            .iter()
                            .any(|(a, _)| *a == c.address),
                        "{} changed in an empty block",
                        c.address
                    );
                }
            }
            Kind::Transfers => {
                assert_eq!(txs.len() as u64, limit / 2 / 21_000);
                assert_eq!(b.header.gas_used, 21_000 * txs.len() as u64);
                assert!(txs.iter().all(|t| t.tx().input.is_empty()));
            }
            Kind::Mix => {
                assert!(b.header.gas_used <= limit / 2);
                assert!(
                    b.header.gas_used > limit / 2 - 1_000_000,
                    "{}",
                    b.header.gas_used
                );
                assert_eq!(
                    txs.iter().filter(|t| t.tx().to == TxKind::Create).count(),
                    1
                );
                for to in [TOKEN, STORE, LOOP] {
                    assert!(calls(to) > 5, "{to}: {}", calls(to));
                }
            }
            Kind::Full => {
                assert!(b.header.gas_used > limit - 21_000, "{}", b.header.gas_used);
                assert!(txs.len() > 5);
                assert!(txs.iter().all(|t| t.tx().gas_limit <= 1 << 24));
            }
        }
        // Many senders, each with consecutive nonces from 0.
        let mut seen = std::collections::HashMap::new();
        for tx in txs {
            let from = super::signer::recover(tx).unwrap();
            let next = seen.entry(from).or_insert(0u64);
            assert_eq!(tx.tx().nonce, *next);
            *next += 1;
        }
        if kind != Kind::Empty {
            assert!(
                seen.len() > 10.min(txs.len()),
                "{kind:?}: {} senders",
                seen.len()
            );
        }
    }
}

#[test]
fn block_validation_leaves_the_pre_state_untouched() {
    let (g, b) = small();
    let root = g.world.state_root();
    let first = validate(&g.world, &g.header, &b).unwrap();
    let second = validate(&g.world, &g.header, &b).unwrap();
    assert_eq!(first.post.root, second.post.root);
    assert_eq!(first.post.root, b.header.state_root);
    assert_eq!(g.world.state_root(), root);
    assert_ne!(root, b.header.state_root);
    // The token balances the genesis hands out are what the token moves.
    let sender = g.senders[0].address;
    assert_eq!(
        g.world.storage(&TOKEN, &token_balance_slot(sender)),
        U256::from(genesis::TOKEN_BALANCE)
    );
}

#[test]
fn block_a_wrong_state_root_is_rejected_naming_both_roots() {
    let (g, mut b) = small();
    let right = b.header.state_root;
    let wrong = B256::repeat_byte(0x5a);
    b.header.state_root = wrong;
    let e = err(&g, &b);
    assert_eq!(
        e,
        BlockError::StateRoot {
            expected: wrong,
            actual: right
        }
    );
    let msg = e.to_string();
    assert!(
        msg.contains(&wrong.to_string()) && msg.contains(&right.to_string()),
        "{msg}"
    );
}

#[test]
fn block_a_wrong_transactions_root_is_rejected() {
    let (g, mut b) = small();
    let right = b.header.transactions_root;
    b.header.transactions_root = B256::repeat_byte(1);
    assert_eq!(
        err(&g, &b),
        BlockError::TransactionsRoot {
            expected: B256::repeat_byte(1),
            actual: right
        }
    );
    // Dropping or reordering a transaction changes the root too.
    let (g, mut b) = small();
    b.transactions.swap(0, 1);
    assert!(matches!(err(&g, &b), BlockError::TransactionsRoot { .. }));
    let (g, mut b) = small();
    b.transactions.pop();
    assert!(matches!(err(&g, &b), BlockError::TransactionsRoot { .. }));
}

#[test]
fn block_a_wrong_parent_hash_is_rejected() {
    let (g, mut b) = small();
    b.header.parent_hash = B256::repeat_byte(2);
    assert_eq!(
        err(&g, &b),
        BlockError::ParentHash {
            expected: B256::repeat_byte(2),
            actual: g.header.hash_slow()
        }
    );
    // A parent that differs in any field hashes differently.
    let (g, b) = small();
    let mut parent = g.header.clone();
    parent.extra_data = Bytes::from_static(b"another");
    assert!(matches!(
        validate(&g.world, &parent, &b),
        Err(BlockError::ParentHash { .. })
    ));
}

#[test]
fn block_a_bad_signature_is_rejected() {
    let (g, b) = small();
    let resign = |sig: Signature| {
        let mut b = b.clone();
        b.transactions[2] = b.transactions[2].tx().clone().into_signed(sig);
        reseal(&mut b);
        b
    };
    let sig = *b.transactions[2].signature();
    let zero_r = resign(Signature::new(U256::ZERO, sig.s(), sig.v()));
    assert!(matches!(
        err(&g, &zero_r),
        BlockError::Sender {
            index: 2,
            source: RecoveryError::Invalid(_)
        }
    ));
    let n_minus_s = U256::from_str_radix(
        "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141",
        16,
    )
    .unwrap()
        - sig.s();
    let high_s = resign(Signature::new(sig.r(), n_minus_s, !sig.v()));
    assert_eq!(
        err(&g, &high_s),
        BlockError::Sender {
            index: 2,
            source: RecoveryError::HighS
        }
    );
    // A valid signature over other fields recovers an unfunded stranger.
    let mut forged = b.clone();
    let mut tx = b.transactions[2].tx().clone();
    tx.value += U256::from(1);
    forged.transactions[2] = tx.into_signed(sig);
    reseal(&mut forged);
    assert!(matches!(
        err(&g, &forged),
        BlockError::Transaction { index: 2, .. }
    ));
}

#[test]
fn block_wrong_gas_used_receipts_root_or_bloom_are_rejected() {
    let (g, b) = small();
    let mut bad = b.clone();
    bad.header.gas_used -= 1;
    assert_eq!(
        err(&g, &bad),
        BlockError::GasUsed {
            expected: b.header.gas_used - 1,
            actual: b.header.gas_used
        }
    );
    let mut bad = b.clone();
    bad.header.receipts_root = B256::repeat_byte(3);
    assert!(matches!(err(&g, &bad), BlockError::ReceiptsRoot { .. }));
    let mut bad = b.clone();
    bad.header.logs_bloom = Bloom::ZERO;
    assert!(matches!(err(&g, &bad), BlockError::LogsBloom { .. }));
}

#[test]
fn block_header_checks_reject_each_bad_field() {
    let (g, b) = small();
    let parent = &g.header;
    let hash = parent.hash_slow();
    let check = |f: &dyn Fn(&mut Header)| {
        let mut h = b.header.clone();
        f(&mut h);
        check_header(&h, parent, hash)
    };
    assert_eq!(check(&|_| {}), Ok(()));
    assert!(matches!(
        check(&|h| h.number = 2),
        Err(BlockError::Number { .. })
    ));
    assert!(matches!(
        check(&|h| h.timestamp = parent.timestamp),
        Err(BlockError::Timestamp { .. })
    ));
    let delta = parent.gas_limit / 1024;
    assert!(matches!(
        check(&|h| h.gas_limit = parent.gas_limit + delta),
        Err(BlockError::GasLimit { .. })
    ));
    assert!(matches!(
        check(&|h| h.gas_limit = parent.gas_limit - delta),
        Err(BlockError::GasLimit { .. })
    ));
    assert_eq!(
        check(&|h| h.gas_limit = parent.gas_limit + delta - 1),
        Ok(())
    );
    assert!(matches!(
        check(&|h| h.gas_used = h.gas_limit + 1),
        Err(BlockError::GasUsedAboveLimit { .. })
    ));
    assert_eq!(
        check(&|h| h.base_fee_per_gas = Some(genesis::GENESIS_BASE_FEE + 1)),
        Err(BlockError::BaseFee {
            expected: Some(genesis::GENESIS_BASE_FEE),
            actual: Some(genesis::GENESIS_BASE_FEE + 1)
        })
    );
    assert!(matches!(
        check(&|h| h.extra_data = Bytes::from(vec![0u8; 33])),
        Err(BlockError::ExtraData(33))
    ));
    assert!(matches!(
        check(&|h| h.difficulty = U256::from(1)),
        Err(BlockError::NonZero {
            field: "difficulty",
            ..
        })
    ));
    assert!(matches!(
        check(&|h| h.nonce = B64::with_last_byte(1)),
        Err(BlockError::NonZero { field: "nonce", .. })
    ));
    assert!(matches!(
        check(&|h| h.ommers_hash = B256::ZERO),
        Err(BlockError::OmmersHash { .. })
    ));
    assert_eq!(
        check(&|h| h.parent_beacon_block_root = None),
        Err(BlockError::Missing("parent_beacon_block_root", "Cancun"))
    );
    assert_eq!(
        check(&|h| h.requests_hash = None),
        Err(BlockError::Missing("requests_hash", "Prague"))
    );
    assert_eq!(
        check(&|h| h.blob_gas_used = Some(131_072)),
        Err(BlockError::Blobs {
            field: "blob_gas_used",
            value: 131_072
        })
    );
    assert_eq!(
        check(&|h| h.block_access_list_hash = Some(B256::ZERO)),
        Err(BlockError::Unsupported("block_access_list_hash"))
    );
    assert_eq!(
        check(&|h| h.withdrawals_root = None),
        Err(BlockError::MissingWithdrawalsRoot)
    );
}

#[test]
fn block_the_base_fee_follows_eip_1559() {
    let mut parent = Header {
        gas_limit: 30_000_000,
        gas_used: 15_000_000,
        base_fee_per_gas: Some(1_000_000_000),
        ..Header::default()
    };
    assert_eq!(validator::next_base_fee(&parent), Some(1_000_000_000));
    parent.gas_used = 30_000_000;
    assert_eq!(validator::next_base_fee(&parent), Some(1_125_000_000));
    parent.gas_used = 0;
    assert_eq!(validator::next_base_fee(&parent), Some(875_000_000));
}

#[test]
fn block_defs_name_every_limit_and_kind_and_a_workload_reports_its_gas() {
    let defs = defs();
    let ids: Vec<String> = defs.iter().map(|d| d.id()).collect();
    assert_eq!(ids.len(), 12);
    assert!(ids.contains(&"block/validate/30M-transfers".to_string()));
    assert!(ids.contains(&"block/validate/60M-full".to_string()));
    let def = defs.iter().find(|d| d.input == "36M-empty").unwrap();
    let mut w = (def.build)(&ctx()).unwrap();
    assert!(w.facts().is_empty(), "no facts before verification");
    w.verify().unwrap();
    w.run(2);
    // No gas, so no MGas/s: only the transaction count.
    assert_eq!(w.facts(), vec![("transactions", Param::Int(0))]);
    let def = defs.iter().find(|d| d.input == "30M-transfers").unwrap();
    let mut w = (def.build)(&ctx()).unwrap();
    w.verify().unwrap();
    assert_eq!(
        w.facts(),
        vec![
            ("gas_per_op", Param::Int(714 * 21_000)),
            ("transactions", Param::Int(714))
        ]
    );
}

/// The start-of-block system calls, checked against the storage layout
/// their EIPs specify (not against the contracts' code, which ran): the
/// beacon root at `timestamp % 8191 + 8191` beside the timestamp at
/// `timestamp % 8191` (EIP-4788), and the parent's hash at
/// `(number - 1) % 8191` (EIP-2935). The end-of-block dequeues return no
/// request on empty queues, so the requests hash is the empty one.
#[test]
fn block_system_calls_store_what_their_eips_say() {
    let (g, b) = small();
    let v = validate(&g.world, &g.header, &b).unwrap();
    let slot = |address, slot: u64| {
        v.executed
            .changes
            .iter()
            .find(|c| c.address == address)
            .and_then(|c| c.storage.iter().find(|(k, _)| *k == U256::from(slot)))
            .map(|(_, value)| *value)
    };
    const BUFFER: u64 = 8191;
    let h = &b.header;
    let beacons = alloy_eips::eip4788::BEACON_ROOTS_ADDRESS;
    assert_eq!(
        slot(beacons, h.timestamp % BUFFER),
        Some(U256::from(h.timestamp))
    );
    let root = h.parent_beacon_block_root.unwrap();
    assert_eq!(root, producer::beacon_root(h.number));
    assert_eq!(
        slot(beacons, h.timestamp % BUFFER + BUFFER),
        Some(U256::from_be_bytes(root.0))
    );
    let history = alloy_eips::eip2935::HISTORY_STORAGE_ADDRESS;
    assert_eq!(
        slot(history, (h.number - 1) % BUFFER),
        Some(U256::from_be_bytes(g.header.hash_slow().0))
    );
    assert!(v.executed.requests.is_empty());
    assert_eq!(
        h.requests_hash,
        Some(alloy_eips::eip7685::EMPTY_REQUESTS_HASH)
    );
    // A wrong requests hash, or a block whose beacon root is not the one
    // the state was built with, is refused.
    let mut wrong = b.clone();
    wrong.header.requests_hash = Some(B256::ZERO);
    assert!(matches!(err(&g, &wrong), BlockError::RequestsHash { .. }));
    let mut other = b.clone();
    other.header.parent_beacon_block_root = Some(B256::repeat_byte(7));
    assert!(matches!(err(&g, &other), BlockError::StateRoot { .. }));
}
