//! `dyno client check`: does dyno drive this client correctly? The
//! conformance run a client team uses before it trusts a replay's figures,
//! as `dyno adapter check` is for adapters. The client is started from
//! dyno's genesis as a replay starts it, then asked, in order:
//!
//! - `start`: its Engine API answers dyno's token in time;
//! - `loopback`: everything its tree listens on (every process below it,
//!   whatever its group: a daemon it double-forks too) is on loopback, its
//!   Engine port among it, and no listener appeared that no visible
//!   process holds;
//! - `jwt-*`: a token of another secret, no token and an unsigned (`alg`
//!   `none`) token are refused; a stale `iat` is noted;
//! - `capabilities`: `engine_exchangeCapabilities` lists the methods a
//!   replay calls;
//! - `genesis`: its block 0 is dyno's genesis (`eth_getBlockByNumber` on
//!   the Engine port);
//! - `valid`: two of dyno's blocks are `VALID`, and `invalid`: the second
//!   with a wrong state root (and a hash that matches it) is `INVALID`;
//! - `forkchoice`: `engine_forkchoiceUpdatedV3` moves the head, which
//!   `eth_blockNumber` and `eth_getBlockByNumber("latest")` agree on;
//! - `block-log`, `metrics`: its own per-block timing log joined by hash,
//!   its Prometheus metrics scraped, or each said to be missing;
//! - `stop`: SIGTERM ends it within [`STOP_LIMIT`], nothing of its tree
//!   left running or listening, its data removed.
//!
//! Each check passes, fails, is skipped with the reason, or is a note; the
//! client conforms when none fails.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use alloy_primitives::B256;
use serde_json::{Value, json};

use crate::blocks::{BlockSet, Planned};
use crate::client::{ClientError, ClientSpec, Running};
use crate::engine::{Engine, EngineError};
use crate::payload::Payload;
use crate::slowlog::SlowLog;

mod calls;
mod endpoint;
mod outputs;
use calls::*;
use endpoint::*;
use outputs::*;

/// How long a client may take to exit after SIGTERM.
pub const STOP_LIMIT: Duration = Duration::from_secs(30);

/// The Engine-API methods a replay calls, which the client must offer.
pub const METHODS: [&str; 2] = ["engine_newPayloadV4", "engine_forkchoiceUpdatedV3"];

/// How a check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    Fail,
    /// Not checked, with the reason (a check before it failed).
    Skip,
    /// Something to know that is not a verdict (a log or metrics the
    /// client does not give, a SHOULD of the spec it does not keep).
    Note,
}

/// One check's outcome, in one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    pub name: &'static str,
    pub outcome: Outcome,
    pub detail: String,
}

/// Everything a check run found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The client: its name and version.
    pub client: String,
    /// The command line it was started with (placeholders for paths).
    pub command: String,
    /// The fork of the genesis it was started from.
    pub fork: String,
    pub checks: Vec<Check>,
}

impl Report {
    /// True if any check failed (`dyno client check` exits 1).
    pub fn failed(&self) -> bool {
        self.checks.iter().any(|c| c.outcome == Outcome::Fail)
    }

    /// The report as text: the client, one line per check, the verdict.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for c in &self.checks {
            out.push_str(&c.line());
            out.push('\n');
        }
        out.push_str(&self.summary());
        out
    }

    /// What was checked and the verdict: the client and its fork, the
    /// command it was started with, then how many checks passed or failed.
    pub fn summary(&self) -> String {
        let mut out = format!(
            "client: {}, from a genesis under {}\n",
            self.client, self.fork
        );
        if !self.command.is_empty() {
            let _ = writeln!(out, "started as: {}", self.command);
        }
        let count = |o| self.checks.iter().filter(|c| c.outcome == o).count();
        let (pass, fail) = (count(Outcome::Pass), count(Outcome::Fail));
        if fail == 0 {
            let _ = writeln!(
                out,
                "{pass} checks passed: dyno drives this client correctly"
            );
        } else {
            let _ = writeln!(
                out,
                "{fail} of {} checks failed: docs/clients.md, \"dyno client check\", says what each asks",
                pass + fail
            );
        }
        out
    }
}

impl Check {
    /// `pass  name         detail`.
    pub fn line(&self) -> String {
        let tag = match self.outcome {
            Outcome::Pass => "pass",
            Outcome::Fail => "FAIL",
            Outcome::Skip => "skip",
            Outcome::Note => "note",
        };
        format!("{tag:<5} {:<12} {}", self.name, self.detail)
    }
}

struct Run<'e> {
    checks: Vec<Check>,
    echo: &'e mut dyn FnMut(&str),
}

impl Run<'_> {
    fn add(&mut self, name: &'static str, outcome: Outcome, detail: String) {
        let check = Check {
            name,
            outcome,
            detail,
        };
        (self.echo)(&check.line());
        self.checks.push(check);
    }

    fn pass(&mut self, name: &'static str, detail: String) {
        self.add(name, Outcome::Pass, detail);
    }

    fn fail(&mut self, name: &'static str, detail: String) {
        self.add(name, Outcome::Fail, detail);
    }

    fn skip(&mut self, names: &[&'static str], why: &str) {
        for name in names {
            self.add(name, Outcome::Skip, why.to_string());
        }
    }
}

/// Every check's name, in order.
pub const CHECKS: [&str; 14] = [
    "start",
    "loopback",
    "jwt",
    "jwt-other",
    "jwt-none",
    "jwt-unsigned",
    "jwt-stale",
    "capabilities",
    "genesis",
    "valid",
    "invalid",
    "forkchoice",
    "block-log",
    "metrics",
];

/// Check the client `spec` with the first two blocks of `set` (the second
/// must hold transactions), each line echoed as it is found.
pub fn check(
    spec: &ClientSpec,
    set: &BlockSet,
    ready: Duration,
    call: Duration,
    echo: &mut dyn FnMut(&str),
) -> Report {
    let fork = set.fork.map_or("unknown fork".into(), |f| f.to_string());
    let mut run = Run {
        checks: Vec::new(),
        echo,
    };
    let mut report = Report {
        client: spec.name().into(),
        command: String::new(),
        fork,
        checks: Vec::new(),
    };
    let before = workdir();
    let started = Instant::now();
    let client = spec.start(&set.genesis_json, ready, call);
    let mut client = match client {
        Ok(c) => c,
        Err(e) => {
            // A refused token is the JWT check failing; anything else, the
            // start. Every later check is skipped.
            let refused = matches!(
                e,
                ClientError::Engine(EngineError::Status { status: 401, .. })
            );
            let failed = if refused { "jwt" } else { "start" };
            for name in CHECKS {
                match name {
                    _ if name == failed => run.fail(name, one_line(&e.to_string())),
                    "start" => run.pass(name, "its Engine API answers".into()),
                    _ => run.add(name, Outcome::Skip, format!("the {failed} check failed")),
                }
            }
            run.add(
                "stop",
                Outcome::Skip,
                "stopped as it did not start (SIGTERM, then SIGKILL after 10 s)".into(),
            );
            report.checks = run.checks;
            return report;
        }
    };
    report.client = format!("{} {}", spec.name(), client.version);
    report.command = client.command.clone();
    run.pass(
        "start",
        format!(
            "started from dyno's genesis ({}); its Engine API answered dyno's token after {:.1} s",
            report.fork,
            started.elapsed().as_secs_f64()
        ),
    );
    let listening = loopback(&mut run, &mut client);
    authentication(&mut run, &client);
    capabilities(&mut run, &mut client.engine);
    genesis(&mut run, &mut client.engine, set);
    let mut log = SlowLog::default();
    let blocks = blocks(&mut run, &mut client, set, &mut log);
    block_log(&mut run, &mut client, &blocks, &mut log);
    metrics(&mut run, &client);
    stop(&mut run, client, &listening, &before);
    report.checks = run.checks;
    report
}
