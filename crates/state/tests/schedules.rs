//! The repricing schedules `dyno gas --state` prices against
//! (specs/gas/state/schedules.toml) hold the numbers of the versions they
//! name: EIP-8038's in force in revm (revm_primitives::eip8038, the crate
//! dyno executes with) and each version's as copied, with its source, in
//! vectors/eip-8038.json.

use std::path::Path;

use dyno_spec::state_gas::{StateSchedule, load};
use revm::primitives::eip8038;

fn schedules() -> Vec<StateSchedule> {
    load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs")).unwrap()
}

fn named<'a>(all: &'a [StateSchedule], name: &str) -> &'a StateSchedule {
    all.iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no schedule {name} in specs/gas/state/schedules.toml"))
}

#[test]
fn eip_8038_is_revms() {
    let all = schedules();
    let s = named(&all, "eip-8038");
    let revm = [
        ("cold_account_access", eip8038::COLD_ACCOUNT_ACCESS),
        ("account_write", eip8038::ACCOUNT_WRITE),
        ("cold_storage_access", eip8038::COLD_STORAGE_ACCESS),
        ("storage_write", eip8038::STORAGE_WRITE),
        ("warm_access", eip8038::WARM_ACCESS),
        ("storage_clear_refund", eip8038::STORAGE_CLEAR_REFUND),
        ("create_access", eip8038::CREATE_ACCESS),
        ("call_value", eip8038::CALL_VALUE),
    ];
    for (parameter, want) in revm {
        assert_eq!(
            s.parameter(parameter),
            Some(want),
            "{parameter}: schedules.toml against revm"
        );
    }
}

#[test]
fn every_version_holds_its_copied_numbers() {
    let raw = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors/eip-8038.json"),
    )
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(&raw).unwrap();
    let all = schedules();
    let versions = v["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 2);
    for version in versions {
        let s = named(&all, version["schedule"].as_str().unwrap());
        for (parameter, want) in version["parameters"].as_object().unwrap() {
            assert_eq!(
                s.parameter(parameter),
                want.as_u64(),
                "{}: {parameter}",
                s.name
            );
        }
    }
}

/// The comparison can fail: the superseded version, checked against revm
/// the same way, differs in three parameters.
#[test]
fn the_superseded_version_is_not_revms() {
    let all = schedules();
    let old = named(&all, "eip-8038-11802");
    let differ: Vec<&str> = [
        ("account_write", eip8038::ACCOUNT_WRITE),
        ("cold_storage_access", eip8038::COLD_STORAGE_ACCESS),
        ("storage_clear_refund", eip8038::STORAGE_CLEAR_REFUND),
        ("storage_write", eip8038::STORAGE_WRITE),
    ]
    .into_iter()
    .filter(|(p, want)| old.parameter(p) != Some(*want))
    .map(|(p, _)| p)
    .collect();
    assert_eq!(
        differ,
        [
            "account_write",
            "cold_storage_access",
            "storage_clear_refund"
        ]
    );
}

/// The state-access prices are one `[[access]]` entry per access kind the
/// suite measures, in the order its tables show them.
#[test]
fn every_access_has_one_price_in_the_specs_in_the_suites_order() {
    let prices = dyno_spec::state_gas::load_accesses(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs"),
    )
    .unwrap();
    let priced: Vec<&str> = prices.iter().map(|p| p.name.as_str()).collect();
    let measured: Vec<&str> = dyno_state::access::ACCESSES
        .iter()
        .map(|a| a.name)
        .collect();
    assert_eq!(
        priced, measured,
        "specs/gas/state/schedules.toml [[access]]"
    );
}
