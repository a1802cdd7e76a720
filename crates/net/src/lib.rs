//! dyno-net: a small, blocking RLPx / devp2p / eth wire implementation for
//! the dyno performance lab, checked against go-ethereum v1.17.8.
//!
//! Layers, bottom up:
//! - [`ecies`]: ECIES on secp256k1 (concat-KDF SHA-256, AES-128-CTR, HMAC-SHA256).
//! - [`handshake`]: the EIP-8 auth/ack handshake and session secrets.
//! - [`frame`]: AES-256-CTR framing with the RLPx keccak MACs.
//! - [`session`]: [`Conn`], a handshaken connection over any `Read + Write`.
//! - [`hello`]: Hello, Disconnect, Ping, Pong.
//! - [`eth`]: eth/69 messages (Status, Transactions, headers, bodies, hashes).
//! - [`router`]: code → decoder dispatch producing [`Message`].
//! - [`snappy`]: block-format snappy with a size limit.
//!
//! ```no_run
//! use dyno_net::{Capability, Conn, Hello, key};
//! # fn main() -> dyno_net::Result<()> {
//! let ours = key::random_secret_key();
//! # let remote = key::public_key(&key::random_secret_key());
//! let stream = std::net::TcpStream::connect("127.0.0.1:30303")?;
//! let mut conn = Conn::initiate(stream, &ours, &remote)?;
//! let hello = Hello::new("dyno", vec![Capability::new("eth", 69)], key::node_id(&key::public_key(&ours)));
//! let theirs = conn.exchange_hello(&hello)?;
//! println!("{}", theirs.client_id);
//! # Ok(()) }
//! ```

pub mod bench;
pub mod cases;
pub mod ecies;
pub mod error;
pub mod eth;
pub mod frame;
pub mod handshake;
pub mod hello;
pub mod key;
mod rlp;
pub mod router;
pub mod session;
pub mod snappy;

pub use error::{Error, Result};
pub use eth::EthMessage;
pub use handshake::{Handshake, Secrets};
pub use hello::{Capability, Disconnect, DisconnectReason, Hello};
pub use router::{Message, Router};
pub use session::Conn;

/// Re-exported secp256k1 key types used in the public API.
pub use secp256k1::{PublicKey, SecretKey};
