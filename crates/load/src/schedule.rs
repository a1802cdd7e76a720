//! When each transaction is meant to be sent.
//!
//! An open-loop schedule fixes every intended send time before the run
//! starts, whatever the node does; latency is measured from that intended
//! time, so a generator or node that falls behind cannot hide the queueing
//! it causes (coordinated omission). `Max` is the closed exception: send as
//! fast as possible with at most `in_flight` requests outstanding.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// How fast to send.
#[derive(Debug, Clone, PartialEq)]
pub enum Schedule {
    /// A constant rate, transactions per second.
    Fixed {
        /// tx/s.
        rate: f64,
    },
    /// A rate rising (or falling) linearly from `from` to `to` over `over`,
    /// then holding `to`.
    Ramp {
        /// tx/s at the start.
        from: f64,
        /// tx/s at the end of the ramp, and after.
        to: f64,
        /// Length of the ramp.
        over: Duration,
    },
    /// Constant rates in steps; the last one holds until the end.
    Steps {
        /// (tx/s, how long).
        steps: Vec<(f64, Duration)>,
    },
    /// As fast as possible, with at most this many requests outstanding.
    Max {
        /// Requests in flight.
        in_flight: usize,
    },
}

/// Why a schedule string was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "bad schedule {given:?}: {reason}; write `500` (fixed tx/s), `ramp:100..2000/30s`, \
     `steps:500/10s,1000/10s,2000/10s` or `max` / `max:256` (requests in flight)"
)]
pub struct ScheduleError {
    /// What was given.
    pub given: String,
    /// What is wrong with it.
    pub reason: String,
}

fn parse_rate(s: &str, given: &str) -> Result<f64, ScheduleError> {
    let t = s.trim().trim_end_matches("tps").trim_end_matches("/s");
    match t.parse::<f64>() {
        Ok(r) if r.is_finite() && r > 0.0 => Ok(r),
        _ => Err(ScheduleError {
            given: given.into(),
            reason: format!("{s:?} is not a positive rate"),
        }),
    }
}

fn parse_duration(s: &str, given: &str) -> Result<Duration, ScheduleError> {
    let t = s.trim();
    let (num, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60.0)
    } else {
        (t, 1.0)
    };
    match num.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(Duration::from_secs_f64(v * scale)),
        _ => Err(ScheduleError {
            given: given.into(),
            reason: format!("{s:?} is not a positive duration (e.g. 30s, 500ms, 2m)"),
        }),
    }
}

impl FromStr for Schedule {
    type Err = ScheduleError;

    fn from_str(given: &str) -> Result<Self, Self::Err> {
        let s = given.trim();
        if s == "max" {
            return Ok(Self::Max { in_flight: 256 });
        }
        if let Some(n) = s.strip_prefix("max:") {
            return match n.trim().parse::<usize>() {
                Ok(k) if k > 0 => Ok(Self::Max { in_flight: k }),
                _ => Err(ScheduleError {
                    given: given.into(),
                    reason: format!("{n:?} is not a positive number of requests in flight"),
                }),
            };
        }
        if let Some(rest) = s.strip_prefix("ramp:") {
            let (rates, over) = rest.split_once('/').ok_or_else(|| ScheduleError {
                given: given.into(),
                reason: "a ramp needs a length after '/'".into(),
            })?;
            let (from, to) = rates.split_once("..").ok_or_else(|| ScheduleError {
                given: given.into(),
                reason: "a ramp needs FROM..TO rates".into(),
            })?;
            return Ok(Self::Ramp {
                from: parse_rate(from, given)?,
                to: parse_rate(to, given)?,
                over: parse_duration(over, given)?,
            });
        }
        if let Some(rest) = s.strip_prefix("steps:") {
            let steps = rest
                .split(',')
                .map(|step| {
                    let (rate, d) = step.split_once('/').ok_or_else(|| ScheduleError {
                        given: given.into(),
                        reason: format!("step {step:?} needs RATE/DURATION"),
                    })?;
                    Ok((parse_rate(rate, given)?, parse_duration(d, given)?))
                })
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(Self::Steps { steps });
        }
        Ok(Self::Fixed {
            rate: parse_rate(s, given)?,
        })
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Fixed { rate } => write!(f, "fixed-{rate}tps"),
            Self::Ramp { from, to, over } => {
                write!(f, "ramp-{from}to{to}tps-{}s", over.as_secs_f64())
            }
            Self::Steps { steps } => {
                write!(f, "steps")?;
                for (r, d) in steps {
                    write!(f, "-{r}x{}s", d.as_secs_f64())?;
                }
                Ok(())
            }
            Self::Max { in_flight } => write!(f, "max-{in_flight}inflight"),
        }
    }
}

impl Schedule {
    /// The intended send time of transaction `i` (0-based) after the start,
    /// or `None` under `Max`, which has no intended times.
    pub fn offset(&self, i: u64) -> Option<Duration> {
        let k = i as f64;
        let secs = match self {
            Self::Max { .. } => return None,
            Self::Fixed { rate } => k / rate,
            Self::Ramp { from, to, over } => {
                // Sent by time t during the ramp: N(t) = from*t + (to-from)*t^2/(2T).
                let t_end = over.as_secs_f64();
                let n_end = (from + to) / 2.0 * t_end;
                if k >= n_end {
                    t_end + (k - n_end) / to
                } else if (to - from).abs() < f64::EPSILON {
                    k / from
                } else {
                    let a = (to - from) / (2.0 * t_end);
                    (-from + (from * from + 4.0 * a * k).sqrt()) / (2.0 * a)
                }
            }
            Self::Steps { steps } => {
                let mut t0 = 0.0;
                let mut n0 = 0.0;
                let mut last = steps[0].0;
                let mut found = None;
                for (rate, d) in steps {
                    let n1 = n0 + rate * d.as_secs_f64();
                    last = *rate;
                    if k < n1 {
                        found = Some(t0 + (k - n0) / rate);
                        break;
                    }
                    t0 += d.as_secs_f64();
                    n0 = n1;
                }
                found.unwrap_or(t0 + (k - n0) / last)
            }
        };
        Some(Duration::from_secs_f64(secs.max(0.0)))
    }

    /// The rate the schedule intends at `t` seconds (for plots), or `None`
    /// under `Max`.
    pub fn rate_at(&self, t: f64) -> Option<f64> {
        match self {
            Self::Max { .. } => None,
            Self::Fixed { rate } => Some(*rate),
            Self::Ramp { from, to, over } => {
                let f = (t / over.as_secs_f64()).clamp(0.0, 1.0);
                Some(from + (to - from) * f)
            }
            Self::Steps { steps } => {
                let mut t0 = 0.0;
                for (rate, d) in steps {
                    t0 += d.as_secs_f64();
                    if t < t0 {
                        return Some(*rate);
                    }
                }
                steps.last().map(|s| s.0)
            }
        }
    }

    /// The mean rate at which `n` sends are intended, per second (`None`
    /// under `Max`).
    pub fn mean_rate(&self, n: usize) -> Option<f64> {
        let last = self.offset(n.saturating_sub(1) as u64)?.as_secs_f64();
        Some(if last > 0.0 {
            (n - 1) as f64 / last
        } else {
            n as f64
        })
    }

    /// The cap on requests outstanding: the schedule's own under `Max`,
    /// else `open_loop_cap` (an open loop should never reach it; reaching
    /// it shows as generator lag).
    pub fn in_flight(&self, open_loop_cap: usize) -> usize {
        match self {
            Self::Max { in_flight } => *in_flight,
            _ => open_loop_cap,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: &Schedule, i: u64) -> f64 {
        s.offset(i).unwrap().as_secs_f64()
    }

    #[test]
    fn fixed_rate_spaces_sends_evenly() {
        let s: Schedule = "500".parse().unwrap();
        assert_eq!(s, Schedule::Fixed { rate: 500.0 });
        assert!((secs(&s, 0)).abs() < 1e-12);
        assert!((secs(&s, 500) - 1.0).abs() < 1e-9);
        assert!((secs(&s, 1250) - 2.5).abs() < 1e-9);
    }

    #[test]
    fn ramp_sends_its_area_then_holds() {
        let s: Schedule = "ramp:100..300/10s".parse().unwrap();
        // Area under the ramp: (100+300)/2 * 10 = 2000 transactions.
        assert!((secs(&s, 2000) - 10.0).abs() < 1e-9);
        // Halfway in time the rate is 200 and 1500 have gone: N(5) = 500 + 250*... check by formula.
        let n5 = 100.0 * 5.0 + 200.0 * 25.0 / 20.0;
        assert!((secs(&s, n5 as u64) - 5.0).abs() < 1e-6);
        // After the ramp, 300 tx/s.
        assert!((secs(&s, 2300) - 11.0).abs() < 1e-9);
        // Intended times never go backwards.
        let mut prev = 0.0;
        for i in 0..3000 {
            let t = secs(&s, i);
            assert!(t >= prev);
            prev = t;
        }
    }

    #[test]
    fn steps_hold_the_last_rate() {
        let s: Schedule = "steps:100/2s,400/1s".parse().unwrap();
        assert!((secs(&s, 100) - 1.0).abs() < 1e-9);
        assert!((secs(&s, 200) - 2.0).abs() < 1e-9);
        assert!((secs(&s, 400) - 2.5).abs() < 1e-9);
        assert!((secs(&s, 600) - 3.0).abs() < 1e-9);
        assert!((secs(&s, 1000) - 4.0).abs() < 1e-9);
        assert_eq!(s.rate_at(2.5), Some(400.0));
    }

    #[test]
    fn max_has_no_intended_times() {
        let s: Schedule = "max:64".parse().unwrap();
        assert_eq!(s.offset(5), None);
        assert_eq!(s.in_flight(4096), 64);
        assert_eq!("max".parse::<Schedule>().unwrap().in_flight(1), 256);
    }

    #[test]
    fn bad_schedules_say_how_to_write_one() {
        for bad in [
            "",
            "-5",
            "fast",
            "ramp:100/10s",
            "ramp:1..2",
            "steps:100",
            "max:0",
        ] {
            let e = bad.parse::<Schedule>().unwrap_err().to_string();
            assert!(e.contains("write `500`"), "{bad}: {e}");
        }
    }
}
