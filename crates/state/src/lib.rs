//! The `state` suite: what a cold SLOAD, an account touch, an SSTORE, a
//! CALL with value and a CREATE cost on a disk-backed state of 10⁴ to 10⁷
//! accounts, against today's gas and the proposed repricing
//! (`docs/state.md`).
//!
//! * [`shape`]: the generated state (accounts, contracts, a Zipf law of
//!   slots), drawn from Keccak-256 of tags so that Python and Go draw the
//!   same; [`vectors`]: its independent roots.
//! * [`layout`]: go-ethereum's flat snapshot layout; [`store`]: writing a
//!   state once into a store, its ready marker and root check; [`mdbx`]
//!   (with the `engines` feature): MDBX.
//! * [`database`]: revm's `Database` over a store; [`access`]: the access
//!   kinds and their programs; [`cache`]: the page cache, warm or dropped;
//!   [`bench`]: the benchmarks.

pub mod access;
pub mod bench;
pub mod cache;
pub mod cases;
pub mod database;
pub mod layout;
#[cfg(feature = "engines")]
pub mod mdbx;
pub mod shape;
pub mod store;
pub mod vectors;

pub use bench::defs;

#[cfg(test)]
mod tests;
