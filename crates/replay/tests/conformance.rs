//! `dyno client check` against clients whose faults are known: a fake
//! Engine-API client (tests/fake_client.py, which executes nothing) that
//! behaves, and one mode of it for each check, with the fault that check
//! looks for (VALID to every block, the JWT ignored, a daemon that escapes
//! its group onto 0.0.0.0, …); each check that should fail does, and the
//! well-behaved fake fails none (so every one of the 15 can pass and can
//! fail). Then geth, the real
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
    fake_with(set, mode, "")
}

/// The fake client in `mode`, with `more` on its command line.
fn fake_with(set: &BlockSet, mode: &str, more: &str) -> Report {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake_client.py");
    let genesis = set.blocks[0].payload.header.parent_hash;
    let cmdline = format!(
        "python3 {} --port {{authrpc_port}} --jwt {{jwt}} --genesis-hash {genesis} --mode {mode} {more}",
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

/// A fake client whose daemon double-forks out of its process group and
/// session and listens on 0.0.0.0 fails `loopback` (its tree is looked at,
/// not its group) and `stop` (the daemon outlives a SIGTERM to the group),
/// and nothing of it is left running after the check.
#[test]
fn a_client_whose_daemon_escapes_its_group_fails_loopback_and_stop() {
    let set = set();
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("daemon.pid");
    let report = fake_with(
        &set,
        "daemon",
        &format!("--pid-file {}", pid_file.display()),
    );
    assert_eq!(failed(&report), ["loopback", "stop"], "{}", report.render());
    let line = |name| report.checks.iter().find(|c| c.name == name).unwrap();
    assert!(
        line("loopback").detail.contains("0.0.0.0:"),
        "{}",
        report.render()
    );
    assert!(
        line("stop").detail.contains("ran on after it exited"),
        "{}",
        report.render()
    );
    let daemon: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while dyno_process::group::running(daemon) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !dyno_process::group::running(daemon),
        "the daemon {daemon} outlived the check"
    );
}

/// Every one of the 15 checks fails on a client with the fault it looks
/// for: the fake client's modes, one (or a few) checks each, every other
/// check as the good client passes it.
#[test]
fn every_check_fails_on_the_fault_it_looks_for() {
    let set = set();
    let cases: [(&str, &str, &[&str]); 13] = [
        ("accept-all", "", &["invalid"]),
        ("no-jwt", "", &["jwt-other", "jwt-none", "jwt-unsigned"]),
        ("refuse-all", "", &["jwt"]),
        (
            "bad-status",
            "",
            &["jwt-other", "jwt-none", "jwt-unsigned", "jwt-stale"],
        ),
        // A JSON-RPC error at HTTP 200 that does not speak of the token is
        // an answer, not a refusal; one that does (ethrex's) is a note.
        (
            "rpc-error",
            "",
            &["jwt-other", "jwt-none", "jwt-unsigned", "jwt-stale"],
        ),
        ("auth-error", "", &[]),
        ("no-capabilities", "", &["capabilities"]),
        ("wrong-genesis", "", &["genesis"]),
        ("reject-all", "", &["valid"]),
        ("stuck-head", "", &["forkchoice"]),
        ("bad-log", "", &["block-log"]),
        ("bad-metrics", "--metrics-port {metrics_port}", &["metrics"]),
        ("good", "--metrics-port {metrics_port}", &[]),
    ];
    let mut seen = std::collections::BTreeSet::new();
    for (mode, more, want) in cases {
        let report = fake_with(&set, mode, more);
        assert_eq!(failed(&report), want, "mode {mode}:\n{}", report.render());
        seen.extend(want.iter().copied());
    }
    // `start` (a client that never answers), `loopback` and `stop` (the
    // daemon) fail in the tests beside this one.
    seen.extend(["start", "loopback", "stop"]);
    let every: std::collections::BTreeSet<&str> = conformance::CHECKS
        .iter()
        .copied()
        .chain(["stop"])
        .collect();
    assert_eq!(seen, every, "a check no fake client fails");
    assert_eq!(every.len(), 15);
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
    let report = check(
        &ClientSpec::Geth {
            home,
            caches: Default::default(),
        },
        &set(),
    );
    assert!(failed(&report).is_empty(), "{}", report.render());
    for name in ["loopback", "invalid", "block-log", "metrics", "stop"] {
        assert_eq!(outcome(&report, name), Outcome::Pass, "{}", report.render());
    }
}
