//! The suite's cases for other runtimes' adapters: go-ethereum's state
//! stack in the Go adapter (`adapters/go/internal/bench/state.go`) writes
//! the same generated state (its root checked against the same vector),
//! runs the same program over the same keys, and must return the same
//! sums (docs/state.md).

use alloy_primitives::U256;
use dyno_protocol::Case;
use dyno_workload::{BuildError, Ctx, full_hex};
use serde_json::{Map, Value, json};

use crate::access;
use crate::bench::{GROUP, parse_input};
use crate::cache::Cache;
use crate::{store, vectors};

/// The case of `id`, or `None` if it is not one of the suite's: the state's
/// folder, size and root, whether to evict the page cache, the program and
/// its keys; expected, the program's output for 2 accesses and for every
/// key.
pub fn cases(ctx: &Ctx, id: &str) -> Option<Result<Vec<Case>, BuildError>> {
    let rest = id.strip_prefix(GROUP)?.strip_prefix('/')?;
    let (name, input) = rest.split_once('/')?;
    let a = access::find(name)?;
    let (n, cache) = parse_input(input)?;
    Some(vectors::root(ctx, n).map(|root| {
        let keys = access::keys(a, n);
        let word = |count: usize| {
            Value::from(full_hex(
                &access::expected(a, &keys, count).to_be_bytes::<32>(),
            ))
        };
        let mut input = Map::new();
        input.insert("dir".into(), json!(store::root_dir().display().to_string()));
        input.insert("accounts".into(), json!(n));
        input.insert("evicted".into(), json!(cache == Cache::Dropped));
        input.insert("root".into(), json!(root.to_string()));
        input.insert("code".into(), Value::from(full_hex(&access::program(a))));
        let flat: Vec<u8> = keys.iter().flat_map(|(k, _)| k.0).collect();
        input.insert("keys".into(), Value::from(full_hex(&flat)));
        // What the timed loop checks after every run: the output for each
        // count of accesses (1 to all), and an SSTORE's slots before and
        // after.
        let sums: Vec<u8> = (1..=keys.len())
            .flat_map(|count| access::expected(a, &keys, count).to_be_bytes::<32>())
            .collect();
        input.insert("sums".into(), Value::from(full_hex(&sums)));
        if let Some(writes) = access::writes(a, &keys) {
            let words = |pick: fn(&(U256, U256)) -> U256| -> Value {
                let flat: Vec<u8> = writes
                    .iter()
                    .flat_map(|w| pick(w).to_be_bytes::<32>())
                    .collect();
                Value::from(full_hex(&flat))
            };
            input.insert("originals".into(), words(|w| w.0));
            input.insert("written".into(), words(|w| w.1));
        }
        input.insert(
            "creates".into(),
            json!(matches!(a.op, access::Op::Create | access::Op::Create2)),
        );
        let mut expected = Map::new();
        expected.insert("sum_2".into(), word(2.min(keys.len())));
        expected.insert("sum_all".into(), word(keys.len()));
        vec![Case { input, expected }]
    }))
}

/// The longest a worker may take to prepare a state id: it may write the
/// state first. geth's stack wrote 10⁶ accounts in about 30 s here and
/// 10⁷ in more than ten minutes (docs/state.md); 300 µs per account
/// leaves room for a slower disk.
pub fn prepare_limit(id: &str) -> Option<std::time::Duration> {
    let rest = id.strip_prefix(GROUP)?.strip_prefix('/')?;
    let (_, input) = rest.split_once('/')?;
    let (n, _) = parse_input(input)?;
    Some(std::time::Duration::from_micros(n.saturating_mul(300)))
}

/// The most iterations one run of a state id may take: its keys.
pub fn max_iters(id: &str) -> Option<u64> {
    id.strip_prefix(GROUP)?
        .starts_with('/')
        .then_some(access::POOL as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_id_has_one_case_with_its_keys_and_sums() {
        let ctx = crate::tests::ctx();
        let c = cases(&ctx, "state/sload-cold/10000-dropped")
            .unwrap()
            .unwrap();
        assert_eq!(c.len(), 1);
        let input = &c[0].input;
        assert_eq!(input["accounts"], 10_000);
        assert_eq!(input["evicted"], true);
        let keys = input["keys"].as_str().unwrap();
        assert_eq!(keys.len(), 2 + 64 * access::POOL);
        assert!(c[0].expected["sum_all"].as_str().unwrap().starts_with("0x"));
        // A sum for every count, the last the whole pool's.
        let sums = input["sums"].as_str().unwrap();
        assert_eq!(sums.len(), 2 + 64 * access::POOL);
        assert_eq!(
            &sums[sums.len() - 64..],
            &c[0].expected["sum_all"].as_str().unwrap()[2..]
        );
        assert!(input.get("originals").is_none());
        assert_eq!(input["creates"], false);
        let c = cases(&ctx, "state/sstore-modify/10000").unwrap().unwrap();
        assert_eq!(
            c[0].input["written"].as_str().unwrap().len(),
            2 + 64 * access::POOL
        );
        assert_eq!(
            c[0].input["originals"].as_str().unwrap().len(),
            2 + 64 * access::POOL
        );
        let c = cases(&ctx, "state/create2/10000").unwrap().unwrap();
        assert_eq!(c[0].input["creates"], true);
        assert!(cases(&ctx, "state/no-such/10000").is_none());
        assert!(cases(&ctx, "db/get/single").is_none());
        assert_eq!(
            max_iters("state/sload-cold/10000"),
            Some(access::POOL as u64)
        );
        assert_eq!(max_iters("stateful/x/y"), None);
        assert_eq!(
            prepare_limit("state/balance/10000000-dropped"),
            Some(std::time::Duration::from_secs(3000))
        );
        assert_eq!(prepare_limit("state/balance/x"), None);
        assert_eq!(prepare_limit("hash/keccak256/32B"), None);
        assert_eq!(max_iters("hash/keccak256/32B"), None);
        // A size the vectors do not hold: an error naming the file.
        let e = cases(&ctx, "state/sload-cold/12345").unwrap().unwrap_err();
        assert!(e.to_string().contains("state.json"), "{e}");
    }
}
