//! Every offer prepared and run on the harness's fixture cases, its output checked.

use super::*;

/// True for ids whose cases name this machine's data sets (a storage
/// engine's database, a generated state, the full ethash dataset).
pub(crate) fn needs_data(id: &str) -> bool {
    id.starts_with("db/") || id.starts_with("state/") || id.starts_with("pow/hashimoto-full/")
}

/// Cases by id.
pub(crate) type Fixture = std::collections::BTreeMap<String, Vec<Case>>;

/// The shared fixture every adapter's own tests replay
/// (`adapters/testdata/prepare.jsonl`): id → its cases (at most three,
/// inputs of at most 8 KiB but for one 100 KiB hash), plus the harness
/// ids' cases.
pub(crate) fn fixture(lab: &Lab) -> Result<Fixture, String> {
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
pub(crate) fn prepares(
    run: &mut Run<'_>,
    w: Worker,
    pairs: &[(String, Offer, bool)],
    fixture: &Fixture,
) {
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
pub(crate) enum Failure {
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
    pub(crate) fn describe(self) -> (&'static str, String) {
        match self {
            Self::Refused(m) => (PREPARE, format!("offered, but answered error: {m}")),
            Self::Mismatch(m) => (PREPARE, format!("its own check failed: {m}")),
            Self::Wrong(m) => (PREPARE, format!("WRONG output: {m}")),
            Self::Protocol(section, m) => (section, m),
        }
    }
}

pub(crate) fn one(
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
