//! HTTP/1.1 JSON-RPC transport for dyno's load generator.
//!
//! * [`Client`]: a pool of keep-alive HTTP/1.1 connections (hyper) to one
//!   [`Endpoint`]. [`Client::post`] is the hot path: an already-serialised
//!   body in, status and body bytes out, no JSON work. [`Client::call`] and
//!   [`Client::batch`] are the JSON-RPC conveniences.
//! * [`parse_response`]: a single-pass parse of a response body into a
//!   [`Reply`] (the result kept as raw JSON text) or [`RpcError::Rpc`].
//! * [`ErrorClass`]: failures bucketed for load accounting, from geth's,
//!   anvil's and hardhat's wording of transaction-pool rejections plus the
//!   transport failures; [`RpcError::class`].
//! * [`NullSink`]: a JSON-RPC server on loopback that answers instantly, to
//!   measure the generator's own ceiling with [`blast`].
//!
//! Everything runs on the caller's tokio runtime.
//!
//! ```
//! use dyno_rpc::{Client, ClientOptions, NullSink, SinkOptions, send_raw_transaction_body};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), dyno_rpc::RpcError> {
//! let sink = NullSink::start(SinkOptions::default()).await?;
//! let client = Client::connect(&sink.endpoint(), ClientOptions::default()).await?;
//!
//! // Convenience: build, send, parse.
//! let chain: String = client.call("eth_chainId", serde_json::json!([])).await?;
//! assert_eq!(chain, "0x539");
//!
//! // Hot path: pre-serialised body in, raw bytes out, then the fast parse.
//! let raw = client.post(send_raw_transaction_body(1, "0x02f8")).await?;
//! match raw.reply() {
//!     Ok(reply) => assert_eq!(reply.as_str(), Some(dyno_rpc::SINK_TX_HASH)),
//!     Err(e) => println!("rejected: {} ({e})", e.class()),
//! }
//! sink.stop().await;
//! # Ok(())
//! # }
//! ```

mod blast;
mod client;
mod endpoint;
mod error;
mod json;
mod sink;

pub use blast::{Blast, blast};
pub use client::{Client, ClientOptions, RawResponse};
pub use endpoint::Endpoint;
pub use error::{ErrorClass, RpcError, UnknownErrorClass, classify_rpc};
pub use json::{Reply, parse_response, send_raw_transaction_body};
pub use sink::{NullSink, SINK_TX_HASH, SinkOptions};
