//! The suite on MDBX itself: a state written once, reused, checked, and
//! every access verified and timed with the page cache warm and evicted.
#![cfg(feature = "engines")]

use std::path::Path;

use dyno_state::access::{self, POOL};
use dyno_state::bench::StateWorkload;
use dyno_state::cache::{self, Cache};
use dyno_state::{mdbx, store};
use dyno_workload::Workload;

#[test]
fn a_state_in_mdbx_is_written_once_checked_and_measured() {
    let ctx = dyno_workload::Ctx {
        vectors: Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors"),
    };
    let n = 10_000;
    let root = tempfile::tempdir().unwrap();
    let want = dyno_state::vectors::root(&ctx, n).unwrap();
    let mut said = Vec::new();
    let (s, dir) = store::open_state("mdbx-test", mdbx::open, root.path(), n, &want, &mut |l| {
        said.push(l)
    })
    .unwrap();
    assert!(
        said.iter().any(|l| l.starts_with("wrote the state")),
        "{said:?}"
    );
    drop(s);
    // Reused: no second write.
    let mut again = Vec::new();
    let (s, _) = store::open_state("mdbx-test", mdbx::open, root.path(), n, &want, &mut |l| {
        again.push(l)
    })
    .unwrap();
    assert!(again.iter().all(|l| !l.starts_with("writing")), "{again:?}");

    let data = dir.join("db");
    let mut w = StateWorkload::new(
        s,
        mdbx::open,
        data.clone(),
        access::find("sload-cold").unwrap(),
        Cache::Warm,
        n,
    );
    w.verify().unwrap();
    assert!(w.time(POOL as u64).unwrap().is_ok());
    // MDBX opens an environment once per process.
    drop(w);
    // Evicted: the store is reopened for every sample and each sample
    // reads its pages from disk again.
    let mut d = StateWorkload::new(
        mdbx::open(&data).unwrap(),
        mdbx::open,
        data.clone(),
        access::find("extcodesize-cold").unwrap(),
        Cache::Dropped,
        n,
    );
    d.verify().unwrap();
    for _ in 0..3 {
        assert!(d.time(POOL as u64).unwrap().is_ok());
    }
    let faults = d
        .facts()
        .into_iter()
        .find(|(k, _)| *k == "major_faults_per_op")
        .map(|(_, v)| v.to_json().as_f64().unwrap());
    if cache::major_faults().is_some() {
        assert!(
            faults.unwrap() > 0.0,
            "evicted pages are read again: {faults:?}"
        );
    }
}
