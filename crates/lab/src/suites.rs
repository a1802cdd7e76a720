//! The registry of built-in suites: every benchmark dyno can build in
//! process, and the specs checked against it.

use dyno_workload::BenchDef;

use crate::paths::Paths;

/// Every built-in suite, cheapest to list first: a caller that needs one
/// benchmark (the callgrind child) lists one suite at a time and stops at
/// the one that has it; under callgrind, listing every suite (some
/// generate inputs to record their parameters) costs seconds.
pub const SUITES: &[fn() -> Vec<BenchDef>] = &[
    dyno_micro::hash::defs,
    dyno_micro::crypto::defs,
    dyno_micro::trie::defs,
    dyno_evm::block::defs,
    dyno_evm::chain::defs,
    dyno_evm::tx::defs,
    dyno_evm::opcode::defs,
    dyno_evm::bytecode::defs,
    dyno_evm::precompile::defs,
    dyno_micro::rlp::defs,
    dyno_micro::jsonrpc::defs,
    dyno_db::catalog,
    dyno_state::defs,
    dyno_net::bench::defs,
    dyno_pow::bench::defs,
];

/// Every benchmark the built-in suites can build.
pub fn catalog() -> Vec<BenchDef> {
    SUITES.iter().flat_map(|suite| suite()).collect()
}

/// The definitions of the first suite that has `wanted`, else the whole
/// catalog (which then does not have it either).
pub fn first_with(wanted: impl Fn(&BenchDef) -> bool) -> Vec<BenchDef> {
    SUITES
        .iter()
        .map(|suite| suite())
        .find(|defs| defs.iter().any(&wanted))
        .unwrap_or_else(catalog)
}

/// Load the specs and check them against what the built-in suites can
/// build: an id or implementation no suite has is a spec error naming its
/// file and line.
pub fn load_specs(paths: &Paths) -> crate::Result<(Vec<dyno_spec::Spec>, Vec<BenchDef>)> {
    let mut specs = dyno_spec::load_dir(&paths.specs)?;
    let catalog = catalog();
    for spec in &mut specs {
        spec.fill_from_registry(
            catalog
                .iter()
                .map(|d| (d.group, d.op, d.input.as_str(), d.implementation)),
        );
    }
    let known = dyno_spec::Known::new(catalog.iter().map(|d| {
        (
            d.group.to_string(),
            d.op.to_string(),
            d.input.clone(),
            d.implementation.to_string(),
        )
    }));
    for spec in &specs {
        spec.check(&known)?;
    }
    Ok((specs, catalog))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each suite crate's own entry point against the registry: a suite
    /// added to a crate but not here would never run.
    #[test]
    fn the_registry_has_every_suite_of_every_crate() {
        let key = |d: &BenchDef| (d.id(), d.implementation);
        let mut listed: Vec<_> = catalog().iter().map(key).collect();
        let mut crates: Vec<_> = dyno_micro::catalog()
            .into_iter()
            .chain(dyno_evm::catalog())
            .chain(dyno_db::catalog())
            .chain(dyno_state::defs())
            .chain(dyno_net::bench::defs())
            .chain(dyno_pow::bench::defs())
            .map(|d| key(&d))
            .collect();
        listed.sort_unstable();
        crates.sort_unstable();
        assert_eq!(listed, crates, "SUITES and the suite crates differ");
    }
}
