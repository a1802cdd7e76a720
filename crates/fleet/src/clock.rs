//! Clocks compared over the broker.
//!
//! The orchestrator notes its wall clock when it sends a ping (`t1`) and
//! when the answer arrives (`t4`); the worker answers with its own wall
//! clock when the ping came (`t2`). If the two trips took the same time,
//! the worker's clock is ahead by `t2 − (t1 + t4) / 2`; whatever the trips
//! took, the true offset lies within half the round trip of that figure.
//! Of several exchanges the one with the shortest round trip bounds it
//! best, as NTP's clock filter keeps the sample with the least delay.

use std::time::{SystemTime, UNIX_EPOCH};

use dyno_format::load::ClockOffset;

/// This machine's wall clock, ns since the Unix epoch.
pub fn wall_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64)
}

/// One ping and its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exchange {
    /// Orchestrator's clock when the ping went.
    pub t1: i64,
    /// Worker's clock when it came.
    pub t2: i64,
    /// Orchestrator's clock when the answer came.
    pub t4: i64,
}

impl Exchange {
    /// The round trip, ns.
    pub fn round_trip(&self) -> i64 {
        self.t4 - self.t1
    }

    /// Worker − orchestrator, ns, if the trips were equal.
    pub fn offset(&self) -> i64 {
        self.t2 - (self.t1 + self.t4) / 2
    }
}

/// The estimate from `exchanges`: the one with the shortest round trip;
/// `None` if there are none.
pub fn estimate(exchanges: &[Exchange]) -> Option<ClockOffset> {
    let best = exchanges
        .iter()
        .filter(|e| e.round_trip() >= 0)
        .min_by_key(|e| e.round_trip())?;
    Some(ClockOffset {
        offset_ms: best.offset() as f64 / 1e6,
        uncertainty_ms: best.round_trip() as f64 / 2e6,
        samples: exchanges.len() as u64,
    })
}

/// What a reader should be told of one worker's clock, given the latency
/// resolution asked for: an offset beyond it (corrected, but worth
/// knowing), an estimate too loose to correct to it, or a drift during the
/// run beyond it.
pub fn notes(
    worker: &str,
    before: Option<&ClockOffset>,
    after: Option<&ClockOffset>,
    resolution_ms: f64,
) -> Vec<String> {
    let mut out = Vec::new();
    let Some(b) = before else {
        out.push(format!(
            "worker {worker}: its clock could not be compared with the orchestrator's"
        ));
        return out;
    };
    if b.offset_ms.abs() > resolution_ms {
        out.push(format!(
            "worker {worker}'s clock is {:+.3} ms (± {:.3}) off the orchestrator's, more than the {resolution_ms} ms latency resolution: its start was moved by the estimate, so its latencies are corrected by it; synchronise the machines' clocks (chrony) to need no correction",
            b.offset_ms, b.uncertainty_ms
        ));
    }
    if b.uncertainty_ms > resolution_ms {
        out.push(format!(
            "worker {worker}: its clock offset is known only to ± {:.3} ms (half the shortest round trip through the broker), more than the {resolution_ms} ms latency resolution; its latencies carry that uncertainty",
            b.uncertainty_ms
        ));
    }
    if let Some(a) = after {
        let drift = a.offset_ms - b.offset_ms;
        if drift.abs() > resolution_ms.max(a.uncertainty_ms + b.uncertainty_ms) {
            out.push(format!(
                "worker {worker}'s clock moved {drift:+.3} ms against the orchestrator's during the run (before {:+.3} ± {:.3}, after {:+.3} ± {:.3} ms), more than the {resolution_ms} ms latency resolution",
                b.offset_ms, b.uncertainty_ms, a.offset_ms, a.uncertainty_ms
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exchanges with a worker whose clock is `offset` ahead, over trips
    /// of the given (out, back) lengths, starting at orchestrator time 1 s.
    fn exchanges(offset: i64, trips: &[(i64, i64)]) -> Vec<Exchange> {
        let mut t = 1_000_000_000;
        trips
            .iter()
            .map(|&(out, back)| {
                let e = Exchange {
                    t1: t,
                    t2: t + out + offset,
                    t4: t + out + back,
                };
                t += 10_000_000;
                e
            })
            .collect()
    }

    #[test]
    fn a_planted_offset_is_found_within_the_stated_uncertainty() {
        let planted = 37_250_000; // 37.25 ms ahead
        // Uneven trips; the third is the shortest (0.3 ms round trip).
        let ex = exchanges(
            planted,
            &[
                (2_000_000, 500_000),
                (900_000, 4_000_000),
                (100_000, 200_000),
                (700_000, 700_000),
            ],
        );
        let e = estimate(&ex).unwrap();
        assert_eq!(e.samples, 4);
        assert!((e.uncertainty_ms - 0.15).abs() < 1e-9, "{e:?}");
        let truth = planted as f64 / 1e6;
        assert!(
            (e.offset_ms - truth).abs() <= e.uncertainty_ms,
            "estimate {e:?} misses the planted {truth} ms"
        );
        // The asymmetry of the chosen trip is the estimate's whole error.
        assert!((e.offset_ms - (truth - 0.05)).abs() < 1e-9, "{e:?}");
        // A clock behind works the same.
        let e = estimate(&exchanges(-5_000_000, &[(300_000, 300_000)])).unwrap();
        assert!((e.offset_ms + 5.0).abs() < 1e-9, "{e:?}");
    }

    #[test]
    fn the_shortest_round_trip_wins_even_when_it_is_not_first() {
        let ex = exchanges(0, &[(5_000_000, 1_000_000), (50_000, 50_000)]);
        let e = estimate(&ex).unwrap();
        assert!(e.offset_ms.abs() < 1e-9 && (e.uncertainty_ms - 0.05).abs() < 1e-9);
        assert!(estimate(&[]).is_none());
    }

    #[test]
    fn offsets_beyond_the_resolution_are_said_and_small_ones_are_not() {
        let near = ClockOffset {
            offset_ms: 0.2,
            uncertainty_ms: 0.1,
            samples: 8,
        };
        assert!(notes("w1", Some(&near), Some(&near), 1.0).is_empty());
        let far = ClockOffset {
            offset_ms: 40.0,
            ..near
        };
        let n = notes("w1", Some(&far), Some(&far), 1.0);
        assert_eq!(n.len(), 1, "{n:?}");
        assert!(n[0].contains("w1") && n[0].contains("+40.000"), "{n:?}");
        let loose = ClockOffset {
            uncertainty_ms: 3.0,
            ..near
        };
        assert!(notes("w2", Some(&loose), None, 1.0)[0].contains("± 3.000"));
        let moved = ClockOffset {
            offset_ms: 5.0,
            ..near
        };
        let n = notes("w3", Some(&near), Some(&moved), 1.0);
        assert!(n.len() == 1 && n[0].contains("moved +4.800"), "{n:?}");
        assert!(notes("w4", None, None, 1.0)[0].contains("could not be compared"));
    }
}
