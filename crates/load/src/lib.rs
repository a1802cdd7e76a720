//! The load lab: start a temporary node (or target any RPC URL), fund
//! deterministic accounts, pre-sign every transaction, send them open-loop
//! on a schedule, follow each one through accepted, included, safe and
//! finalized, and summarise throughput, latency and blocks.

pub mod blobs;
pub mod chain;
pub mod drive;
pub mod onchain;
pub mod output;
pub mod procstat;
pub mod read;
pub mod record;
pub mod schedule;
pub mod scrape;
pub mod send;
pub mod summary;
pub mod track;
pub mod txs;
