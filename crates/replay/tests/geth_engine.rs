//! geth v1.17.8 as an execution client driven through the Engine API:
//! started from dyno's genesis (not `--dev`), given one block of each class
//! at 30M gas with `engine_newPayloadV4` and made the head with
//! `engine_forkchoiceUpdatedV3`; every reply must be `VALID`. A block with
//! one state-root bit flipped must come back `INVALID` (the check can
//! fail), and a request signed with another JWT secret must be refused.
//!
//! geth: the one `dyno setup geth` installed (`<dyno cache>/nodes/geth`).
//! Without it the test says so and passes, except under `CI`, where
//! `scripts/test.sh` has built it.

use std::path::Path;
use std::time::{Duration, Instant};

use dyno_evm::block::chain_of_classes;
use dyno_evm::block::export::genesis_json;
use dyno_evm::block::genesis::Contracts;
use dyno_node::LocalNode;
use dyno_replay::engine::{Engine, EngineError};
use dyno_replay::payload::Payload;
use dyno_workload::Ctx;

fn geth_home() -> Option<std::path::PathBuf> {
    let home = dyno_node::cache_dir().join("nodes/geth");
    if home.join("run").is_file() {
        return Some(home);
    }
    assert!(
        std::env::var_os("CI").is_none_or(|v| v != "true"),
        "geth is not installed in {}; scripts/test.sh builds it",
        home.display()
    );
    eprintln!("skipped: geth is not installed in {}", home.display());
    None
}

/// The Engine API once geth answers on it (at most 60 s).
fn engine(node: &mut LocalNode, port: u16, secret: [u8; 32]) -> Engine {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        node.check_alive("starting").unwrap();
        if let Ok(mut e) = Engine::connect(port, secret, Duration::from_secs(60))
            && e.call("engine_exchangeCapabilities", serde_json::json!([[]]))
                .is_ok()
        {
            return e;
        }
        assert!(
            Instant::now() < deadline,
            "geth's Engine API never answered:\n{}",
            node.tail.render()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn geth_says_valid_to_every_class_and_invalid_to_a_wrong_root() {
    let Some(home) = geth_home() else { return };
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let ctx = Ctx {
        vectors: repo.join("vectors"),
    };
    let contracts = Contracts::load(&ctx).expect("contracts/build");
    let (genesis, blocks) = chain_of_classes(&contracts, 1024, 30_000_000).unwrap();
    let json = genesis_json(&genesis.world, &genesis.header).to_string();
    let secret = dyno_replay::jwt::secret().unwrap();
    let (mut node, port) = LocalNode::start_geth_engine(&home, &json, &secret, &[]).unwrap();
    let mut engine = engine(&mut node, port, secret);

    // Another secret is refused before anything is looked at.
    let mut stranger = Engine::connect(port, [9; 32], Duration::from_secs(30)).unwrap();
    match stranger.call("engine_exchangeCapabilities", serde_json::json!([[]])) {
        Err(EngineError::Status { status: 401, .. }) => {}
        other => panic!("a request with the wrong JWT: {other:?}"),
    }

    let mut bad = blocks[0].clone();
    bad.header.state_root.0[31] ^= 1;
    match engine.new_payload(Payload::of(&bad).new_payload_params()) {
        Err(EngineError::NotValid { status, .. }) => assert_eq!(status, "INVALID"),
        other => panic!("a wrong state root: {other:?}"),
    }

    for block in &blocks {
        let number = block.header.number;
        let payload = Payload::of(block);
        let took = engine
            .new_payload(payload.new_payload_params())
            .unwrap_or_else(|e| panic!("block {number}: {e}\n{}", node.tail.render()));
        engine
            .forkchoice_updated(payload.forkchoice_params())
            .unwrap_or_else(|e| panic!("block {number}: {e}"));
        assert!(took > Duration::ZERO);
        eprintln!(
            "block {number}: {} transactions, engine_newPayloadV4 {took:?}",
            block.transactions.len()
        );
    }
    let (head, _) = engine
        .call("eth_getBlockByNumber", serde_json::json!(["latest", false]))
        .unwrap();
    let last = &blocks.last().unwrap().header;
    assert_eq!(head["hash"], last.hash_slow().to_string());
    assert_eq!(head["stateRoot"], last.state_root.to_string());
    node.stop(Duration::from_secs(10));
}
