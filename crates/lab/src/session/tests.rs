use super::*;
use dyno_format::fixture;
use dyno_workload::BuildError;

fn declined() -> (String, BuildError) {
    (
        "state/sload-cold/10000 on revm".into(),
        BuildError::NotCompiled {
            how: "cargo build --features db-engines".into(),
        },
    )
}

/// `dyno run state` in a build without MDBX declined every id and
/// exited 0, as if it had measured what was asked.
#[test]
fn a_run_that_measured_nothing_asked_for_is_an_error() {
    let mut reference = fixture::result("precompile/ecrecover/ValidKey", "libsecp256k1", Some(5e4));
    reference
        .parameters
        .insert("reference".into(), serde_json::Value::Bool(true));
    let run = fixture::run("r", vec![reference]);
    let e = report_problems(&run, &[declined()], false).unwrap_err();
    assert!(
        e.to_string().contains("nothing asked for was measured"),
        "{e}"
    );
}

#[test]
fn a_run_that_measured_some_of_what_was_asked_is_not() {
    let run = fixture::run(
        "r",
        vec![fixture::result(
            "hash/keccak256/32B",
            "tiny-keccak",
            Some(100.0),
        )],
    );
    assert!(report_problems(&run, &[declined()], false).is_ok());
}
