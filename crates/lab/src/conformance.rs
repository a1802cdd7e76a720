//! `dyno adapter check DIR`: the conformance run a team uses while writing
//! an adapter. It installs the folder's worker, then asks it everything
//! `dyno run` would, and the things that go wrong: `hello` and the
//! protocol version; every offered `(id, implementation)` prepared with
//! dyno's own cases, every output checked here, and run; an unknown id, a
//! case it cannot parse, `run` before `prepare` and a line that is not
//! JSON, each answered with `error`; stdout carrying protocol lines only;
//! the end of input ending the worker; what its empty loop costs; and its
//! clock against dyno's over a known sleep ([`SLEEP_ID`]). Each check
//! passes or fails with the section of docs/adapter-protocol.md to read.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use dyno_adapter::{Adapter, Offers, SetupError, Worker};
use dyno_protocol::{Case, Hello, NOOP_ID, Offer, Reply, Request, SLEEP_ID};
use serde_json::Map;

use crate::Lab;

mod costs;
mod errors;
mod hello;
mod prepare;
use costs::*;
use errors::*;
use hello::*;
use prepare::*;

/// How a check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    Fail,
    /// Not checked here, with the reason in the detail.
    Skip,
    /// A measurement, not a verdict.
    Info,
}

/// One check's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// What was checked: `hello`, `prepare`, `clock`, ...
    pub name: &'static str,
    pub outcome: Outcome,
    /// What was seen, in one line.
    pub detail: String,
    /// The section of docs/adapter-protocol.md that says what is asked.
    pub section: &'static str,
}

/// Everything a check run found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The adapter checked: its name and folder.
    pub adapter: String,
    pub checks: Vec<Check>,
}

impl Report {
    /// True if any check failed (`dyno adapter check` exits 1).
    pub fn failed(&self) -> bool {
        self.checks.iter().any(|c| c.outcome == Outcome::Fail)
    }

    /// The report as text: one line per check, then the tally.
    pub fn render(&self) -> String {
        let mut out = format!("dyno adapter check: {}\n", self.adapter);
        for c in &self.checks {
            let tag = match c.outcome {
                Outcome::Pass => "pass",
                Outcome::Fail => "FAIL",
                Outcome::Skip => "skip",
                Outcome::Info => "info",
            };
            let _ = write!(out, "{tag:<5} {:<10} {}", c.name, c.detail);
            if c.outcome == Outcome::Fail {
                let _ = write!(out, " (read docs/adapter-protocol.md, {})", c.section);
            }
            out.push('\n');
        }
        let count = |o| self.checks.iter().filter(|c| c.outcome == o).count();
        let (pass, fail) = (count(Outcome::Pass), count(Outcome::Fail));
        if fail == 0 {
            let _ = writeln!(
                out,
                "{pass} checks passed: the adapter conforms to protocol version {}",
                dyno_protocol::VERSION
            );
        } else {
            let _ = writeln!(out, "{fail} of {} checks failed", pass + fail);
        }
        out
    }
}

/// The sections of docs/adapter-protocol.md.
const LAYOUT: &str = "\"Layout of an adapter\"";
const HELLO: &str = "\"hello\"";
const PREPARE: &str = "\"prepare\"";
const RUN: &str = "\"run\"";
const ERROR: &str = "\"error\"";
const END: &str = "\"End\"";
const HARNESS: &str = "\"The harness ids\"";
const OFFERS: &str = "\"The offers file\"";

/// How long a check waits for one reply that is not a `prepare`.
const LIMIT: Duration = Duration::from_secs(60);

/// The names that `--impl` reads as something other than an
/// implementation.
const RESERVED: [&str; 6] = ["all", "rust", "go", "java", "node", "python"];

struct Run<'a> {
    lab: &'a Lab,
    adapter: Adapter,
    write_offers: bool,
    checks: Vec<Check>,
}

impl Run<'_> {
    fn add(&mut self, name: &'static str, outcome: Outcome, section: &'static str, detail: String) {
        self.checks.push(Check {
            name,
            outcome,
            detail,
            section,
        });
    }

    fn start(&mut self, name: &'static str) -> Option<Worker> {
        match self.adapter.start() {
            Ok(w) => Some(w),
            Err(e) => {
                self.add(
                    name,
                    Outcome::Fail,
                    HELLO,
                    format!("the worker did not start: {}", one_line(&e.to_string())),
                );
                None
            }
        }
    }
}

fn one_line(s: &str) -> String {
    dyno_report::one_line(s)
}

/// Check the adapter in `dir`: install it if it is not (or its sources
/// changed), echoing `setup`'s output to `echo`, then run every check.
/// An adapter of dyno's own (`adapters/go`) is checked where `dyno setup`
/// installs it.
/// With `write_offers`, the folder's offers file is written from the
/// worker's hello; without it, a file that disagrees fails `offers`.
pub fn check(lab: &Lab, dir: &Path, write_offers: bool, mut echo: impl FnMut(&str)) -> Report {
    let own = std::fs::canonicalize(dir).ok().and_then(|abs| {
        dyno_adapter::discover(&lab.paths.adapters, &lab.paths.cache)
            .into_iter()
            .find(|a| a.dir == abs)
    });
    let adapter = match own.map_or_else(|| Adapter::external(dir, &lab.paths.cache), Ok) {
        Ok(a) => a,
        Err(e) => {
            return Report {
                adapter: dir.display().to_string(),
                checks: vec![Check {
                    name: "layout",
                    outcome: Outcome::Fail,
                    detail: e.to_string(),
                    section: LAYOUT,
                }],
            };
        }
    };
    let mut run = Run {
        lab,
        adapter,
        write_offers,
        checks: Vec::new(),
    };
    let label = run.adapter.label();
    if install(&mut run, &mut echo) {
        conform(&mut run);
    }
    Report {
        adapter: label,
        checks: run.checks,
    }
}

/// `setup`, when the worker is not installed or its sources changed.
fn install(run: &mut Run<'_>, echo: &mut impl FnMut(&str)) -> bool {
    let a = run.adapter.clone();
    if a.installed() && !a.stale() {
        run.add(
            "setup",
            Outcome::Pass,
            LAYOUT,
            format!("installed in {}, up to date", a.home.display()),
        );
        return true;
    }
    echo(&format!(
        "dyno adapter check: setup {} → {}",
        a.label(),
        a.home.display()
    ));
    match a.setup(|line| echo(&format!("  {line}"))) {
        Ok(took) => {
            run.add(
                "setup",
                Outcome::Pass,
                LAYOUT,
                format!(
                    "installed in {} ({:.1} s)",
                    a.home.display(),
                    took.as_secs_f64()
                ),
            );
            true
        }
        Err(e @ SetupError::RuntimeMissing { .. }) => {
            run.add(
                "setup",
                Outcome::Fail,
                LAYOUT,
                format!("the runtime is missing (setup exited 3): {e}"),
            );
            false
        }
        Err(e) => {
            run.add("setup", Outcome::Fail, LAYOUT, one_line(&e.to_string()));
            false
        }
    }
}

fn conform(run: &mut Run<'_>) {
    let t0 = Instant::now();
    let Some(w) = run.start("hello") else {
        return;
    };
    let hello = w.hello().clone();
    run.add(
        "hello",
        Outcome::Pass,
        HELLO,
        format!(
            "protocol {} in {:.2} s; runtime {} {}; adapter {} {}; clock {}{}",
            hello.protocol,
            t0.elapsed().as_secs_f64(),
            hello.runtime.name,
            hello.runtime.version,
            hello.adapter.name,
            hello.adapter.version,
            hello.clock.source,
            if hello.jit { "; JIT" } else { "" }
        ),
    );
    described(run, &hello);
    offers_file(run, &hello);
    let pairs = offered(run, &hello);
    let fixture = match fixture(run.lab) {
        Ok(f) => f,
        Err(e) => {
            run.add(
                "prepare",
                Outcome::Fail,
                PREPARE,
                format!("the shared fixture: {e}"),
            );
            Fixture::new()
        }
    };
    prepares(run, w, &pairs, &fixture);
    errors(run, &hello, &pairs, &fixture);
    ending(run);
    costs(run, &hello);
}

#[cfg(test)]
mod tests;
