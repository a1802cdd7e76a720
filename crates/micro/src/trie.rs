//! trie suite: Merkle-Patricia trie roots built from scratch.
//!
//! `trie/state-root/<N>` computes the state root of `N` accounts and
//! `trie/storage-root/1000-slots` the storage root of one contract's 1000
//! slots. Each timed call does the full path a client pays for when it
//! commits a state from nothing: hash every key with keccak-256, RLP-encode
//! every value, sort by hashed key and build the trie, hashing every node.
//!
//! Implementations:
//!
//! * `alloy-trie`: reth's path, [`alloy_trie::root`] (`state_root_unhashed`,
//!   `storage_root_unhashed`), which sorts the hashed keys and streams them
//!   through [`alloy_trie::HashBuilder`].
//! * `triehash`: parity's `sec_trie_root` with `keccak_hasher::KeccakHasher`,
//!   values encoded with `rlp` the way OpenEthereum's `BasicAccount` was.
//!
//! The inputs are generated here (see [`account`] and [`slot`]) from the
//! SplitMix64 stream [`seq`]; the expected roots come from `vectors/trie.json`,
//! computed by py-trie, an independent implementation. Adapters for other
//! runtimes must generate the same accounts and slots byte for byte.

use alloy_primitives::{Address, B256, U256};
use alloy_trie::TrieAccount;
use dyno_workload::{BenchDef, BuildError, Cases, Ctx, Param, Workload, hex, seq, unhex};
use keccak_hasher::KeccakHasher;
use serde::Deserialize;

/// The vector file holding the expected roots.
pub const VECTOR_FILE: &str = "trie.json";

/// Account counts of the `trie/state-root/<N>` benchmarks.
pub const STATE_SIZES: [usize; 4] = [100, 1_000, 10_000, 100_000];

/// Slot count of the `trie/storage-root/1000-slots` benchmark.
pub const STORAGE_SLOTS: usize = 1_000;

/// The root of the empty trie, `keccak256(rlp(""))`.
pub const EMPTY_ROOT: [u8; 32] = [
    0x56, 0xe8, 0x1f, 0x17, 0x1b, 0xcc, 0x55, 0xa6, 0xff, 0x83, 0x45, 0xe6, 0x92, 0xc0, 0xf8, 0x6e,
    0x5b, 0x48, 0xe0, 0x1b, 0x99, 0x6c, 0xad, 0xc0, 0x01, 0x62, 0x2f, 0xb5, 0xe3, 0x63, 0xb4, 0x21,
];

/// The hash of empty code, `keccak256("")`.
pub const KECCAK_EMPTY: [u8; 32] = [
    0xc5, 0xd2, 0x46, 0x01, 0x86, 0xf7, 0x23, 0x3c, 0x92, 0x7e, 0x7d, 0xb2, 0xdc, 0xc7, 0x03, 0xc0,
    0xe5, 0x00, 0xb6, 0x53, 0xca, 0x82, 0x27, 0x3b, 0x7b, 0xfa, 0xd8, 0x04, 0x5d, 0x85, 0xa4, 0x70,
];

/// One account of the generated state, in plain fields: each implementation
/// converts it to its own types inside the timed call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Account {
    /// The address; the trie key is `keccak256(address)`.
    pub address: [u8; 20],
    /// The nonce (16 bits wide in the generated set).
    pub nonce: u64,
    /// The balance in wei (96 bits wide in the generated set).
    pub balance: u128,
    /// The root of the account's storage trie.
    pub storage_root: [u8; 32],
    /// The hash of the account's code.
    pub code_hash: [u8; 32],
}

/// Account `i` of the generated state; the state of `N` accounts is
/// accounts `0..N`.
///
/// With `r = seq(0xACC00000 + i, 34)`: the address is `r[0..20]`, the nonce
/// the little-endian `u16` in `r[20..22]`, the balance the big-endian
/// integer in `r[22..34]`. Every eighth account (`i % 8 == 0`) is a contract
/// with `storage_root = seq(0x57000000 + i, 32)` and
/// `code_hash = seq(0xC0DE0000 + i, 32)`; the others have [`EMPTY_ROOT`] and
/// [`KECCAK_EMPTY`]. The trie value is
/// `rlp([nonce, balance, storage_root, code_hash])` with minimal integers.
pub fn account(i: u64) -> Account {
    let r = seq(0xACC0_0000 + i, 34);
    let mut balance = [0u8; 16];
    balance[4..].copy_from_slice(&r[22..34]);
    let (storage_root, code_hash) = if i.is_multiple_of(8) {
        (
            bytes32(&seq(0x5700_0000 + i, 32)),
            bytes32(&seq(0xC0DE_0000 + i, 32)),
        )
    } else {
        (EMPTY_ROOT, KECCAK_EMPTY)
    };
    Account {
        address: r[0..20].try_into().expect("20 bytes"),
        nonce: u64::from(u16::from_le_bytes([r[20], r[21]])),
        balance: u128::from_be_bytes(balance),
        storage_root,
        code_hash,
    }
}

/// The first `n` accounts, [`account`]`(0..n)`.
pub fn accounts(n: usize) -> Vec<Account> {
    (0..n as u64).map(account).collect()
}

/// One storage slot of the generated contract, unhashed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    /// The slot index as a 32-byte big-endian word; the trie key is
    /// `keccak256(key)`.
    pub key: [u8; 32],
    /// The stored word, a big-endian uint256; the trie value is its RLP
    /// encoding as a minimal integer.
    pub value: [u8; 32],
}

/// Storage slot `j`: key `j` as a 32-byte big-endian word, value the
/// big-endian uint256 `seq(0x51070000 + j, 32)`.
pub fn slot(j: u64) -> Slot {
    let mut key = [0u8; 32];
    key[24..].copy_from_slice(&j.to_be_bytes());
    Slot {
        key,
        value: bytes32(&seq(0x5107_0000 + j, 32)),
    }
}

/// The first `n` slots, [`slot`]`(0..n)`.
pub fn slots(n: usize) -> Vec<Slot> {
    (0..n as u64).map(slot).collect()
}

fn bytes32(b: &[u8]) -> [u8; 32] {
    b.try_into().expect("32 bytes")
}

/// State root with alloy-trie, the way reth computes one from scratch:
/// hash the addresses, sort by hashed key, RLP-encode each [`TrieAccount`]
/// and feed the [`alloy_trie::HashBuilder`].
pub fn state_root_alloy(accounts: &[Account]) -> [u8; 32] {
    alloy_trie::root::state_root_unhashed(accounts.iter().map(|a| {
        (
            Address::from(a.address),
            TrieAccount::new(
                a.nonce,
                U256::from(a.balance),
                B256::from(a.storage_root),
                B256::from(a.code_hash),
            ),
        )
    }))
    .0
}

/// Storage root with alloy-trie (reth's `storage_root_unhashed`): hash the
/// slot keys, sort, and feed the RLP of each value to the `HashBuilder`.
pub fn storage_root_alloy(slots: &[Slot]) -> [u8; 32] {
    alloy_trie::root::storage_root_unhashed(
        slots
            .iter()
            .map(|s| (B256::from(s.key), U256::from_be_bytes(s.value))),
    )
    .0
}

/// An account as OpenEthereum's `BasicAccount` encoded it.
struct BasicAccount<'a>(&'a Account);

impl rlp::Encodable for BasicAccount<'_> {
    fn rlp_append(&self, s: &mut rlp::RlpStream) {
        let a = self.0;
        s.begin_list(4);
        s.append(&a.nonce);
        s.append(&a.balance);
        s.append(&a.storage_root.as_slice());
        s.append(&a.code_hash.as_slice());
    }
}

/// State root with triehash, the way parity computed one: RLP-encode each
/// account with `rlp`, then `sec_trie_root::<KeccakHasher>` over
/// `(address, value)`, which hashes the keys, sorts them and builds the trie.
pub fn state_root_triehash(accounts: &[Account]) -> [u8; 32] {
    triehash::sec_trie_root::<KeccakHasher, _, _, _>(
        accounts
            .iter()
            .map(|a| (a.address, rlp::encode(&BasicAccount(a)))),
    )
}

/// Storage root with triehash: `sec_trie_root` over `(slot, rlp(value))`,
/// the value encoded as a minimal big-endian integer (as `rlp` encodes a
/// `U256`).
pub fn storage_root_triehash(slots: &[Slot]) -> [u8; 32] {
    triehash::sec_trie_root::<KeccakHasher, _, _, _>(slots.iter().map(|s| {
        let zeros = s.value.iter().take_while(|&&b| b == 0).count();
        (s.key, rlp::encode(&&s.value[zeros..]))
    }))
}

/// An implementation under test: a state-root and a storage-root function.
#[derive(Debug, Clone, Copy)]
struct Imp {
    name: &'static str,
    krate: &'static str,
    state: fn(&[Account]) -> [u8; 32],
    storage: fn(&[Slot]) -> [u8; 32],
}

const IMPLS: [Imp; 2] = [
    Imp {
        name: "alloy-trie",
        krate: "alloy-trie",
        state: state_root_alloy,
        storage: storage_root_alloy,
    },
    Imp {
        name: "triehash",
        krate: "triehash",
        state: state_root_triehash,
        storage: storage_root_triehash,
    },
];

/// The expected state root of `n` generated accounts, from the vector file.
pub fn expected_state_root(ctx: &Ctx, n: usize, what: &str) -> Result<[u8; 32], BuildError> {
    expected_root(ctx, Want::State(n), what)
}

/// The expected storage root of `n` generated slots, from the vector file.
pub fn expected_storage_root(ctx: &Ctx, n: usize, what: &str) -> Result<[u8; 32], BuildError> {
    expected_root(ctx, Want::Storage(n), what)
}

/// `vectors/trie.json`.
#[derive(Debug, Deserialize)]
struct TrieVectors {
    empty_root: String,
    accounts: Vec<RootVector>,
    storage: Vec<StorageVector>,
}

#[derive(Debug, Deserialize)]
struct RootVector {
    count: u64,
    root: String,
}

#[derive(Debug, Deserialize)]
struct StorageVector {
    slots: u64,
    root: String,
}

/// What a root in the vector file is for.
#[derive(Debug, Clone, Copy)]
enum Want {
    State(usize),
    Storage(usize),
}

/// Read the expected root for `want` from the vector file.
fn expected_root(ctx: &Ctx, want: Want, what: &str) -> Result<[u8; 32], BuildError> {
    let path = ctx.path(VECTOR_FILE);
    let v: TrieVectors = ctx.vector_json(VECTOR_FILE)?;
    let root = |s: &str| -> Result<[u8; 32], BuildError> {
        let b = unhex(s).map_err(|e| BuildError::vectors(&path, format!("root {s:?}: {e}")))?;
        b.try_into().map_err(|b: Vec<u8>| {
            BuildError::vectors(&path, format!("root {s:?} is {} bytes, not 32", b.len()))
        })
    };
    if root(&v.empty_root)? != EMPTY_ROOT {
        return Err(BuildError::vectors(
            &path,
            format!("empty_root is {}, not {}", v.empty_root, hex(EMPTY_ROOT)),
        ));
    }
    let found = match want {
        Want::State(n) => v
            .accounts
            .iter()
            .find(|r| r.count == n as u64)
            .map(|r| &r.root),
        Want::Storage(n) => v
            .storage
            .iter()
            .find(|r| r.slots == n as u64)
            .map(|r| &r.root),
    };
    match found {
        Some(s) => root(s),
        None => Err(BuildError::NoVector {
            path,
            what: what.to_string(),
        }),
    }
}

fn show(o: &[u8; 32]) -> String {
    hex(o)
}

/// A state-root workload: one pre-generated account set, one expected root.
fn state_workload(
    accounts: Vec<Account>,
    expected: [u8; 32],
    f: fn(&[Account]) -> [u8; 32],
) -> Box<dyn Workload> {
    Box::new(Cases::expect(vec![(accounts, expected)], move |a: &Vec<Account>| f(a)).show(show))
}

/// A storage-root workload: one pre-generated slot set, one expected root.
fn storage_workload(
    slots: Vec<Slot>,
    expected: [u8; 32],
    f: fn(&[Slot]) -> [u8; 32],
) -> Box<dyn Workload> {
    Box::new(Cases::expect(vec![(slots, expected)], move |s: &Vec<Slot>| f(s)).show(show))
}

/// The trie benchmarks.
pub fn defs() -> Vec<BenchDef> {
    let mut defs = Vec::new();
    for imp in IMPLS {
        for n in STATE_SIZES {
            let what = format!("trie/state-root/{n} ({})", imp.name);
            defs.push(BenchDef {
                cases: Some(crate::cases::cases),
                group: "trie",
                op: "state-root",
                input: n.to_string(),
                implementation: imp.name,
                version: crate::version(imp.krate),
                params: vec![("accounts", Param::Int(n as u64))],
                build: Box::new(move |ctx| {
                    let expected = expected_root(ctx, Want::State(n), &what)?;
                    Ok(state_workload(accounts(n), expected, imp.state))
                }),
            });
        }
        let n = STORAGE_SLOTS;
        let what = format!("trie/storage-root/{n}-slots ({})", imp.name);
        defs.push(BenchDef {
            cases: Some(crate::cases::cases),
            group: "trie",
            op: "storage-root",
            input: format!("{n}-slots"),
            implementation: imp.name,
            version: crate::version(imp.krate),
            params: vec![("slots", Param::Int(n as u64))],
            build: Box::new(move |ctx| {
                let expected = expected_root(ctx, Want::Storage(n), &what)?;
                Ok(storage_workload(slots(n), expected, imp.storage))
            }),
        });
    }
    defs
}

#[cfg(test)]
mod tests {
    use super::*;
    use tiny_keccak::{Hasher, Keccak};

    use crate::testutil::ctx;

    fn keccak(b: &[u8]) -> [u8; 32] {
        let mut k = Keccak::v256();
        k.update(b);
        let mut out = [0u8; 32];
        k.finalize(&mut out);
        out
    }

    // A minimal RLP encoder, independent of both libraries.
    fn rlp_header(len: usize, short: u8) -> Vec<u8> {
        if len < 56 {
            vec![short + len as u8]
        } else {
            let be = len.to_be_bytes();
            let z = be.iter().take_while(|&&b| b == 0).count();
            let mut h = vec![short + 55 + (be.len() - z) as u8];
            h.extend_from_slice(&be[z..]);
            h
        }
    }

    fn rlp_str(b: &[u8]) -> Vec<u8> {
        if b.len() == 1 && b[0] < 0x80 {
            return b.to_vec();
        }
        let mut out = rlp_header(b.len(), 0x80);
        out.extend_from_slice(b);
        out
    }

    fn rlp_uint(be: &[u8]) -> Vec<u8> {
        let z = be.iter().take_while(|&&b| b == 0).count();
        rlp_str(&be[z..])
    }

    fn rlp_list(items: &[Vec<u8>]) -> Vec<u8> {
        let payload: Vec<u8> = items.concat();
        let mut out = rlp_header(payload.len(), 0xc0);
        out.extend_from_slice(&payload);
        out
    }

    /// The root of a trie holding one leaf, by hand: the leaf's path is all
    /// 64 nibbles of the key (even, so the hex-prefix is `0x20` + key), and
    /// the root is the keccak of the leaf node's RLP.
    fn one_leaf_root(hashed_key: [u8; 32], value: &[u8]) -> [u8; 32] {
        let mut path = vec![0x20];
        path.extend_from_slice(&hashed_key);
        keccak(&rlp_list(&[rlp_str(&path), rlp_str(value)]))
    }

    fn account_rlp(a: &Account) -> Vec<u8> {
        rlp_list(&[
            rlp_uint(&a.nonce.to_be_bytes()),
            rlp_uint(&a.balance.to_be_bytes()),
            rlp_str(&a.storage_root),
            rlp_str(&a.code_hash),
        ])
    }

    fn vectors() -> Option<TrieVectors> {
        let text = std::fs::read_to_string(ctx().path(VECTOR_FILE)).ok()?;
        Some(serde_json::from_str(&text).expect("trie.json parses"))
    }

    fn expected_state(n: usize) -> [u8; 32] {
        expected_root(&ctx(), Want::State(n), "test").expect("trie.json has the root")
    }

    fn check_state(n: usize) {
        let accs = accounts(n);
        let a = state_root_alloy(&accs);
        let t = state_root_triehash(&accs);
        assert_eq!(
            hex(a),
            hex(t),
            "alloy-trie and triehash disagree on {n} accounts"
        );
        assert_eq!(
            hex(a),
            hex(expected_state(n)),
            "py-trie disagrees on {n} accounts"
        );
    }

    #[test]
    fn constants_are_the_hashes_they_claim() {
        assert_eq!(EMPTY_ROOT, keccak(&[0x80]));
        assert_eq!(KECCAK_EMPTY, keccak(&[]));
        assert_eq!(EMPTY_ROOT, alloy_trie::EMPTY_ROOT_HASH.0);
        assert_eq!(KECCAK_EMPTY, alloy_trie::KECCAK_EMPTY.0);
    }

    #[test]
    fn generators_follow_the_spec() {
        let r = seq(0xACC0_0000 + 9, 34);
        let a = account(9);
        assert_eq!(a.address[..], r[..20]);
        assert_eq!(a.nonce, u64::from(r[20]) | u64::from(r[21]) << 8);
        assert_eq!(a.balance.to_be_bytes()[4..], r[22..34]);
        assert_eq!(a.balance >> 96, 0);
        assert_eq!((a.storage_root, a.code_hash), (EMPTY_ROOT, KECCAK_EMPTY));
        let c = account(16);
        assert_eq!(c.storage_root[..], seq(0x5700_0000 + 16, 32)[..]);
        assert_eq!(c.code_hash[..], seq(0xC0DE_0000 + 16, 32)[..]);
        assert_eq!(accounts(10)[..], accounts(20)[..10]);
        let s = slot(258);
        assert_eq!(s.key[30..], [1, 2]);
        assert!(s.key[..30].iter().all(|&b| b == 0));
        assert_eq!(s.value[..], seq(0x5107_0000 + 258, 32)[..]);
        assert_eq!(slots(3)[2], slot(2));
    }

    #[test]
    fn empty_tries_have_the_empty_root() {
        assert_eq!(state_root_alloy(&[]), EMPTY_ROOT);
        assert_eq!(state_root_triehash(&[]), EMPTY_ROOT);
        assert_eq!(storage_root_alloy(&[]), EMPTY_ROOT);
        assert_eq!(storage_root_triehash(&[]), EMPTY_ROOT);
    }

    #[test]
    fn one_account_roots_match_a_hand_built_leaf() {
        // Account 0 is a contract, account 1 an externally owned account.
        for i in [0, 1, 5] {
            let a = account(i);
            let want = one_leaf_root(keccak(&a.address), &account_rlp(&a));
            assert_eq!(
                hex(state_root_alloy(&[a])),
                hex(want),
                "alloy-trie, account {i}"
            );
            assert_eq!(
                hex(state_root_triehash(&[a])),
                hex(want),
                "triehash, account {i}"
            );
        }
    }

    #[test]
    fn one_slot_roots_match_a_hand_built_leaf() {
        let s = slot(7);
        let want = one_leaf_root(keccak(&s.key), &rlp_uint(&s.value));
        assert_eq!(hex(storage_root_alloy(&[s])), hex(want));
        assert_eq!(hex(storage_root_triehash(&[s])), hex(want));
        // A small value: the RLP of a one-byte integer below 0x80 is itself.
        let small = Slot {
            key: slot(7).key,
            value: {
                let mut v = [0u8; 32];
                v[31] = 0x2a;
                v
            },
        };
        let want = one_leaf_root(keccak(&small.key), &[0x2a]);
        assert_eq!(storage_root_alloy(&[small]), want);
        assert_eq!(storage_root_triehash(&[small]), want);
    }

    #[test]
    fn implementations_agree_on_every_prefix_of_a_small_state() {
        // Exercises extension and branch shapes of every size, up to 40 leaves.
        let accs = accounts(40);
        let ss = slots(40);
        for n in 0..=40 {
            assert_eq!(
                state_root_alloy(&accs[..n]),
                state_root_triehash(&accs[..n]),
                "{n}"
            );
            assert_eq!(
                storage_root_alloy(&ss[..n]),
                storage_root_triehash(&ss[..n]),
                "{n}"
            );
        }
    }

    #[test]
    fn vector_file_lists_every_benchmark() {
        let v = vectors().expect("vectors/trie.json exists");
        for n in STATE_SIZES {
            assert!(
                v.accounts.iter().any(|r| r.count == n as u64),
                "{n} accounts"
            );
        }
        assert!(v.storage.iter().any(|r| r.slots == STORAGE_SLOTS as u64));
    }

    #[test]
    fn state_root_100_matches_vectors() {
        check_state(100);
    }

    #[test]
    fn state_root_1000_matches_vectors() {
        check_state(1_000);
    }

    #[test]
    fn state_root_10000_matches_vectors() {
        check_state(10_000);
    }

    #[test]
    #[ignore = "slow in debug builds; the CLI verifies it in release"]
    fn state_root_100000_matches_vectors() {
        check_state(100_000);
    }

    #[test]
    fn storage_root_matches_vectors() {
        let ss = slots(STORAGE_SLOTS);
        let a = storage_root_alloy(&ss);
        assert_eq!(hex(a), hex(storage_root_triehash(&ss)));
        let want = expected_root(&ctx(), Want::Storage(STORAGE_SLOTS), "test").unwrap();
        assert_eq!(hex(a), hex(want));
    }

    #[test]
    fn every_def_builds_and_verifies_except_the_largest() {
        let defs = defs();
        assert_eq!(defs.len(), 2 * (STATE_SIZES.len() + 1));
        for d in defs.iter().filter(|d| d.input != "100000") {
            let mut w = (d.build)(&ctx()).unwrap_or_else(|e| panic!("{}: {e}", d.id()));
            w.verify()
                .unwrap_or_else(|e| panic!("{} {}: {e}", d.id(), d.implementation));
            assert_eq!(w.cases(), 1);
            w.run(2);
        }
        let ids: Vec<String> = defs.iter().map(|d| d.id()).collect();
        assert!(ids.contains(&"trie/state-root/100000".to_string()));
        assert!(ids.contains(&"trie/storage-root/1000-slots".to_string()));
    }

    #[test]
    fn a_wrong_root_fails_verify_naming_both() {
        for imp in IMPLS {
            let accs = accounts(5);
            let actual = (imp.state)(&accs);
            let mut wrong = actual;
            wrong[0] ^= 1;
            let err = state_workload(accs, wrong, imp.state).verify().unwrap_err();
            assert_eq!(err.expected, hex(wrong), "{}", imp.name);
            assert_eq!(err.actual, hex(actual), "{}", imp.name);
            let msg = err.to_string();
            assert!(
                msg.contains(&hex(wrong)) && msg.contains(&hex(actual)),
                "{msg}"
            );

            let ss = slots(5);
            let actual = (imp.storage)(&ss);
            let err = storage_workload(ss, EMPTY_ROOT, imp.storage)
                .verify()
                .unwrap_err();
            assert_eq!(err.expected, hex(EMPTY_ROOT));
            assert_eq!(err.actual, hex(actual));
        }
    }

    /// A scratch vectors directory holding `trie.json` with `contents`.
    fn scratch(name: &str, contents: Option<&str>) -> Ctx {
        let dir = std::env::temp_dir().join(format!("dyno-trie-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(VECTOR_FILE);
        match contents {
            Some(c) => std::fs::write(&file, c).unwrap(),
            None => {
                let _ = std::fs::remove_file(&file);
            }
        }
        Ctx { vectors: dir }
    }

    fn build_error(ctx: &Ctx) -> String {
        let def = defs().into_iter().next().unwrap();
        match (def.build)(ctx) {
            Ok(_) => panic!("built from a bad vector file"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn missing_or_malformed_vectors_name_the_file() {
        let empty = hex(EMPTY_ROOT);
        let cases = [
            ("missing", None),
            ("not-json", Some("{ not json")),
            ("no-accounts", Some(r#"{"empty_root": "0x00"}"#)),
            (
                "bad-hex",
                Some(&*format!(
                    r#"{{"empty_root": "{empty}", "accounts": [{{"count": 100, "root": "0xzz"}}], "storage": []}}"#
                )),
            ),
            (
                "short-root",
                Some(&*format!(
                    r#"{{"empty_root": "{empty}", "accounts": [{{"count": 100, "root": "0xabcd"}}], "storage": []}}"#
                )),
            ),
            (
                "wrong-empty-root",
                Some(
                    r#"{"empty_root": "0x0000000000000000000000000000000000000000000000000000000000000000", "accounts": [], "storage": []}"#,
                ),
            ),
            (
                "no-vector",
                Some(&*format!(
                    r#"{{"empty_root": "{empty}", "accounts": [], "storage": []}}"#
                )),
            ),
        ];
        for (name, contents) in cases {
            let ctx = scratch(name, contents);
            let msg = build_error(&ctx);
            let path = ctx.path(VECTOR_FILE).display().to_string();
            assert!(msg.contains(&path), "{name}: {msg}");
            std::fs::remove_dir_all(&ctx.vectors).unwrap();
        }
    }
}
