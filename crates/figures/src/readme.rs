//! README.md's excerpt of `dyno run`: the table `dyno run` prints, for a
//! few ids, rendered by the same code from a kept release run of the
//! default suites.

use std::path::Path;

use crate::{FiguresError, read};

/// The kept run of the default suites, relative to the root.
pub const DEFAULT_RUN: &str = "docs/research/data/run-default-release-2026-11-28.json";

/// The ids the excerpt shows: each suite's headline operations.
const SHOWN: &[&str] = &[
    "crypto/secp256k1-sign/recid-direct",
    "crypto/secp256k1-recover/valid",
    "crypto/p256-verify/32B",
    "hash/keccak256/32B",
    "hash/sha256/32B",
    "rlp/encode/small-header",
    "rlp/decode/vlarge-body",
    "trie/state-root/1000",
    "trie/state-root/100000",
];

/// The excerpt, fenced, with a line on what the run held.
pub fn run_excerpt(root: &Path) -> Result<String, FiguresError> {
    let path = root.join(DEFAULT_RUN);
    let mut run = read::run(&path)?;
    // The suites: the groups of more than one id (the run also measures
    // the harness's empty benchmark and ECRECOVER, the gas anchor).
    let mut ids: std::collections::BTreeMap<&str, std::collections::BTreeSet<&str>> =
        std::collections::BTreeMap::new();
    for r in &run.results {
        ids.entry(r.group()).or_default().insert(&r.id);
    }
    let suites: Vec<String> = ids
        .iter()
        .filter(|(g, set)| set.len() > 1 && **g != "harness")
        .map(|(g, _)| g.to_string())
        .collect();
    let total = run
        .results
        .iter()
        .filter(|r| suites.iter().any(|g| g == r.group()))
        .count();
    for id in SHOWN {
        if !run.results.iter().any(|r| r.id == *id) {
            return Err(FiguresError::Data {
                path,
                why: format!("no {id}: the excerpt's ids must be in the run"),
            });
        }
    }
    run.results
        .retain(|r| SHOWN.contains(&r.id.as_str()) || r.group() == "harness");
    let table = dyno_report::render(&run, dyno_report::Format::Table, false);
    Ok(format!(
        "An excerpt of `dyno run` (release build, {}) on this project's 2-core machine: {total} benchmarks in the {} \
         suites, every one verified before it was timed; the whole run is `{DEFAULT_RUN}`, and this excerpt is \
         generated from it by `cargo run -p dyno-figures -- write`.\n\n```\n{}```\n",
        run.run.started_at.get(..10).unwrap_or(""),
        suites.join(", "),
        table
    ))
}
