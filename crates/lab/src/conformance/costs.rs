//! The worker's own costs: the empty loop and its clock against a sleep.

use super::*;

/// The empty loop's cost, a round trip, and the clock against a sleep.
/// The clock is checked first: the empty loop grows its samples to 1 ms by
/// the worker's clock, so a clock in µs would have it loop a thousand
/// times longer (about a minute of a busy core) to measure a figure in the
/// wrong unit. With a failed clock the overhead is skipped, saying why.
pub(crate) fn costs(run: &mut Run<'_>, h: &Hello) {
    let Some(mut w) = run.start("costs") else {
        return;
    };
    let clocked = h
        .implementations_of(SLEEP_ID)
        .first()
        .map(|o| clock(&mut w, &o.implementation));
    if let Some(noop) = h
        .implementations_of(NOOP_ID)
        .first()
        .map(|o| o.implementation.clone())
    {
        if let Some(Err(_)) = &clocked {
            run.add(
                "overhead",
                Outcome::Skip,
                HARNESS,
                format!("{NOOP_ID}: not measured: the worker's clock failed its check (below)"),
            );
        } else {
            match empty_loop(&mut w, &noop) {
                Ok((per_iter, round_trip, iters)) => run.add(
                    "overhead",
                    Outcome::Info,
                    HARNESS,
                    format!(
                        "{NOOP_ID}: {per_iter:.1} ns per iteration (median of 11 samples of {iters}); a 1-iteration run round trip {:.1} µs (median of 50)",
                        round_trip / 1e3
                    ),
                ),
                Err(e) => run.add("overhead", Outcome::Fail, RUN, format!("{NOOP_ID}: {e}")),
            }
        }
    }
    match clocked {
        Some(Ok(detail)) => run.add("clock", Outcome::Pass, HARNESS, detail),
        Some(Err(e)) => run.add("clock", Outcome::Fail, HARNESS, e),
        None => {}
    }
}

pub(crate) fn prepared(w: &mut Worker, id: &str, implementation: &str) -> Result<(), String> {
    let req = Request::Prepare {
        id: id.into(),
        implementation: implementation.into(),
        cases: dyno_protocol::noop_cases(),
    };
    match w.request(&req, LIMIT) {
        Ok(Reply::Prepared { .. }) => Ok(()),
        Ok(other) => Err(format!("prepare answered {}", kind(&other))),
        Err(e) => Err(one_line(&e.to_string())),
    }
}

pub(crate) fn samples(w: &mut Worker, iterations: u64, n: u32) -> Result<Vec<u64>, String> {
    match w.request(
        &Request::Run {
            iterations,
            samples: n,
        },
        LIMIT,
    ) {
        Ok(Reply::Samples { ns, .. }) if ns.len() == n as usize => Ok(ns),
        Ok(Reply::Samples { ns, .. }) => Err(format!("asked for {n} samples, got {}", ns.len())),
        Ok(other) => Err(format!("run answered {}", kind(&other))),
        Err(e) => Err(one_line(&e.to_string())),
    }
}

/// The empty loop's median ns per iteration over samples of at least
/// 1 ms, the median round trip of a 1-iteration run, and the iterations.
pub(crate) fn empty_loop(w: &mut Worker, noop: &str) -> Result<(f64, f64, u64), String> {
    prepared(w, NOOP_ID, noop)?;
    let mut iters = 1_000u64;
    while iters < 1 << 30 {
        let t = samples(w, iters, 1)?[0];
        if t >= 1_000_000 {
            break;
        }
        iters *= 4;
    }
    let per: Vec<f64> = samples(w, iters, 11)?
        .iter()
        .map(|&t| t as f64 / iters as f64)
        .collect();
    let mut trips = Vec::new();
    for _ in 0..50 {
        let t0 = Instant::now();
        samples(w, 1, 1)?;
        trips.push(t0.elapsed().as_nanos() as f64);
    }
    Ok((
        dyno_stats::median(&per).unwrap_or(f64::NAN),
        dyno_stats::median(&trips).unwrap_or(f64::NAN),
        iters,
    ))
}

/// 20 sleeps of 1 ms, three times: the worker's time must be at least
/// 20 ms (a sleep is never shorter) and within dyno's own time around the
/// request.
pub(crate) fn clock(w: &mut Worker, sleep: &str) -> Result<String, String> {
    const SLEEPS: u64 = 20;
    prepared(w, SLEEP_ID, sleep)?;
    let floor = SLEEPS * 1_000_000;
    let mut seen = Vec::new();
    for _ in 0..3 {
        let t0 = Instant::now();
        let own = samples(w, SLEEPS, 1)?[0];
        let outside = t0.elapsed().as_nanos() as u64;
        if own < floor {
            return Err(format!(
                "{SLEEPS} sleeps of 1 ms measured {own} by the worker's clock, under {floor} ns: `ns` must be nanoseconds (a clock in µs or ms?)"
            ));
        }
        if own > outside {
            return Err(format!(
                "the worker measured {own} ns for a request dyno saw take {outside} ns: its clock runs fast, or it timed more than the loop"
            ));
        }
        seen.push((own, outside));
    }
    let (own, outside) = seen[seen.len() / 2];
    Ok(format!(
        "{SLEEPS} sleeps of 1 ms: {:.2} ms by the worker's clock, {:.2} ms by dyno's around the request",
        own as f64 / 1e6,
        outside as f64 / 1e6
    ))
}
