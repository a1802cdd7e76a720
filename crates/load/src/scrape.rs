//! The node's own metrics through a run: its Prometheus endpoint scraped
//! at a fixed interval from the start of the timed phase until the
//! tracker stops, on a thread of its own (a scrape is a blocking HTTP GET
//! of some 50 kB). Every scrape is kept raw (a JSON line each, gzipped,
//! beside the result); the handful of series that explain a run are
//! picked out for the result and the report ([`CHOSEN`]).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dyno_format::load::NodeMetrics;
use dyno_node::metrics::{self, Scrape};

/// How a chosen series is read from the scrapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Read {
    /// The value as it is (a gauge).
    Value,
    /// The value divided by 1e6 (a timer's nanoseconds as milliseconds).
    Millis,
    /// The change per second between scrapes (a counter or meter).
    Rate,
}

/// The series a run is explained by (geth's names): what the pools admit
/// and hold (the blob pool's transactions are the slots of its store, one
/// a transaction), how fast the head moves, how long a block takes to insert,
/// execute and write (geth's resetting timers: the median of the blocks
/// since the previous scrape), and how fast the database reads and writes.
pub const CHOSEN: [(&str, &str, Read); 12] = [
    ("txpool_valid", "txpool admitted /s", Read::Rate),
    ("blobpool_add_valid", "blob pool admitted /s", Read::Rate),
    ("txpool_pending", "txpool pending", Read::Value),
    ("txpool_queued", "txpool queued", Read::Value),
    ("blobpool_slotused", "blob pool transactions", Read::Value),
    ("blobpool_dataused", "blob pool bytes", Read::Value),
    ("chain_head_block", "head blocks /s", Read::Rate),
    (
        "chain_inserts{quantile=\"0.5\"}",
        "block insert P50 ms",
        Read::Millis,
    ),
    (
        "chain_execution{quantile=\"0.5\"}",
        "block execution P50 ms",
        Read::Millis,
    ),
    (
        "chain_write{quantile=\"0.5\"}",
        "block write P50 ms",
        Read::Millis,
    ),
    ("eth_db_chaindata_disk_read", "db read bytes /s", Read::Rate),
    (
        "eth_db_chaindata_disk_write",
        "db write bytes /s",
        Read::Rate,
    ),
];

/// What the scraper gathered.
#[derive(Debug, Default)]
pub struct Scraped {
    /// The endpoint, its secrets masked (`dyno_format::redact::url`): it
    /// goes into the result, its notes and the report.
    pub url: String,
    /// The interval asked for.
    pub interval: Duration,
    /// `(t_s since the start of the timed phase, scrape)`.
    pub points: Vec<(f64, Scrape)>,
    /// Scrapes that failed.
    pub failed: u64,
    /// The last failure.
    pub last_error: Option<String>,
}

/// A scraper running on its own thread. Each scrape has a deadline
/// ([`scrape_limit`]) and a size cap ([`metrics::MAX_SCRAPE_BYTES`]), and
/// [`Scraper::finish`] does not wait for a scrape under way: an endpoint
/// that never answers costs one failed scrape, never the run.
#[derive(Debug)]
pub struct Scraper {
    stop: Arc<AtomicBool>,
    gathered: Arc<Mutex<Scraped>>,
    done: std::sync::mpsc::Receiver<()>,
}

/// The deadline of one scrape at `interval`: the interval, at least 1 s
/// and at most 10 s.
pub fn scrape_limit(interval: Duration) -> Duration {
    interval.clamp(Duration::from_secs(1), Duration::from_secs(10))
}

/// How long [`Scraper::finish`] waits for a scrape under way.
const FINISH_GRACE: Duration = Duration::from_millis(500);

impl Scraper {
    /// Scrape `url` every `interval` from `t0` (times are from `t0`).
    pub fn start(url: String, interval: Duration, t0: Instant) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let gathered = Arc::new(Mutex::new(Scraped {
            url: dyno_format::redact::url(&url),
            interval,
            ..Scraped::default()
        }));
        let out = gathered.clone();
        let (tx, done) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut next = t0;
            loop {
                let now = Instant::now();
                if next > now {
                    std::thread::sleep((next - now).min(Duration::from_millis(50)));
                    if flag.load(Ordering::Relaxed) {
                        break;
                    }
                    continue;
                }
                let t_s = Instant::now().saturating_duration_since(t0).as_secs_f64();
                let got = metrics::scrape(&url, scrape_limit(interval));
                let mut out = lock(&out);
                match got {
                    Ok(s) => out.points.push((t_s, s)),
                    Err(e) => {
                        out.failed += 1;
                        out.last_error = Some(e);
                    }
                }
                drop(out);
                next += interval;
                if flag.load(Ordering::Relaxed) {
                    break;
                }
            }
            let _ = tx.send(());
        });
        Self {
            stop,
            gathered,
            done,
        }
    }

    /// Stop, and return what was gathered: after the scrape under way if
    /// it ends within half a second; else without it (counted as failed).
    pub fn finish(self) -> Scraped {
        self.stop.store(true, Ordering::Relaxed);
        let ended = self.done.recv_timeout(FINISH_GRACE).is_ok();
        let mut out = std::mem::take(&mut *lock(&self.gathered));
        if !ended {
            out.failed += 1;
            out.last_error = Some(format!(
                "{}: a scrape was still under way at the end of the run; left behind",
                out.url
            ));
        }
        out
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The chosen series of `scraped`, for the result.
pub fn summary(scraped: &Scraped) -> NodeMetrics {
    let mut series = BTreeMap::new();
    for (name, label, read) in CHOSEN {
        let points: Vec<[f64; 2]> = match read {
            Read::Value | Read::Millis => scraped
                .points
                .iter()
                .filter_map(|(t, s)| {
                    let v = *s.get(name)?;
                    Some([*t, if read == Read::Millis { v / 1e6 } else { v }])
                })
                .collect(),
            Read::Rate => scraped
                .points
                .windows(2)
                .filter_map(|w| {
                    let (t0, a) = (&w[0].0, w[0].1.get(name)?);
                    let (t1, b) = (&w[1].0, w[1].1.get(name)?);
                    let dt = t1 - t0;
                    (dt > 0.0).then(|| [*t1, ((b - a) / dt).max(0.0)])
                })
                .collect(),
        };
        if !points.is_empty() {
            series.insert(label.to_string(), points);
        }
    }
    NodeMetrics {
        url: scraped.url.clone(),
        interval_s: scraped.interval.as_secs_f64(),
        scrapes: scraped.points.len() as u64,
        failed: scraped.failed,
        metrics: scraped.points.last().map_or(0, |(_, s)| s.len() as u64),
        series,
    }
}

/// Every scrape as a JSON line, `{"t_s": .., "metrics": {series: value}}`,
/// gzipped (geth serves over a thousand series: about 50 kB a scrape
/// before compression).
pub fn write_jsonl_gz(scraped: &Scraped, path: &Path) -> std::io::Result<()> {
    dyno_format::destination::write_new(path, |w| {
        let mut f = flate2::write::GzEncoder::new(w, flate2::Compression::default());
        for (t, s) in &scraped.points {
            let line = serde_json::json!({ "t_s": t, "metrics": s });
            writeln!(f, "{line}")?;
        }
        f.finish()?.flush()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scrape(text: &str) -> Scrape {
        metrics::parse(text)
    }

    #[test]
    fn gauges_are_values_timers_millis_and_counters_rates() {
        let s = Scraped {
            url: "u".into(),
            interval: Duration::from_secs(1),
            points: vec![
                (
                    0.5,
                    scrape(
                        "txpool_pending 10\nchain_head_block 4\n\
                         chain_inserts {quantile=\"0.5\"} 2000000\n\
                         eth_db_chaindata_disk_write 1000\n",
                    ),
                ),
                (
                    1.5,
                    scrape(
                        "txpool_pending 30\nchain_head_block 6\n\
                         chain_inserts {quantile=\"0.5\"} 3000000\n\
                         eth_db_chaindata_disk_write 5000\n",
                    ),
                ),
                (
                    3.5,
                    scrape(
                        "txpool_pending 0\nchain_head_block 10\n\
                         eth_db_chaindata_disk_write 5000\n",
                    ),
                ),
            ],
            failed: 1,
            last_error: None,
        };
        let m = summary(&s);
        assert_eq!(m.scrapes, 3);
        assert_eq!(m.failed, 1);
        assert_eq!(
            m.series["txpool pending"],
            vec![[0.5, 10.0], [1.5, 30.0], [3.5, 0.0]]
        );
        assert_eq!(m.series["head blocks /s"], vec![[1.5, 2.0], [3.5, 2.0]]);
        assert_eq!(
            m.series["block insert P50 ms"],
            vec![[0.5, 2.0], [1.5, 3.0]]
        );
        assert_eq!(
            m.series["db write bytes /s"],
            vec![[1.5, 4000.0], [3.5, 0.0]]
        );
        assert!(!m.series.contains_key("txpool queued"), "absent: no series");
    }

    #[test]
    fn every_series_the_node_plot_draws_is_one_chosen_here() {
        for name in dyno_plot::node_series() {
            assert!(
                CHOSEN.iter().any(|(_, label, _)| *label == name),
                "{name} is drawn but never chosen"
            );
        }
    }

    /// An endpoint that accepts and never answers (the old scraper joined
    /// its thread, which waited on it for ever): the run ends at once
    /// with the scrapes it had, the stuck one counted as failed.
    #[test]
    fn finish_does_not_wait_for_an_endpoint_that_never_answers() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/metrics", l.local_addr().unwrap());
        let held = std::thread::spawn(move || l.accept().map(|(s, _)| s));
        let scraper = Scraper::start(url, Duration::from_secs(60), Instant::now());
        let held = held.join().unwrap().unwrap();
        let t = Instant::now();
        let got = scraper.finish();
        assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
        assert_eq!(got.points.len(), 0);
        assert_eq!(got.failed, 1);
        assert!(got.last_error.unwrap().contains("still under way"));
        drop(held);
    }

    #[test]
    fn a_scrape_never_waits_longer_than_ten_seconds() {
        assert_eq!(
            scrape_limit(Duration::from_millis(200)),
            Duration::from_secs(1)
        );
        assert_eq!(scrape_limit(Duration::from_secs(3)), Duration::from_secs(3));
        assert_eq!(
            scrape_limit(Duration::from_secs(600)),
            Duration::from_secs(10)
        );
    }

    #[test]
    fn the_raw_file_holds_every_scrape() {
        let s = Scraped {
            points: vec![(0.0, scrape("a 1\n")), (1.0, scrape("a 2\nb 3\n"))],
            ..Scraped::default()
        };
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m.jsonl.gz");
        write_jsonl_gz(&s, &p).unwrap();
        let mut text = String::new();
        std::io::Read::read_to_string(
            &mut flate2::read::GzDecoder::new(std::fs::File::open(&p).unwrap()),
            &mut text,
        )
        .unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[1]["metrics"]["b"], 3.0);
        assert_eq!(lines[1]["t_s"], 1.0);
    }
}
