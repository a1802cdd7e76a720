//! Two in-process peers over a loopback TcpStream (one thread each):
//! handshake, Hello exchange, then every message type both ways with snappy,
//! plus the failure paths (wrong key, bad MAC, truncation, early Disconnect).

mod common;

use std::net::{TcpListener, TcpStream};
use std::thread;
use std::time::Duration;

use alloy_consensus::BlockBody;
use alloy_eips::eip2124::{ForkHash, ForkId};
use alloy_eips::eip2718::Encodable2718;
use alloy_primitives::B256;
use common::{key, many_txs, prague_header};
use dyno_net::eth::{
    BlockBodies, BlockHeaders, EthMessage, GetBlockBodies, GetBlockHeaders, HashOrNumber,
    HeadersQuery, NewPooledTransactionHashes, Status, Transactions,
};
use dyno_net::hello::{self, PING, PONG};
use dyno_net::key::{node_id, public_key};
use dyno_net::{Capability, Conn, DisconnectReason, Error, Hello, Message, Router, SecretKey};

const SERVER_KEY: &str = "b71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313eac2f96dbcda3f291";
const CLIENT_KEY: &str = "49a7b37aa6f6645917e7b807e9d1c00d4fa71f18343b0d4122a4d2df64dd6fee";

fn hello_for(k: &SecretKey, name: &str) -> Hello {
    Hello::new(
        name,
        vec![Capability::new("eth", 69)],
        node_id(&public_key(k)),
    )
}

fn listen() -> (TcpListener, std::net::SocketAddr) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let a = l.local_addr().unwrap();
    (l, a)
}

fn timeouts(s: &TcpStream) {
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    s.set_write_timeout(Some(Duration::from_secs(60))).unwrap();
}

fn dial(addr: std::net::SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).unwrap();
    timeouts(&s);
    s
}

/// Echo server: replies to Ping with Pong and re-encodes every routed eth
/// message back to the sender; ends on Disconnect and returns its reason.
fn echo_server(
    listener: TcpListener,
) -> thread::JoinHandle<Result<(Hello, DisconnectReason), Error>> {
    thread::spawn(move || {
        let (stream, _) = listener.accept()?;
        timeouts(&stream);
        let k = key(SERVER_KEY);
        let (mut conn, remote) = Conn::accept(stream, &k)?;
        let theirs = conn.exchange_hello(&hello_for(&k, "dyno-echo"))?;
        assert_eq!(node_id(&remote), theirs.id, "Hello id equals handshake key");
        let router = Router::eth();
        loop {
            let (code, payload) = conn.read_msg()?;
            match router.route(code, &payload)? {
                Message::Disconnect(d) => return Ok((theirs, d.reason)),
                Message::Ping => conn.write_msg(PONG, &hello::EMPTY_LIST)?,
                m => conn.write_msg(m.code(), &m.to_rlp())?,
            }
        }
    })
}

fn status() -> Status {
    Status {
        protocol_version: 69,
        network_id: 1337,
        genesis: B256::repeat_byte(0x11),
        fork_id: ForkId {
            hash: ForkHash([1, 2, 3, 4]),
            next: 0,
        },
        earliest_block: 0,
        latest_block: 100,
        latest_block_hash: B256::repeat_byte(0x22),
    }
}

fn echo<M: EthMessage + PartialEq + std::fmt::Debug>(conn: &mut Conn<TcpStream>, msg: &M) {
    conn.send_eth(msg).unwrap();
    // Read raw to prove the payload on the wire is snappy-compressed RLP.
    let (code, wire) = conn.read_raw().unwrap();
    assert_eq!(code, M::code());
    assert_eq!(
        dyno_net::snappy::decompress(&wire).unwrap(),
        msg.to_rlp(),
        "{}",
        M::NAME
    );
    assert_eq!(&M::decode_wire(&wire).unwrap(), msg, "{}", M::NAME);
}

#[test]
fn handshake_hello_and_messages_both_ways() {
    let (l, addr) = listen();
    let server = echo_server(l);

    let ck = key(CLIENT_KEY);
    let server_pub = public_key(&key(SERVER_KEY));
    let mut conn = Conn::initiate(dial(addr), &ck, &server_pub).unwrap();
    assert_eq!(conn.remote_pubkey(), &server_pub);
    assert!(!conn.snappy());
    let theirs = conn.exchange_hello(&hello_for(&ck, "dyno-client")).unwrap();
    assert_eq!(theirs.client_id, "dyno-echo");
    assert_eq!(theirs.id, node_id(&server_pub));
    assert_eq!(theirs.capabilities, vec![Capability::new("eth", 69)]);
    assert!(conn.snappy(), "snappy on after two v5 Hellos");

    conn.write_msg(PING, &hello::EMPTY_LIST).unwrap();
    assert_eq!(conn.read_msg().unwrap(), (PONG, vec![0xc0]));

    let txs = many_txs(100);
    echo(&mut conn, &status());
    echo(&mut conn, &Transactions(txs.clone()));
    echo(
        &mut conn,
        &GetBlockHeaders {
            request_id: 9,
            query: HeadersQuery {
                origin: HashOrNumber::Number(1),
                amount: 100,
                skip: 0,
                reverse: false,
            },
        },
    );
    echo(
        &mut conn,
        &BlockHeaders {
            request_id: 9,
            headers: (0..100).map(prague_header).collect(),
        },
    );
    echo(
        &mut conn,
        &GetBlockBodies {
            request_id: 10,
            hashes: vec![B256::repeat_byte(3); 10],
        },
    );
    echo(
        &mut conn,
        &BlockBodies {
            request_id: 10,
            bodies: (0..10)
                .map(|i| BlockBody {
                    transactions: many_txs(i + 1),
                    ommers: vec![],
                    withdrawals: None,
                })
                .collect(),
        },
    );
    echo(
        &mut conn,
        &NewPooledTransactionHashes {
            types: txs
                .iter()
                .map(alloy_eips::Typed2718::ty)
                .collect::<Vec<u8>>()
                .into(),
            sizes: txs.iter().map(|t| t.network_len() as u32).collect(),
            hashes: txs.iter().map(|t| *t.tx_hash()).collect(),
        },
    );
    // A ~300 KiB payload crosses many TCP segments.
    let big = Transactions(many_txs(1200));
    echo(&mut conn, &big);

    conn.disconnect(DisconnectReason::Requested).unwrap();
    let (client_hello, reason) = server.join().unwrap().unwrap();
    assert_eq!(client_hello.client_id, "dyno-client");
    assert_eq!(reason, DisconnectReason::Requested);
}

#[test]
fn wrong_remote_key_fails_on_both_sides() {
    let (l, addr) = listen();
    let server = echo_server(l);
    let wrong = public_key(&key(
        "0101010101010101010101010101010101010101010101010101010101010101",
    ));
    let client = Conn::initiate(dial(addr), &key(CLIENT_KEY), &wrong);
    assert!(client.is_err());
    let err = server.join().unwrap().unwrap_err();
    assert!(matches!(err, Error::EciesBadMac), "{err}");
}

#[test]
fn corrupted_frame_mac_fails_the_reader() {
    let (l, addr) = listen();
    let server = echo_server(l);
    let ck = key(CLIENT_KEY);
    let mut conn = Conn::initiate(dial(addr), &ck, &public_key(&key(SERVER_KEY))).unwrap();
    conn.exchange_hello(&hello_for(&ck, "c")).unwrap();
    // Send 32 junk bytes where a frame header should be.
    std::io::Write::write_all(conn.get_mut(), &[0x42; 48]).unwrap();
    let err = server.join().unwrap().unwrap_err();
    assert!(matches!(err, Error::BadHeaderMac), "{err}");
}

/// A stream that forwards at most `budget` more bytes once armed, drops
/// the rest, and then closes its write half.
struct Cutting {
    inner: TcpStream,
    budget: Option<usize>,
}

impl std::io::Read for Cutting {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.inner.read(buf)
    }
}

impl std::io::Write for Cutting {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self.budget {
            None => self.inner.write(buf),
            Some(0) => Ok(buf.len()),
            Some(n) => {
                let k = n.min(buf.len());
                self.inner.write_all(&buf[..k])?;
                self.budget = Some(n - k);
                if n == k {
                    self.inner.shutdown(std::net::Shutdown::Write)?;
                }
                Ok(buf.len())
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[test]
fn truncated_frame_is_an_error_for_the_reader() {
    // Cut inside the header (20 bytes) and inside the body (40 bytes).
    for cut in [20usize, 40] {
        let (l, addr) = listen();
        let server = echo_server(l);
        let ck = key(CLIENT_KEY);
        let stream = Cutting {
            inner: dial(addr),
            budget: None,
        };
        let mut conn = Conn::initiate(stream, &ck, &public_key(&key(SERVER_KEY))).unwrap();
        conn.exchange_hello(&hello_for(&ck, "c")).unwrap();
        conn.get_mut().budget = Some(cut);
        conn.send_eth(&status()).unwrap();
        let err = server.join().unwrap().unwrap_err();
        assert!(err.is_truncated(), "cut {cut}: {err}");
    }
}

#[test]
fn disconnect_instead_of_hello_is_reported() {
    let (l, addr) = listen();
    let server = thread::spawn(move || -> Result<(), Error> {
        let (stream, _) = l.accept()?;
        timeouts(&stream);
        let (mut conn, _) = Conn::accept(stream, &key(SERVER_KEY))?;
        // As geth does when maxpeers is reached: Disconnect, uncompressed.
        conn.disconnect(DisconnectReason::TooManyPeers)?;
        Ok(())
    });
    let ck = key(CLIENT_KEY);
    let mut conn = Conn::initiate(dial(addr), &ck, &public_key(&key(SERVER_KEY))).unwrap();
    let err = conn.exchange_hello(&hello_for(&ck, "c")).unwrap_err();
    assert!(
        matches!(err, Error::Disconnected(DisconnectReason::TooManyPeers)),
        "{err}"
    );
    server.join().unwrap().unwrap();
}

#[test]
fn unexpected_first_message_is_reported() {
    let (l, addr) = listen();
    let server = thread::spawn(move || -> Result<(), Error> {
        let (stream, _) = l.accept()?;
        timeouts(&stream);
        let (mut conn, _) = Conn::accept(stream, &key(SERVER_KEY))?;
        conn.write_msg(PING, &hello::EMPTY_LIST)?;
        Ok(())
    });
    let ck = key(CLIENT_KEY);
    let mut conn = Conn::initiate(dial(addr), &ck, &public_key(&key(SERVER_KEY))).unwrap();
    let err = conn.exchange_hello(&hello_for(&ck, "c")).unwrap_err();
    assert!(
        matches!(
            err,
            Error::UnexpectedMessage {
                expected: 0,
                got: PING
            }
        ),
        "{err}"
    );
    server.join().unwrap().unwrap();
}
