//! The `net` suite's benchmarks (docs/net.md): RLPx handshakes, eth/69
//! messages encoded and decoded with snappy, and dispatch by message code.
//!
//! Every message is generated from `dyno_workload::seq` through the RLP
//! suite's object generator (post-Prague transactions, headers and bodies),
//! so the Go adapter is handed exactly the bytes this crate measures.
//! Before timing, an encode must decompress to the message's RLP, a decode
//! must give back the generated message, and a handshake must read the
//! responder's node id from its Hello.

use std::io::Read;
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use alloy_consensus::{TxEnvelope, Typed2718};
use alloy_eips::eip2124::{ForkHash, ForkId};
use alloy_eips::eip2718::Encodable2718;
use alloy_primitives::{B256, Bytes, b256};
use dyno_workload::{BenchDef, BuildError, Cases, Mismatch, Param, Workload, hex, seq};
use secp256k1::{PublicKey, SecretKey};

use dyno_micro::rlp::objects::{self, Rng};

use crate::eth::{BlockBodies, BlockHeaders, NewPooledTransactionHashes, Status, Transactions};
use crate::hello::{Capability, DisconnectReason, Hello};
use crate::key::{node_id, public_key, secret_key_from_slice};
use crate::router::{Message, Router};
use crate::session::Conn;
use crate::{Error, snappy};

/// The implementation's name in results.
pub const IMPL: &str = "dyno-net";
/// Its version: this crate's.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The messages of `net/encode/<input>` and `net/decode/<input>`.
pub const MESSAGES: [&str; 5] = [
    "status",
    "transactions-100",
    "block-headers-100",
    "block-bodies-10",
    "new-pooled-tx-hashes-100",
];

/// Transactions in each body of `block-bodies-10`.
pub const TXS_PER_BODY: usize = 50;

/// Cases of `net/route/mixed`.
pub const ROUTE_CASES: usize = 64;

/// Cases (key pairs) of `net/handshake/local`.
pub const HANDSHAKE_CASES: usize = 4;

/// Mainnet's genesis hash.
const MAINNET_GENESIS: B256 =
    b256!("d4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3");

/// Seeds of the generated messages (each its own `seq` stream).
const SEED: u64 = 0x4E45_0000_0000;

fn seed(name: &str) -> u64 {
    SEED + MESSAGES.iter().position(|m| *m == name).unwrap_or(99) as u64
}

/// The first 8 bytes of `b`, little-endian.
fn word(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().expect("8 bytes"))
}

fn status(seed: u64) -> Status {
    let s = seq(seed, 64);
    Status {
        protocol_version: 69,
        network_id: 1,
        genesis: MAINNET_GENESIS,
        // Mainnet's fork id after Prague (EIP-2124), no fork scheduled.
        fork_id: ForkId {
            hash: ForkHash([0xc3, 0x76, 0xcf, 0x8b]),
            next: 0,
        },
        earliest_block: 0,
        latest_block: 22_431_084 + word(&s[..8]) % 1_500_000,
        latest_block_hash: B256::from_slice(&s[32..64]),
    }
}

fn pooled(txs: &[TxEnvelope]) -> NewPooledTransactionHashes {
    NewPooledTransactionHashes {
        types: Bytes::from(txs.iter().map(|t| t.ty()).collect::<Vec<u8>>()),
        sizes: txs.iter().map(|t| t.encode_2718_len() as u32).collect(),
        hashes: txs.iter().map(|t| *t.tx_hash()).collect(),
    }
}

/// The message of `net/{encode,decode}/<name>`.
pub fn message(name: &str) -> Option<Message> {
    let mut rng = Rng::new(seed(name));
    let request_id = word(&seq(seed(name) ^ 0xFF, 8));
    Some(match name {
        "status" => Message::Status(status(seed(name))),
        "transactions-100" => Message::Transactions(Transactions(
            (0..100).map(|_| objects::block_tx(&mut rng)).collect(),
        )),
        "block-headers-100" => Message::BlockHeaders(BlockHeaders {
            request_id,
            headers: (0..100).map(|_| objects::header(&mut rng)).collect(),
        }),
        "block-bodies-10" => Message::BlockBodies(BlockBodies {
            request_id,
            bodies: (0..10)
                .map(|_| objects::body(&mut rng, TXS_PER_BODY, None))
                .collect(),
        }),
        "new-pooled-tx-hashes-100" => Message::NewPooledTransactionHashes(pooled(
            &(0..100)
                .map(|_| objects::block_tx(&mut rng))
                .collect::<Vec<_>>(),
        )),
        _ => return None,
    })
}

/// The messages `net/route/mixed` dispatches, in order: small gossip
/// mostly (hash announcements and transactions), some header and body
/// responses, now and then a Status.
pub fn route_mix() -> Vec<Message> {
    let mut rng = Rng::new(SEED + 0x100);
    let pick = seq(SEED + 0x200, 8 * ROUTE_CASES * 2);
    let word = |i: usize| word(&pick[8 * i..8 * i + 8]);
    (0..ROUTE_CASES)
        .map(|j| {
            let (kind, n) = (word(2 * j) % 100, 1 + word(2 * j + 1) as usize % 16);
            match kind {
                0..40 => Message::NewPooledTransactionHashes(pooled(
                    &(0..n)
                        .map(|_| objects::block_tx(&mut rng))
                        .collect::<Vec<_>>(),
                )),
                40..70 => Message::Transactions(Transactions(
                    (0..n.div_ceil(4))
                        .map(|_| objects::block_tx(&mut rng))
                        .collect(),
                )),
                70..85 => Message::BlockHeaders(BlockHeaders {
                    request_id: word(2 * j),
                    headers: (0..n.div_ceil(4))
                        .map(|_| objects::header(&mut rng))
                        .collect(),
                }),
                85..95 => Message::BlockBodies(BlockBodies {
                    request_id: word(2 * j),
                    bodies: vec![objects::body(&mut rng, 4 + n, None)],
                }),
                _ => Message::Status(status(SEED + 0x300 + j as u64)),
            }
        })
        .collect()
}

/// RLP, then snappy: a message as sent on the wire.
pub fn wire(m: &Message) -> Vec<u8> {
    snappy::compress(&m.to_rlp()).expect("generated messages are far below snappy's limit")
}

/// The key pairs `(initiator, responder)` of `net/handshake/local`.
pub fn handshake_keys() -> Vec<([u8; 32], [u8; 32])> {
    let s = seq(SEED + 0x400, 64 * HANDSHAKE_CASES);
    s.chunks(64)
        .map(|c| {
            let mut a: [u8; 32] = c[..32].try_into().expect("32 bytes");
            let mut b: [u8; 32] = c[32..].try_into().expect("32 bytes");
            // Below the curve order for certain.
            a[0] &= 0x7f;
            b[0] &= 0x7f;
            (a, b)
        })
        .collect()
}

/// The Hello dyno sends: eth/69, its own node id.
pub fn our_hello(key: &SecretKey) -> Hello {
    Hello::new(
        format!("dyno/{VERSION}"),
        vec![Capability::new("eth", 69)],
        node_id(&public_key(key)),
    )
}

/// One handshake: the node id read from the remote's Hello.
type Dial<I> = Box<dyn FnMut(&I) -> Result<[u8; 64], Error>>;

/// A benchmark whose timed operation can fail (a connection): the first
/// error of a timed batch ends the measurement with its message.
struct Fallible<I> {
    inputs: Vec<I>,
    op: Dial<I>,
    expected: Vec<[u8; 64]>,
    next: usize,
    error: Option<Error>,
}

impl<I> std::fmt::Debug for Fallible<I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fallible")
            .field("cases", &self.inputs.len())
            .finish_non_exhaustive()
    }
}

impl<I> Workload for Fallible<I> {
    fn verify(&mut self) -> Result<(), Mismatch> {
        for (k, input) in self.inputs.iter().enumerate() {
            let (expected, actual) = match (self.op)(input) {
                Ok(id) if id == self.expected[k] => continue,
                Ok(id) => (hex(self.expected[k]), hex(id)),
                Err(e) => (hex(self.expected[k]), format!("error: {e}")),
            };
            return Err(Mismatch {
                case: k.to_string(),
                expected,
                actual,
            });
        }
        Ok(())
    }

    fn run(&mut self, iters: u64) {
        let n = self.inputs.len();
        for _ in 0..iters {
            let k = self.next;
            match (self.op)(&self.inputs[k]) {
                Ok(id) => {
                    std::hint::black_box(id);
                }
                Err(e) => {
                    self.error.get_or_insert(e);
                }
            }
            self.next = if k + 1 == n { 0 } else { k + 1 };
        }
    }

    fn cases(&self) -> usize {
        self.inputs.len()
    }

    fn time(&mut self, iters: u64) -> Option<Result<u64, String>> {
        let t0 = Instant::now();
        self.run(iters);
        let ns = t0.elapsed().as_nanos() as u64;
        Some(match self.error.take() {
            Some(e) => Err(e.to_string()),
            None => Ok(ns),
        })
    }
}

/// How long a handshake may wait on its peer before it fails.
const IO_TIMEOUT: Duration = Duration::from_secs(10);

fn connect(addr: std::net::SocketAddr) -> Result<TcpStream, Error> {
    let s = TcpStream::connect_timeout(&addr, IO_TIMEOUT)?;
    s.set_read_timeout(Some(IO_TIMEOUT))?;
    s.set_write_timeout(Some(IO_TIMEOUT))?;
    s.set_nodelay(true)?;
    Ok(s)
}

/// Dial, handshake, exchange Hellos: the remote's Hello.
fn dial(
    addr: std::net::SocketAddr,
    ours: &SecretKey,
    remote: &PublicKey,
) -> Result<(Conn<TcpStream>, Hello), Error> {
    let mut conn = Conn::initiate(connect(addr)?, ours, remote)?;
    let hello = conn.exchange_hello(&our_hello(ours))?;
    Ok((conn, hello))
}

/// A responder on loopback: answers every connection with the handshake
/// and its Hello, until dropped.
struct Responder {
    addr: std::net::SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Responder {
    fn start(key: SecretKey) -> Result<Self, Error> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let hello = our_hello(&key);
            for stream in listener.incoming() {
                if flag.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let _ = stream.set_read_timeout(Some(IO_TIMEOUT));
                let _ = stream.set_nodelay(true);
                // A failed handshake shows on the initiator's side.
                if let Ok((mut conn, _)) = Conn::accept(stream, &key) {
                    let _ = conn.exchange_hello(&hello);
                }
            }
        });
        Ok(Self {
            addr,
            stop,
            thread: Some(thread),
        })
    }
}

impl Drop for Responder {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Wake the accept loop.
        let _ = TcpStream::connect(self.addr);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn keys(pair: &([u8; 32], [u8; 32])) -> Result<(SecretKey, SecretKey), BuildError> {
    let sk = |b: &[u8; 32]| {
        secret_key_from_slice(b).map_err(|e| BuildError::Setup {
            what: "a handshake key".into(),
            reason: e.to_string(),
        })
    };
    Ok((sk(&pair.0)?, sk(&pair.1)?))
}

fn build_local() -> Result<Box<dyn Workload>, BuildError> {
    let mut inputs = Vec::new();
    let mut expected = Vec::new();
    let mut responders = Vec::new();
    for pair in handshake_keys() {
        let (ours, theirs) = keys(&pair)?;
        let r = Responder::start(theirs).map_err(|e| BuildError::Setup {
            what: "a loopback responder".into(),
            reason: e.to_string(),
        })?;
        let remote = public_key(&theirs);
        inputs.push((r.addr, ours, remote));
        expected.push(node_id(&remote).0);
        responders.push(r);
    }
    let responders = Arc::new(responders);
    Ok(Box::new(Fallible {
        inputs,
        op: Box::new(move |(addr, ours, remote)| {
            let _keep = &responders;
            let (conn, hello) = dial(*addr, ours, remote)?;
            drop(conn);
            Ok(hello.id.0)
        }),
        expected,
        next: 0,
        error: None,
    }))
}

/// The node key of the geth that `net/handshake/remote-geth` dials: fixed,
/// so that its public key is known before it starts.
pub const GETH_NODEKEY: &str = "6e6f64656b65792d6f662d64796e6f2d6e65742d73756974652d2d2d2d2d2d01";

/// Initiator keys cycled through by `remote-geth`: geth refuses a second
/// connection from a node id it still counts as a peer.
const REMOTE_KEYS: usize = 64;

fn geth_home() -> PathBuf {
    dyno_workload::cache_dir().join("nodes").join("geth")
}

fn build_remote() -> Result<Box<dyn Workload>, BuildError> {
    let home = geth_home();
    if !home.join("run").is_file() {
        return Err(BuildError::NotInstalled {
            how: format!(
                "net/handshake/remote-geth dials a local geth, which is not in {}: run `dyno setup geth`",
                home.display()
            ),
        });
    }
    let setup = |reason: String| BuildError::Setup {
        what: "a geth p2p node on loopback".into(),
        reason,
    };
    let (mut node, port) = dyno_node::LocalNode::start_geth_p2p(&home, GETH_NODEKEY)
        .map_err(|e| setup(e.to_string()))?;
    let addr: std::net::SocketAddr = ([127, 0, 0, 1], port).into();
    let deadline = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        node.check_alive("starting for the net suite")
            .map_err(|e| setup(e.to_string()))?;
        if Instant::now() > deadline {
            return Err(setup(format!(
                "its p2p port {port} did not open within 60 s; its last output:{}",
                node.tail.render()
            )));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let geth_key = secret_key_from_slice(&dyno_workload::unhex(GETH_NODEKEY).map_err(setup)?)
        .map_err(|e| setup(e.to_string()))?;
    let remote = public_key(&geth_key);
    let ours: Vec<SecretKey> = seq(SEED + 0x500, 32 * REMOTE_KEYS)
        .chunks(32)
        .map(|c| {
            let mut k: [u8; 32] = c.try_into().expect("32 bytes");
            k[0] &= 0x7f;
            secret_key_from_slice(&k).map_err(|e| setup(e.to_string()))
        })
        .collect::<Result<_, _>>()?;
    let node = Arc::new(std::sync::Mutex::new(node));
    let mut next = 0usize;
    Ok(Box::new(Fallible {
        inputs: vec![(addr, remote)],
        op: Box::new(move |(addr, remote)| {
            let _keep = &node;
            let key = &ours[next % ours.len()];
            next += 1;
            let (mut conn, hello) = dial(*addr, key, remote)?;
            if !hello.client_id.starts_with("Geth/") {
                return Err(Error::InvalidHello(
                    "the peer's Hello does not name geth (Geth/...)",
                ));
            }
            // Leave cleanly, so geth frees the peer slot at once.
            let _ = conn.disconnect(DisconnectReason::Requested);
            let mut s = conn.into_inner();
            let _ = s.shutdown(Shutdown::Write);
            let _ = s.read(&mut [0u8; 64]);
            Ok(hello.id.0)
        }),
        expected: vec![node_id(&remote).0],
        next: 0,
        error: None,
    }))
}

fn code(m: &Message) -> u64 {
    m.code()
}

/// Every benchmark of the suite for this crate.
pub fn defs() -> Vec<BenchDef> {
    let mut defs = Vec::new();
    let def = |op: &'static str, input: String, params, build| BenchDef {
        group: "net",
        op,
        input,
        implementation: IMPL,
        version: VERSION,
        params,
        build,
        // Other runtimes run every benchmark of the suite but the one
        // that needs a live geth.
        cases: Some(crate::cases::cases),
    };
    for name in MESSAGES {
        let msg_param = |m: &Message| {
            vec![
                ("code", Param::Int(code(m))),
                ("rlp_bytes", Param::Int(m.to_rlp().len() as u64)),
            ]
        };
        let params = message(name).map(|m| msg_param(&m)).unwrap_or_default();
        defs.push(def(
            "encode",
            name.to_string(),
            params.clone(),
            Box::new(move |_| {
                let m = message(name).expect("a known message");
                let rlp = m.to_rlp();
                Ok(Box::new(Cases::checked(
                    vec![m],
                    |m: &Message| snappy::compress(&m.to_rlp()).map_err(|e| e.to_string()),
                    move |_, out| match out {
                        Ok(w) => match snappy::decompress(w) {
                            Ok(r) if r == rlp => Ok(()),
                            Ok(r) => Err((hex(&rlp), hex(&r))),
                            Err(e) => Err((hex(&rlp), format!("error: {e}"))),
                        },
                        Err(e) => Err((hex(&rlp), format!("error: {e}"))),
                    },
                )) as Box<dyn Workload>)
            }),
        ));
        defs.push(def(
            "decode",
            name.to_string(),
            params,
            Box::new(move |_| {
                let m = message(name).expect("a known message");
                let router = Router::eth();
                let decode = router.decoder(m.code()).ok_or_else(|| BuildError::Setup {
                    what: format!("net/decode/{name}"),
                    reason: "the router has no decoder for it".into(),
                })?;
                let w = wire(&m);
                Ok(Box::new(
                    Cases::expect(vec![(w, Ok(m))], move |w: &Vec<u8>| {
                        snappy::decompress(w)
                            .and_then(|r| decode(&r))
                            .map_err(|e| e.to_string())
                    })
                    .show(show),
                ) as Box<dyn Workload>)
            }),
        ));
    }
    defs.push(def(
        "route",
        "mixed".into(),
        vec![("cases", Param::Int(ROUTE_CASES as u64))],
        Box::new(|_| {
            let router = Router::eth();
            let pairs = route_mix()
                .into_iter()
                .map(|m| ((m.code(), wire(&m)), Ok(m)))
                .collect();
            Ok(Box::new(
                Cases::expect(pairs, move |(c, w): &(u64, Vec<u8>)| {
                    router.route_wire(*c, w).map_err(|e| e.to_string())
                })
                .show(show),
            ) as Box<dyn Workload>)
        }),
    ));
    defs.push(def(
        "handshake",
        "local".into(),
        vec![("transport", Param::Text("TCP over 127.0.0.1".into()))],
        Box::new(|_| build_local()),
    ));
    defs.push(BenchDef {
        cases: None,
        ..def(
            "handshake",
            "remote-geth".into(),
            vec![("transport", Param::Text("TCP over 127.0.0.1".into()))],
            Box::new(|_| build_remote()),
        )
    });
    defs
}

fn show(r: &Result<Message, String>) -> String {
    match r {
        Ok(m) => format!("{} bytes of RLP: {}", m.to_rlp().len(), hex(m.to_rlp())),
        Err(e) => format!("error: {e}"),
    }
}
