use super::*;
use std::collections::BTreeSet;
use std::path::PathBuf;

use revm_precompile::modexp;

use crate::geth::GethVector;

pub(crate) fn ctx() -> Ctx {
    Ctx {
        vectors: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../vectors"),
    }
}

fn op(name: &str) -> &'static Op {
    OPS.iter().find(|o| o.op == name).expect("known op")
}

/// Every backend of `op`: the Osaka table's, then the alternatives.
fn backends(op: &Op) -> Vec<(&'static str, Call)> {
    let mut all = vec![(op.default, Call::osaka(op.address()))];
    all.extend(op.alternatives.iter().map(|&(n, f)| (n, Call::Eth(f))));
    all
}

/// The calls a geth file is checked with: modexp's pre-Osaka files
/// with the pricing they were written for, everything else at Osaka.
fn calls_for(file: &str) -> Vec<(&'static str, Call)> {
    match file {
        "modexp.json" => vec![(
            "byzantium",
            Call::Eth(modexp::byzantium_run as PrecompileEthFn),
        )],
        "modexp_eip2565.json" => vec![("berlin", Call::Eth(modexp::berlin_run))],
        _ => backends(op(file_op(file).expect("mapped file"))),
    }
}

fn geth_files() -> Vec<String> {
    let dir = geth::vectors_dir().expect("geth vectors (run scripts/setup.sh)");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    files.sort();
    files
}

#[test]
fn precompile_every_geth_file_is_covered() {
    let files = geth_files();
    assert!(files.len() >= 29, "{files:?}");
    for f in &files {
        assert!(file_op(f).is_some(), "{f} is not checked by any op");
    }
}

#[test]
fn precompile_every_geth_vector_passes_on_every_backend() {
    let mut checked = 0usize;
    let mut failures = Vec::new();
    for file in geth_files() {
        let vectors = geth::load(&file).unwrap();
        for (backend, call) in calls_for(&file) {
            for v in &vectors {
                checked += 1;
                let got = call.exec(&v.input);
                let fail = file.starts_with("fail-");
                match (&got, fail) {
                    (Ok((_, out)), false) if out[..] == v.expected[..] => {}
                    (Err(_), true) => {}
                    _ => failures.push(format!(
                        "{file} {} [{backend}]: expected {}, got {}",
                        v.name,
                        if fail {
                            format!("error {:?}", v.expected_error)
                        } else {
                            hex(&v.expected)
                        },
                        show(&got.clone().map(|(_, b)| b)),
                    )),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked > 1500, "only {checked} vector runs");
}

/// geth's gas for each vector against revm's `gas_used` for the
/// pricing the file was written for (Osaka unless noted).
#[test]
fn precompile_gas_matches_geth() {
    let mut mismatches = Vec::new();
    let mut checked = 0usize;
    for file in geth_files() {
        if file.starts_with("fail-") {
            continue;
        }
        for v in geth::load(&file).unwrap() {
            let Some(want) = v.gas else { continue };
            for (backend, call) in calls_for(&file) {
                checked += 1;
                match call.exec(&v.input) {
                    Ok((gas, _)) if gas == want => {}
                    Ok((gas, _)) => mismatches.push(format!(
                        "{file} {} [{backend}]: geth {want}, revm {gas}",
                        v.name
                    )),
                    Err(e) => mismatches.push(format!("{file} {} [{backend}]: {e}", v.name)),
                }
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    assert!(checked > 1000, "only {checked} gas checks");
}

#[test]
fn precompile_defs_have_unique_ids_and_known_ops() {
    let defs = defs();
    assert!(defs.len() <= 111, "{} defs", defs.len());
    let mut seen = BTreeSet::new();
    for d in &defs {
        assert_eq!(d.group, "precompile");
        assert!(
            d.input
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')),
            "{}",
            d.input
        );
        assert!(
            seen.insert(format!("{} {}", d.id(), d.implementation)),
            "duplicate {} {}",
            d.id(),
            d.implementation
        );
    }
    let ops: BTreeSet<&str> = defs.iter().map(|d| d.op).collect();
    // A backend for every precompile of the operation table, and no other;
    // each with its address in the Osaka schedule.
    assert_eq!(ops, dyno_spec::gas::known().into_iter().collect());
    for op in OPS {
        assert!(op.address() > 0, "{}", op.op);
    }
    for want in [
        "precompile/ecrecover/ValidKey libsecp256k1",
        "precompile/ecrecover/ValidKey k256",
        "precompile/kzg-point-evaluation/pointEvaluation1 arkworks",
        "precompile/bls12-g1add/bls_g1add_g1-p1 blst",
        "precompile/bls12-g1add/bls_g1add_g1-p1 arkworks",
        "precompile/blake2f/vector-8 revm",
        "precompile/p256verify/invalid-public-key-x-param-errors p256",
        "precompile/p256verify/invalid-public-key-x-param-errors aws-lc-rs",
        "precompile/bn254-mul/chfast1 arkworks",
        "precompile/bn254-mul/chfast1 substrate-bn",
    ] {
        assert!(seen.contains(want), "missing {want}");
    }
}

/// The sizes and gas declared in `OPS` are the vectors' own, and no
/// benchmarked vector is one geth marks `NoBenchmark`.
#[test]
fn precompile_picks_match_their_vectors() {
    for op in OPS {
        let Source::Geth(file) = op.source else {
            continue;
        };
        let vectors: Vec<GethVector> = geth::load(file).unwrap();
        for p in op.picks {
            let v = vectors
                .iter()
                .find(|v| v.name == p.name)
                .unwrap_or_else(|| panic!("{file}: no {}", p.name));
            assert_eq!(v.input.len() as u64, p.bytes, "{file} {}", p.name);
            assert_eq!(v.gas, p.gas, "{file} {}", p.name);
            assert!(!v.no_benchmark, "{file} {} is NoBenchmark", p.name);
        }
    }
}

#[test]
fn precompile_every_def_builds_and_verifies() {
    let ctx = ctx();
    for def in defs() {
        let what = format!("{} {}", def.id(), def.implementation);
        let mut w = (def.build)(&ctx).unwrap_or_else(|e| panic!("{what}: {e}"));
        w.verify().unwrap_or_else(|e| panic!("{what}: {e}"));
        if def.input != "vector-8" && !def.input.contains("-1024-") && !def.input.contains("4877") {
            w.run(2);
        }
    }
}

#[test]
fn precompile_wrong_expected_output_fails_verify_naming_both() {
    let v = geth::load("bn256Add.json").unwrap();
    let v = v.iter().find(|v| v.name == "chfast1").unwrap();
    let mut wrong = v.expected.clone();
    wrong[63] ^= 1;
    let mut w = workload(Call::osaka(0x06), vec![(v.input.clone(), wrong.clone())]);
    let err = w.verify().unwrap_err();
    assert_eq!(err.expected, hex(&wrong));
    assert_eq!(err.actual, hex(&v.expected));

    // A call that fails is reported as an error, not as empty output.
    let mut w = workload(
        Call::osaka(0x06),
        vec![(vec![1u8; 128], v.expected.clone())],
    );
    let err = w.verify().unwrap_err();
    assert!(err.actual.starts_with("error: "), "{}", err.actual);
    assert_eq!(err.expected, hex(&v.expected));
}

#[test]
fn precompile_sanitize_keeps_only_id_characters() {
    assert_eq!(sanitize("bls_g1add_(g1+g1=2*g1)"), "bls_g1add_-g1-g1-2-g1-");
    assert_eq!(sanitize("vector 8"), "vector-8");
    assert_eq!(sanitize("nagydani-1-pow0x10001"), "nagydani-1-pow0x10001");
}

#[test]
fn precompile_version_matches_cargo_lock() {
    let lock =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.lock"))
            .unwrap();
    let mut lines = lock.lines();
    let found = loop {
        let line = lines.next().expect("revm-precompile in Cargo.lock");
        if line == "name = \"revm-precompile\"" {
            break lines.next().unwrap().to_string();
        }
    };
    assert_eq!(found, format!("version = \"{REVM_PRECOMPILE_VERSION}\""));
}

#[test]
fn precompile_alternatives_agree_with_the_default_on_edge_inputs() {
    // Short, empty and junk inputs go through the same input handling.
    for name in [
        "ecrecover",
        "kzg-point-evaluation",
        "bn254-add",
        "bn254-mul",
        "bn254-pairing",
    ] {
        let op = op(name);
        let all = backends(op);
        for input in [vec![], vec![0u8; 5], vec![0xffu8; 192], vec![0u8; 300]] {
            let want = all[0].1.output(&input).is_ok();
            for (backend, call) in &all[1..] {
                assert_eq!(call.output(&input).is_ok(), want, "{name} [{backend}]");
            }
        }
    }
}

/// The geth vectors a test runs for each file, with the precompile they
/// belong to (by op name).
fn file_op(file: &str) -> Option<&'static str> {
    Some(match file {
        "ecRecover.json" => "ecrecover",
        "modexp.json" | "modexp_eip2565.json" | "modexp_eip7883.json" => "modexp",
        "bn256Add.json" => "bn254-add",
        "bn256ScalarMul.json" => "bn254-mul",
        "bn256Pairing.json" => "bn254-pairing",
        "blake2F.json" | "fail-blake2f.json" => "blake2f",
        "pointEvaluation.json" => "kzg-point-evaluation",
        "blsG1Add.json" | "fail-blsG1Add.json" => "bls12-g1add",
        "blsG1Mul.json"
        | "fail-blsG1Mul.json"
        | "blsG1MultiExp.json"
        | "fail-blsG1MultiExp.json" => "bls12-g1msm",
        "blsG2Add.json" | "fail-blsG2Add.json" => "bls12-g2add",
        "blsG2Mul.json"
        | "fail-blsG2Mul.json"
        | "blsG2MultiExp.json"
        | "fail-blsG2MultiExp.json" => "bls12-g2msm",
        "blsPairing.json" | "fail-blsPairing.json" => "bls12-pairing",
        "blsMapG1.json" | "fail-blsMapG1.json" => "bls12-map-fp-to-g1",
        "blsMapG2.json" | "fail-blsMapG2.json" => "bls12-map-fp2-to-g2",
        "p256Verify.json" => "p256verify",
        _ => return None,
    })
}
