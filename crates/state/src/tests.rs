//! The suite against its independent vectors, on states held in memory
//! (the MDBX path's own test is in `tests/mdbx.rs`).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use alloy_primitives::{B256, U256, keccak256};
use dyno_workload::{Ctx, Workload};

use crate::access::{self, ACCESSES, POOL};
use crate::bench::StateWorkload;
use crate::cache::Cache;
use crate::layout::{self, StoredAccount};
use crate::shape;
use crate::store::{self, Memory, StateError, StateStore};

pub(crate) fn ctx() -> Ctx {
    Ctx {
        vectors: Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors"),
    }
}

/// The 10⁴-account state, written once for every test here.
fn small() -> &'static [(Vec<u8>, Vec<u8>)] {
    static PAIRS: OnceLock<Vec<(Vec<u8>, Vec<u8>)>> = OnceLock::new();
    PAIRS.get_or_init(|| {
        let m = Memory::default();
        store::generate(&m, N, &mut |_| {}).unwrap();
        let mut out = Vec::new();
        m.scan(&mut |k, v| {
            out.push((k.to_vec(), v.to_vec()));
            true
        })
        .unwrap();
        out
    })
}

const N: u64 = 10_000;

fn memory() -> Box<Memory> {
    let m = Memory::default();
    m.write(small()).unwrap();
    Box::new(m)
}

fn no_reopen(_: &Path) -> Result<Box<dyn StateStore>, StateError> {
    unreachable!("a warm benchmark never reopens its store")
}

fn workload(store: Box<dyn StateStore>, name: &str) -> StateWorkload {
    let a = access::find(name).unwrap();
    StateWorkload::new(store, no_reopen, PathBuf::new(), a, Cache::Warm, N)
}

#[test]
fn the_generated_states_have_the_independent_roots() {
    for n in [1_000, N] {
        let m = Memory::default();
        store::generate(&m, n, &mut |_| {}).unwrap();
        let want = crate::vectors::root(&ctx(), n).unwrap();
        assert_eq!(
            store::state_root(&m, Path::new("mem")).unwrap(),
            want,
            "{n} accounts"
        );
    }
}

#[test]
fn every_access_is_verified_and_reports_its_gas() {
    let mut gas = std::collections::BTreeMap::new();
    for a in ACCESSES {
        let mut w = workload(memory(), a.name);
        w.verify().unwrap_or_else(|m| panic!("{}: {m:?}", a.name));
        assert_eq!(w.cases(), POOL, "{}", a.name);
        let facts = w.facts();
        let g = facts
            .iter()
            .find(|(k, _)| *k == "gas_per_op")
            .map(|(_, v)| v.to_json().as_u64().unwrap())
            .unwrap();
        gas.insert(a.name, g);
        // Every timed transaction is checked too.
        assert!(w.time(POOL as u64).unwrap().is_ok(), "{}", a.name);
        assert!(w.time(POOL as u64 + 1).unwrap().is_err(), "past the pool");
    }
    // Osaka's prices show through the loops: a cold SLOAD is 2 000 gas
    // dearer than a warm one, a cold account touch 2 500 dearer.
    assert_eq!(gas["sload-cold"] - gas["sload-warm"], 2_000);
    assert_eq!(gas["sload-missing"], gas["sload-cold"]);
    assert_eq!(gas["balance-cold"] - gas["balance-warm"], 2_500);
    assert_eq!(gas["extcodesize-cold"], gas["balance-cold"]);
}

#[test]
fn store_reads_show_the_second_read_of_extcodesize() {
    let reads = |name: &str| {
        let mut w = workload(memory(), name);
        w.verify().unwrap();
        w.facts()
            .into_iter()
            .find(|(k, _)| *k == "store_reads_per_op")
            .map(|(_, v)| v.to_json().as_f64().unwrap())
            .unwrap()
    };
    assert_eq!(reads("balance-cold"), 1.0);
    assert_eq!(reads("extcodesize-cold"), 2.0, "account, then code");
    assert_eq!(reads("sload-cold"), 1.0);
    assert_eq!(reads("sload-warm"), 0.0);
}

/// The store answers wrong for one key a benchmark reads: verification
/// reports the mismatch, and the timed transaction would too.
#[test]
fn a_wrong_database_answer_is_reported_wrong() {
    let token = keccak256(shape::account(0).address);
    // One slot of the token, picked by the SLOAD benchmarks, one off.
    let (key, value) = access::keys(access::find("sload-cold").unwrap(), N)[7];
    let m = memory();
    m.set(
        &layout::storage_key(&token, &layout::hash_slot(&key)),
        layout::encode_value(&(value + U256::from(1))),
    );
    let mut w = workload(m, "sload-cold");
    let e = w.verify().unwrap_err();
    assert!(e.case.contains("accesses"), "{e:?}");
    assert_ne!(e.expected, e.actual);

    // The same slot's original value is what an SSTORE reads first.
    let m = memory();
    m.set(
        &layout::storage_key(&token, &layout::hash_slot(&key)),
        layout::encode_value(&(value + U256::from(1))),
    );
    let e = workload(m, "sstore-modify").verify().unwrap_err();
    assert!(e.expected.contains("before"), "{e:?}");

    // One account's balance.
    let (addr, _) = access::keys(access::find("balance-cold").unwrap(), N)[3];
    let hashed = keccak256(&addr[12..]);
    let k = layout::account_key(&hashed);
    let m = memory();
    let mut read = Vec::new();
    store::Reader::read(&*m.snapshot(), &k, &mut read).unwrap();
    let mut a = StoredAccount::decode(&read).unwrap();
    a.balance += U256::from(1);
    m.set(&k, a.encode());
    assert!(workload(m, "balance-cold").verify().is_err());

    // A store that says a missing account exists.
    let (missing, _) = access::keys(access::find("extcodehash-missing").unwrap(), N)[0];
    let m = memory();
    let leaf = StoredAccount {
        nonce: 0,
        balance: U256::from(1),
        storage_root: layout::EMPTY_ROOT,
        code_hash: layout::KECCAK_EMPTY,
    };
    m.set(
        &layout::account_key(&keccak256(&missing[12..])),
        leaf.encode(),
    );
    assert!(workload(m, "extcodehash-missing").verify().is_err());
}

#[test]
fn a_damaged_store_fails_the_root_check() {
    let m = memory();
    let good = store::state_root(&*m, Path::new("mem")).unwrap();
    assert_eq!(good, crate::vectors::root(&ctx(), N).unwrap());
    // A changed slot: its account's leaf no longer matches.
    let (k, v) = small()
        .iter()
        .find(|(k, _)| k[0] == layout::STORAGE)
        .unwrap()
        .clone();
    m.set(&k, [v.clone(), vec![0]].concat());
    let e = store::state_root(&*m, Path::new("mem")).unwrap_err();
    assert!(e.to_string().contains("storage hashes to"), "{e}");
    // A key outside the layout.
    let m = memory();
    m.set(b"zz", vec![1]);
    assert!(store::state_root(&*m, Path::new("mem")).is_err());
}

fn open_memory(_: &Path) -> Result<Box<dyn StateStore>, StateError> {
    Ok(Box::new(Memory::default()))
}

#[test]
fn a_state_is_written_once_and_a_half_written_one_is_rewritten() {
    let root = tempfile::tempdir().unwrap();
    let want = crate::vectors::root(&ctx(), 1_000).unwrap();
    let dir = store::state_dir(root.path(), 1_000, "memory");
    // Half written: a folder without its marker is removed and written
    // again.
    std::fs::create_dir_all(dir.join("db")).unwrap();
    std::fs::write(dir.join("db/leftover"), b"x").unwrap();
    let mut said = Vec::new();
    let (s, at) = store::open_state("memory", open_memory, root.path(), 1_000, &want, &mut |l| {
        said.push(l)
    })
    .unwrap();
    assert_eq!(at, dir);
    assert!(!dir.join("db/leftover").exists());
    assert_eq!(store::state_root(s.as_ref(), &dir).unwrap(), want);
    let marker = std::fs::read_to_string(dir.join(store::READY)).unwrap();
    assert!(marker.contains(&want.to_string()), "{marker}");
    assert!(
        said[0].starts_with("writing the state of 1000 accounts"),
        "{said:?}"
    );

    // Marked ready, but the store (memory, gone) does not hold the state:
    // refused, not timed. (This process has checked the folder already, so
    // a second root check happens only in a new process: forget it.)
    store::forget_checked(&dir);
    let e = store::open_state(
        "memory",
        open_memory,
        root.path(),
        1_000,
        &want,
        &mut |_| {},
    )
    .unwrap_err();
    assert!(matches!(e, StateError::Damaged { .. }), "{e}");
    assert!(e.to_string().contains("delete the folder"), "{e}");
}

#[test]
fn too_little_disk_is_refused_before_anything_is_written() {
    let root = tempfile::tempdir().unwrap();
    let n = 1_000_000_000_000_000;
    let e = store::open_state(
        "memory",
        open_memory,
        root.path(),
        n,
        &B256::ZERO,
        &mut |_| {},
    )
    .unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, StateError::NoSpace { .. }), "{text}");
    assert!(
        text.contains("MB are free") && text.contains("DYNO_STATE_DIR"),
        "{text}"
    );
    assert!(!store::state_dir(root.path(), n, "memory").exists());
}

#[test]
fn ids_name_the_size_and_the_cache_state() {
    use crate::bench::{input, parse_input};
    assert_eq!(input(1_000_000, Cache::Warm), "1000000");
    assert_eq!(input(10_000, Cache::Dropped), "10000-dropped");
    assert_eq!(parse_input("10000-dropped"), Some((10_000, Cache::Dropped)));
    assert_eq!(parse_input("100000"), Some((100_000, Cache::Warm)));
    assert_eq!(parse_input("x"), None);
    let defs = crate::defs();
    assert!(defs.iter().any(|d| d.id() == "state/sload-cold/1000000"));
    assert_eq!(defs.len(), ACCESSES.len() * 4 * 2);
}
