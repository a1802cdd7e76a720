//! Block processing on a real client, as a consensus client drives it: each
//! of dyno's blocks becomes an Engine-API payload ([`payload`]), sent with
//! `engine_newPayload` and made the head with `engine_forkchoiceUpdated`
//! over the authenticated Engine API ([`jwt`], [`engine`]), each call timed
//! from dyno's side. A reply other than `VALID` fails the block with the
//! client's reason; it is never a timing.

pub mod ab;
pub mod blocks;
pub mod client;
pub mod conformance;
pub mod drive;
pub mod engine;
pub mod folder;
pub mod jwt;
pub mod payload;
pub mod process;
pub mod results;
pub mod slowlog;
