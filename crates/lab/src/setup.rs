//! Installing the adapters' pinned dependencies and the dev nodes
//! (`dyno setup`), and saying what each runtime can run (`dyno doctor`).

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use dyno_protocol::{NOOP_ID, Reply, Request};

use crate::paths::{Lab, Paths};
use crate::refuse;

/// What `dyno setup` with no names leaves out: what starts a process that
/// keeps running after it (the fleet's broker), set up only when named.
pub const ONLY_WHEN_NAMED: &[&str] = &["mosquitto"];

/// Run every selected adapter's `setup`: those named, else the external
/// ones when `--adapter` gave any, else all of dyno's own and the dev
/// nodes but [`ONLY_WHEN_NAMED`], saying first what it will set up. A
/// missing runtime is skipped with its reason; a failed build is an error
/// once the others are done.
pub fn setup(paths: &Paths, runtimes: &[String], quiet: bool) -> crate::Result<()> {
    let mut all = crate::adapters::adapters(paths)?;
    all.extend(crate::adapters::nodes(paths));
    check_names(runtimes, &all)?;
    let only_external = runtimes.is_empty() && all.iter().any(|a| a.external);
    let chosen: Vec<&dyno_adapter::Adapter> = all
        .iter()
        .filter(|a| {
            if runtimes.is_empty() {
                (a.external || !only_external) && !ONLY_WHEN_NAMED.contains(&a.runtime.as_str())
            } else {
                runtimes.contains(&a.runtime)
            }
        })
        .collect();
    if runtimes.is_empty() {
        let names: Vec<&str> = chosen.iter().map(|a| a.runtime.as_str()).collect();
        eprintln!(
            "dyno setup: setting up {} ({}); {} only when named",
            names.len(),
            names.join(", "),
            ONLY_WHEN_NAMED.join(", ")
        );
    }
    let mut failed = Vec::new();
    for a in chosen {
        eprintln!("dyno setup: {} → {}", a.label(), a.home.display());
        let tag = a.runtime.clone();
        match a.setup(|line| {
            if !quiet {
                eprintln!("  {tag}| {line}");
            }
        }) {
            Ok(took) => eprintln!("dyno setup: {}: ready ({:.0?})", a.runtime, round(took)),
            Err(dyno_adapter::SetupError::RuntimeMissing { runtime, reason }) => {
                eprintln!("dyno setup: {runtime}: skipped: {reason}");
            }
            Err(e) => {
                eprintln!("dyno setup: {e}");
                failed.push(a.runtime.clone());
            }
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        refuse!(
            "setup failed for {} (see the output above; `dyno setup {}` retries)",
            failed.join(", "),
            failed.join(" ")
        )
    }
}

fn round(d: Duration) -> Duration {
    Duration::from_secs(d.as_secs().max(1))
}

fn check_names(names: &[String], all: &[dyno_adapter::Adapter]) -> crate::Result<()> {
    for n in names {
        if !all.iter().any(|a| &a.runtime == n) {
            let known: Vec<&str> = all.iter().map(|a| a.runtime.as_str()).collect();
            refuse!(
                "nothing to set up called {n:?}; choose from: {}",
                known.join(", ")
            );
        }
    }
    Ok(())
}

/// Describe every runtime: installed or not, versions, libraries, the ids
/// it can run (each one with `ids`), and what one protocol round trip
/// costs. Starts each installed adapter to ask it.
/// `dyno doctor --noise`: the noise probe alone for `total`, while a fixed
/// loop is timed in 100 ms windows (the machine's speed, moment to
/// moment); what both saw, as text.
pub fn noise(total: std::time::Duration) -> String {
    let probe = dyno_runner::noise::Probe::start();
    let mut speeds = dyno_runner::noise::speed(total, std::time::Duration::from_millis(100));
    let n = probe.finish();
    speeds.sort_by(f64::total_cmp);
    let at = |p: f64| dyno_stats::percentile(&speeds, p).unwrap_or(f64::NAN);
    let mut out = dyno_report::paired::noise_line(&n);
    out.push('\n');
    out.push_str(&format!(
        "speed: a fixed loop's median time in each of {} windows of 100 ms: P5 {}, P50 {}, P95 {}, slowest window {:.2}x the fastest\n",
        speeds.len(),
        dyno_report::units::duration(at(5.0)),
        dyno_report::units::duration(at(50.0)),
        dyno_report::units::duration(at(95.0)),
        at(100.0) / at(0.0)
    ));
    out.push_str(
        "a spread of a few percent is a quiet machine; where windows differ by 1.2x or more, \
         compare builds with `dyno ab` (both in the same minutes), not against a baseline \
         recorded earlier\n",
    );
    out
}

pub fn doctor(lab: &Lab, every_id: bool) -> crate::Result<String> {
    let exported = crate::cases::ids();
    let mut out = String::new();
    let rust_ids = crate::suites::catalog().len();
    let _ = writeln!(
        out,
        "rust     built in: {rust_ids} benchmarks ({}), adapters exchange {} ids",
        lab.build.rustc,
        exported.len()
    );
    for a in crate::adapters::adapters(&lab.paths)? {
        let _ = write!(out, "{:<8} ", a.runtime);
        if a.external {
            let _ = write!(out, "(external: {}) ", a.dir.display());
        }
        if !a.installed() {
            let _ = writeln!(
                out,
                "not installed: run `{}`",
                crate::adapters::setup_command(&a)
            );
            continue;
        }
        let t0 = Instant::now();
        let mut w = match a.start() {
            Ok(w) => w,
            Err(e) => {
                let line = dyno_report::one_line(&e.to_string());
                let _ = writeln!(out, "fails to start: {line}");
                continue;
            }
        };
        let started = t0.elapsed();
        let h = w.hello().clone();
        let _ = writeln!(
            out,
            "{} {} (adapter {} {}){}{}",
            h.runtime.name,
            h.runtime.version,
            h.adapter.name,
            h.adapter.version,
            if h.jit { ", JIT" } else { "" },
            if a.stale() {
                format!(
                    ", OUT OF DATE: run `{}`",
                    crate::adapters::setup_command(&a)
                )
            } else {
                String::new()
            }
        );
        if !h.runtime.flags.is_empty() {
            let _ = writeln!(out, "         flags: {}", h.runtime.flags.join(" "));
        }
        let _ = writeln!(
            out,
            "         clock: {} ({})",
            h.clock.source,
            h.clock
                .resolution_ns
                .map_or("resolution not stated".into(), |r| format!(
                    "resolution {r} ns"
                ))
        );
        let libs: Vec<String> = h
            .libraries
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let _ = writeln!(out, "         libraries: {}", libs.join(", "));
        let mut by_impl: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
        for id in &exported {
            for o in h.implementations_of(id) {
                by_impl
                    .entry(o.implementation.as_str())
                    .or_default()
                    .push(id);
            }
        }
        for (imp, ids) in &by_impl {
            if every_id {
                let _ = writeln!(out, "         {imp}: {}", ids.join(" "));
            } else {
                let _ = writeln!(out, "         {imp}: {} ids", ids.len());
            }
        }
        match round_trip(&mut w) {
            Ok((wall, own)) => {
                let _ = writeln!(
                    out,
                    "         start + hello {:.0?}; one `run` round trip {:.1} µs (median of 200, of which {:.1} µs inside the worker's timed loop)",
                    started,
                    wall / 1e3,
                    own / 1e3
                );
            }
            Err(e) => {
                let _ = writeln!(out, "         round trip not measured: {e}");
            }
        }
    }
    Ok(out)
}

/// Median wall time of a one-iteration `run` of the empty operation, and
/// the median time the worker itself reported.
fn round_trip(w: &mut dyno_adapter::Worker) -> Result<(f64, f64), String> {
    let Some(imp) = w
        .hello()
        .implementations_of(NOOP_ID)
        .first()
        .map(|o| o.implementation.clone())
    else {
        return Err(format!("the worker does not offer {NOOP_ID}"));
    };
    let limit = Duration::from_secs(30);
    let prepare = Request::Prepare {
        id: NOOP_ID.into(),
        implementation: imp,
        cases: dyno_protocol::noop_cases(),
    };
    match w.request(&prepare, limit).map_err(|e| e.to_string())? {
        Reply::Prepared { .. } => {}
        other => return Err(format!("prepare: {other:?}")),
    }
    let run = Request::Run {
        iterations: 1,
        samples: 1,
    };
    let mut wall = Vec::new();
    let mut own = Vec::new();
    for _ in 0..200 {
        let t0 = Instant::now();
        let reply = w.request(&run, limit).map_err(|e| e.to_string())?;
        wall.push(t0.elapsed().as_nanos() as f64);
        if let Reply::Samples { ns, .. } = reply {
            own.extend(ns.iter().map(|&n| n as f64));
        }
    }
    Ok((
        dyno_stats::median(&wall).unwrap_or(f64::NAN),
        dyno_stats::median(&own).unwrap_or(f64::NAN),
    ))
}
