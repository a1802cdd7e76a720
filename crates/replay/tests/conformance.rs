//! `dyno client check` against clients whose faults are known: a fake
//! Engine-API client (tests/fake_client.py, which executes nothing) that
//! behaves, one that answers VALID to every block, and one that ignores
//! the JWT; each check that should fail does, and the well-behaved fake
//! fails none (so every check can pass and can fail). Then geth, the real
//! client `dyno setup geth` installed, passes every check (without it the
//! test says so and passes, except under `CI`).

use std::path::Path;
use std::time::Duration;

use dyno_evm::block::fork::Fork;
use dyno_evm::block::genesis::Contracts;
use dyno_replay::blocks::{self, BlockSet};
use dyno_replay::client::ClientSpec;
use dyno_replay::conformance::{self, Outcome, Report};

fn set() -> BlockSet {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let ctx = dyno_workload::Ctx {
        vectors: repo.join("vectors"),
    };
    let contracts = Contracts::load(&ctx).unwrap();
    blocks::make(&contracts, "30M", 0, 1, Fork::Osaka).unwrap()
}

fn check(spec: &ClientSpec, set: &BlockSet) -> Report {
    let mut lines = Vec::new();
    let report = conformance::check(
        spec,
        set,
        Duration::from_secs(30),
        Duration::from_secs(30),
        &mut |l| lines.push(l.to_string()),
    );
    assert_eq!(
        lines.len(),
        report.checks.len(),
        "each check echoed as found"
    );
    report
}

fn fake(set: &BlockSet, mode: &str) -> Report {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake_client.py");
    let genesis = set.blocks[0].payload.header.parent_hash;
    let cmdline = format!(
        "python3 {} --port {{authrpc_port}} --jwt {{jwt}} --genesis-hash {genesis} --mode {mode}",
        script.display()
    );
    check(&ClientSpec::Cmd { cmdline }, set)
}

fn outcome(report: &Report, name: &str) -> Outcome {
    report
        .checks
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no check {name}:\n{}", report.render()))
        .outcome
}

fn failed(report: &Report) -> Vec<&str> {
    report
        .checks
        .iter()
        .filter(|c| c.outcome == Outcome::Fail)
        .map(|c| c.name)
        .collect()
}

#[test]
fn a_client_that_answers_valid_to_a_bad_block_or_ignores_the_jwt_fails() {
    let set = set();

    let good = fake(&set, "good");
    assert!(failed(&good).is_empty(), "{}", good.render());
    assert_eq!(outcome(&good, "invalid"), Outcome::Pass);
    assert_eq!(outcome(&good, "jwt-other"), Outcome::Pass);
    // It writes no per-block log and serves no metrics: notes, not failures.
    assert_eq!(outcome(&good, "block-log"), Outcome::Note);
    assert_eq!(outcome(&good, "metrics"), Outcome::Note);
    assert_eq!(outcome(&good, "stop"), Outcome::Pass);

    let lax = fake(&set, "accept-all");
    assert_eq!(failed(&lax), ["invalid"], "{}", lax.render());
    assert!(lax.failed());
    let line = lax.checks.iter().find(|c| c.name == "invalid").unwrap();
    assert!(line.detail.contains("is VALID"), "{}", line.detail);

    let open = fake(&set, "no-jwt");
    assert_eq!(
        failed(&open),
        ["jwt-other", "jwt-none", "jwt-unsigned"],
        "{}",
        open.render()
    );
    // A stale token is a SHOULD of the spec: a note.
    assert_eq!(outcome(&open, "jwt-stale"), Outcome::Note);
    assert!(open.render().contains("3 of "), "{}", open.render());
}

#[test]
fn a_client_that_never_answers_fails_its_start_and_skips_the_rest() {
    let set = set();
    let spec = ClientSpec::Cmd {
        cmdline: "echo listening on {authrpc_port} {jwt}; exec sleep 300".into(),
    };
    let report = conformance::check(
        &spec,
        &set,
        Duration::from_secs(1),
        Duration::from_secs(1),
        &mut |_| {},
    );
    assert_eq!(failed(&report), ["start"], "{}", report.render());
    assert!(
        report.checks[1..]
            .iter()
            .all(|c| c.outcome == Outcome::Skip),
        "{}",
        report.render()
    );
}

#[test]
fn geth_passes_every_check() {
    let home = dyno_node::cache_dir().join("nodes/geth");
    if !home.join("run").is_file() {
        assert!(
            std::env::var_os("CI").is_none_or(|v| v != "true"),
            "geth is not installed in {}; scripts/test.sh builds it",
            home.display()
        );
        eprintln!("skipped: geth is not installed in {}", home.display());
        return;
    }
    let report = check(&ClientSpec::Geth { home }, &set());
    assert!(failed(&report).is_empty(), "{}", report.render());
    for name in ["loopback", "invalid", "block-log", "metrics", "stop"] {
        assert_eq!(outcome(&report, name), Outcome::Pass, "{}", report.render());
    }
}
