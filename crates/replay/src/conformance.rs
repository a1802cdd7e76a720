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

/// Where the client's whole tree listens (every process below it, whatever
/// its group or session): on loopback only, with its Engine port among
/// them, and no listener appeared that dyno cannot attribute. What it
/// listens on, for the stop check.
fn loopback(run: &mut Run, client: &mut Running) -> Vec<dyno_process::sockets::Listener> {
    let found = client.node.sockets();
    let port = client.engine.port();
    let list = |ls: &[dyno_process::sockets::Listener]| {
        ls.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let open: Vec<_> = found
        .own
        .iter()
        .filter(|l| !l.is_loopback())
        .cloned()
        .collect();
    let engine = found
        .own
        .iter()
        .any(|l| l.protocol == "tcp" && l.address.port() == port);
    let processes = match found.processes {
        1 => "1 process".to_string(),
        n => format!("{n} processes"),
    };
    if !open.is_empty() {
        run.fail(
            "loopback",
            format!(
                "its tree ({processes}) listens beyond this machine on {}: give it an address \
                 flag for each (dyno starts servers on 127.0.0.1 only)",
                list(&open)
            ),
        );
    } else if !found.unattributed.is_empty() {
        run.fail(
            "loopback",
            format!(
                "listeners appeared as it started that no process dyno can see holds ({}): dyno \
                 cannot tell whether they are the client's; run it as dyno's user, in dyno's pid \
                 namespace",
                list(&found.unattributed)
            ),
        );
    } else if !engine {
        let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
        let holder = dyno_process::sockets::holder_of(address)
            .and_then(dyno_process::tree::Proc::of)
            .map_or(String::new(), |p| {
                format!(
                    " (pid {} holds it, outside the client's tree)",
                    p.describe()
                )
            });
        run.fail(
            "loopback",
            format!(
                "its Engine API answers on port {port}, but no process of its tree ({processes}) \
                 holds that port{holder}: dyno cannot attribute its sockets, so it cannot check \
                 where it listens"
            ),
        );
    } else {
        run.pass(
            "loopback",
            format!(
                "its tree ({processes}) listens on loopback only: {}",
                list(&found.own)
            ),
        );
    }
    found.own
}

/// How a call with a token not of the secret was taken.
enum Taken {
    /// Refused with this HTTP status.
    Status(u16),
    /// Refused with a JSON-RPC error at HTTP 200 (ethrex does this).
    Error(String),
    /// Answered.
    Answered,
}

/// A call of `engine_exchangeCapabilities` with `token` on a connection
/// of its own (`None`: no token at all). A JSON-RPC error to a call the
/// secret's token gets answered is a refusal.
fn taken(port: u16, token: Option<&str>) -> Result<Taken, String> {
    let mut e =
        Engine::connect(port, [0; 32], Duration::from_secs(10)).map_err(|e| e.to_string())?;
    match e.call_as("engine_exchangeCapabilities", json!([METHODS]), token) {
        Ok(_) => Ok(Taken::Answered),
        Err(EngineError::Status { status, .. }) => Ok(Taken::Status(status)),
        Err(EngineError::Rpc { message, code, .. }) => {
            Ok(Taken::Error(format!("{message} (code {code})")))
        }
        Err(other) => Err(other.to_string()),
    }
}

fn authentication(run: &mut Run, client: &Running) {
    run.pass(
        "jwt",
        "a token signed with the secret in {jwt}, issued now, is accepted".into(),
    );
    let port = client.engine.port();
    let other = crate::jwt::token_now(&[0x5a; 32]);
    let stale = crate::jwt::token(
        client.engine.secret(),
        crate::jwt::now().saturating_sub(300),
    );
    let unsigned = crate::jwt::unsigned_token();
    for (name, token, what, must) in [
        (
            "jwt-other",
            Some(other.as_str()),
            "a token of another secret",
            true,
        ),
        ("jwt-none", None, "a call with no token", true),
        (
            "jwt-unsigned",
            Some(unsigned.as_str()),
            "an unsigned token (alg none)",
            true,
        ),
        (
            "jwt-stale",
            Some(stale.as_str()),
            "a token issued 5 minutes ago",
            false,
        ),
    ] {
        match taken(port, token) {
            Ok(Taken::Status(status @ (401 | 403))) => {
                run.pass(name, format!("{what} is refused with HTTP {status}"));
            }
            Ok(Taken::Status(status)) => run.fail(
                name,
                format!("{what} got HTTP {status}: refuse it with 401 Unauthorized"),
            ),
            // An error that does not say it refused the token is an
            // answer: the call went through to a method that failed.
            Ok(Taken::Error(error)) if !speaks_of_auth(&error) => run.fail(
                name,
                format!(
                    "{what} got a JSON-RPC error that does not say the token was refused ({}): \
                     refuse it with HTTP 401",
                    one_line(&error)
                ),
            ),
            Ok(Taken::Error(error)) => run.add(
                name,
                Outcome::Note,
                format!(
                    "{what} is refused, but at HTTP 200 with a JSON-RPC error ({}), not HTTP 401 \
                     as geth and EthereumJS refuse it: a consensus client may take it for a failed call",
                    one_line(&error)
                ),
            ),
            Ok(Taken::Answered) if must => run.fail(
                name,
                format!("{what} was answered: anyone who reaches the port can drive the client"),
            ),
            Ok(Taken::Answered) => run.add(
                name,
                Outcome::Note,
                format!("{what} was answered (the spec says a client SHOULD keep iat within 60 s)"),
            ),
            Err(e) => run.fail(name, format!("{what}: {}", one_line(&e))),
        }
    }
}

/// True if a JSON-RPC error's message says a call was refused for its
/// token (ethrex: "Auth failed"), not that the method failed.
fn speaks_of_auth(error: &str) -> bool {
    let e = error.to_ascii_lowercase();
    [
        "auth",
        "jwt",
        "token",
        "unauthori",
        "forbidden",
        "permission",
        "denied",
    ]
    .iter()
    .any(|w| e.contains(w))
}

fn capabilities(run: &mut Run, engine: &mut Engine) {
    match engine.call("engine_exchangeCapabilities", json!([METHODS])) {
        Ok((Value::Array(offered), _)) => {
            let missing: Vec<&str> = METHODS
                .iter()
                .filter(|m| !offered.iter().any(|o| o.as_str() == Some(m)))
                .copied()
                .collect();
            if missing.is_empty() {
                run.pass(
                    "capabilities",
                    format!(
                        "offers {} Engine-API methods, {} among them",
                        offered.len(),
                        METHODS.join(" and ")
                    ),
                );
            } else {
                run.fail(
                    "capabilities",
                    format!("does not offer {}: a replay calls them", missing.join(", ")),
                );
            }
        }
        Ok((other, _)) => run.fail(
            "capabilities",
            format!("engine_exchangeCapabilities answered {other:.100}, not a list of methods"),
        ),
        Err(e) => run.fail("capabilities", one_line(&e.to_string())),
    }
}

/// `eth_getBlockByNumber(tag)`'s hash and number, on the Engine port.
fn block_by_number(engine: &mut Engine, tag: &str) -> Result<(String, u64), String> {
    let (block, _) = engine
        .call("eth_getBlockByNumber", json!([tag, false]))
        .map_err(|e| e.to_string())?;
    let hash = block
        .get("hash")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("eth_getBlockByNumber({tag}) answered {block:.100}"))?;
    let number = block
        .get("number")
        .and_then(Value::as_str)
        .and_then(|n| u64::from_str_radix(n.trim_start_matches("0x"), 16).ok())
        .ok_or_else(|| format!("eth_getBlockByNumber({tag}) has no number"))?;
    Ok((hash.to_ascii_lowercase(), number))
}

fn genesis(run: &mut Run, engine: &mut Engine, set: &BlockSet) {
    let want = set.blocks[0].payload.header.parent_hash.to_string();
    match block_by_number(engine, "0x0") {
        Ok((hash, _)) if hash == want => run.pass(
            "genesis",
            format!("its block 0 is dyno's genesis {}", short(&want)),
        ),
        Ok((hash, _)) => run.fail(
            "genesis",
            format!(
                "its block 0 is {}, not dyno's genesis {}: it read {{genesis}} otherwise (a field \
                 dropped or a fork not turned on)",
                short(&hash),
                short(&want)
            ),
        ),
        Err(e) => run.fail(
            "genesis",
            format!(
                "{} (the Engine port must serve eth_getBlockByNumber)",
                one_line(&e)
            ),
        ),
    }
}

/// A message in one line of at most 300 characters.
fn one_line(s: &str) -> String {
    let flat: Vec<&str> = s.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let flat = flat.join(" | ");
    match flat.char_indices().nth(300) {
        Some((at, _)) => format!("{} …", &flat[..at]),
        None => flat,
    }
}

fn short(hash: &str) -> String {
    hash.get(..10).map_or(hash.to_string(), |h| format!("{h}…"))
}

/// `engine_newPayloadV4` of `payload`: its status (and validation error)
/// and how long it took.
fn new_payload(
    engine: &mut Engine,
    payload: &Payload,
) -> Result<(String, Value, Duration), String> {
    let (status, took) = engine
        .call("engine_newPayloadV4", payload.new_payload_params())
        .map_err(|e| e.to_string())?;
    let s = status
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    Ok((s, status, took))
}

/// The second block with a wrong state root and the hash of that header:
/// only executing it shows it is bad.
fn bad_block(good: &Payload) -> Payload {
    let mut header = good.header.clone();
    header.state_root = B256::from(header.state_root.0.map(|b| !b));
    Payload {
        hash: header.hash_slow(),
        header,
        ..good.clone()
    }
}

/// The blocks sent and found `VALID`, in order.
fn blocks<'s>(
    run: &mut Run,
    client: &mut Running,
    set: &'s BlockSet,
    log: &mut SlowLog,
) -> Vec<&'s Planned> {
    let (first, second) = (&set.blocks[0], &set.blocks[1]);
    let engine = &mut client.engine;
    let mut sent = Vec::new();
    match new_payload(engine, &first.payload) {
        Ok((s, _, _)) if s == "VALID" => sent.push(first),
        Ok((s, status, _)) => {
            run.fail(
                "valid",
                format!("block 1 ({}): {s} ({status:.200})", first.class),
            );
            run.skip(&["invalid", "forkchoice"], "block 1 was not VALID");
            return sent;
        }
        Err(e) => {
            run.fail("valid", format!("block 1: {}", one_line(&e)));
            run.skip(&["invalid", "forkchoice"], "block 1 was not VALID");
            return sent;
        }
    }
    // The bad block before the good one of the same height: a client that
    // answers VALID to it did not execute it.
    let bad = bad_block(&second.payload);
    let invalid = match new_payload(engine, &bad) {
        Ok((s, status, took)) if s == "INVALID" => {
            let why = status
                .get("validationError")
                .and_then(Value::as_str)
                .map_or("no validationError".into(), |r| {
                    format!("\"{}\"", one_line(r).chars().take(120).collect::<String>())
                });
            Ok(format!(
                "block 2 with a wrong state root is INVALID after {:.0} ms: {why}",
                took.as_secs_f64() * 1e3
            ))
        }
        Ok((s, _, _)) if s == "VALID" => Err(
            "block 2 with a wrong state root (its hash matching) is VALID: the client does not \
             check a block's state root, so its newPayload times are not block processing"
                .to_string(),
        ),
        Ok((s, _, _)) if s == "SYNCING" || s == "ACCEPTED" => Err(format!(
            "block 2 with a wrong state root is {s}: the client did not execute it (a replay \
             would fail at such a block too)"
        )),
        Ok((s, status, _)) => Err(format!(
            "block 2 with a wrong state root: {s} ({status:.200})"
        )),
        Err(e) => Err(format!("block 2 with a wrong state root: {}", one_line(&e))),
    };
    log.add(client.node.tail.take_kept());
    let second_status = new_payload(&mut client.engine, &second.payload);
    match second_status {
        Ok((s, _, took)) if s == "VALID" => {
            sent.push(second);
            run.pass(
                "valid",
                format!(
                    "blocks 1 ({}) and 2 ({}, {} transactions) are VALID, block 2 after {:.0} ms",
                    first.class,
                    second.class,
                    second.payload.transactions.len(),
                    took.as_secs_f64() * 1e3
                ),
            );
        }
        Ok((s, status, _)) => run.fail(
            "valid",
            format!("block 2 ({}): {s} ({status:.200})", second.class),
        ),
        Err(e) => run.fail("valid", format!("block 2: {}", one_line(&e))),
    }
    match invalid {
        Ok(detail) => run.pass("invalid", detail),
        Err(detail) => run.fail("invalid", detail),
    }
    forkchoice(run, &mut client.engine, &sent);
    sent
}

fn forkchoice(run: &mut Run, engine: &mut Engine, sent: &[&Planned]) {
    let Some(head) = sent.last() else {
        run.add("forkchoice", Outcome::Skip, "no block was VALID".into());
        return;
    };
    if let Err(e) = engine.forkchoice_updated(head.payload.forkchoice_params()) {
        run.fail("forkchoice", one_line(&e.to_string()));
        return;
    }
    let want = head.payload.hash.to_string();
    let number = head.payload.header.number;
    let said = engine
        .call("eth_blockNumber", json!([]))
        .map_err(|e| e.to_string())
        .and_then(|(n, _)| {
            n.as_str()
                .and_then(|n| u64::from_str_radix(n.trim_start_matches("0x"), 16).ok())
                .ok_or_else(|| format!("eth_blockNumber answered {n}"))
        });
    let latest = block_by_number(engine, "latest");
    match (said, latest) {
        (Ok(n), Ok((hash, m))) if n == number && m == number && hash == want => run.pass(
            "forkchoice",
            format!(
                "the head moved to block {number}: eth_blockNumber and eth_getBlockByNumber(latest) agree ({})",
                short(&want)
            ),
        ),
        (Ok(n), Ok((hash, m))) => run.fail(
            "forkchoice",
            format!(
                "after forkchoiceUpdated to block {number} ({}), eth_blockNumber says {n} and \
                 latest is block {m} ({})",
                short(&want),
                short(&hash)
            ),
        ),
        (Err(e), _) | (_, Err(e)) => run.fail(
            "forkchoice",
            format!(
                "{} (the Engine port must serve eth_blockNumber and eth_getBlockByNumber)",
                one_line(&e)
            ),
        ),
    }
}

fn block_log(run: &mut Run, client: &mut Running, sent: &[&Planned], log: &mut SlowLog) {
    if sent.is_empty() {
        run.add("block-log", Outcome::Skip, "no block was VALID".into());
        return;
    }
    let deadline = Instant::now() + Duration::from_secs(3);
    let found = loop {
        log.add(client.node.tail.take_kept());
        let found = sent
            .iter()
            .filter(|p| log.by_hash.contains_key(&p.payload.hash.to_string()))
            .count();
        if found == sent.len() || Instant::now() >= deadline {
            break found;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    if found == sent.len() {
        run.pass(
            "block-log",
            format!(
                "its per-block timing log (the slow-block JSON) joined by hash for {found} of {} blocks",
                sent.len()
            ),
        );
    } else if found == 0 && log.unparsed.is_empty() {
        run.add(
            "block-log",
            Outcome::Note,
            "missing: it wrote no per-block \"Slow block\" JSON line (geth's \
             --debug.logslowblock 0 format); a replay has dyno's timings only"
                .into(),
        );
    } else {
        let first = log
            .unparsed
            .first()
            .map(|(l, why)| format!("; a line that did not parse: {why}: {:.120}", l))
            .unwrap_or_default();
        run.fail(
            "block-log",
            format!(
                "its per-block log joined by hash for {found} of {} blocks{first}",
                sent.len()
            ),
        );
    }
}

fn metrics(run: &mut Run, client: &Running) {
    let Some(url) = &client.node.metrics_url else {
        run.add(
            "metrics",
            Outcome::Note,
            "missing: the command line has no {metrics_port}".into(),
        );
        return;
    };
    let shown = url.replace("http://127.0.0.1", "127.0.0.1");
    match dyno_node::metrics::scrape(url, Duration::from_secs(10)) {
        Ok(series) if !series.is_empty() => run.pass(
            "metrics",
            format!("{} Prometheus series scraped at {shown}", series.len()),
        ),
        // Nothing listens at the port it was given: no metrics, a note.
        Err(e) if !answers(url) => run.add(
            "metrics",
            Outcome::Note,
            format!("missing: {}", one_line(&e)),
        ),
        // Something answers there, but not with metrics.
        Ok(_) => run.fail(
            "metrics",
            format!(
                "{shown} answers, but with no Prometheus series: serve the text exposition format \
                 there, or leave {{metrics_port}} out"
            ),
        ),
        Err(e) => run.fail(
            "metrics",
            format!(
                "{} (something answers at {{metrics_port}}, but not with metrics)",
                one_line(&e)
            ),
        ),
    }
}

/// True if a TCP connection to `url`'s host and port is taken.
fn answers(url: &str) -> bool {
    let host = url
        .strip_prefix("http://")
        .and_then(|r| r.split('/').next())
        .unwrap_or("");
    std::net::ToSocketAddrs::to_socket_addrs(host)
        .ok()
        .and_then(|mut a| a.next())
        .is_some_and(|a| std::net::TcpStream::connect_timeout(&a, Duration::from_secs(2)).is_ok())
}

/// The names in the working directory (a client started from a command
/// line runs in dyno's).
fn workdir() -> std::collections::BTreeSet<std::ffi::OsString> {
    std::fs::read_dir(".")
        .into_iter()
        .flatten()
        .filter_map(|e| Some(e.ok()?.file_name()))
        .collect()
}

fn stop(
    run: &mut Run,
    client: Running,
    listening: &[dyno_process::sockets::Listener],
    before: &std::collections::BTreeSet<std::ffi::OsString>,
) {
    let mut node = client.node;
    let Some(stopped) = node.stop_observed(STOP_LIMIT) else {
        run.fail("stop", "the client had already exited".into());
        return;
    };
    // A port it held, taken again: a listener that escaped its process
    // group still holds it.
    let still_bound: Vec<String> = listening
        .iter()
        .filter(|l| l.protocol == "tcp" && std::net::TcpListener::bind(l.address).is_err())
        .map(ToString::to_string)
        .collect();
    let mut wrong = Vec::new();
    if stopped.status.is_none() {
        wrong.push(format!(
            "it did not exit within {} s of SIGTERM (killed)",
            STOP_LIMIT.as_secs()
        ));
    }
    if !stopped.left_running.is_empty() {
        wrong.push(format!(
            "{} of its processes ran on after it exited (killed): {}",
            stopped.left_running.len(),
            stopped.left_running.join(", ")
        ));
    }
    if !stopped.left_unattributed.is_empty() {
        wrong.push(format!(
            "listeners that appeared while it ran outlived it, held by no process dyno can see: {}",
            stopped
                .left_unattributed
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !stopped.left_listening.is_empty() || !still_bound.is_empty() {
        let mut ports: Vec<String> = stopped
            .left_listening
            .iter()
            .map(ToString::to_string)
            .collect();
        ports.extend(still_bound);
        wrong.push(format!("still listening on {}", ports.join(", ")));
    }
    if !stopped.removed {
        wrong.push("its data folder could not be removed".into());
    }
    let litter: Vec<String> = workdir()
        .difference(before)
        .map(|n| n.to_string_lossy().into_owned())
        .collect();
    if !litter.is_empty() {
        wrong.push(format!(
            "it left {} in the working directory: write into {{datadir}} only",
            litter.join(", ")
        ));
    }
    if wrong.is_empty() {
        let how = stopped.status.map_or("?".into(), |s| {
            s.code().map_or(s.to_string(), |c| format!("exit {c}"))
        });
        run.pass(
            "stop",
            format!(
                "SIGTERM: {how} after {:.2} s; nothing left running or listening; its data removed",
                stopped.took.as_secs_f64()
            ),
        );
    } else {
        run.fail("stop", wrong.join("; "));
    }
}
