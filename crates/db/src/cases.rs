//! The suite's cases for other runtimes' adapters (every db id has them), so that the
//! Go adapter's engines (go-ethereum's Pebble and LevelDB wrappers) run the
//! same operations on the same keys and are checked against the same
//! outputs (`docs/db.md`, "Operations and ids").

use dyno_protocol::Case;
use dyno_workload::{BuildError, Ctx, Param, full_hex, hex};
use serde_json::{Map, Value, json};

use crate::bench::{self, Op, Output};
use crate::dataset::KEYS;
use crate::store;

/// The Go adapter's engines: go-ethereum's own wrappers, opened as
/// `adapters/go/internal/bench/db.go` opens them.
const ADAPTER_ENGINES: [(&str, &str, &str); 2] = [
    (
        "pebble",
        "go-ethereum ethdb/pebble wrapper: pebble.NoSync, WAL on (no fsync per commit)",
        "go-ethereum's pebble.New: cache 256 MiB, 512 file handles, memtables 32 MiB, bloom 10 bits on levels 0-5 (none on the last), Snappy (incompressible blocks stored raw)",
    ),
    (
        "leveldb",
        "go-ethereum ethdb/leveldb wrapper: no sync, journal on (no fsync per commit)",
        "go-ethereum's leveldb.New: 256 MiB (block cache 128 MiB, two 64 MiB write buffers), 512 file handles, bloom 10 bits, Snappy",
    ),
];

/// What a result of `id` on another runtime's `implementation` records
/// beside the adapter's own facts: the data set and the engine's
/// durability and settings (empty for other ids).
pub fn parameters(id: &str, implementation: &str) -> Vec<(&'static str, Param)> {
    if !id.starts_with("db/") {
        return Vec::new();
    }
    let mut p = vec![
        ("keys", Param::Int(KEYS)),
        (
            "dataset",
            Param::Text(format!("v{}", crate::dataset::VERSION)),
        ),
    ];
    if let Some((_, durability, settings)) = ADAPTER_ENGINES
        .iter()
        .find(|(n, _, _)| *n == implementation)
    {
        p.push(("durability", Param::Text((*durability).into())));
        p.push(("engine_settings", Param::Text((*settings).into())));
    }
    p
}

/// The portable cases of `id` over the benchmarks' data set, or `None` if
/// it is not one of the suite's.
pub fn cases(_ctx: &Ctx, id: &str) -> Option<Result<Vec<Case>, BuildError>> {
    let rest = id.strip_prefix("db/")?;
    let (op, input) = rest.split_once('/')?;
    let (op, n) = bench::op(op, input)?;
    Some(Ok(cases_for(
        op,
        n,
        &store::set_dir(&store::root(), KEYS),
        KEYS,
    )))
}

/// `count` cases of `op` over the data set of `n` keys kept in `dir`.
pub fn cases_for(op: Op, count: usize, dir: &std::path::Path, n: u64) -> Vec<Case> {
    bench::indices(op, count, n)
        .iter()
        .enumerate()
        .map(|(j, idx)| {
            let mut input = Map::new();
            input.insert("dir".into(), json!(dir.display().to_string()));
            input.insert("keys".into(), json!(n));
            input.insert("index".into(), json!(idx));
            if op == Op::Mixed {
                input.insert("write".into(), json!(crate::dataset::writes(j as u64)));
            }
            let mut expected = Map::new();
            match bench::expected(op, n, idx) {
                Output::Value(v) => {
                    expected.insert("value".into(), Value::from(full_hex(&v)));
                }
                Output::Digest(d) => {
                    expected.insert("digest".into(), Value::from(hex(d)));
                }
                Output::Scan { count, digest } => {
                    expected.insert("count".into(), json!(count));
                    expected.insert("digest".into(), Value::from(hex(digest)));
                }
            }
            Case { input, expected }
        })
        .collect()
}
