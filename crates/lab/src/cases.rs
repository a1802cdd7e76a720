//! The adapter cases: which benchmark ids other runtimes can run, and their
//! inputs, the built-in suites' vectors in the adapter protocol's form.

use dyno_protocol::{Case, NOOP_ID};
use dyno_workload::{BuildError, Ctx};
use serde_json::{Map, Value};

/// The cases of `id` for an adapter, or `None` if no suite exports it.
pub fn cases(ctx: &Ctx, id: &str) -> Option<Result<Vec<Case>, BuildError>> {
    if id == NOOP_ID {
        return Some(Ok(dyno_protocol::noop_cases()));
    }
    dyno_micro::portable::cases(ctx, id)
        .or_else(|| dyno_evm::precompile::portable(ctx, id))
        .or_else(|| dyno_db::portable::cases(id))
        .or_else(|| dyno_net::portable::cases(id))
        .or_else(|| dyno_pow::portable::cases(id))
}

/// Every exported id.
pub fn ids() -> Vec<String> {
    let mut ids = vec![NOOP_ID.to_string()];
    ids.extend(dyno_micro::portable::ids());
    ids.extend(dyno_evm::precompile::portable_ids());
    ids.extend(dyno_db::portable::ids());
    ids.extend(dyno_net::portable::ids());
    ids.extend(dyno_pow::portable::ids());
    ids
}

/// What an adapter's result of `id` records about its set-up beyond the
/// adapter's own facts (a storage engine's durability and settings).
pub fn parameters(id: &str, implementation: &str) -> Vec<(String, Value)> {
    dyno_db::portable::parameters(id, implementation)
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_json()))
        .collect()
}

/// dyno's own check of an output a worker returned.
pub fn check(
    id: &str,
    case: &Case,
    output: &Map<String, Value>,
) -> Result<(), dyno_micro::portable::Wrong> {
    dyno_micro::portable::check(id, case, output)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn root() -> PathBuf {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
    }

    /// The fixture every adapter's tests replay: one `prepare` request per
    /// exported id, with at most three cases, leaving out inputs above
    /// 8 KiB (but for one 100 KiB hash) so the file stays small.
    fn fixture() -> String {
        let ctx = Ctx {
            vectors: root().join("vectors"),
        };
        let mut out = String::new();
        for id in ids() {
            let big = id.ends_with("/100KiB") && id != "hash/keccak256/100KiB";
            let large_body = id.starts_with("jsonrpc/") && !id.ends_with("/100");
            let large_trie = id.starts_with("trie/state-root/") && !id.ends_with("/100");
            // The db and full-dataset cases name this machine's data folders.
            let db = id.starts_with("db/") || id == "pow/hashimoto-full/epoch0";
            if big || large_body || large_trie || db {
                continue;
            }
            let mut cases = cases(&ctx, &id).unwrap().unwrap();
            cases.truncate(3);
            let size = serde_json::to_string(&cases).unwrap().len();
            let whole =
                id.contains("100KiB") || id.starts_with("jsonrpc/") || id.starts_with("trie/");
            if size > 8 * 1024 && !whole {
                continue;
            }
            out.push_str(&dyno_protocol::encode(&dyno_protocol::Request::Prepare {
                id,
                implementation: String::new(),
                cases,
            }));
        }
        out
    }

    #[test]
    fn adapter_fixture_is_current() {
        let path = root().join("adapters/testdata/prepare.jsonl");
        let want = fixture();
        if std::env::var_os("DYNO_BLESS").is_some() {
            std::fs::write(&path, &want).unwrap();
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "{} is out of date: run `DYNO_BLESS=1 cargo test -p dyno-lab adapter_fixture`",
            path.display()
        );
    }

    #[test]
    fn every_exported_id_builds_and_its_expected_output_passes_the_check() {
        let ctx = Ctx {
            vectors: root().join("vectors"),
        };
        for id in ids() {
            if id.contains("msm") {
                continue; // the large MSM inputs make this slow; the fixture covers the small ones
            }
            let cases = cases(&ctx, &id).unwrap().unwrap();
            for c in &cases {
                assert_eq!(check(&id, c, &c.expected), Ok(()), "{id}");
            }
        }
    }
}
