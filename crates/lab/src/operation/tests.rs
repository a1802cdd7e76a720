use super::*;

fn specs() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs")
}

fn ctx() -> Ctx {
    Ctx {
        vectors: Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors"),
    }
}

/// The expected gas is the Yellow Paper's and the EIPs' (DIV 5, KECCAK256
/// 30 + 6 a word, ECRECOVER 3 000, EIP-2929's cold SLOAD 2 100, EIP-7904's
/// proposed DIV 2), not the schedules' own words.
#[test]
fn each_kind_of_id_records_its_operation_and_its_nominal_gas() {
    let p = Prices::load(&specs());
    let f = |id: &str| p.facts(&ctx(), id);
    let div = f("opcode/arith-div/a256-b128-c200").unwrap();
    assert_eq!(
        (div.name.as_str(), div.kind.as_str(), div.units),
        ("div", "arith", None)
    );
    assert_eq!(div.nominal_gas.get("osaka"), Some(&5));
    assert_eq!(div.nominal_gas.get("eip-7904"), Some(&2));
    let k = f("opcode/keccak256/1KiB").unwrap();
    assert_eq!((k.kind.as_str(), k.units), ("keccak", Some(32)));
    assert_eq!(k.nominal_gas.get("osaka"), Some(&(30 + 6 * 32)));
    // An opcode the table prices in no schedule records none.
    let add = f("opcode/arith-add/a256-b128-c200").unwrap();
    assert!(add.nominal_gas.is_empty(), "{add:?}");
    for id in [
        "precompile/ecrecover/ValidKey",
        "precompile-bytecode/ecrecover/ValidKey",
    ] {
        let e = f(id).unwrap();
        assert_eq!(
            (e.name.as_str(), e.kind.as_str()),
            ("ecrecover", "precompile")
        );
        assert_eq!(e.nominal_gas.get("osaka"), Some(&3000), "{id}");
        assert_eq!(e.nominal_gas.get("prague"), Some(&3000), "{id}");
    }
    let pe = f("precompile/kzg-point-evaluation/pointEvaluation1").unwrap();
    assert_eq!(pe.name, "point-evaluation");
    assert_eq!(pe.nominal_gas.get("osaka"), Some(&50_000));
    let s = f("state/sload-cold/1000").unwrap();
    assert_eq!((s.name.as_str(), s.kind.as_str()), ("sload", "storage"));
    assert_eq!(s.nominal_gas.get("osaka"), Some(&2100));
    // An access no series repeats is still its opcode's: a warm SLOAD
    // (EIP-2929's WARM_STORAGE_READ_COST, 100).
    let w = f("state/sload-warm/1000").unwrap();
    assert_eq!(w.name, "sload");
    assert_eq!(w.nominal_gas.get("osaka"), Some(&100));
    assert_eq!(f("state/call-value-cold/1000").unwrap().name, "call-value");
    for none in [
        "hash/keccak256/32B",
        "precompile-bytecode/noop/identity-empty",
        "opcode/arith-div/other-input",
        "no-id",
    ] {
        assert!(f(none).is_none(), "{none}");
    }
}

#[test]
fn facts_round_trip_through_a_result_parameter() {
    let p = Prices::load(&specs());
    let mut params = BTreeMap::new();
    p.record(&ctx(), "opcode/arith-mod/a256-b128-c200", &mut params);
    let v = &params[dyno_format::operation::KEY];
    assert_eq!(v["name"], "mod");
    assert_eq!(v["nominal_gas"]["osaka"], 5);
    let back: Facts = serde_json::from_value(v.clone()).unwrap();
    assert_eq!(back.kind, "arith");
    p.record(&ctx(), "hash/keccak256/32B", &mut params);
    assert_eq!(params.len(), 1, "an id of no operation records nothing");
}
