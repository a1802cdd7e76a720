//! What a worker's hello says: its description, its offers file, what it offers.

use super::*;

/// What `hello` must say of itself, and the names it gives.
pub(crate) fn described(run: &mut Run<'_>, h: &Hello) {
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
pub(crate) fn offers_file(run: &mut Run<'_>, h: &Hello) {
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

pub(crate) fn offered(run: &mut Run<'_>, h: &Hello) -> Vec<(String, Offer, bool)> {
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
