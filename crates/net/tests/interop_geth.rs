//! Live interop with go-ethereum v1.17.8: its RLPx code against ours, and
//! a real geth node's Hello and Status. They need two Go programs, which
//! `scripts/test.sh` builds before `cargo test` (so CI runs these tests):
//!
//! - the helper, the Go adapter's second program (`adapters/go/cmd/interop-geth`,
//!   sharing its module and go-ethereum): `DYNO_NET_INTEROP_GETH`, else
//!   `<dyno cache>/net-interop/interop-geth`, else `interop-geth` built in
//!   `adapters/go` (`go build -o interop-geth ./cmd/interop-geth`);
//! - geth v1.17.8: `DYNO_NET_GETH`, else the one `dyno setup geth`
//!   installed (`<dyno cache>/nodes/geth/geth`), else `geth` on PATH.
//!
//! Without them a test says so on stderr and passes, except under `CI`,
//! where a missing program fails the test: CI must not skip them quietly.

mod common;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use alloy_consensus::BlockBody;
use alloy_eips::Typed2718;
use alloy_eips::eip2124::{ForkHash, ForkId};
use alloy_eips::eip2718::Encodable2718;
use alloy_eips::eip4895::{Withdrawal, Withdrawals};
use alloy_primitives::{Address, B256, hex};
use common::{geth_test_header, key, many_txs, prague_header, sample_txs};
use dyno_net::eth::{
    BlockBodies, BlockHeaders, EthMessage, GetBlockBodies, GetBlockHeaders, HashOrNumber,
    HeadersQuery, NewPooledTransactionHashes, Status, Transactions,
};
use dyno_net::hello::{self, PING, PONG};
use dyno_net::key::{node_id, public_key, public_key_from_slice};
use dyno_net::{Capability, Conn, DisconnectReason, Error, Hello, Message, Router, SecretKey};

const OUR_KEY: &str = "49a7b37aa6f6645917e7b807e9d1c00d4fa71f18343b0d4122a4d2df64dd6fee";
/// Node key given to the geth node via `--nodekeyhex`.
const GETH_NODE_KEY: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// Kills (by handle) and reaps the child when dropped.
struct Reaper(Child);

impl Drop for Reaper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The first of `candidates` that exists, else what to do when none does:
/// `None` (the test is skipped, saying so) off CI, a panic on CI.
fn program(what: &str, candidates: Vec<PathBuf>) -> Option<PathBuf> {
    if let Some(p) = candidates.iter().find(|p| p.is_file()) {
        return Some(p.clone());
    }
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false");
    let tried: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
    assert!(
        !ci,
        "{what} not found (tried {}); scripts/test.sh builds it",
        tried.join(", ")
    );
    eprintln!("skipped: {what} not found (tried {})", tried.join(", "));
    None
}

fn from_env(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

fn interop_bin() -> Option<PathBuf> {
    let candidates = match from_env("DYNO_NET_INTEROP_GETH") {
        Some(p) => vec![p],
        None => vec![
            dyno_node::cache_dir().join("net-interop/interop-geth"),
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../adapters/go/interop-geth"),
        ],
    };
    program(
        "the go-ethereum RLPx helper (adapters/go/cmd/interop-geth)",
        candidates,
    )
}

fn geth_bin() -> Option<PathBuf> {
    let candidates = match from_env("DYNO_NET_GETH") {
        Some(p) => vec![p],
        None => {
            let mut c = vec![dyno_node::cache_dir().join("nodes/geth/geth")];
            if let Some(path) = std::env::var_os("PATH") {
                c.extend(std::env::split_paths(&path).map(|d| d.join("geth")));
            }
            c
        }
    };
    program("geth v1.17.8", candidates)
}

fn timeouts(s: &TcpStream) {
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.set_write_timeout(Some(Duration::from_secs(30))).unwrap();
}

fn our_hello(k: &SecretKey) -> Hello {
    Hello::new(
        "dyno-net/0.1.0",
        vec![Capability::new("eth", 69)],
        node_id(&public_key(k)),
    )
}

fn read_line(r: &mut BufReader<ChildStdout>) -> String {
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    line.trim_end().to_string()
}

fn status() -> Status {
    Status {
        protocol_version: 69,
        network_id: 1337,
        genesis: B256::repeat_byte(0x11),
        fork_id: ForkId {
            hash: ForkHash([0xde, 0xad, 0xbe, 0xef]),
            next: 1_700_000_000,
        },
        earliest_block: 0,
        latest_block: 1234,
        latest_block_hash: B256::repeat_byte(0x22),
    }
}

/// Every message type, encoded by us; geth decodes and re-encodes each.
fn our_messages() -> Vec<Message> {
    let txs = many_txs(50);
    let withdrawals = Withdrawals::new(vec![Withdrawal {
        index: 1,
        validator_index: 2,
        address: Address::repeat_byte(0x44),
        amount: 32_000_000_000,
    }]);
    vec![
        Message::Status(status()),
        Message::Transactions(Transactions(sample_txs(0))),
        Message::Transactions(Transactions(txs.clone())),
        Message::GetBlockHeaders(GetBlockHeaders {
            request_id: 1,
            query: HeadersQuery {
                origin: HashOrNumber::Number(9999),
                amount: 5,
                skip: 5,
                reverse: false,
            },
        }),
        Message::GetBlockHeaders(GetBlockHeaders {
            request_id: 2,
            query: HeadersQuery {
                origin: HashOrNumber::Hash(B256::repeat_byte(7)),
                amount: 192,
                skip: 0,
                reverse: true,
            },
        }),
        Message::BlockHeaders(BlockHeaders {
            request_id: 3,
            headers: vec![geth_test_header(), prague_header(1), prague_header(2)],
        }),
        Message::GetBlockBodies(GetBlockBodies {
            request_id: 4,
            hashes: vec![B256::repeat_byte(9); 3],
        }),
        Message::BlockBodies(BlockBodies {
            request_id: 5,
            bodies: vec![
                BlockBody {
                    transactions: sample_txs(10),
                    ommers: vec![],
                    withdrawals: None,
                },
                BlockBody {
                    transactions: many_txs(7),
                    ommers: vec![prague_header(3)],
                    withdrawals: Some(withdrawals),
                },
                BlockBody {
                    transactions: vec![],
                    ommers: vec![],
                    withdrawals: Some(Withdrawals::default()),
                },
            ],
        }),
        Message::NewPooledTransactionHashes(NewPooledTransactionHashes {
            types: txs.iter().map(Typed2718::ty).collect::<Vec<u8>>().into(),
            sizes: txs.iter().map(|t| t.network_len() as u32).collect(),
            hashes: txs.iter().map(|t| *t.tx_hash()).collect(),
        }),
    ]
}

#[test]
fn geth_rlpx_listener_echoes_our_messages_byte_identically() {
    let Some(helper) = interop_bin() else { return };
    let mut child = Command::new(helper)
        .arg("listen")
        .stdout(Stdio::piped())
        .spawn()
        .expect("run interop-geth (build it: cd adapters/go && go build ./cmd/interop-geth)");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut reaper = Reaper(child);
    let line = read_line(&mut out);
    let mut parts = line.split_whitespace();
    assert_eq!(parts.next(), Some("LISTEN"), "{line}");
    let addr: SocketAddr = parts.next().unwrap().parse().unwrap();
    let remote = public_key_from_slice(&hex::decode(parts.next().unwrap()).unwrap()).unwrap();

    let k = key(OUR_KEY);
    let stream = TcpStream::connect(addr).unwrap();
    timeouts(&stream);
    let mut conn = Conn::initiate(stream, &k, &remote).unwrap();
    let theirs = conn.exchange_hello(&our_hello(&k)).unwrap();
    eprintln!("geth helper Hello: {theirs:?}");
    assert_eq!(theirs.client_id, "interop-geth/v1.17.8");
    assert_eq!(theirs.id, node_id(&remote));
    assert!(conn.snappy());
    assert!(read_line(&mut out).starts_with("HELLO dyno-net/0.1.0 version=5"));

    conn.write_msg(PING, &hello::EMPTY_LIST).unwrap();
    assert_eq!(conn.read_msg().unwrap().0, PONG);

    let router = Router::eth();
    for m in our_messages() {
        let rlp = m.to_rlp();
        conn.write_msg(m.code(), &rlp).unwrap();
        let (code, echoed) = conn.read_msg().unwrap();
        assert_eq!(code, m.code());
        assert_eq!(
            hex::encode(&echoed),
            hex::encode(&rlp),
            "geth re-encoding of {:#x}",
            m.code()
        );
        assert_eq!(router.route(code, &echoed).unwrap(), m);
        assert!(read_line(&mut out).starts_with(&format!("ECHO {:#x}", m.code())));
    }
    conn.disconnect(DisconnectReason::Requested).unwrap();
    assert_eq!(read_line(&mut out), "DISCONNECT disconnect requested");
    assert!(reaper.0.wait().unwrap().success());
}

#[test]
fn geth_rlpx_dialer_messages_decode_and_echo() {
    let Some(helper) = interop_bin() else { return };
    // geth's rlpx initiator against our recipient; geth encodes one message
    // of every kind with its own types and checks our echo byte for byte.
    let k = key(OUR_KEY);
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let addr = listener.local_addr().unwrap();
    let child = Command::new(helper)
        .args([
            "dial",
            &addr.to_string(),
            &hex::encode(node_id(&public_key(&k))),
        ])
        .stdout(Stdio::piped())
        .spawn()
        .expect("run interop-geth");
    let mut reaper = Reaper(child);

    let (stream, _) = listener.accept().unwrap();
    timeouts(&stream);
    let (mut conn, remote) = Conn::accept(stream, &k).unwrap();
    let theirs = conn.exchange_hello(&our_hello(&k)).unwrap();
    assert_eq!(theirs.id, node_id(&remote));
    assert_eq!(theirs.client_id, "interop-geth/v1.17.8");

    let router = Router::eth();
    let mut seen = BTreeSet::new();
    let reason = loop {
        let (code, payload) = conn.read_msg().unwrap();
        match router.route(code, &payload).unwrap() {
            Message::Disconnect(d) => break d.reason,
            m => {
                seen.insert(m.code());
                conn.write_msg(m.code(), &m.to_rlp()).unwrap();
            }
        }
    };
    assert_eq!(reason, DisconnectReason::Requested);
    assert_eq!(
        seen.into_iter().collect::<Vec<_>>(),
        vec![0x10, 0x12, 0x13, 0x14, 0x15, 0x16, 0x18]
    );
    let mut stdout = String::new();
    reaper
        .0
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    assert!(reaper.0.wait().unwrap().success(), "{stdout}");
    assert!(stdout.contains("OK 7"), "{stdout}");
}

fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn run(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().expect("run geth");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A geth v1.17.8 node with p2p on loopback and a fixed node key. The data
/// directory is removed on drop (after the node is killed).
struct GethNode {
    child: Option<Reaper>,
    dir: PathBuf,
    port: u16,
}

impl Drop for GethNode {
    fn drop(&mut self) {
        drop(self.child.take());
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn start_geth(geth: &Path) -> GethNode {
    let dir = std::env::temp_dir().join(format!("dyno-net-geth-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let datadir = dir.join("data");
    // `--dev dumpgenesis` without --datadir prints the dev genesis (chain id 1337).
    let genesis = run(Command::new(geth).args(["--dev", "dumpgenesis"])).stdout;
    std::fs::write(dir.join("genesis.json"), genesis).unwrap();
    run(Command::new(geth)
        .arg("init")
        .arg("--datadir")
        .arg(&datadir)
        .arg(dir.join("genesis.json")));
    let port = free_port();
    let authrpc = free_port();
    let log = std::fs::File::create(dir.join("geth.log")).unwrap();
    let child = Command::new(geth)
        .arg("--datadir")
        .arg(&datadir)
        .args([
            "--networkid",
            "1337",
            "--port",
            &port.to_string(),
            "--nat",
            "none",
            "--nodiscover",
        ])
        .args(["--maxpeers", "25", "--nodekeyhex", GETH_NODE_KEY])
        .args([
            "--authrpc.port",
            &authrpc.to_string(),
            "--ipcdisable",
            "--netrestrict",
            "127.0.0.0/8",
        ])
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .expect("run geth");
    let node = GethNode {
        child: Some(Reaper(child)),
        dir,
        port,
    };
    let deadline = Instant::now() + Duration::from_secs(90);
    while TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() {
        assert!(Instant::now() < deadline, "geth did not open port {port}");
        std::thread::sleep(Duration::from_millis(200));
    }
    node
}

#[test]
fn real_geth_node_hello_and_status() {
    let Some(geth) = geth_bin() else { return };
    let node = start_geth(&geth);
    let geth_pub = public_key(&key(GETH_NODE_KEY));
    let k = key(OUR_KEY);
    // Several connections in a row: loopback is exempt from geth's inbound
    // throttle, and each session ends with our Disconnect.
    for round in 0..3 {
        // geth drops the previous session asynchronously; until it has, a new
        // session from the same node id gets Disconnect(AlreadyConnected).
        let mut retries = 0;
        let (mut conn, theirs, elapsed) = loop {
            let started = Instant::now();
            let stream = TcpStream::connect((Ipv4Addr::LOCALHOST, node.port)).unwrap();
            timeouts(&stream);
            let mut conn = Conn::initiate(stream, &k, &geth_pub).unwrap();
            match conn.exchange_hello(&our_hello(&k)) {
                Ok(theirs) => break (conn, theirs, started.elapsed()),
                Err(Error::Disconnected(DisconnectReason::AlreadyConnected)) if retries < 50 => {
                    retries += 1;
                    std::thread::sleep(Duration::from_millis(100));
                }
                Err(e) => panic!("hello: {e}"),
            }
        };
        eprintln!(
            "round {round}: handshake+hello {elapsed:?} (retries {retries}); geth Hello: {theirs:?}"
        );
        assert_eq!(
            theirs.id,
            node_id(&geth_pub),
            "Hello ID is the node key's public key"
        );
        assert!(
            theirs.client_id.starts_with("Geth/v1.17.8"),
            "{}",
            theirs.client_id
        );
        assert_eq!(theirs.protocol_version, 5);
        assert!(theirs.capabilities.contains(&Capability::new("eth", 69)));
        assert!(conn.snappy());

        // geth starts the eth handshake with its Status.
        let status = loop {
            let (code, payload) = conn.read_msg().unwrap();
            match code {
                PING => conn.write_msg(PONG, &hello::EMPTY_LIST).unwrap(),
                c if c == Status::code() => break Status::from_rlp(&payload).unwrap(),
                other => panic!("unexpected message {other:#x} before Status"),
            }
        };
        eprintln!("round {round}: geth Status: {status:?}");
        assert_eq!(status.protocol_version, 69);
        assert_eq!(status.network_id, 1337);
        assert_eq!((status.earliest_block, status.latest_block), (0, 0));
        assert_eq!(
            status.latest_block_hash, status.genesis,
            "fresh chain: head is genesis"
        );
        conn.disconnect(DisconnectReason::Requested).unwrap();
        // geth closes the connection after our Disconnect; drain to EOF.
        while conn.read_raw().is_ok() {}
    }
}
