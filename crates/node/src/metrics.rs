//! A node's own metrics in the Prometheus text format (geth `--metrics`:
//! `/debug/metrics/prometheus`): one scrape, parsed. The block replay
//! scrapes when the Engine API first answers and after the last block and
//! keeps the series that changed; the load lab scrapes at a fixed interval
//! through the run.

use std::collections::BTreeMap;
use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::Duration;

/// One scrape: each series (`name{labels}`) and its value.
pub type Scrape = BTreeMap<String, f64>;

/// GET `url` (`http://127.0.0.1:PORT/path`) and parse it.
pub fn scrape(url: &str, limit: Duration) -> Result<Scrape, String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("{url}: not http://"))?;
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let mut stream = TcpStream::connect(host).map_err(|e| format!("{url}: {e}"))?;
    stream
        .set_read_timeout(Some(limit))
        .map_err(|e| e.to_string())?;
    write!(stream, "GET /{path} HTTP/1.0\r\nHost: {host}\r\n\r\n").map_err(|e| e.to_string())?;
    let mut reply = String::new();
    stream
        .read_to_string(&mut reply)
        .map_err(|e| format!("{url}: {e}"))?;
    let (head, body) = reply
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("{url}: not an HTTP response"))?;
    let status = head.split_whitespace().nth(1).unwrap_or("");
    if status != "200" {
        return Err(format!("{url}: HTTP {status}"));
    }
    Ok(parse(body))
}

/// The samples of a Prometheus text exposition (comments and lines that
/// are not `series value [timestamp]` skipped).
pub fn parse(text: &str) -> Scrape {
    let mut out = Scrape::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        // Labels may hold spaces inside quotes: the series ends at the
        // closing brace, else at the first space.
        let end = match line.find('{') {
            Some(_) => line.rfind('}').map(|i| i + 1),
            None => line.find(' '),
        };
        let Some(end) = end else { continue };
        let (series, rest) = line.split_at(end);
        // geth writes `name {labels}`; the standard form has no space.
        let series = series.replacen(" {", "{", 1);
        if let Some(value) = rest
            .split_whitespace()
            .next()
            .and_then(|v| v.parse::<f64>().ok())
        {
            out.insert(series, value);
        }
    }
    out
}

/// The series whose value changed from `before` to `after` (or appeared),
/// as `[before, after]` (0 where a series was not there before).
pub fn changed(before: &Scrape, after: &Scrape) -> BTreeMap<String, [f64; 2]> {
    after
        .iter()
        .filter_map(|(k, &a)| {
            let b = before.get(k).copied().unwrap_or(0.0);
            (a != b && a.is_finite() && b.is_finite()).then(|| (k.clone(), [b, a]))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geth_text_parses_and_only_changes_are_kept() {
        let before = parse(
            "# TYPE chain_execution_count counter\nchain_execution_count 0\n\
             chain_head_block 0\nsystem_memory_pauses_total 3\n\
             eth_db_chaindata_disk_read{db=\"chain data\"} 10 1700000000\nnot a sample\n\
             chain_execution {quantile=\"0.5\"} 0\n",
        );
        assert_eq!(before.len(), 5);
        assert!(
            before.contains_key("chain_execution{quantile=\"0.5\"}"),
            "geth's space dropped"
        );
        assert_eq!(
            before["eth_db_chaindata_disk_read{db=\"chain data\"}"],
            10.0
        );
        let after = parse(
            "chain_execution_count 16\nchain_head_block 32\nsystem_memory_pauses_total 3\n\
             eth_db_chaindata_disk_read{db=\"chain data\"} 4106\nchain_inserts_count 32\n",
        );
        let c = changed(&before, &after);
        assert_eq!(c["chain_execution_count"], [0.0, 16.0]);
        assert_eq!(c["chain_inserts_count"], [0.0, 32.0], "a new series");
        assert!(!c.contains_key("system_memory_pauses_total"), "unchanged");
        assert_eq!(c.len(), 4);
    }
}
