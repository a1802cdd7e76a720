//! jsonrpc suite: parsing large `eth_getLogs` responses, as an SDK does on
//! every such call.
//!
//! Ids are `jsonrpc/<op>/<n>` for `n` = 100, 1000 and 5000 ERC-20 Transfer
//! logs in one response (`{"jsonrpc":"2.0","id":1,"result":[…]}`):
//!
//! * `getlogs-raw`: parse the body into the parser's generic JSON tree
//!   (`serde_json::Value`, `sonic_rs::Value`) and count the `result` entries;
//! * `getlogs-typed`: deserialize it with serde into
//!   [`JsonRpcResponse`]`<Vec<`[`Log`]`>>`, alloy's own RPC log type (hex
//!   decoded into `Address`, `B256`, `Bytes` and `u64`), and compute a
//!   [`GetLogsSummary`] from the records.
//!
//! Both parse from the body as a `&str` built once per workload (no copy, no
//! mutable buffer: neither parser needs one); the tree or the records are
//! dropped inside the operation, so freeing them is timed too, as it is part
//! of every call an SDK makes.
//!
//! The body is generated, not read from a file: [`generate`] derives every
//! field of every log from [`seq`], so any runtime can regenerate the same
//! bytes, and [`getlogs_body`] serializes them the way a node does (geth's
//! field order, quantities as minimal hex, `blockTimestamp` as newer nodes
//! emit): about 634 bytes per log, the reference's "~600 bytes" (its 58 KB
//! for 100 logs is 585 B a log, without `blockTimestamp`). Every output is
//! checked before timing: the raw count against `n`, the typed summary
//! against [`truth`], computed from the generated data, not by parsing.
//! [`portable_cases`] hands the same body and expected values to other
//! runtimes.

use std::fmt::Write as _;

use dyno_workload::{BenchDef, Cases, Ctx, Param, Workload, seq};
use serde::Deserialize;
use sonic_rs::{JsonContainerTrait as _, JsonValueTrait as _};

use crate::version;

/// The typed record: alloy's JSON-RPC log (`address`, `topics` and `data`
/// in `inner`, the block and transaction fields as `Option`s).
pub use alloy_rpc_types_eth::Log;

/// The log counts benchmarked.
pub const SIZES: [usize; 3] = [100, 1000, 5000];

/// `keccak256("Transfer(address,address,uint256)")`, every log's topic 0.
pub const TRANSFER: [u8; 32] = [
    0xdd, 0xf2, 0x52, 0xad, 0x1b, 0xe2, 0xc8, 0x9b, 0x69, 0xc2, 0xb0, 0x68, 0xfc, 0x37, 0x8d, 0xaa,
    0x95, 0x2b, 0xa7, 0xf1, 0x63, 0xc4, 0xa1, 0x16, 0x28, 0xf5, 0x5a, 0x4d, 0xf5, 0x23, 0xb3, 0xef,
];

/// Seed of log `i`'s bytes: `seq(LOG_SEED + i, LOG_BYTES)`.
pub const LOG_SEED: u64 = 0x6c6f_6773_0000_0000;
/// Bytes drawn per log: address 20, from 20, to 20, amount 32, transaction
/// hash 32, then one byte each for the transaction and log index.
pub const LOG_BYTES: usize = 126;
/// Seed of block `b`'s hash: `seq(BLOCK_SEED + b, 32)`.
pub const BLOCK_SEED: u64 = 0x626c_6f63_0000_0000;
/// Logs per block: log `i` is in block `FIRST_BLOCK + i / LOGS_PER_BLOCK`.
pub const LOGS_PER_BLOCK: usize = 4;
/// The first block's number.
pub const FIRST_BLOCK: u64 = 19_000_000;
/// The first block's timestamp; blocks are 12 s apart.
pub const FIRST_TIMESTAMP: u64 = 1_710_000_000;

/// The HTTP body limits the reference discusses: Netty's 64 KiB
/// `HttpObjectAggregator` default and the 4 MiB it recommends.
const LIMIT_64KIB: usize = 64 * 1024;
const LIMIT_4MIB: usize = 4 * 1024 * 1024;

/// One generated ERC-20 Transfer log, every field derived from [`seq`]:
/// with `r = seq(LOG_SEED + i, 126)` and `k = i % 4`, `b = i / 4`,
///
/// * `address = r[0..20]`, `from = r[20..40]`, `to = r[40..60]`,
///   `amount = r[60..92]` (the log's 32-byte data),
///   `transaction_hash = r[92..124]`;
/// * `transaction_index = 40 k + r[124] % 40`,
///   `log_index = 3 transaction_index + r[125] % 3`;
/// * `block_number = 19_000_000 + b`, `block_hash = seq(BLOCK_SEED + b, 32)`,
///   `block_timestamp = 1_710_000_000 + 12 b`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenLog {
    /// The token contract.
    pub address: [u8; 20],
    /// Sender (topic 1, left-padded to 32 bytes).
    pub from: [u8; 20],
    /// Recipient (topic 2, left-padded to 32 bytes).
    pub to: [u8; 20],
    /// Amount, the log's data.
    pub amount: [u8; 32],
    /// Block number.
    pub block_number: u64,
    /// Block hash.
    pub block_hash: [u8; 32],
    /// Block timestamp, Unix seconds.
    pub block_timestamp: u64,
    /// Transaction hash.
    pub transaction_hash: [u8; 32],
    /// Transaction index in the block.
    pub transaction_index: u64,
    /// Log index in the block.
    pub log_index: u64,
}

impl GenLog {
    /// The three topics: the Transfer signature, `from` and `to` padded.
    pub fn topics(&self) -> [[u8; 32]; 3] {
        let pad = |a: &[u8; 20]| {
            let mut t = [0u8; 32];
            t[12..].copy_from_slice(a);
            t
        };
        [TRANSFER, pad(&self.from), pad(&self.to)]
    }
}

/// One record's fields, as [`records_digest`] reads them.
struct Record<'a> {
    address: &'a [u8],
    topics: Vec<&'a [u8]>,
    data: &'a [u8],
    block_number: u64,
    transaction_hash: &'a [u8],
    log_index: u64,
}

/// The records' digest, which other runtimes report for `getlogs-typed`
/// beside the summary, and which this suite checks its own parses against
/// before timing, so that every field a parser decodes is checked, not
/// only counts: keccak-256 over every log, in order, of `address ‖ u32 BE
/// topic count ‖ topics ‖ u32 BE data length ‖ data ‖ u64 BE block number
/// ‖ transaction hash ‖ u64 BE log index`.
fn digest<'a>(records: impl Iterator<Item = Record<'a>>) -> [u8; 32] {
    use tiny_keccak::{Hasher, Keccak};
    let mut k = Keccak::v256();
    for r in records {
        k.update(r.address);
        k.update(&(r.topics.len() as u32).to_be_bytes());
        for t in &r.topics {
            k.update(t);
        }
        k.update(&(r.data.len() as u32).to_be_bytes());
        k.update(r.data);
        k.update(&r.block_number.to_be_bytes());
        k.update(r.transaction_hash);
        k.update(&r.log_index.to_be_bytes());
    }
    let mut out = [0u8; 32];
    k.finalize(&mut out);
    out
}

/// The generated logs' digest ([`digest`]): what a parse must give.
pub fn records_digest(logs: &[GenLog]) -> [u8; 32] {
    let topics: Vec<[[u8; 32]; 3]> = logs.iter().map(GenLog::topics).collect();
    digest(logs.iter().zip(&topics).map(|(l, t)| Record {
        address: &l.address,
        topics: t.iter().map(|t| &t[..]).collect(),
        data: &l.amount,
        block_number: l.block_number,
        transaction_hash: &l.transaction_hash,
        log_index: l.log_index,
    }))
}

/// The digest of parsed records (a missing block number, transaction
/// hash or log index counts as zero, and so differs).
pub fn parsed_digest(logs: &[Log]) -> [u8; 32] {
    digest(logs.iter().map(|l| {
        Record {
            address: l.inner.address.as_slice(),
            topics: l.topics().iter().map(|t| t.as_slice()).collect(),
            data: &l.data().data,
            block_number: l.block_number.unwrap_or(0),
            transaction_hash: l
                .transaction_hash
                .as_ref()
                .map_or(&[][..], |h| h.as_slice()),
            log_index: l.log_index.unwrap_or(0),
        }
    }))
}

/// A typed benchmark: the timed operation returns the summary, and
/// `verify` first parses once with the same library and checks every
/// record against the generator's ([`parsed_digest`] against
/// [`records_digest`]): a summary of counts would pass a parser that
/// mangles the bytes it decodes.
struct RecordsChecked {
    timed: Box<dyn Workload>,
    body: String,
    parse: fn(&str) -> Result<Vec<Log>, String>,
    want: [u8; 32],
}

impl Workload for RecordsChecked {
    fn verify(&mut self) -> Result<(), dyno_workload::Mismatch> {
        let got = (self.parse)(&self.body).map(|l| parsed_digest(&l));
        if got.as_ref() != Ok(&self.want) {
            return Err(dyno_workload::Mismatch {
                case: "0 (every record: address, topics, data, block number, transaction hash, log index)".into(),
                expected: format!("records digest {}", dyno_workload::hex(self.want)),
                actual: got.map_or_else(
                    |e| format!("error: {e}"),
                    |d| format!("records digest {}", dyno_workload::hex(d)),
                ),
            });
        }
        self.timed.verify()
    }

    fn run(&mut self, iters: u64) {
        self.timed.run(iters);
    }

    fn cases(&self) -> usize {
        self.timed.cases()
    }
}

/// The `n` logs of the benchmark's response.
pub fn generate(n: usize) -> Vec<GenLog> {
    (0..n)
        .map(|i| {
            let r = seq(LOG_SEED + i as u64, LOG_BYTES);
            let b = (i / LOGS_PER_BLOCK) as u64;
            let k = (i % LOGS_PER_BLOCK) as u64;
            let transaction_index = 40 * k + u64::from(r[124]) % 40;
            GenLog {
                address: r[0..20].try_into().expect("20 bytes"),
                from: r[20..40].try_into().expect("20 bytes"),
                to: r[40..60].try_into().expect("20 bytes"),
                amount: r[60..92].try_into().expect("32 bytes"),
                transaction_hash: r[92..124].try_into().expect("32 bytes"),
                transaction_index,
                log_index: 3 * transaction_index + u64::from(r[125]) % 3,
                block_number: FIRST_BLOCK + b,
                block_hash: seq(BLOCK_SEED + b, 32).try_into().expect("32 bytes"),
                block_timestamp: FIRST_TIMESTAMP + 12 * b,
            }
        })
        .collect()
}

fn push_hex(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    out.push_str("\"0x");
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out.push('"');
}

fn push_quantity(out: &mut String, q: u64) {
    write!(out, "\"{q:#x}\"").expect("writing to a String");
}

/// `logs` as a node's `eth_getLogs` response: compact JSON, geth's field
/// order (`address`, `topics`, `data`, `blockNumber`, `transactionHash`,
/// `transactionIndex`, `blockHash`, `blockTimestamp`, `logIndex`,
/// `removed`), lower-case hex, quantities without leading zeros.
pub fn body(logs: &[GenLog]) -> String {
    let mut out = String::with_capacity(40 + 640 * logs.len());
    out.push_str(r#"{"jsonrpc":"2.0","id":1,"result":["#);
    for (i, l) in logs.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(r#"{"address":"#);
        push_hex(&mut out, &l.address);
        out.push_str(r#","topics":["#);
        for (k, t) in l.topics().iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            push_hex(&mut out, t);
        }
        out.push_str(r#"],"data":"#);
        push_hex(&mut out, &l.amount);
        out.push_str(r#","blockNumber":"#);
        push_quantity(&mut out, l.block_number);
        out.push_str(r#","transactionHash":"#);
        push_hex(&mut out, &l.transaction_hash);
        out.push_str(r#","transactionIndex":"#);
        push_quantity(&mut out, l.transaction_index);
        out.push_str(r#","blockHash":"#);
        push_hex(&mut out, &l.block_hash);
        out.push_str(r#","blockTimestamp":"#);
        push_quantity(&mut out, l.block_timestamp);
        out.push_str(r#","logIndex":"#);
        push_quantity(&mut out, l.log_index);
        out.push_str(r#","removed":false}"#);
    }
    out.push_str("]}");
    out
}

/// The complete response body holding `n` Transfer logs.
pub fn getlogs_body(n: usize) -> String {
    body(&generate(n))
}

/// What the typed benchmarks compute from the records: enough to show every
/// log was decoded, and cheap next to the parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GetLogsSummary {
    /// Number of logs.
    pub logs: u64,
    /// Topics over all logs.
    pub topics: u64,
    /// Data bytes over all logs.
    pub data_bytes: u64,
    /// The last log's address.
    pub last_address: [u8; 20],
    /// The last log's block number.
    pub last_block: u64,
}

impl GetLogsSummary {
    /// As JSON for other runtimes: `{"logs", "topics", "data_bytes",
    /// "last_address" (0x-prefixed lower-case hex), "last_block"}`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut address = String::new();
        push_hex(&mut address, &self.last_address);
        serde_json::json!({
            "logs": self.logs,
            "topics": self.topics,
            "data_bytes": self.data_bytes,
            "last_address": address.trim_matches('"'),
            "last_block": self.last_block,
        })
    }
}

/// The summary of generated logs, from the generator's own data.
pub fn truth(logs: &[GenLog]) -> GetLogsSummary {
    let mut s = GetLogsSummary {
        logs: logs.len() as u64,
        ..Default::default()
    };
    for l in logs {
        s.topics += l.topics().len() as u64;
        s.data_bytes += l.amount.len() as u64;
    }
    if let Some(last) = logs.last() {
        s.last_address = last.address;
        s.last_block = last.block_number;
    }
    s
}

/// The summary of parsed records. Every log of an `eth_getLogs` response
/// is mined, so a missing `blockNumber` on the last one is an error.
pub fn summarize(logs: &[Log]) -> Result<GetLogsSummary, String> {
    let mut s = GetLogsSummary {
        logs: logs.len() as u64,
        ..Default::default()
    };
    for l in logs {
        s.topics += l.topics().len() as u64;
        s.data_bytes += l.data().data.len() as u64;
    }
    if let Some(last) = logs.last() {
        s.last_address = last.address().into_array();
        s.last_block = last
            .block_number
            .ok_or_else(|| "last log has no blockNumber".to_string())?;
    }
    Ok(s)
}

/// A successful JSON-RPC 2.0 response. (alloy's transport parses the
/// envelope into `alloy_json_rpc::Response` with the result kept raw and
/// parses the result in a second pass; this single pass is the floor of
/// that.)
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct JsonRpcResponse<T> {
    /// Always `"2.0"`.
    pub jsonrpc: String,
    /// The request id.
    pub id: u64,
    /// The method's result.
    pub result: T,
}

/// A body and the outputs it must produce, for this suite and for other
/// runtimes (over the adapter protocol).
#[derive(Debug, Clone, PartialEq)]
pub struct PortableCase {
    /// The complete response body.
    pub body: String,
    /// Log count, the raw benchmark's expected output.
    pub logs: usize,
    /// The typed benchmark's expected output.
    pub summary: GetLogsSummary,
    /// What other runtimes' typed benchmarks report beside the summary
    /// ([`records_digest`]).
    pub digest: [u8; 32],
}

impl PortableCase {
    /// Expected output of `getlogs-raw`: `{"logs": n}`.
    pub fn raw_json(&self) -> serde_json::Value {
        serde_json::json!({ "logs": self.logs })
    }

    /// Expected output of `getlogs-typed` from another runtime: the
    /// summary's JSON and the records' `digest`.
    pub fn typed_json(&self) -> serde_json::Value {
        let mut v = self.summary.to_json();
        v["digest"] = serde_json::Value::String(crate::cases::full_hex(&self.digest));
        v
    }
}

/// The body for `n` logs and its expected summary.
pub fn portable_cases(n: usize) -> PortableCase {
    let logs = generate(n);
    PortableCase {
        body: body(&logs),
        logs: n,
        summary: truth(&logs),
        digest: records_digest(&logs),
    }
}

/// `getlogs-raw` with serde_json: a `serde_json::Value` tree, then the
/// length of `result`.
pub fn raw_serde_json(body: &str) -> Result<usize, String> {
    let v: serde_json::Value = serde_json::from_str(body).map_err(|e| e.to_string())?;
    v.get("result")
        .and_then(serde_json::Value::as_array)
        .map(Vec::len)
        .ok_or_else(|| "no result array".to_string())
}

/// `getlogs-raw` with sonic-rs: a `sonic_rs::Value` tree, then the length
/// of `result`.
pub fn raw_sonic_rs(body: &str) -> Result<usize, String> {
    let v: sonic_rs::Value = sonic_rs::from_str(body).map_err(|e| e.to_string())?;
    v.get("result")
        .and_then(|r| r.as_array())
        .map(|a| a.len())
        .ok_or_else(|| "no result array".to_string())
}

/// The records, parsed with serde_json.
pub fn logs_serde_json(body: &str) -> Result<Vec<Log>, String> {
    serde_json::from_str::<JsonRpcResponse<Vec<Log>>>(body)
        .map(|r| r.result)
        .map_err(|e| e.to_string())
}

/// The records, parsed with sonic-rs through serde.
pub fn logs_sonic_rs(body: &str) -> Result<Vec<Log>, String> {
    sonic_rs::from_str::<JsonRpcResponse<Vec<Log>>>(body)
        .map(|r| r.result)
        .map_err(|e| e.to_string())
}

/// `getlogs-typed` with serde_json.
pub fn typed_serde_json(body: &str) -> Result<GetLogsSummary, String> {
    summarize(&logs_serde_json(body)?)
}

/// `getlogs-typed` with sonic-rs.
pub fn typed_sonic_rs(body: &str) -> Result<GetLogsSummary, String> {
    summarize(&logs_sonic_rs(body)?)
}

/// The parsers, each as `(implementation, crate, raw, typed, records)`.
type Parser = (
    &'static str,
    &'static str,
    fn(&str) -> Result<usize, String>,
    fn(&str) -> Result<GetLogsSummary, String>,
    fn(&str) -> Result<Vec<Log>, String>,
);

const PARSERS: [Parser; 2] = [
    (
        "serde_json",
        "serde_json",
        raw_serde_json,
        typed_serde_json,
        logs_serde_json,
    ),
    (
        "sonic-rs",
        "sonic-rs",
        raw_sonic_rs,
        typed_sonic_rs,
        logs_sonic_rs,
    ),
];

/// The workload timing `op` over one body, which must produce `expected`.
fn workload<O>(
    body: String,
    expected: Result<O, String>,
    op: fn(&str) -> Result<O, String>,
) -> Box<dyn Workload>
where
    O: PartialEq + std::fmt::Debug + 'static,
{
    Box::new(Cases::expect(vec![(body, expected)], move |b: &String| {
        op(b)
    }))
}

/// The parameters recorded with every benchmark over `n` logs.
fn params(n: usize, bytes: usize, typed: bool) -> Vec<(&'static str, Param)> {
    let flag = |b: bool| Param::Text(b.to_string());
    let mut p = vec![
        ("logs", Param::Int(n as u64)),
        ("bytes", Param::Int(bytes as u64)),
        ("fits_64KiB", flag(bytes <= LIMIT_64KIB)),
        ("fits_4MiB", flag(bytes <= LIMIT_4MIB)),
    ];
    if typed {
        p.push((
            "types",
            Param::Text(format!(
                "alloy-rpc-types-eth {}",
                version("alloy-rpc-types-eth")
            )),
        ));
    }
    p
}

/// The jsonrpc benchmarks.
pub fn defs() -> Vec<BenchDef> {
    let mut defs = Vec::new();
    for n in SIZES {
        let bytes = getlogs_body(n).len();
        let (raw_params, typed_params) = (params(n, bytes, false), params(n, bytes, true));
        for (implementation, krate, raw, typed, records) in PARSERS {
            defs.push(BenchDef {
                cases: Some(crate::cases::cases),
                group: "jsonrpc",
                op: "getlogs-raw",
                input: n.to_string(),
                implementation,
                version: version(krate),
                params: raw_params.clone(),
                build: Box::new(move |_: &Ctx| Ok(workload(getlogs_body(n), Ok(n), raw))),
            });
            defs.push(BenchDef {
                cases: Some(crate::cases::cases),
                group: "jsonrpc",
                op: "getlogs-typed",
                input: n.to_string(),
                implementation,
                version: version(krate),
                params: typed_params.clone(),
                build: Box::new(move |_: &Ctx| {
                    let case = portable_cases(n);
                    Ok(Box::new(RecordsChecked {
                        timed: workload(case.body.clone(), Ok(case.summary), typed),
                        body: case.body,
                        parse: records,
                        want: case.digest,
                    }) as Box<dyn Workload>)
                }),
            });
        }
    }
    defs
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::{Address, B256, Bytes, LogData};

    use crate::testutil::ctx;

    #[test]
    fn jsonrpc_generator_is_deterministic_and_about_600_bytes_a_log() {
        assert_eq!(getlogs_body(100), getlogs_body(100));
        assert_eq!(generate(3), generate(5)[..3]);
        for n in SIZES {
            let body = getlogs_body(n);
            let per_log = (body.len() - 40) as f64 / n as f64;
            assert!((600.0..660.0).contains(&per_log), "{n}: {per_log} B/log");
        }
        // Pinned: any runtime regenerating the body must get these.
        let logs = generate(5);
        let head = &logs[0];
        assert_eq!(
            head.address,
            <[u8; 20]>::try_from(&seq(LOG_SEED, 20)[..]).unwrap()
        );
        assert_eq!(head.block_number, 19_000_000);
        assert_eq!(logs[4].block_number, 19_000_001);
        assert_eq!(logs[4].block_timestamp, 1_710_000_012);
        assert!(logs[0].transaction_index < logs[1].transaction_index);
        let body = getlogs_body(1);
        assert!(body.starts_with(r#"{"jsonrpc":"2.0","id":1,"result":[{"address":"0x"#));
        assert!(body.ends_with(r#","removed":false}]}"#));
        assert!(body.contains(
            r#""topics":["0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef","0x000000000000000000000000"#
        ));
        assert!(body.contains(r#""blockNumber":"0x121eac0""#));
        assert!(body.contains(r#""blockTimestamp":"0x65ec8780""#));
    }

    #[test]
    fn jsonrpc_sizes_and_limits() {
        for (n, fits64) in [(100, true), (1000, false), (5000, false)] {
            let p = params(n, getlogs_body(n).len(), true);
            assert_eq!(p[0], ("logs", Param::Int(n as u64)));
            assert_eq!(p[1], ("bytes", Param::Int(getlogs_body(n).len() as u64)));
            assert_eq!(p[2], ("fits_64KiB", Param::Text(fits64.to_string())));
            assert_eq!(p[3], ("fits_4MiB", Param::Text("true".into())));
        }
    }

    #[test]
    fn jsonrpc_records_equal_the_generated_logs_with_both_parsers() {
        let gen_logs = generate(257);
        let body = body(&gen_logs);
        for parse in [logs_serde_json, logs_sonic_rs] {
            let logs = parse(&body).unwrap();
            assert_eq!(logs.len(), gen_logs.len());
            for (l, g) in logs.iter().zip(&gen_logs) {
                assert_eq!(l.address(), Address::from(g.address));
                let topics: Vec<B256> = g.topics().iter().map(|t| B256::from(*t)).collect();
                assert_eq!(l.topics(), &topics[..]);
                assert_eq!(
                    l.data(),
                    &LogData::new_unchecked(topics, Bytes::copy_from_slice(&g.amount))
                );
                assert_eq!(l.block_number, Some(g.block_number));
                assert_eq!(l.block_hash, Some(B256::from(g.block_hash)));
                assert_eq!(l.block_timestamp, Some(g.block_timestamp));
                assert_eq!(l.transaction_hash, Some(B256::from(g.transaction_hash)));
                assert_eq!(l.transaction_index, Some(g.transaction_index));
                assert_eq!(l.log_index, Some(g.log_index));
                assert!(!l.removed);
            }
        }
    }

    #[test]
    fn jsonrpc_parsers_agree_with_the_generator_truth() {
        for n in [0, 1, 7, 100] {
            let case = portable_cases(n);
            assert_eq!(raw_serde_json(&case.body), Ok(n));
            assert_eq!(raw_sonic_rs(&case.body), Ok(n));
            assert_eq!(typed_serde_json(&case.body), Ok(case.summary));
            assert_eq!(typed_sonic_rs(&case.body), Ok(case.summary));
        }
        let s = portable_cases(100).summary;
        assert_eq!((s.logs, s.topics, s.data_bytes), (100, 300, 3200));
        assert_eq!(s.last_block, 19_000_024);
        assert_eq!(s.last_address, generate(100)[99].address);
    }

    #[test]
    fn jsonrpc_portable_json() {
        let case = portable_cases(2);
        assert_eq!(case.raw_json(), serde_json::json!({"logs": 2}));
        let j = case.typed_json();
        assert_eq!(j["logs"], 2);
        assert_eq!(j["topics"], 6);
        assert_eq!(j["data_bytes"], 64);
        assert_eq!(j["last_block"], 19_000_000);
        let addr = j["last_address"].as_str().unwrap();
        assert_eq!(addr.len(), 42);
        assert_eq!(
            dyno_workload::unhex(addr).unwrap(),
            generate(2)[1].address.to_vec()
        );
    }

    #[test]
    fn jsonrpc_corrupted_bodies_are_errors_not_panics() {
        let good = getlogs_body(3);
        let addr = format!("\"0x{}", &dyno_workload::hex(generate(3)[1].address)[2..]);
        // Bad hex in an address, a short hash, a bad quantity, bad JSON.
        let bad_hex = good.replacen(&addr, &format!("\"0xzz{}", &addr[5..]), 1);
        assert_ne!(bad_hex, good);
        let short_hash = good.replacen(r#""blockHash":"0x"#, r#""blockHash":"0x00"#, 1);
        let bad_quantity = good.replacen(r#""logIndex":"0x"#, r#""logIndex":"0xg"#, 1);
        let truncated = &good[..good.len() - 10];
        for typed in [typed_serde_json, typed_sonic_rs] {
            for bad in [&bad_hex[..], &short_hash, &bad_quantity, truncated] {
                assert!(typed(bad).is_err(), "accepted {}", &bad[..80]);
            }
        }
        for raw in [raw_serde_json, raw_sonic_rs] {
            assert!(raw(truncated).is_err());
            assert!(raw(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000}}"#).is_err());
        }
    }

    /// serde_json's parse with the first log's `from` topic reversed: the
    /// same counts, addresses and blocks, other bytes.
    fn mangled(body: &str) -> Result<Vec<Log>, String> {
        let mut logs = logs_serde_json(body)?;
        let first = &mut logs[0].inner.data;
        let mut topics = first.topics().to_vec();
        topics[1].0.reverse();
        *first = LogData::new_unchecked(topics, first.data.clone());
        Ok(logs)
    }

    #[test]
    fn jsonrpc_a_parser_that_mangles_bytes_is_wrong_though_its_counts_are_right() {
        let case = portable_cases(10);
        let logs = logs_serde_json(&case.body).unwrap();
        assert_eq!(parsed_digest(&logs), case.digest);
        assert_eq!(
            parsed_digest(&logs_sonic_rs(&case.body).unwrap()),
            case.digest
        );
        assert_eq!(
            summarize(&mangled(&case.body).unwrap()).unwrap(),
            case.summary
        );
        let mut w = RecordsChecked {
            timed: workload(case.body.clone(), Ok(case.summary), typed_serde_json),
            body: case.body.clone(),
            parse: mangled,
            want: case.digest,
        };
        let m = w.verify().unwrap_err();
        assert!(m.case.contains("every record"), "{m}");
        // The digest is the one other runtimes report.
        assert_eq!(
            case.typed_json()["digest"],
            crate::cases::full_hex(&records_digest(&generate(10)))
        );
    }

    #[test]
    fn jsonrpc_verify_catches_a_wrong_output() {
        for (_, _, raw, typed, _) in PARSERS {
            let err = workload(getlogs_body(10), Ok(11), raw)
                .verify()
                .unwrap_err();
            assert_eq!(
                (err.expected.as_str(), err.actual.as_str()),
                ("Ok(11)", "Ok(10)")
            );
            let mut wrong = portable_cases(10).summary;
            wrong.last_block += 1;
            assert!(
                workload(getlogs_body(10), Ok(wrong), typed)
                    .verify()
                    .is_err()
            );
            // A body whose logs differ from the expected summary.
            let other = portable_cases(11);
            let mut w = workload(getlogs_body(10), Ok(other.summary), typed);
            assert!(w.verify().is_err());
        }
    }

    #[test]
    fn jsonrpc_every_def_builds_and_verifies() {
        let defs = defs();
        assert_eq!(defs.len(), 2 * 2 * SIZES.len());
        let ctx = ctx();
        for def in defs {
            assert_eq!(def.group, "jsonrpc");
            assert_ne!(def.version, "unknown", "{}", def.implementation);
            let mut w = (def.build)(&ctx)
                .unwrap_or_else(|e| panic!("{} {}: {e}", def.id(), def.implementation));
            w.verify()
                .unwrap_or_else(|e| panic!("{} {}: {e}", def.id(), def.implementation));
            w.run(1);
        }
    }
}
