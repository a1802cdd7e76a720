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

/// A schedule's parameter by its EIP-8038 name.
fn value(s: &StateSchedule, parameter: &str) -> Option<u64> {
    match parameter {
        "cold_account_access" => Some(s.cold_account_access),
        "cold_storage_access" => Some(s.cold_storage_access),
        "warm_access" => Some(s.warm_access),
        "storage_write" => Some(s.storage_write),
        "storage_clear_refund" => Some(s.storage_clear_refund),
        "call_value" => Some(s.call_value),
        "account_write" => s.account_write,
        "create_access" => s.create_access,
        _ => None,
    }
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
            value(s, parameter),
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
                value(s, parameter),
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
    .filter(|(p, want)| value(old, p) != Some(*want))
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
