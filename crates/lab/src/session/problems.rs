//! What went wrong in a measured run, said on stderr: wrong results,
//! build errors, missed targets, a stop; and the exit code they make.

use super::*;

/// Print each wrong result, build error and missed target to stderr, and
/// choose the exit code.
pub fn report_problems(
    run: &Run,
    errors: &[(String, dyno_workload::BuildError)],
    fail_on_target: bool,
) -> crate::Result<Outcome> {
    let mut outcome = Outcome::Ok;
    for r in &run.results {
        if r.verification.status == VerificationStatus::Failed {
            let m = r.verification.mismatch.as_ref();
            eprintln!(
                "dyno: FAILED {} on {} {}: wrong result{}; not timed",
                r.id,
                r.implementation.name,
                r.implementation.version,
                m.map(|m| format!(
                    " for case {}: expected {}, got {}",
                    m.case, m.expected, m.actual
                ))
                .unwrap_or_default()
            );
            outcome = Outcome::Failed;
        }
        if let Some(t) = &r.target
            && t.met == Some(false)
        {
            eprintln!(
                "dyno: {} on {} missed its target: {} above {}",
                r.id,
                r.implementation.name,
                t.stat,
                dyno_report::units::duration(t.limit_ns)
            );
            if fail_on_target {
                outcome = Outcome::Failed;
            }
        }
    }
    for r in &run.results {
        if let Some(reason) = &r.incomplete_reason {
            eprintln!(
                "dyno: {} on {} ({}) did not finish: {}",
                r.id,
                r.implementation.name,
                r.implementation.runtime,
                dyno_report::one_line(reason)
            );
        }
    }
    let (declined, failed): (Vec<_>, Vec<_>) = errors.iter().partition(|(_, e)| e.is_skip());
    // One line per reason: a compiled-out engine declines all its ids.
    let mut reasons: Vec<(String, &str, usize)> = Vec::new();
    for (what, e) in &declined {
        let reason = dyno_report::one_line(&e.to_string());
        match reasons.iter_mut().find(|(r, _, _)| *r == reason) {
            Some((_, _, more)) => *more += 1,
            None => reasons.push((reason, what, 0)),
        }
    }
    for (reason, what, more) in reasons {
        let more = if more > 0 {
            format!(" (and {more} more for the same reason)")
        } else {
            String::new()
        };
        eprintln!("dyno: not measured: {what}{more}: {reason}");
    }
    if let Some((what, e)) = failed.first() {
        refuse!(
            "{} benchmark(s) could not be built; first: {what}: {}",
            failed.len(),
            dyno_report::one_line(&e.to_string())
        );
    }
    // Everything asked for declined (an engine not built in, a node not
    // installed): nothing was measured, and exit 0 would say it was.
    let asked = run
        .results
        .iter()
        .filter(|r| {
            r.id != dyno_protocol::NOOP_ID
                && r.parameters.get("reference") != Some(&serde_json::Value::Bool(true))
        })
        .count();
    let declined_asked = declined
        .iter()
        .filter(|(_, e)| !matches!(e, dyno_workload::BuildError::Reference { .. }))
        .count();
    if asked == 0 && declined_asked > 0 {
        refuse!(
            "nothing asked for was measured: {declined_asked} benchmark(s) declined, for the \
             reasons above"
        );
    }
    if !run.run.complete {
        refuse!(
            "run incomplete ({}); the results measured so far are saved",
            run.run.incomplete_reason.as_deref().unwrap_or("stopped")
        );
    }
    Ok(outcome)
}
