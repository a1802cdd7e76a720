//! A node's own metrics in the Prometheus text format (geth `--metrics`:
//! `/debug/metrics/prometheus`): one scrape, parsed. The block replay
//! scrapes when the Engine API first answers and after the last block and
//! keeps the series that changed; the load lab scrapes at a fixed interval
//! through the run.

use std::collections::BTreeMap;
use std::io::{Read as _, Write as _};
use std::net::{TcpStream, ToSocketAddrs as _};
use std::time::{Duration, Instant};

/// One scrape: each series (`name{labels}`) and its value.
pub type Scrape = BTreeMap<String, f64>;

/// The most a scrape may send: geth serves some 50 kB; anything near this
/// is not a metrics page, and reading stops there.
pub const MAX_SCRAPE_BYTES: usize = 16 << 20;

/// GET `url` (`http://127.0.0.1:PORT/path`) and parse it; the whole
/// exchange (connect, request, every byte of the answer) within `limit`,
/// and at most [`MAX_SCRAPE_BYTES`] read: an endpoint that dribbles, never
/// ends or sends without end fails this scrape, and costs no more than
/// `limit` and the cap.
pub fn scrape(url: &str, limit: Duration) -> Result<Scrape, String> {
    // Messages name the URL with its secrets masked.
    let shown = dyno_redact::url(url);
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("{shown}: not http://"))?;
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    // A user part is not sent (no authentication): only the address.
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let deadline = Instant::now() + limit;
    let addr = host
        .to_socket_addrs()
        .map_err(|e| format!("{shown}: {e}"))?
        .next()
        .ok_or_else(|| format!("{shown}: {host} has no address"))?;
    let mut stream =
        TcpStream::connect_timeout(&addr, limit).map_err(|e| format!("{shown}: {e}"))?;
    let left = |what: &str| {
        deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
            .ok_or_else(|| format!("{shown}: {what} within {:.1}s", limit.as_secs_f64()))
    };
    stream
        .set_write_timeout(Some(left("no request sent")?))
        .map_err(|e| e.to_string())?;
    write!(stream, "GET /{path} HTTP/1.0\r\nHost: {host}\r\n\r\n")
        .map_err(|e| format!("{shown}: {e}"))?;
    let mut reply = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    loop {
        stream
            .set_read_timeout(Some(left("no complete answer")?))
            .map_err(|e| e.to_string())?;
        match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => reply.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Err(format!(
                    "{shown}: no complete answer within {:.1}s ({} bytes received)",
                    limit.as_secs_f64(),
                    reply.len()
                ));
            }
            Err(e) => return Err(format!("{shown}: {e}")),
        }
        if reply.len() > MAX_SCRAPE_BYTES {
            return Err(format!(
                "{shown}: more than {} MiB without an end: not a metrics page; stopped reading",
                MAX_SCRAPE_BYTES >> 20
            ));
        }
    }
    let reply = String::from_utf8_lossy(&reply);
    let (head, body) = reply
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("{shown}: not an HTTP response"))?;
    let status = head.split_whitespace().nth(1).unwrap_or("");
    if status != "200" {
        return Err(format!("{shown}: HTTP {status}"));
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
    use std::net::TcpListener;

    /// A metrics endpoint on loopback that answers each connection with
    /// `serve` (on a thread of its own); its URL.
    fn endpoint(serve: fn(TcpStream)) -> String {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!(
            "http://{}/debug/metrics/prometheus",
            l.local_addr().unwrap()
        );
        std::thread::spawn(move || {
            for mut s in l.incoming().flatten() {
                std::thread::spawn(move || {
                    // The request first: closing with it unread resets.
                    let mut req = Vec::new();
                    let mut b = [0u8; 1];
                    while !req.ends_with(b"\r\n\r\n") && s.read(&mut b).is_ok_and(|n| n == 1) {
                        req.push(b[0]);
                    }
                    serve(s)
                });
            }
        });
        url
    }

    #[test]
    fn a_good_endpoint_is_scraped() {
        let url = endpoint(|mut s| {
            let _ = s.write_all(b"HTTP/1.0 200 OK\r\n\r\nchain_head_block 7\n");
        });
        assert_eq!(
            scrape(&url, Duration::from_secs(5)).unwrap()["chain_head_block"],
            7.0
        );
    }

    #[test]
    fn an_endpoint_that_dribbles_fails_the_scrape_at_its_deadline() {
        // One byte every 100 ms, for ever: each read succeeds, so only a
        // deadline on the whole answer ends it.
        let url = endpoint(|mut s| {
            let _ = s.write_all(b"HTTP/1.0 200 OK\r\n\r\n");
            while s.write_all(b"a").is_ok() {
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        let t = Instant::now();
        let e = scrape(&url, Duration::from_millis(700)).unwrap_err();
        assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
        assert!(e.contains("no complete answer within 0.7s"), "{e}");
    }

    /// The URL's secrets were in the error, and from there in the
    /// result's notes, the Markdown and the HTML.
    #[test]
    fn a_failed_scrape_does_not_show_the_urls_secrets() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        drop(l);
        let url = format!("http://u:PW1@127.0.0.1:{port}/metrics?password=PW2&token=PW3");
        let e = scrape(&url, Duration::from_secs(2)).unwrap_err();
        for pw in ["PW1", "PW2", "PW3"] {
            assert!(!e.contains(pw), "{e}");
        }
        assert!(e.contains("password=***"), "{e}");
    }

    #[test]
    fn an_endless_endpoint_fails_the_scrape_at_the_cap() {
        let url = endpoint(|mut s| {
            let _ = s.write_all(b"HTTP/1.0 200 OK\r\n\r\n");
            let block = vec![b'x'; 1 << 20];
            while s.write_all(&block).is_ok() {}
        });
        let e = scrape(&url, Duration::from_secs(60)).unwrap_err();
        assert!(e.contains("more than 16 MiB"), "{e}");
    }

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
