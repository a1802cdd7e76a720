//! The protocol's errors: each wrong request answered by an error, and the worker still serving; the record of each check and the end of a session.

use super::*;

pub(crate) fn short(s: &str) -> String {
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}

pub(crate) fn kind(r: &Reply) -> &'static str {
    match r {
        Reply::Hello(_) => "hello",
        Reply::Prepared { .. } => "prepared",
        Reply::Mismatch { .. } => "mismatch",
        Reply::Samples { .. } => "samples",
        Reply::Error { .. } => "error",
    }
}

/// The error paths, each on a fresh worker.
pub(crate) fn errors(
    run: &mut Run<'_>,
    h: &Hello,
    pairs: &[(String, Offer, bool)],
    fixture: &Fixture,
) {
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
pub(crate) fn still_serves(w: &mut Worker, h: &Hello) -> Result<(), String> {
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

pub(crate) fn record(run: &mut Run<'_>, name: &'static str, verdict: Result<(), String>) {
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
pub(crate) fn ending(run: &mut Run<'_>) {
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
