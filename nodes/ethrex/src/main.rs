//! ethrex as an execution client dyno starts: ethrex's own Engine-API
//! server (`ethrex-rpc`), blockchain and LEVM (`ethrex-blockchain`,
//! `ethrex-vm`) and store (`ethrex-storage`, in memory), wired the way
//! ethrex's node wires them, without peers: no p2p listener, no discovery,
//! no sync. ethrex publishes these crates on crates.io, not its node.
//!
//! ethrex --genesis FILE --authrpc-port P --jwt FILE [--http-port P]
//!        [--no-precompile-cache]
//!
//! `--no-precompile-cache` turns off the result cache ethrex's block
//! executor shares with its warmer thread (`BlockchainOptions::
//! precompile_cache_enabled`), as ethrex's own flag of that name does and
//! as the EF's benchmark lane runs it. The warmer itself (a speculative
//! re-execution of the block on the other cores, before Amsterdam) has no
//! switch in ethrex 24 and stays on.
//!
//! The Engine API and plain JSON-RPC listen on 127.0.0.1. The state is in
//! memory, so nothing is written to disk. The genesis block's gasUsed is
//! the file's (ethrex's own genesis type has no such field and stores 0,
//! which gives another genesis hash than geth's). ethrex's per-block
//! performance lines (`[METRIC] BLOCK EXECUTION THROUGHPUT`) are on.
//! SIGTERM or SIGINT stops it with exit 0.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::Arc;

use ethrex_blockchain::{Blockchain, BlockchainOptions};
use ethrex_common::types::Genesis;
use ethrex_p2p::network::P2PContext;
use ethrex_p2p::peer_handler::PeerHandler;
use ethrex_p2p::peer_table::{PeerTableServer, TARGET_PEERS};
use ethrex_p2p::rlpx::initiator::RLPxInitiator;
use ethrex_p2p::sync::SyncMode;
use ethrex_p2p::sync_manager::SyncManager;
use ethrex_p2p::types::{NetworkConfig, Node, NodeRecord};
use ethrex_rpc::{ClientVersion, RpcNamespace};
use ethrex_storage::{EngineType, Store};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// What `Store::add_initial_state` does for a fresh store, with the
/// genesis header's gasUsed taken from the file.
async fn store_genesis(
    store: &mut Store,
    genesis: Genesis,
    gas_used: Option<u64>,
) -> Result<(), ethrex_storage::error::StoreError> {
    let mut block = genesis.get_block();
    if let Some(gas) = gas_used {
        block.header.gas_used = gas;
        block.header.hash = Default::default();
    }
    let hash = block.hash();
    store.set_chain_config(&genesis.config).await?;
    store.add_block_header(hash, block.header.clone()).await?;
    let root = store.setup_genesis_state_trie(genesis.alloc).await?;
    if root != block.header.state_root {
        fail(format!(
            "the genesis state root is {root:#x}, its header says {:#x}",
            block.header.state_root
        ));
    }
    store.add_block(block).await?;
    store.update_earliest_block_number(0).await?;
    store.forkchoice_update(vec![], 0, hash, None, None).await
}

/// The ethrex crates' version (Cargo.toml pins every one to it).
const ETHREX: &str = "24.0.0";

fn flag(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn fail(why: String) -> ! {
    eprintln!("ethrex: {why}");
    std::process::exit(2)
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--version") {
        println!("ethrex {ETHREX}");
        return;
    }
    let need = |name: &str| {
        flag(&args, name).unwrap_or_else(|| {
            fail(format!(
                "{name} is missing (usage: ethrex --genesis FILE --authrpc-port P --jwt FILE [--http-port P] [--no-precompile-cache])"
            ))
        })
    };
    let port = |name: &str, value: String| -> u16 {
        value
            .parse()
            .unwrap_or_else(|_| fail(format!("{name} {value:?}: not a port")))
    };
    let genesis_path = need("--genesis");
    let authrpc = port("--authrpc-port", need("--authrpc-port"));
    let jwt_path = need("--jwt");
    let http = flag(&args, "--http-port").map(|p| port("--http-port", p));
    let precompile_cache = !args.iter().any(|a| a == "--no-precompile-cache");
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .with_ansi(false)
        .init();

    let json: serde_json::Value = std::fs::read_to_string(&genesis_path)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
        .unwrap_or_else(|e| fail(format!("reading the genesis {genesis_path}: {e}")));
    // ethrex's genesis block always has gasUsed 0 (its Genesis type has
    // no such field); geth takes the file's, and so does dyno's chain.
    let gas_used = json
        .get("gasUsed")
        .and_then(serde_json::Value::as_str)
        .map(|g| {
            u64::from_str_radix(g.trim_start_matches("0x"), 16)
                .unwrap_or_else(|_| fail(format!("{genesis_path}: gasUsed {g:?} is not hex")))
        });
    let genesis: Genesis = serde_json::from_value(json)
        .unwrap_or_else(|e| fail(format!("reading the genesis {genesis_path}: {e}")));
    let secret = std::fs::read_to_string(&jwt_path)
        .map_err(|e| e.to_string())
        .and_then(|t| hex::decode(t.trim().trim_start_matches("0x")).map_err(|e| e.to_string()))
        .unwrap_or_else(|e| fail(format!("reading the JWT secret {jwt_path}: {e}")));

    let mut store = Store::new("", EngineType::InMemory)
        .unwrap_or_else(|e| fail(format!("opening the store: {e}")));
    store_genesis(&mut store, genesis, gas_used)
        .await
        .unwrap_or_else(|e| fail(format!("storing the genesis: {e}")));
    let blockchain = Arc::new(Blockchain::new(
        store.clone(),
        BlockchainOptions {
            perf_logs_enabled: true,
            precompile_cache_enabled: precompile_cache,
            ..BlockchainOptions::default()
        },
    ));

    // The peer side, with no peers: a peer table and the RLPx initiator
    // the sync manager and the RPC's admin methods ask, never started.
    let signer = secp256k1::SecretKey::new(&mut rand::rngs::OsRng);
    let public = secp256k1::PublicKey::from_secret_key(secp256k1::SECP256K1, &signer);
    let id = ethrex_common::H512::from_slice(&public.serialize_uncompressed()[1..]);
    let local = Node::new("127.0.0.1".parse().expect("an address"), 0, 0, id);
    let record = NodeRecord::from_node(&local, 1, &signer)
        .unwrap_or_else(|e| fail(format!("the node record: {e}")));
    let table = PeerTableServer::spawn(ethrex_common::H256::random(), TARGET_PEERS, store.clone());
    let context = P2PContext::new(
        local.clone(),
        NetworkConfig::from_node(&local),
        TaskTracker::default(),
        signer,
        table.clone(),
        store.clone(),
        blockchain.clone(),
        format!("ethrex/{ETHREX}"),
        None,
        1000,
        100.0,
    )
    .unwrap_or_else(|e| fail(format!("the p2p context: {e:?}")));
    let peers = PeerHandler::new(table.clone(), RLPxInitiator::spawn_on_thread(context));
    let cancel = CancellationToken::new();
    let syncer = SyncManager::new(
        peers.clone(),
        &SyncMode::Full,
        cancel.clone(),
        blockchain.clone(),
        store.clone(),
        std::env::temp_dir(),
    )
    .await;

    let loopback = |p: u16| SocketAddr::from(([127, 0, 0, 1], p));
    let version = ClientVersion::new(
        "ethrex".into(),
        ETHREX.into(),
        "dyno".into(),
        "crates.io".into(),
        std::env::consts::ARCH.into(),
        "rustc".into(),
    );
    let namespaces = HashSet::from([RpcNamespace::Eth, RpcNamespace::Net, RpcNamespace::Web3]);
    let server = ethrex_rpc::start_api(
        loopback(http.unwrap_or(0)),
        None,
        loopback(authrpc),
        store,
        blockchain,
        secret.into(),
        local,
        record,
        syncer,
        peers,
        version,
        None,
        ethrex_common::types::DEFAULT_BUILDER_GAS_CEIL,
        String::new(),
        namespaces,
        cancel.clone(),
    );
    let stop = async {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("a SIGTERM handler");
        tokio::select! {
            _ = term.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
    };
    tokio::select! {
        r = server => {
            if let Err(e) = r {
                fail(format!("the RPC server: {e:?}"));
            }
        }
        () = stop => {
            cancel.cancel();
            eprintln!("ethrex: stopped");
        }
    }
}
