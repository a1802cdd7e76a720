//! A `dyno gas --blocks` run priced: each op series' per-operation time
//! (net of its glue) in every client at an anchor throughput, beside every
//! schedule's price the result recorded, and beside the same operation's
//! library and bytecode times from other runs.

use dyno_format::BenchResult;
use dyno_format::gas::{Estimate, NOOP_ID};
use dyno_format::state::ScheduleName;

use crate::Error;
use crate::fit::{check_counts, fit_results, joint_fits};
use crate::precompile::bytecode_net;

/// The anchor when none is given: the repricing EIPs' 100 MGas/s.
pub const ANCHOR_MGAS: f64 = 100.0;

/// The schedules a priced row has a column for: the compute schedules
/// (today's first), then the state schedules not named already (today's
/// is both, `osaka`). A result records its price under each of them
/// (`gas_<name>`), from whichever file prices its kind.
pub fn schedule_names(specs: &std::path::Path) -> Result<Vec<ScheduleName>, Error> {
    let compute =
        dyno_spec::reprice::schedules(specs).map_err(|e| Error::Refused(e.to_string()))?;
    let state = dyno_spec::state_gas::load(specs).map_err(|e| Error::Refused(e.to_string()))?;
    let mut out: Vec<ScheduleName> = Vec::new();
    let names = compute
        .iter()
        .map(|s| (&s.name, &s.status, &s.source))
        .chain(state.iter().map(|s| (&s.name, &s.status, &s.source)));
    for (name, status, source) in names {
        match out.iter_mut().find(|o| &o.name == name) {
            // Today's, in both files: one column, both sources.
            Some(o) => o.source = format!("{}; {source}", o.source),
            None => out.push(ScheduleName {
                name: name.clone(),
                status: status.clone(),
                source: source.clone(),
            }),
        }
    }
    Ok(out)
}

/// [`price`] with a column for each of `schedules` ([`schedule_names`]).
pub fn price_with(
    schedules: &[ScheduleName],
    run: &dyno_format::Run,
    anchor_mgas: f64,
    with: &[dyno_format::Run],
) -> Result<dyno_format::reprice::Pricing, Error> {
    use dyno_format::reprice::Row;
    let others: Vec<&BenchResult> = with.iter().flat_map(|r| &r.results).collect();
    for r in run.results.iter().filter(|r| r.reprice.is_some()) {
        check_counts(r).map_err(|why| {
            Error::Refused(format!(
                "run {}: {} in {}: {why}; the file is damaged or not written by `dyno gas --blocks`",
                run.run.id, r.id, r.implementation.name
            ))
        })?;
    }
    // A --with run that times none of the operations priced here was given
    // by mistake: say so rather than set nothing beside them.
    let mut wanted: Vec<&str> = run
        .results
        .iter()
        .filter(|r| r.reprice.is_some())
        .flat_map(|r| {
            ["library_id", "bytecode_id"]
                .into_iter()
                .filter_map(move |k| r.parameters.get(k)?.as_str())
        })
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    for w in with {
        if !w.results.iter().any(|o| wanted.contains(&o.id.as_str())) {
            refuse!(
                "--with: run {} times none of the operations run {} prices outside a client (it \
                 looks for {}); give a run of `dyno run precompile,precompile-bytecode,opcode,hash`",
                w.run.id,
                run.run.id,
                match wanted.len() {
                    0 => "none".to_string(),
                    n if n > 6 => format!("{}, and {} more", wanted[..6].join(", "), n - 6),
                    _ => wanted.join(", "),
                }
            );
        }
    }
    // Fitted again from the raw per-block samples, so that a saved run is
    // priced by today's fit (the figures recorded with it are what it was
    // measured with; these are what its data say).
    let mut results = run.results.clone();
    fit_results(&mut results);
    let mut rows = Vec::new();
    for r in &results {
        let Some(iso) = &r.reprice else { continue };
        if iso.control.is_none() {
            continue;
        }
        let prices: Vec<Option<u64>> = schedules
            .iter()
            .map(|s| r.parameters.get(&format!("gas_{}", s.name))?.as_u64())
            .collect();
        let id_of = |key: &str| r.parameters.get(key).and_then(|v| v.as_str());
        let row = |level: &str, client: &str, time: &str, n: usize, ns: Estimate| Row {
            id: r.id.clone(),
            level: level.into(),
            client: client.into(),
            time: time.into(),
            n,
            ns,
            robust_ns: None,
            r_squared: None,
            p: None,
            kept: true,
            net: true,
            gas: ns.scale(anchor_mgas / 1000.0),
            prices: prices.clone(),
            vs_library: None,
            anchor: None,
        };
        // Each library timed directly, by implementation, the baseline
        // (revm's own backend) first.
        let mut libraries: Vec<(String, f64)> = Vec::new();
        if let Some(lib) = id_of("library_id") {
            let mut of: Vec<&&BenchResult> = others.iter().filter(|o| o.id == lib).collect();
            of.sort_by_key(|o| !o.baseline);
            for o in of {
                let Some(ns) = Estimate::of(o) else { continue };
                libraries.push((o.implementation.name.clone(), ns.value));
                rows.push(row(
                    "library",
                    &o.implementation.name,
                    "direct",
                    o.samples.len(),
                    ns,
                ));
            }
        }
        let library = |who: &str| own_library(who, &libraries);
        if let Some(bc) = id_of("bytecode_id") {
            for o in others.iter().filter(|o| o.id == bc) {
                let (ns, net) = if bc.starts_with("precompile-bytecode/") {
                    let noop = others
                        .iter()
                        .find(|n| n.id == NOOP_ID && n.implementation.name == o.implementation.name)
                        .and_then(|n| Estimate::of(n));
                    match bytecode_net(o, noop) {
                        Some((ns, _)) => (ns, true),
                        None => continue,
                    }
                } else {
                    match Estimate::of(o) {
                        Some(ns) => (ns, false),
                        None => continue,
                    }
                };
                let mut b = row(
                    "bytecode",
                    &o.implementation.name,
                    "loop",
                    o.samples.len(),
                    ns,
                );
                b.net = net;
                b.vs_library = library(&o.implementation.name).map(|l| ns.value / l);
                rows.push(b);
            }
        }
        for f in &iso.fits {
            let raw = Estimate {
                value: f.per_op_ns.value,
                lower: f.per_op_ns.lower,
                upper: f.per_op_ns.upper,
            };
            let ns = f.net_per_op_ns.unwrap_or(raw);
            let mut b = row("block", &r.implementation.name, &f.time, f.n, ns);
            b.robust_ns = f.net_robust_per_op_ns;
            b.r_squared = Some(f.r_squared);
            b.p = Some(f.per_op_ns.p);
            b.kept = f.kept;
            b.net = f.net_per_op_ns.is_some();
            b.vs_library = library(&r.implementation.name).map(|l| ns.value / l);
            if f.time == "new_payload" {
                b.anchor = iso.anchor.clone();
            }
            rows.push(b);
        }
    }
    if rows.is_empty() {
        refuse!(
            "run {} has no op-isolation results to price (measure them with `dyno gas --blocks`)",
            run.run.id
        );
    }
    Ok(dyno_format::reprice::Pricing {
        anchor_mgas,
        schedules: schedules.to_vec(),
        rows,
        run_id: run.run.id.clone(),
        compared: Vec::new(),
        joint: joint_fits(&results, schedules, anchor_mgas),
    })
}

/// Each of `names` once, in the order first seen.
pub(crate) fn distinct<'a>(names: impl Iterator<Item = &'a String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in names {
        if !out.contains(n) {
            out.push(n.clone());
        }
    }
    out
}

/// The libraries each client and EVM calls, by the names the suites give
/// their direct implementations, most specific first: geth's precompiles
/// (`geth-precompile`) and its Keccak (`geth`), ethereumjs's, py-evm's
/// (coincurve, py_ecc, cryptography, pycryptodome). revm calls the
/// suites' baselines (libsecp256k1, arkworks, blst, c-kzg, aws-lc-rs: its
/// own backends as reth builds it, decision D38), the first library of a
/// row.
const LIBRARIES: [(&str, &[&str]); 4] = [
    ("geth", &["geth-precompile", "geth"]),
    ("ethereumjs", &["ethereumjs", "noble"]),
    (
        "py-evm",
        &[
            "coincurve",
            "py-ecc",
            "cryptography",
            "pycryptodome",
            "eth-hash",
        ],
    ),
    ("revm", &[]),
];

/// The time of the library `who` (a client or an EVM: `geth`,
/// `geth-evm`, `revm`, ...) calls for this operation, from `libraries`
/// (name, ns; the baseline first); `None` when it was not timed.
fn own_library(who: &str, libraries: &[(String, f64)]) -> Option<f64> {
    let names = LIBRARIES
        .iter()
        .find(|(client, _)| who == *client || who.starts_with(&format!("{client}-")))
        .map(|(_, names)| *names)?;
    if names.is_empty() {
        return libraries.first().map(|(_, ns)| *ns);
    }
    names
        .iter()
        .find_map(|n| libraries.iter().find(|(name, _)| name == n))
        .map(|(_, ns)| *ns)
}
