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

/// What `hello` must say of itself, and the names it gives.
fn described(run: &mut Run<'_>, h: &Hello) {
    let mut missing = Vec::new();
    for (field, v) in [
        ("runtime.name", &h.runtime.name),
        ("runtime.version", &h.runtime.version),
        ("adapter.name", &h.adapter.name),
        ("adapter.version", &h.adapter.version),
        ("clock.source", &h.clock.source),
    ] {
        if v.trim().is_empty() {
            missing.push(field);
        }
    }
    if missing.is_empty() {
        run.add(
            "describe",
            Outcome::Pass,
            HELLO,
            "runtime, adapter and clock are named".into(),
        );
    } else {
        run.add(
            "describe",
            Outcome::Fail,
            HELLO,
            format!("hello leaves {} empty", missing.join(", ")),
        );
    }
    let mut bad = Vec::new();
    let mut names: Vec<&str> = h
        .benchmarks
        .iter()
        .chain(&h.patterns)
        .map(|o| o.implementation.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    for n in &names {
        if *n != n.to_ascii_lowercase() || n.is_empty() || n.contains([',', ' ']) {
            bad.push(format!(
                "{n:?} is not a lower-case name without commas or spaces"
            ));
        } else if RESERVED.contains(n) {
            bad.push(format!("{n:?} is what --impl calls a runtime"));
        }
    }
    if bad.is_empty() {
        run.add(
            "names",
            Outcome::Pass,
            HELLO,
            format!("{} implementation names: {}", names.len(), names.join(", ")),
        );
    } else {
        run.add(
            "names",
            Outcome::Fail,
            HELLO,
            format!("{}; name the library, uniquely", bad.join("; ")),
        );
    }
}

/// Every `(id, implementation)` the worker offers that dyno defines, the
/// unknown ones failed, and the harness ids required.
/// The folder's offers file against the hello: written with
/// `--write-offers`, else compared when the folder has one.
fn offers_file(run: &mut Run<'_>, h: &Hello) {
    let live = Offers::of(h);
    let dir = run.adapter.dir.clone();
    let path = dir.join(dyno_adapter::OFFERS_FILE);
    let fix = format!("`dyno adapter check --write-offers {}`", dir.display());
    if run.write_offers {
        let (outcome, detail) = match std::fs::write(&path, live.to_file_text()) {
            Ok(()) => (
                Outcome::Pass,
                format!(
                    "wrote {} ({} benchmarks, {} patterns)",
                    path.display(),
                    live.benchmarks.len(),
                    live.patterns.len()
                ),
            ),
            Err(e) => (Outcome::Fail, format!("writing {}: {e}", path.display())),
        };
        run.add("offers", outcome, OFFERS, detail);
        return;
    }
    match Offers::read(&dir) {
        Ok(None) => run.add(
            "offers",
            Outcome::Skip,
            OFFERS,
            format!(
                "no {} (dyno list names this adapter's implementations once it is installed; {fix} writes one)",
                dyno_adapter::OFFERS_FILE
            ),
        ),
        Ok(Some(file)) => {
            let differences = file.differences(&live);
            if differences.is_empty() {
                run.add(
                    "offers",
                    Outcome::Pass,
                    OFFERS,
                    format!(
                        "{} agrees with the hello ({} benchmarks, {} patterns)",
                        dyno_adapter::OFFERS_FILE,
                        live.benchmarks.len(),
                        live.patterns.len()
                    ),
                );
            } else {
                run.add(
                    "offers",
                    Outcome::Fail,
                    OFFERS,
                    format!(
                        "{} differs from the hello: {}; {fix} rewrites it",
                        path.display(),
                        differences.join("; ")
                    ),
                );
            }
        }
        Err(e) => run.add("offers", Outcome::Fail, OFFERS, one_line(&e.to_string())),
    }
}

fn offered(run: &mut Run<'_>, h: &Hello) -> Vec<(String, Offer, bool)> {
    let known = crate::cases::ids();
    let mut pairs = Vec::new();
    let mut unknown = Vec::new();
    for o in &h.benchmarks {
        if known.contains(&o.id) || o.id == SLEEP_ID {
            pairs.push((o.id.clone(), o.clone(), false));
        } else {
            unknown.push(o.id.clone());
        }
    }
    for o in &h.patterns {
        let matched: Vec<&String> = known.iter().filter(|id| o.covers(id)).collect();
        if matched.is_empty() {
            unknown.push(o.id.clone());
        }
        for id in matched {
            if !pairs
                .iter()
                .any(|(i, p, _)| i == id && p.implementation == o.implementation)
            {
                pairs.push((id.clone(), o.clone(), true));
            }
        }
    }
    if unknown.is_empty() {
        let ids: std::collections::BTreeSet<&str> =
            pairs.iter().map(|(i, ..)| i.as_str()).collect();
        run.add(
            "ids",
            Outcome::Pass,
            HELLO,
            format!(
                "{} (id, implementation) pairs over {} ids, every one dyno's",
                pairs.len(),
                ids.len()
            ),
        );
    } else {
        run.add(
            "ids",
            Outcome::Fail,
            HELLO,
            format!(
                "offers ids dyno does not define: {} (`dyno list` shows dyno's ids)",
                unknown.join(", ")
            ),
        );
    }
    for (id, why) in [
        (NOOP_ID, "its own loop's cost"),
        (SLEEP_ID, "the clock check"),
    ] {
        if !pairs.iter().any(|(i, ..)| i == id) {
            run.add(
                "harness",
                Outcome::Fail,
                HARNESS,
                format!(
                    "{id} is not offered; dyno needs it for {why} (the protocol libraries offer it)"
                ),
            );
        }
    }
    pairs
}

/// True for ids whose cases name this machine's data sets (a storage
/// engine's database, a generated state, the full ethash dataset).
fn needs_data(id: &str) -> bool {
    id.starts_with("db/") || id.starts_with("state/") || id.starts_with("pow/hashimoto-full/")
}

/// Cases by id.
type Fixture = std::collections::BTreeMap<String, Vec<Case>>;

/// The shared fixture every adapter's own tests replay
/// (`adapters/testdata/prepare.jsonl`): id → its cases (at most three,
/// inputs of at most 8 KiB but for one 100 KiB hash), plus the harness
/// ids' cases.
fn fixture(lab: &Lab) -> Result<Fixture, String> {
    let rel = "testdata/prepare.jsonl";
    let mut path = lab.paths.adapters.join(rel);
    if !path.is_file() {
        // dyno's own adapters moved elsewhere (DYNO_ADAPTER_ROOT): the
        // repository's fixture
        path = crate::paths::data_dir(None, "adapters").join(rel);
    }
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = std::collections::BTreeMap::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        match dyno_protocol::decode::<Request>(line) {
            Ok(Request::Prepare { id, cases, .. }) => {
                out.insert(id, cases);
            }
            Ok(_) => {
                return Err(format!(
                    "{}:{}: not a prepare request",
                    path.display(),
                    n + 1
                ));
            }
            Err(e) => return Err(format!("{}:{}: {e}", path.display(), n + 1)),
        }
    }
    for id in [NOOP_ID, SLEEP_ID] {
        out.insert(id.to_string(), dyno_protocol::noop_cases());
    }
    Ok(out)
}

/// Prepare and run every pair that the shared fixture has cases for,
/// checking every output; a worker that dies is replaced for the next
/// pair. Larger inputs of the same families are left to `dyno run`, which
/// verifies each before timing it.
fn prepares(run: &mut Run<'_>, w: Worker, pairs: &[(String, Offer, bool)], fixture: &Fixture) {
    if fixture.is_empty() {
        return; // unreadable: failed already
    }
    let mut current = Some(w);
    let (mut good, mut failed, mut skipped, mut refused) = (0, 0, Vec::new(), 0);
    let mut larger = Vec::new();
    for (id, offer, by_pattern) in pairs {
        if needs_data(id) {
            skipped.push(id.clone());
            continue;
        }
        let Some(cases) = fixture.get(id).cloned() else {
            larger.push(id.clone());
            continue;
        };
        if !current.as_mut().is_some_and(Worker::alive) {
            drop(current.take());
            match run.adapter.start() {
                Ok(n) => current = Some(n),
                Err(e) => {
                    run.add(
                        "prepare",
                        Outcome::Fail,
                        PREPARE,
                        format!(
                            "the worker could not be restarted: {}",
                            one_line(&e.to_string())
                        ),
                    );
                    return;
                }
            }
        }
        let Some(worker) = current.as_mut() else {
            return;
        };
        match one(
            worker,
            id,
            &offer.implementation,
            cases,
            crate::cases::limits(id).prepare,
        ) {
            Ok(()) => good += 1,
            Err(Failure::Refused(_)) if *by_pattern => refused += 1,
            Err(f) => {
                failed += 1;
                let (section, text) = f.describe();
                run.add(
                    "prepare",
                    Outcome::Fail,
                    section,
                    format!("{id} {}: {text}", offer.implementation),
                );
            }
        }
    }
    let mut detail = format!(
        "{good} pairs prepared with the shared fixture's cases, every output checked by dyno, then run once"
    );
    if refused > 0 {
        let _ = write!(
            detail,
            "; {refused} matched by a pattern were refused with `error`, as allowed"
        );
    }
    run.add(
        "prepare",
        if failed == 0 {
            Outcome::Pass
        } else {
            Outcome::Fail
        },
        PREPARE,
        detail,
    );
    if !larger.is_empty() {
        run.add(
            "prepare",
            Outcome::Skip,
            PREPARE,
            format!(
                "{} pairs ({} ids) have inputs larger than the shared fixture's ({}...): `dyno run ID --impl NAME` verifies them before timing",
                larger.len(),
                larger.iter().collect::<std::collections::BTreeSet<_>>().len(),
                larger[0]
            ),
        );
    }
    if !skipped.is_empty() {
        run.add(
            "prepare",
            Outcome::Skip,
            PREPARE,
            format!("{} ids need this machine's data sets ({}...): `dyno run ID --impl NAME` checks them", skipped.len(), skipped[0]),
        );
    }
}

/// Why one pair did not pass.
#[derive(Debug)]
enum Failure {
    /// It answered `error` to an id it offered.
    Refused(String),
    /// Its own comparison failed.
    Mismatch(String),
    /// An output dyno checked was wrong.
    Wrong(String),
    /// The wrong reply, or none.
    Protocol(&'static str, String),
}

impl Failure {
    fn describe(self) -> (&'static str, String) {
        match self {
            Self::Refused(m) => (PREPARE, format!("offered, but answered error: {m}")),
            Self::Mismatch(m) => (PREPARE, format!("its own check failed: {m}")),
            Self::Wrong(m) => (PREPARE, format!("WRONG output: {m}")),
            Self::Protocol(section, m) => (section, m),
        }
    }
}

fn one(
    w: &mut Worker,
    id: &str,
    implementation: &str,
    cases: Vec<Case>,
    limit: Duration,
) -> Result<(), Failure> {
    let n = cases.len();
    let req = Request::Prepare {
        id: id.into(),
        implementation: implementation.into(),
        cases: cases.clone(),
    };
    match w.request(&req, limit) {
        Ok(Reply::Prepared { id: got, .. }) if got != id => {
            return Err(Failure::Protocol(
                PREPARE,
                format!("answered prepare for {got:?}"),
            ));
        }
        Ok(Reply::Prepared { outputs, .. }) if outputs.len() != n => {
            return Err(Failure::Wrong(format!(
                "{} outputs for {n} cases",
                outputs.len()
            )));
        }
        Ok(Reply::Prepared { outputs, .. }) => {
            for (k, (case, out)) in cases.iter().zip(&outputs).enumerate() {
                if let Err(wr) = crate::cases::check(id, case, out) {
                    return Err(Failure::Wrong(format!(
                        "case {k}, {}: expected {}, got {}",
                        wr.field,
                        short(&wr.expected),
                        short(&wr.actual)
                    )));
                }
            }
        }
        Ok(Reply::Mismatch {
            case,
            field,
            expected,
            actual,
        }) => {
            return Err(Failure::Mismatch(format!(
                "case {case}{}: expected {}, got {}",
                field.map(|f| format!(", {f}")).unwrap_or_default(),
                short(&expected.to_string()),
                short(&actual.to_string())
            )));
        }
        Ok(Reply::Error { message, .. }) => return Err(Failure::Refused(message)),
        Ok(other) => {
            return Err(Failure::Protocol(
                PREPARE,
                format!("answered prepare with {}", kind(&other)),
            ));
        }
        Err(e) => return Err(Failure::Protocol(PREPARE, one_line(&e.to_string()))),
    }
    // One operation: a state root of 10⁵ accounts takes a pure-JS trie
    // tens of seconds on a busy 2-core machine, so the wait is `dyno run`'s.
    let run = Request::Run {
        iterations: 1,
        samples: 1,
    };
    match w.request(&run, dyno_adapter::RUN_LIMIT) {
        Ok(Reply::Samples { ns, .. }) if ns.len() == 1 => Ok(()),
        Ok(Reply::Samples { ns, .. }) => Err(Failure::Protocol(
            RUN,
            format!("asked for 1 sample, got {}", ns.len()),
        )),
        Ok(other) => Err(Failure::Protocol(
            RUN,
            format!("answered run with {}", kind(&other)),
        )),
        Err(e) => Err(Failure::Protocol(RUN, one_line(&e.to_string()))),
    }
}

fn short(s: &str) -> String {
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}

fn kind(r: &Reply) -> &'static str {
    match r {
        Reply::Hello(_) => "hello",
        Reply::Prepared { .. } => "prepared",
        Reply::Mismatch { .. } => "mismatch",
        Reply::Samples { .. } => "samples",
        Reply::Error { .. } => "error",
    }
}

/// The error paths, each on a fresh worker.
fn errors(run: &mut Run<'_>, h: &Hello, pairs: &[(String, Offer, bool)], fixture: &Fixture) {
    let Some(impl_any) = h.benchmarks.first().map(|o| o.implementation.clone()) else {
        return;
    };
    // an unknown id: a non-fatal error, and the worker goes on
    if let Some(mut w) = run.start("errors") {
        let req = Request::Prepare {
            id: "dyno/no-such/id".into(),
            implementation: impl_any.clone(),
            cases: dyno_protocol::noop_cases(),
        };
        let verdict = match w.request(&req, LIMIT) {
            Ok(Reply::Error { fatal: false, .. }) => still_serves(&mut w, h),
            Ok(Reply::Error { fatal: true, .. }) => {
                Err("answered error with fatal: true; an unknown id is not fatal".to_string())
            }
            Ok(other) => Err(format!("answered {} (want error)", kind(&other))),
            Err(e) => Err(one_line(&e.to_string())),
        };
        record(run, "unknown id", verdict);
    }
    // a case it cannot parse: an error, not a verdict
    let target = pairs.iter().find(|(id, _, pattern)| {
        !pattern && !id.starts_with("harness/") && fixture.contains_key(id)
    });
    if let Some((id, offer, _)) = target
        && let Some(mut w) = run.start("errors")
    {
        let mut cases = fixture.get(id).cloned().unwrap_or_default();
        cases.truncate(1);
        for c in &mut cases {
            c.input = Map::new();
        }
        let req = Request::Prepare {
            id: id.clone(),
            implementation: offer.implementation.clone(),
            cases,
        };
        let verdict = match w.request(&req, LIMIT) {
            Ok(Reply::Error { fatal: false, .. }) => still_serves(&mut w, h),
            Ok(Reply::Error { fatal: true, .. }) => Ok(()),
            Ok(other) => Err(format!(
                "{id}: a case with no input fields was answered {} (want error)",
                kind(&other)
            )),
            Err(e) => Err(format!("{id}: {}", one_line(&e.to_string()))),
        };
        record(run, "bad input", verdict);
    }
    // run before prepare
    if let Some(mut w) = run.start("errors") {
        let verdict = match w.request(
            &Request::Run {
                iterations: 1,
                samples: 1,
            },
            LIMIT,
        ) {
            Ok(Reply::Error { .. }) => Ok(()),
            Ok(other) => Err(format!(
                "run before prepare was answered {} (want error)",
                kind(&other)
            )),
            Err(e) => Err(one_line(&e.to_string())),
        };
        record(run, "run first", verdict);
    }
    // a line that is not JSON: error, then exit
    if let Some(mut w) = run.start("errors") {
        let verdict = match w.send_line("{this is not json\n", LIMIT) {
            Ok(Reply::Error { .. }) => match w.close(Duration::from_secs(2)) {
                (Some(_), stray) if stray.is_empty() => Ok(()),
                (Some(_), stray) => Err(format!(
                    "after its error it printed {:?} on stdout",
                    stray[0]
                )),
                (None, _) => Err(
                    "answered error, but did not exit within 2 s (an unparseable request is fatal)"
                        .into(),
                ),
            },
            Ok(other) => Err(format!(
                "a line that is not JSON was answered {} (want error)",
                kind(&other)
            )),
            Err(e) => Err(one_line(&e.to_string())),
        };
        record(run, "not json", verdict);
    }
}

/// After a non-fatal error: the worker still prepares the empty benchmark.
fn still_serves(w: &mut Worker, h: &Hello) -> Result<(), String> {
    let Some(noop) = h
        .implementations_of(NOOP_ID)
        .first()
        .map(|o| o.implementation.clone())
    else {
        return Ok(());
    };
    let req = Request::Prepare {
        id: NOOP_ID.into(),
        implementation: noop,
        cases: dyno_protocol::noop_cases(),
    };
    match w.request(&req, LIMIT) {
        Ok(Reply::Prepared { .. }) => Ok(()),
        Ok(other) => Err(format!(
            "after a non-fatal error it answered {} to the next prepare",
            kind(&other)
        )),
        Err(e) => Err(format!(
            "after a non-fatal error: {}",
            one_line(&e.to_string())
        )),
    }
}

fn record(run: &mut Run<'_>, name: &'static str, verdict: Result<(), String>) {
    let what = match name {
        "unknown id" => "an unknown id is answered with a non-fatal error, and the worker goes on",
        "bad input" => "a case with no input fields is answered with error",
        "run first" => "run before prepare is answered with error",
        "not json" => "a line that is not JSON is answered with error, then the worker exits",
        _ => "",
    };
    match verdict {
        Ok(()) => run.add("errors", Outcome::Pass, ERROR, what.into()),
        Err(e) => run.add("errors", Outcome::Fail, ERROR, format!("{name}: {e}")),
    }
}

/// The end of input ends the worker, with nothing more on stdout.
fn ending(run: &mut Run<'_>) {
    let Some(w) = run.start("end") else {
        return;
    };
    match w.close(Duration::from_secs(2)) {
        (Some(s), stray) if s.success() && stray.is_empty() => {
            run.add(
                "end",
                Outcome::Pass,
                END,
                "stdin closed: exit 0 within 2 s, stdout quiet".into(),
            );
        }
        (_, stray) if !stray.is_empty() => run.add(
            "end",
            Outcome::Fail,
            END,
            format!(
                "it printed {:?} on stdout at the end; stdout carries protocol lines only",
                short(&stray[0])
            ),
        ),
        (Some(s), _) => run.add(
            "end",
            Outcome::Fail,
            END,
            format!("stdin closed: it exited {s}, not 0"),
        ),
        (None, _) => run.add(
            "end",
            Outcome::Fail,
            END,
            "stdin closed: it had not exited 2 s later (killed)".into(),
        ),
    }
}

/// The empty loop's cost, a round trip, and the clock against a sleep.
/// The clock is checked first: the empty loop grows its samples to 1 ms by
/// the worker's clock, so a clock in µs would have it loop a thousand
/// times longer (about a minute of a busy core) to measure a figure in the
/// wrong unit. With a failed clock the overhead is skipped, saying why.
fn costs(run: &mut Run<'_>, h: &Hello) {
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

fn prepared(w: &mut Worker, id: &str, implementation: &str) -> Result<(), String> {
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

fn samples(w: &mut Worker, iterations: u64, n: u32) -> Result<Vec<u64>, String> {
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
fn empty_loop(w: &mut Worker, noop: &str) -> Result<(f64, f64, u64), String> {
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
fn clock(w: &mut Worker, sleep: &str) -> Result<String, String> {
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

#[cfg(test)]
mod tests;
