//! A client that exits because a port it was given was taken is started
//! again on fresh ports (a CI run ended on geth's "bind: address already
//! in use"), at most `ClientSpec::PORT_ATTEMPTS` times; a client that
//! exits for any other reason is not started again.

use std::path::Path;
use std::time::Duration;

use dyno_evm::block::fork::Fork;
use dyno_evm::block::genesis::Contracts;
use dyno_replay::blocks;
use dyno_replay::client::{ClientError, ClientSpec};

/// The genesis hash of a real block set, which the fake client answers with.
fn genesis() -> (String, String) {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let ctx = dyno_workload::Ctx {
        vectors: repo.join("vectors"),
    };
    let contracts = Contracts::load(&ctx).unwrap();
    let set = blocks::make(&contracts, "30M", 0, 1, Fork::Osaka).unwrap();
    let hash = set.blocks[0].payload.header.parent_hash.to_string();
    (hash, set.genesis_json.clone())
}

/// A client that fails its first `fails` starts with `message`, counting
/// every start in `count`, then runs the fake Engine-API client.
fn client(count: &Path, fails: usize, message: &str, genesis_hash: &str) -> ClientSpec {
    let fake = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake_client.py");
    let count = count.display();
    ClientSpec::Cmd {
        cmdline: format!(
            "sh -c 'echo x >> {count}; if [ $(wc -l < {count}) -le {fails} ]; then \
             echo \"{message}\" >&2; exit 1; fi; \
             exec python3 {} --port {{authrpc_port}} --jwt {{jwt}} --genesis-hash {genesis_hash} --mode good'",
            fake.display()
        ),
    }
}

fn starts(count: &Path) -> usize {
    std::fs::read_to_string(count).map_or(0, |s| s.lines().count())
}

const TAKEN: &str = "Fatal: Error starting protocol stack: listen tcp 127.0.0.1:36037: bind: address already in use";

#[test]
fn a_taken_port_starts_the_client_again_and_other_exits_do_not() {
    let (hash, genesis) = genesis();
    let dir = tempfile::tempdir().unwrap();
    let (ready, call) = (Duration::from_secs(30), Duration::from_secs(30));

    // Taken once: the second start runs.
    let once = dir.path().join("once");
    let mut running = client(&once, 1, TAKEN, &hash)
        .start(&genesis, ready, call)
        .unwrap();
    assert_eq!(starts(&once), 2);
    running.node.stop(Duration::from_secs(5));

    // Taken every time: given up after the last attempt, saying why.
    let always = dir.path().join("always");
    let e = client(&always, 99, TAKEN, &hash)
        .start(&genesis, ready, call)
        .err()
        .unwrap();
    assert_eq!(starts(&always), ClientSpec::PORT_ATTEMPTS);
    assert!(matches!(e, ClientError::Start(_)), "{e}");
    assert!(e.to_string().contains("address already in use"), "{e}");

    // Another failure: started once.
    let other = dir.path().join("other");
    let e = client(&other, 99, "Fatal: invalid genesis", &hash)
        .start(&genesis, ready, call)
        .err()
        .unwrap();
    assert_eq!(starts(&other), 1, "{e}");
}
