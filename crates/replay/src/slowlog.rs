//! The clients' own per-block timing: the cross-client "slow block" JSON
//! that geth (`--debug.logslowblock 0`), reth, Nethermind and Erigon write
//! for every block over a threshold. geth writes it as the message of a
//! warning, so a line is `WARN [11-26|02:23:20.123] {"level":"warn",
//! "msg":"Slow block","block":{"number":..,"hash":"0x..",...},"timing":
//! {"execution_ms":..,"state_read_ms":..,"state_hash_ms":..,"commit_ms":..,
//! "total_ms":..},"throughput":{"mgas_per_sec":..},"state_reads":{..},
//! "state_writes":{..},"cache":{..}}`; the JSON is kept as the client wrote
//! it, and joined to dyno's timings by block hash.

use std::collections::HashMap;

use serde_json::Value;

/// The breakdown's parts, as geth's log names them, in the order they are
/// shown.
pub const PARTS: [&str; 4] = [
    "timing.execution_ms",
    "timing.state_read_ms",
    "timing.state_hash_ms",
    "timing.commit_ms",
];
/// The client's own total for the block.
pub const TOTAL: &str = "timing.total_ms";

/// Parse one kept line: its JSON object, which must name the block's hash.
pub fn parse(line: &str) -> Result<(String, Value), String> {
    let start = line
        .find('{')
        .ok_or_else(|| "no JSON object in the line".to_string())?;
    let end = line
        .rfind('}')
        .filter(|&e| e > start)
        .ok_or_else(|| "the JSON object is not closed".to_string())?;
    let value: Value = serde_json::from_str(&line[start..=end]).map_err(|e| e.to_string())?;
    let hash = value
        .pointer("/block/hash")
        .and_then(Value::as_str)
        .ok_or_else(|| "no block.hash".to_string())?
        .to_ascii_lowercase();
    Ok((hash, value))
}

/// Kept lines read so far: each block's entry by hash, and the lines that
/// did not parse (counted and reported, never silently dropped).
#[derive(Debug, Default)]
pub struct SlowLog {
    pub by_hash: HashMap<String, Value>,
    pub unparsed: Vec<(String, String)>,
}

impl SlowLog {
    /// Add lines the client printed.
    pub fn add(&mut self, lines: Vec<String>) {
        for line in lines {
            match parse(&line) {
                Ok((hash, value)) => {
                    self.by_hash.insert(hash, value);
                }
                Err(why) => self.unparsed.push((line, why)),
            }
        }
    }

    /// The entry for the block `hash` (any case), taken out.
    pub fn take(&mut self, hash: &str) -> Option<Value> {
        self.by_hash.remove(&hash.to_ascii_lowercase())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line as geth v1.17.8 printed it in a replay.
    const GETH: &str = r#"WARN [11-26|03:10:44.512] {"level":"warn","msg":"Slow block","block":{"number":4,"hash":"0x5AD1e2c8b4f2a8c3d1f3e0b6a7c9d2e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0","gas_used":29999832,"tx_count":231},"timing":{"execution_ms":41.2,"state_read_ms":3.5,"state_hash_ms":6.25,"commit_ms":1.5,"total_ms":52.9},"throughput":{"mgas_per_sec":567.1},"state_reads":{"accounts":240,"storage_slots":310,"code":12,"code_bytes":9000},"state_writes":{"accounts":235,"accounts_deleted":0,"storage_slots":300,"storage_slots_deleted":0,"code":1,"code_bytes":800},"cache":{"account":{"hits":1,"misses":2,"hit_rate":33.3},"storage":{"hits":0,"misses":0,"hit_rate":0},"code":{"hits":0,"misses":0,"hit_rate":0,"hit_bytes":0,"miss_bytes":0}}}"#;

    #[test]
    fn a_geth_line_parses_and_joins_by_hash_in_any_case() {
        let mut log = SlowLog::default();
        log.add(vec![
            GETH.into(),
            "WARN [11-26|03:10:44.600] Slow block {truncated".into(),
            r#"WARN [11-26|03:10:44.700] {"msg":"Slow block","block":{"number":5}}"#.into(),
        ]);
        assert_eq!(log.by_hash.len(), 1);
        assert_eq!(log.unparsed.len(), 2, "{:?}", log.unparsed);
        assert!(
            log.unparsed[0].1.contains("not closed"),
            "{:?}",
            log.unparsed
        );
        assert!(
            log.unparsed[1].1.contains("block.hash"),
            "{:?}",
            log.unparsed
        );
        let v = log
            .take("0x5ad1e2c8b4f2a8c3d1f3e0b6a7c9d2e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0")
            .unwrap();
        assert_eq!(v.pointer("/timing/execution_ms").unwrap(), 41.2);
        assert_eq!(v.pointer("/block/tx_count").unwrap(), 231);
        assert!(log.by_hash.is_empty(), "taken out");
    }
}
