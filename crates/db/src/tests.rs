//! Every engine built in holds the same data set and answers every
//! operation with the same bytes.

use std::path::Path;

use dyno_workload::Workload;

use crate::bench::{DbWorkload, OPS, Op, Output};
use crate::dataset::{self, tests::hex};
use crate::store::{self, Engine, Opened, Store};

/// The small data set of `vectors/db.json` (the benchmarks use 1 000 000).
const N: u64 = 10_000;

fn built() -> Vec<Engine> {
    crate::engines()
        .into_iter()
        .filter(|e| e.open.is_some())
        .collect()
}

fn open(engine: &Engine, root: &Path) -> (Box<dyn Store>, Opened) {
    let open = engine.open.expect("built in");
    store::open_loaded(engine, open, root, N, &mut |_| {}).expect("opens")
}

#[test]
fn every_engine_passes_every_operation_and_gives_the_same_bytes() {
    let root = tempfile::tempdir().unwrap();
    let engines = built();
    assert!(engines.iter().any(|e| e.name == "redb"));
    #[cfg(feature = "engines")]
    assert_eq!(engines.len(), 3, "rocksdb, mdbx and redb are built in");
    let mut answers: Vec<(&str, Vec<Vec<u8>>)> = Vec::new();
    for engine in &engines {
        for &(op, input, o, _) in &OPS {
            // Fewer cases than the benchmarks, for speed; the same kind.
            let (store, _) = open(engine, root.path());
            let dir = store::engine_dir(root.path(), N, engine);
            let mut w = DbWorkload::new(store, engine.name, dir, o, 64, N);
            w.verify()
                .unwrap_or_else(|m| panic!("{} db/{op}/{input}: {m}", engine.name));
            assert!(w.time(100).expect("times itself").is_ok());
        }
        let (store, _) = open(engine, root.path());
        let mut buf = Vec::new();
        let values = (0..1000)
            .map(|j| {
                let key = dataset::key(dataset::access(j, N));
                assert!(store.get(&key, &mut buf).unwrap(), "{}", engine.name);
                buf.clone()
            })
            .collect();
        answers.push((engine.name, values));
    }
    let want: Vec<Vec<u8>> = (0..1000)
        .map(|j| dataset::value(dataset::access(j, N)))
        .collect();
    for (engine, got) in answers {
        assert!(got == want, "{engine} returned other bytes");
    }
}

#[test]
fn scans_and_batches_match_the_python_generator_on_every_engine() {
    let set = dataset::tests::sets()
        .into_iter()
        .find(|s| s.keys == N)
        .expect("the 10 000-key set");
    let root = tempfile::tempdir().unwrap();
    for engine in built() {
        let (store, _) = open(&engine, root.path());
        for it in &set.iterate {
            let mut parts = Vec::new();
            let count = store
                .scan(&dataset::key(it.start), 1000, &mut |k, v| {
                    parts.extend_from_slice(k);
                    parts.extend_from_slice(v);
                })
                .unwrap();
            assert_eq!(count, it.count, "{}", engine.name);
            assert_eq!(hex(&dataset::keccak(&parts)), it.digest, "{}", engine.name);
        }
        for (k, digests) in &set.batch_digests {
            let k: u64 = k.parse().unwrap();
            for (j, want) in digests.iter().enumerate() {
                let keys: Vec<[u8; 32]> = (0..k)
                    .map(|m| dataset::key(dataset::access(j as u64 * k + m, N)))
                    .collect();
                let mut buf = Vec::new();
                assert_eq!(store.get_many(&keys, &mut buf).unwrap(), k as usize);
                assert_eq!(&hex(&dataset::keccak(&buf)), want, "{}", engine.name);
            }
        }
    }
}

#[test]
fn a_loaded_database_is_reused_and_an_unfinished_one_reloaded() {
    let root = tempfile::tempdir().unwrap();
    for engine in built() {
        let (store, how) = open(&engine, root.path());
        assert_eq!(how, Opened::Loaded, "{}", engine.name);
        drop(store);
        let (store, how) = open(&engine, root.path());
        assert_eq!(how, Opened::Reused, "{}", engine.name);
        drop(store);
        // An interrupted load leaves no marker; another version's marker
        // does not count either.
        let marker = store::engine_dir(root.path(), N, &engine).join(store::READY);
        std::fs::write(&marker, store::marker(N, engine.name, "0.0.0")).unwrap();
        let (_, how) = open(&engine, root.path());
        assert_eq!(how, Opened::Loaded, "{}", engine.name);
        assert_eq!(
            std::fs::read_to_string(&marker).unwrap(),
            store::marker(N, engine.name, engine.version)
        );
    }
}

#[test]
fn a_wrong_value_in_the_database_fails_verification() {
    let root = tempfile::tempdir().unwrap();
    for engine in built() {
        let (store, _) = open(&engine, root.path());
        let i = dataset::access(3, N);
        store
            .put(&dataset::key(i), b"not the data set's value")
            .unwrap();
        let dir = store::engine_dir(root.path(), N, &engine);
        let mut w = DbWorkload::new(store, engine.name, dir, Op::Get, 8, N);
        let m = w.verify().expect_err("case 3 reads the wrong value");
        assert_eq!(m.case, "3", "{}", engine.name);
        assert_eq!(
            m.expected,
            Output::Value(dataset::value(i)).show(),
            "{}",
            engine.name
        );
        assert!(
            m.actual.starts_with("0x6e6f74"),
            "{}: {}",
            engine.name,
            m.actual
        );
    }
}

/// A store whose writes do nothing (`single`: nor single puts), the rest
/// passed through.
struct Unwritten {
    inner: Box<dyn Store>,
    single: bool,
}

impl Store for Unwritten {
    fn get(&self, key: &[u8], out: &mut Vec<u8>) -> Result<bool, crate::store::DbError> {
        self.inner.get(key, out)
    }
    fn put(&self, key: &[u8], value: &[u8]) -> Result<(), crate::store::DbError> {
        if self.single {
            return Ok(());
        }
        self.inner.put(key, value)
    }
    fn get_many(
        &self,
        keys: &[[u8; 32]],
        out: &mut Vec<u8>,
    ) -> Result<usize, crate::store::DbError> {
        self.inner.get_many(keys, out)
    }
    fn put_many(&self, _: &[[u8; 32]], _: &[Vec<u8>]) -> Result<(), crate::store::DbError> {
        Ok(())
    }
    fn scan(
        &self,
        from: &[u8],
        limit: usize,
        f: &mut dyn FnMut(&[u8], &[u8]),
    ) -> Result<usize, crate::store::DbError> {
        self.inner.scan(from, limit, f)
    }
    fn settle(&self) -> Result<(), crate::store::DbError> {
        self.inner.settle()
    }
}

#[test]
fn a_write_that_never_lands_fails_verification() {
    // The data set already holds every value a put writes: reading it
    // back alone would pass a store that writes nothing.
    let root = tempfile::tempdir().unwrap();
    let engine = built().into_iter().find(|e| e.name == "redb").unwrap();
    let dir = store::engine_dir(root.path(), N, &engine);
    for (op, single) in [
        (Op::Put, true),
        (Op::BatchPut(10), false),
        (Op::Mixed, true),
    ] {
        {
            let (inner, _) = open(&engine, root.path());
            let store = Box::new(Unwritten { inner, single });
            let mut w = DbWorkload::new(store, engine.name, dir.clone(), op, 64, N);
            let m = w.verify().expect_err("no write lands");
            assert!(!m.case.is_empty(), "{op:?}: {m}");
        }
        // The real store passes the same cases.
        let (real, _) = open(&engine, root.path());
        let mut w = DbWorkload::new(real, engine.name, dir.clone(), op, 64, N);
        w.verify().unwrap_or_else(|m| panic!("{op:?}: {m}"));
    }
}

#[test]
fn portable_cases_carry_the_indices_and_the_expected_outputs() {
    let dir = Path::new("/data/db/v1-10000");
    let set = dataset::tests::sets()
        .into_iter()
        .find(|s| s.keys == N)
        .unwrap();
    let scans = crate::cases::cases_for(Op::Iterate(1000), 4, dir, N);
    for (case, want) in scans.iter().zip(&set.iterate) {
        assert_eq!(case.input["dir"], "/data/db/v1-10000");
        assert_eq!(case.input["keys"], N);
        assert_eq!(case.input["index"], serde_json::json!([want.start]));
        assert_eq!(case.expected["count"], want.count);
        assert_eq!(case.expected["digest"], want.digest.as_str());
    }
    let mixed = crate::cases::cases_for(Op::Mixed, 32, dir, N);
    let writes: Vec<bool> = mixed
        .iter()
        .map(|c| c.input["write"].as_bool().unwrap())
        .collect();
    assert_eq!(writes, (0..32).map(dataset::writes).collect::<Vec<_>>());
    let get = &crate::cases::cases_for(Op::Get, 1, dir, N)[0];
    let value = dataset::value(set.access[0]);
    assert_eq!(
        get.expected["value"],
        dyno_workload::full_hex(&value).as_str()
    );
    let ctx = dyno_workload::Ctx {
        vectors: "/nonexistent".into(),
    };
    assert!(crate::cases::cases(&ctx, "db/get/single").is_some());
    assert!(crate::cases::cases(&ctx, "db/get/double").is_none());
}

#[test]
fn engine_versions_are_the_locked_ones() {
    let lock = include_str!("../../../Cargo.lock");
    let locked = |name: &str| {
        let at = lock
            .find(&format!("name = \"{name}\"\nversion = \""))
            .unwrap_or_else(|| panic!("{name} in Cargo.lock"));
        let rest = &lock[at..];
        let v = rest.split('"').nth(3).unwrap();
        v.to_string()
    };
    for engine in crate::engines() {
        let krate = match engine.name {
            "mdbx" => "libmdbx",
            other => other,
        };
        assert_eq!(engine.version, locked(krate), "{}", engine.name);
    }
    assert!(
        crate::engines()[0]
            .library
            .contains(&locked("librocksdb-sys"))
    );
    assert!(crate::engines()[1].library.contains(&locked("mdbx-sys")));
}

#[cfg(not(feature = "engines"))]
#[test]
fn an_engine_left_out_says_how_to_build_it_in() {
    let Err(e) = crate::bench::build(
        &crate::engines()[0],
        Op::Get,
        1,
        Path::new("/nonexistent"),
        N,
    ) else {
        panic!("rocksdb is not built in");
    };
    assert!(e.is_skip());
    assert!(e.to_string().contains("--features db-engines"), "{e}");
}
