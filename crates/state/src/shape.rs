//! The generated state, version 1: what every account, contract and slot
//! holds, drawn from Keccak-256 of a tag so that Python
//! (`vectors/gen/state_shape.py`, which computes the roots in
//! `vectors/state.json`), Rust (here) and Go draw the same state without
//! sharing code. `docs/state.md` ("The generated state") gives the
//! definition and its sources.

use alloy_primitives::{Address, B256, U256, keccak256};

/// The shape's version: part of the store's folder name and marker.
pub const VERSION: u32 = 1;
/// One account in this many is a contract (10%).
pub const CONTRACT_EVERY: u64 = 10;
/// The most slots an ordinary contract holds.
pub const MAX_SLOTS: u64 = 1000;
/// The Zipf weights' scale: weight(k) = SCALE / k².
const ZIPF_SCALE: u64 = 1_000_000_000_000_000;

/// keccak256("dyno-state/v1/" ‖ name ‖ "/" ‖ u64be(x) for each x).
pub fn tag(name: &str, xs: &[u64]) -> B256 {
    let mut data = Vec::with_capacity(16 + name.len() + 8 * xs.len());
    data.extend_from_slice(b"dyno-state/v1/");
    data.extend_from_slice(name.as_bytes());
    data.push(b'/');
    for x in xs {
        data.extend_from_slice(&x.to_be_bytes());
    }
    keccak256(&data)
}

fn u64_at(h: &B256, at: usize) -> u64 {
    u64::from_be_bytes(h[at..at + 8].try_into().expect("8 bytes"))
}

/// What account `i` holds besides code and storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Account {
    /// Its address.
    pub address: Address,
    /// Its nonce, 0-65535.
    pub nonce: u64,
    /// Its balance, 1 to 2^64 wei: never an empty account.
    pub balance: U256,
}

/// Account `i` of any state that has it.
pub fn account(i: u64) -> Account {
    let h = tag("account", &[i]);
    Account {
        address: Address::from_slice(&h[12..]),
        nonce: u64::from(u16::from_be_bytes([h[0], h[1]])),
        balance: U256::from(u64_at(&h, 2)) + U256::from(1),
    }
}

/// True if account `i` is a contract.
pub fn is_contract(i: u64) -> bool {
    i.is_multiple_of(CONTRACT_EVERY)
}

/// Contract `i`'s code: PUSH8 i, POP, `i % 61` JUMPDESTs, STOP (11-71
/// bytes, every contract's different).
pub fn code(i: u64) -> Vec<u8> {
    let mut c = Vec::with_capacity(72);
    c.push(0x67);
    c.extend_from_slice(&i.to_be_bytes());
    c.push(0x50);
    c.extend(std::iter::repeat_n(0x5b, (i % 61) as usize));
    c.push(0x00);
    c
}

/// The cumulative Zipf weights of 1..=MAX_SLOTS slots.
fn cumulative() -> &'static [u64] {
    static TABLE: std::sync::OnceLock<Vec<u64>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut acc = 0u64;
        (1..=MAX_SLOTS)
            .map(|k| {
                acc += ZIPF_SCALE / (k * k);
                acc
            })
            .collect()
    })
}

/// How many slots contract `i` of a state of `n` accounts holds: the
/// token (account 0) `n / 8`, every other contract 1-1000 from a Zipf law
/// of exponent 2.
pub fn slot_count(i: u64, n: u64) -> u64 {
    if i == 0 {
        return token_slots(n);
    }
    let table = cumulative();
    let total = *table.last().expect("a table");
    let u = u64_at(&tag("slots", &[i]), 0) % total;
    table.partition_point(|&c| c <= u) as u64 + 1
}

/// The token's slot count in a state of `n` accounts.
pub fn token_slots(n: u64) -> u64 {
    n / 8
}

/// Slot `j` of contract `i`: its key and its (never zero) value.
pub fn slot(i: u64, j: u64) -> (B256, U256) {
    let v = tag("value", &[i, j]);
    let value = U256::from_be_slice(&v[16..]) | U256::from(1);
    (tag("slot", &[i, j]), value)
}

/// The `m`-th address no generated state holds.
pub fn missing_account(m: u64) -> Address {
    Address::from_slice(&tag("missing-account", &[m])[12..])
}

/// The `m`-th slot key no generated contract holds.
pub fn missing_slot(m: u64) -> B256 {
    tag("missing-slot", &[m])
}

/// `count` distinct indices below `below`, drawn for the pool `name`
/// (the same every run); fewer if `below` is smaller than `count`.
pub fn picks(name: &str, count: usize, below: u64) -> Vec<u64> {
    let want = count.min(below as usize);
    let mut seen = std::collections::HashSet::with_capacity(want);
    let mut out = Vec::with_capacity(want);
    let mut m = 0;
    while out.len() < want {
        let idx = u64_at(&tag(&format!("pick/{name}"), &[m]), 0) % below;
        if seen.insert(idx) {
            out.push(idx);
        }
        m += 1;
    }
    out
}

/// The counts of a state of `n` accounts (what `vectors/state.json` records
/// beside each root).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    /// Accounts.
    pub accounts: u64,
    /// Contracts among them.
    pub contracts: u64,
    /// Storage slots, all contracts.
    pub slots: u64,
    /// Bytes of code, all contracts.
    pub code_bytes: u64,
}

/// The counts of a state of `n` accounts, from the definition (worked out
/// once per size and process: 10⁷ accounts draw 10⁶ slot counts).
pub fn counts(n: u64) -> Counts {
    static KNOWN: std::sync::Mutex<Vec<(u64, Counts)>> = std::sync::Mutex::new(Vec::new());
    let mut known = KNOWN.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, c)) = known.iter().find(|(m, _)| *m == n) {
        return *c;
    }
    let c = count(n);
    known.push((n, c));
    c
}

fn count(n: u64) -> Counts {
    let mut c = Counts {
        accounts: n,
        ..Counts::default()
    };
    for i in (0..n).step_by(CONTRACT_EVERY as usize) {
        c.contracts += 1;
        c.slots += slot_count(i, n);
        c.code_bytes += 11 + i % 61;
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition's first values, as vectors/gen/state_shape.py draws
    /// them (printed by that module; see docs/state.md).
    #[test]
    fn the_draws_follow_the_definition() {
        assert_eq!(code(0), [0x67, 0, 0, 0, 0, 0, 0, 0, 0, 0x50, 0x00]);
        assert_eq!(code(62).len(), 11 + 1);
        assert!(is_contract(0) && is_contract(10) && !is_contract(11));
        assert_eq!(slot_count(0, 10_000), 1250);
        for i in 1..2000 {
            let k = slot_count(i * 10, 10_000);
            assert!((1..=MAX_SLOTS).contains(&k), "{k}");
        }
        let p = picks("x", 100, 120);
        let mut sorted = p.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 100, "picks are distinct");
        assert_eq!(picks("x", 500, 120).len(), 120);
    }
}
