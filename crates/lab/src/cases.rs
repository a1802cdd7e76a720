//! The adapter cases: which benchmark ids other runtimes can run, and their
//! inputs. Each built-in definition carries its own (`BenchDef::cases`);
//! this module finds them by id.

use std::sync::OnceLock;

use dyno_protocol::{Case, NOOP_ID};
use dyno_workload::{AdapterCases, BuildError, Ctx};
use serde_json::{Map, Value};

/// Every exported id with its cases function, in the registry's order,
/// listed once per process.
fn exported() -> &'static [(String, AdapterCases)] {
    static EXPORTED: OnceLock<Vec<(String, AdapterCases)>> = OnceLock::new();
    EXPORTED.get_or_init(|| {
        let mut out: Vec<(String, AdapterCases)> = Vec::new();
        for d in crate::suites::catalog() {
            let id = d.id();
            if let Some(f) = d.cases
                && !out.iter().any(|(known, _)| *known == id)
            {
                out.push((id, f));
            }
        }
        out
    })
}

/// The cases of `id` for an adapter, or `None` if no definition exports it.
pub fn cases(ctx: &Ctx, id: &str) -> Option<Result<Vec<Case>, BuildError>> {
    if id == NOOP_ID || id == dyno_protocol::SLEEP_ID {
        return Some(Ok(dyno_protocol::noop_cases()));
    }
    let (_, f) = exported().iter().find(|(known, _)| known == id)?;
    f(ctx, id)
}

/// Every exported id: the protocol's no-op, then the definitions' ids.
pub fn ids() -> Vec<String> {
    let mut ids = vec![NOOP_ID.to_string()];
    ids.extend(exported().iter().map(|(id, _)| id.clone()));
    ids
}

/// What an adapter's result of `id` records about its set-up beyond the
/// adapter's own facts (a storage engine's durability and settings).
pub fn parameters(id: &str, implementation: &str) -> Vec<(String, Value)> {
    dyno_db::cases::parameters(id, implementation)
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_json()))
        .collect()
}

/// What one run of `id` may take on a worker: the state suite's worker
/// may write the state in its prepare, and its cases hold only so many
/// fresh keys.
pub fn limits(id: &str) -> dyno_adapter::Limits {
    let default = dyno_adapter::Limits::default();
    dyno_adapter::Limits {
        prepare: dyno_state::cases::prepare_limit(id)
            .map_or(default.prepare, |l| l.max(default.prepare)),
        max_iters: dyno_state::cases::max_iters(id),
    }
}

/// dyno's own check of an output a worker returned.
pub fn check(
    id: &str,
    case: &Case,
    output: &Map<String, Value>,
) -> Result<(), dyno_micro::cases::Wrong> {
    dyno_micro::cases::check(id, case, output)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn root() -> PathBuf {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
    }

    #[test]
    fn a_state_id_may_write_its_state_in_prepare_and_runs_at_most_its_keys() {
        let big = limits("state/sload-cold/10000000-dropped");
        assert_eq!(big.prepare, std::time::Duration::from_secs(3000));
        assert_eq!(big.max_iters, Some(512));
        // Small states keep the default wait, never a shorter one.
        let small = limits("state/sload-cold/10000");
        assert_eq!(small.prepare, dyno_adapter::PREPARE_LIMIT);
        assert_eq!(small.max_iters, Some(512));
        assert_eq!(
            limits("hash/keccak256/32B"),
            dyno_adapter::Limits::default()
        );
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
            let db = id.starts_with("db/")
                || id.starts_with("state/")
                || id == "pow/hashimoto-full/epoch0";
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

    /// The ids the definitions export are the ones the suites' own
    /// lists exported before the definitions carried them (issue 17),
    /// and every one of them yields cases.
    #[test]
    fn every_definition_with_cases_yields_them() {
        let ctx = Ctx {
            vectors: root().join("vectors"),
        };
        let ids = ids();
        // The opcode suite exports one id per input of each portable loop
        // of the operation table (17 when the table came, in issue 52).
        let opcode = ids.iter().filter(|i| i.starts_with("opcode/")).count();
        assert!(opcode >= 17, "{opcode} opcode ids");
        assert_eq!(ids.len(), 238 + opcode + 18 * 4 * 2, "{ids:?}");
        for id in &ids {
            assert!(
                cases(&ctx, id).is_some(),
                "{id} declares cases but has none"
            );
        }
        assert!(cases(&ctx, "net/handshake/remote-geth").is_none());
        assert!(cases(&ctx, "no/such/id").is_none());
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
