//! Nominal gas per fork: the schedules are specs (`specs/gas/<fork>.toml`),
//! parsed and evaluated by [`dyno_spec::gas`]. This module checks them
//! against go-ethereum's own test vectors, which state the gas of each
//! input.

pub use dyno_spec::gas::*;

/// The nominal gas of direct-mode precompile `id` under each schedule, by
/// fork, recorded with its result at measure time
/// ([`dyno_format::gas::NOMINAL_GAS`]); `None` for an id that is not one
/// (an input whose price cannot be computed is left out of the map).
pub fn nominal_gas_by_fork(
    ctx: &dyno_workload::Ctx,
    schedules: &[Schedule],
    id: &str,
) -> Option<std::collections::BTreeMap<String, u64>> {
    let (op, input) = crate::precompile::input_of(ctx, id)?.ok()?;
    Some(
        schedules
            .iter()
            .filter_map(|s| Some((s.fork.clone(), s.nominal_gas(op, &input).ok()?)))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    use crate::geth;

    const SPECS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../specs");

    fn schedule(fork: &str) -> Schedule {
        Schedule::for_fork(Path::new(SPECS), fork).unwrap()
    }

    /// go-ethereum's vector files with a `Gas` field: the precompile they
    /// price and the forks whose pricing they state.
    const GETH_FILES: &[(&str, &str, &[&str])] = &[
        ("ecRecover.json", "ecrecover", &["prague", "osaka"]),
        ("modexp_eip2565.json", "modexp", &["prague"]),
        ("modexp_eip7883.json", "modexp", &["osaka"]),
        ("bn256Add.json", "bn254-add", &["prague", "osaka"]),
        ("bn256ScalarMul.json", "bn254-mul", &["prague", "osaka"]),
        ("bn256Pairing.json", "bn254-pairing", &["prague", "osaka"]),
        ("blake2F.json", "blake2f", &["prague", "osaka"]),
        (
            "pointEvaluation.json",
            "kzg-point-evaluation",
            &["prague", "osaka"],
        ),
        ("blsG1Add.json", "bls12-g1add", &["prague", "osaka"]),
        // Single multiplications: geth runs them through G1MSM (EIP-2537
        // dropped the separate MUL precompiles).
        ("blsG1Mul.json", "bls12-g1msm", &["prague", "osaka"]),
        ("blsG1MultiExp.json", "bls12-g1msm", &["prague", "osaka"]),
        ("blsG2Add.json", "bls12-g2add", &["prague", "osaka"]),
        ("blsG2Mul.json", "bls12-g2msm", &["prague", "osaka"]),
        ("blsG2MultiExp.json", "bls12-g2msm", &["prague", "osaka"]),
        ("blsPairing.json", "bls12-pairing", &["prague", "osaka"]),
        ("blsMapG1.json", "bls12-map-fp-to-g1", &["prague", "osaka"]),
        ("blsMapG2.json", "bls12-map-fp2-to-g2", &["prague", "osaka"]),
        ("p256Verify.json", "p256verify", &["osaka"]),
    ];

    /// Vector files that price neither fork: `modexp.json` is EIP-198's
    /// Byzantium pricing, replaced by EIP-2565 in Berlin.
    const NOT_THESE_FORKS: &[&str] = &["modexp.json"];

    /// Every (vector, fork) whose `Gas` differs from the schedule, and the
    /// number of vectors compared.
    fn mismatches(schedule: &Schedule, fork: &str) -> (Vec<String>, usize) {
        let mut bad = Vec::new();
        let mut checked = 0;
        for (file, precompile, forks) in GETH_FILES {
            if !forks.contains(&fork) {
                continue;
            }
            for v in geth::load(file).unwrap() {
                let Some(want) = v.gas else { continue };
                checked += 1;
                let got = schedule.nominal_gas(precompile, &v.input).unwrap();
                if got != want {
                    bad.push(format!("{fork} {file} {}: geth {want}, dyno {got}", v.name));
                }
            }
        }
        (bad, checked)
    }

    #[test]
    fn osaka_modexp_nagydani_1_pow0x10001_costs_2048() {
        let v = geth::load("modexp_eip7883.json").unwrap();
        let v = v
            .iter()
            .find(|v| v.name == "nagydani-1-pow0x10001")
            .unwrap();
        assert_eq!(
            schedule("osaka").nominal_gas("modexp", &v.input).unwrap(),
            2048
        );
        // The same input under Prague (EIP-2565): 8 words squared, 16
        // iterations, over 3.
        assert_eq!(
            schedule("prague").nominal_gas("modexp", &v.input).unwrap(),
            341
        );
    }

    #[test]
    fn every_geth_gas_field_matches_both_forks() {
        for fork in ["prague", "osaka"] {
            let (bad, checked) = mismatches(&schedule(fork), fork);
            assert!(
                bad.is_empty(),
                "{} mismatches:\n{}",
                bad.len(),
                bad.join("\n")
            );
            // Guard against silently checking nothing.
            assert!(checked > 150, "{fork}: only {checked} vectors checked");
        }
    }

    #[test]
    fn every_geth_vector_file_is_accounted_for() {
        let dir = geth::vectors_dir().unwrap();
        let mut unlisted = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if !name.ends_with(".json") || name.starts_with("fail-") {
                continue;
            }
            let listed = GETH_FILES.iter().any(|(f, _, _)| *f == name);
            if !listed && !NOT_THESE_FORKS.contains(&name.as_str()) {
                unlisted.push(name);
            }
        }
        assert!(
            unlisted.is_empty(),
            "vector files with no fork: {unlisted:?}"
        );
    }

    #[test]
    fn the_check_fails_on_a_wrong_schedule() {
        // Prague's modexp priced against Osaka's vectors: nearly all differ.
        let prague = schedule("prague");
        let mut bad = 0;
        for v in geth::load("modexp_eip7883.json").unwrap() {
            if prague.nominal_gas("modexp", &v.input).unwrap() != v.gas.unwrap() {
                bad += 1;
            }
        }
        assert!(bad > 10, "only {bad} differ");

        // One number changed in Osaka's file is caught.
        let path = Path::new(SPECS).join("gas/osaka.toml");
        let text = std::fs::read_to_string(&path).unwrap();
        for (from, to) in [
            ("exp_multiplier = 16", "exp_multiplier = 8"),
            ("per_pair = 34000", "per_pair = 34001"),
            ("gas = 6900", "gas = 3450"),
            ("1000, 949,", "1000, 950,"),
        ] {
            assert!(text.contains(from), "{from}");
            let tampered = Schedule::parse(&text.replacen(from, to, 1), &path).unwrap();
            let (bad, _) = mismatches(&tampered, "osaka");
            assert!(!bad.is_empty(), "{from} -> {to} went unnoticed");
        }
    }
}
