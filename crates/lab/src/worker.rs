//! `dyno worker`: this dyno serving its own in-process (Rust) benchmarks
//! over the adapter protocol (docs/adapter-protocol.md), one request a
//! line on stdin, one reply a line on stdout. `dyno ab` starts two of
//! them, one from each build, and drives both from one orchestrator that
//! times nothing itself.
//!
//! - `prepare` builds the benchmark from this build's own suites and
//!   inputs, and verifies every case with its own expected values (the
//!   cases in the request are not needed: dyno knows its benchmarks); a
//!   wrong output is a `mismatch` reply, never a timing.
//! - `run` times `iterations` operations per sample with the monotonic
//!   clock.
//! - `DYNO_TEST_SLOWDOWN` in the worker's environment slows the ids it
//!   names (test only), as in `dyno run`.

use std::io::{BufRead, Write};
use std::time::Instant;

use dyno_protocol::{ClockInfo, Hello, Named, Offer, Reply, Request, VERSION};
use dyno_workload::{BenchDef, Workload};

use crate::Lab;

/// What the worker says of itself: every (id, implementation) of the
/// built-in suites.
fn hello(lab: &Lab, catalog: &[BenchDef]) -> Hello {
    let mut libraries = std::collections::BTreeMap::new();
    let benchmarks = catalog
        .iter()
        .map(|d| {
            libraries.insert(d.implementation.to_string(), d.version.to_string());
            Offer {
                id: d.id(),
                implementation: d.implementation.to_string(),
                library: Some(d.implementation.to_string()),
            }
        })
        .collect();
    let version = match lab.build.git_commit {
        Some(c) => format!("{} ({c})", lab.build.version),
        None => lab.build.version.to_string(),
    };
    Hello {
        protocol: VERSION,
        runtime: Named {
            name: "rust".into(),
            version: lab.build.rustc.into(),
            flags: Vec::new(),
        },
        adapter: Named {
            name: "dyno".into(),
            version,
            flags: Vec::new(),
        },
        libraries,
        clock: ClockInfo {
            source: "std::time::Instant (CLOCK_MONOTONIC)".into(),
            resolution_ns: None,
        },
        jit: false,
        benchmarks,
        patterns: Vec::new(),
    }
}

/// Serve requests from `input` until it closes.
pub fn serve(lab: &Lab, input: impl BufRead, mut output: impl Write) -> crate::Result<()> {
    let catalog = crate::suites::catalog();
    let slowdown = dyno_runner::slowdown::Slowdown::from_env()?;
    let ctx = lab.paths.ctx();
    let mut current: Option<Box<dyn Workload>> = None;
    let mut send = |reply: &Reply| -> crate::Result<()> {
        output
            .write_all(dyno_protocol::encode(reply).as_bytes())
            .and_then(|()| output.flush())
            .map_err(|e| crate::Error::Refused(format!("writing a reply: {e}")))
    };
    for line in input.lines() {
        let line = line.map_err(|e| crate::Error::Refused(format!("reading a request: {e}")))?;
        if line.trim().is_empty() {
            continue;
        }
        // A line that is not JSON ends the worker (the protocol's rule: the
        // stream cannot be trusted after it); JSON that is not a request it
        // knows (another type, a missing field) is refused and it goes on.
        let value: serde_json::Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => {
                let message = format!("unparseable request: {e}");
                send(&Reply::Error {
                    message: message.clone(),
                    fatal: true,
                })?;
                return Err(crate::Error::Refused(format!(
                    "{message}; a worker exits on a line that is not JSON (docs/adapter-protocol.md)"
                )));
            }
        };
        let request: Request = match serde_json::from_value(value) {
            Ok(r) => r,
            Err(e) => {
                send(&Reply::Error {
                    message: format!("not a request this worker knows: {e}"),
                    fatal: false,
                })?;
                continue;
            }
        };
        let reply = match request {
            Request::Hello { .. } => Reply::Hello(hello(lab, &catalog)),
            Request::Prepare {
                id, implementation, ..
            } => {
                current = None;
                match catalog
                    .iter()
                    .find(|d| d.id() == id && d.implementation == implementation)
                {
                    None => Reply::Error {
                        message: format!("this dyno has no {id} on {implementation}"),
                        fatal: false,
                    },
                    Some(def) => match (def.build)(&ctx) {
                        Err(e) => Reply::Error {
                            message: format!("building {id} on {implementation}: {e}"),
                            fatal: false,
                        },
                        Ok(w) => {
                            let mut w: Box<dyn Workload> = match slowdown.factor(&id) {
                                Some(f) => Box::new(dyno_runner::slowdown::Slowed::new(w, f)),
                                None => w,
                            };
                            match w.verify() {
                                Err(m) => Reply::Mismatch {
                                    case: m.case.parse().unwrap_or(0),
                                    field: Some(format!("case {}", m.case)),
                                    expected: m.expected.into(),
                                    actual: m.actual.into(),
                                },
                                Ok(()) => {
                                    let cases = w.cases();
                                    current = Some(w);
                                    Reply::Prepared {
                                        id,
                                        cases,
                                        outputs: Vec::new(),
                                    }
                                }
                            }
                        }
                    },
                }
            }
            Request::Run {
                iterations,
                samples,
            } => match current.as_mut() {
                _ if dyno_protocol::run_out_of_bounds(iterations, samples).is_some() => {
                    Reply::Error {
                        message: dyno_protocol::run_out_of_bounds(iterations, samples)
                            .unwrap_or_default(),
                        fatal: false,
                    }
                }
                None => Reply::Error {
                    message: "run before a successful prepare".into(),
                    fatal: false,
                },
                Some(w) => {
                    let mut ns = Vec::with_capacity(samples as usize);
                    let mut failed = None;
                    for _ in 0..samples {
                        match w.time(iterations) {
                            Some(Ok(t)) => ns.push(t),
                            Some(Err(e)) => {
                                failed = Some(e);
                                break;
                            }
                            None => {
                                let t0 = Instant::now();
                                w.run(iterations);
                                ns.push(t0.elapsed().as_nanos() as u64);
                            }
                        }
                    }
                    match failed {
                        Some(message) => Reply::Error {
                            message,
                            fatal: false,
                        },
                        None => Reply::Samples {
                            ns,
                            gc: None,
                            alloc: None,
                        },
                    }
                }
            },
        };
        send(&reply)?;
    }
    Ok(())
}
