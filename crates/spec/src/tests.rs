use super::*;

const GOOD: &str = r#"
[suite]
group = "hash"
description = "hashes"

[defaults]
threshold = "10%"

[[bench]]
op = "keccak256"
inputs = ["1B", "32B"]
impls = ["tiny-keccak", "sha3"]
target = { p50 = "10us" }

[[bench]]
op = "sha256"
inputs = ["32B"]
impls = ["sha2", "ring"]
baseline = "ring"
threshold = 0.3
"#;

fn known() -> Known {
    let mut v = Vec::new();
    for input in ["1B", "32B"] {
        for imp in ["tiny-keccak", "sha3"] {
            v.push(("hash", "keccak256", input, imp));
        }
        for imp in ["sha2", "ring"] {
            v.push(("hash", "sha256", input, imp));
        }
    }
    Known::new(v)
}

fn parse(text: &str) -> Result<Spec, SpecError> {
    Spec::parse(text, Path::new("specs/hash.toml"))
}

#[test]
fn a_good_spec_loads_with_defaults_applied() {
    let spec = parse(GOOD).unwrap();
    spec.check(&known()).unwrap();
    assert_eq!(spec.group, "hash");
    assert!(spec.default);
    let k = &spec.benches[0];
    assert_eq!(
        k.baseline.value, "tiny-keccak",
        "first impl is the baseline"
    );
    assert_eq!(k.threshold, 0.10);
    assert_eq!(k.target.unwrap().limit_ns, 10_000.0);
    let s = &spec.benches[1];
    assert_eq!(s.baseline.value, "ring");
    assert_eq!(s.threshold, 0.3);
    assert_eq!(s.op.line, 16);
}

#[test]
fn an_unknown_key_names_file_line_and_suggests_the_key() {
    let text = GOOD.replace("inputs = [\"32B\"]", "inptus = [\"32B\"]");
    let err = parse(&text).unwrap_err().to_string();
    assert!(err.starts_with("specs/hash.toml:17:"), "{err}");
    assert!(
        err.contains("inptus") && err.contains("did you mean \"inputs\""),
        "{err}"
    );
}

#[test]
fn a_syntax_error_names_the_line() {
    let text = GOOD.replace("op = \"sha256\"", "op = sha256");
    let err = parse(&text).unwrap_err().to_string();
    assert!(err.starts_with("specs/hash.toml:16:"), "{err}");
}

#[test]
fn unknown_names_are_reported_with_a_suggestion_and_the_valid_list() {
    let spec = parse(&GOOD.replace("\"sha3\"]", "\"sha33\"]")).unwrap();
    let err = spec.check(&known()).unwrap_err().to_string();
    assert!(err.starts_with("specs/hash.toml:12:"), "{err}");
    assert!(err.contains("unknown implementation \"sha33\""), "{err}");
    assert!(err.contains("did you mean \"sha3\""), "{err}");
    assert!(err.contains("known: sha3, tiny-keccak"), "{err}");

    let spec = parse(&GOOD.replace("op = \"keccak256\"", "op = \"kecak256\"")).unwrap();
    let err = spec.check(&known()).unwrap_err().to_string();
    assert!(
        err.contains(":10: unknown op \"kecak256\" (did you mean \"keccak256\"?)"),
        "{err}"
    );

    let spec = parse(&GOOD.replace("\"1B\", \"32B\"", "\"1B\", \"64B\"")).unwrap();
    let err = spec.check(&known()).unwrap_err().to_string();
    assert!(err.contains(":11: unknown input \"64B\""), "{err}");

    let spec = parse(&GOOD.replace("group = \"hash\"", "group = \"hashes\"")).unwrap();
    let err = spec.check(&known()).unwrap_err().to_string();
    assert!(
        err.contains(":3: unknown group \"hashes\" (did you mean \"hash\"?)"),
        "{err}"
    );
}

#[test]
fn bad_values_name_the_key_and_say_what_would_work() {
    let err = parse(&GOOD.replace("threshold = 0.3", "threshold = \"30\""))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(":20: bench[op=sha256].threshold: \"30\" is not a percentage"),
        "{err}"
    );

    let err = parse(&GOOD.replace("p50 = \"10us\"", "p50 = \"10\""))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(":13: bench[op=keccak256].target") && err.contains("no unit"),
        "{err}"
    );

    let err = parse(&GOOD.replace("baseline = \"ring\"", "baseline = \"openssl\""))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("bench[op=sha256].baseline") && err.contains("sha2, ring"),
        "{err}"
    );

    let err = parse(&GOOD.replace("impls = [\"sha2\", \"ring\"]", "impls = []"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("must list at least one"), "{err}");
}

#[test]
fn duplicates_are_refused() {
    let text =
        format!("{GOOD}\n[[bench]]\nop = \"sha256\"\ninputs = [\"32B\"]\nimpls = [\"sha2\"]\n");
    let err = parse(&text)
        .unwrap()
        .check(&known())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("hash/sha256/32B on sha2 is listed twice"),
        "{err}"
    );
}

#[test]
fn plans_follow_filters_and_default_flags() {
    let spec = parse(GOOD).unwrap();
    let all = plan(std::slice::from_ref(&spec), None);
    assert_eq!(all.len(), 6);
    assert_eq!(all[0].id, "hash/keccak256/1B");
    assert!(all[0].baseline && !all[1].baseline);

    let some = plan(std::slice::from_ref(&spec), Some("*/32B"));
    let got: Vec<(String, String)> = some
        .iter()
        .filter(|e| e.implementation == "sha3" || e.implementation == "ring")
        .map(|e| (e.id.clone(), e.implementation.clone()))
        .collect();
    assert!(some.iter().all(|e| e.id.ends_with("/32B")));
    assert_eq!(
        got,
        vec![
            ("hash/keccak256/32B".to_string(), "sha3".to_string()),
            ("hash/sha256/32B".to_string(), "ring".to_string())
        ]
    );

    let mut off = spec;
    off.default = false;
    assert!(plan(std::slice::from_ref(&off), None).is_empty());
    assert_eq!(plan(&[off], Some("sha256")).len(), 2);
}

#[test]
fn load_dir_reads_every_spec_and_refuses_an_empty_folder() {
    let dir = tempfile::tempdir().unwrap();
    let err = load_dir(dir.path()).unwrap_err().to_string();
    assert!(err.contains("no *.toml spec files"), "{err}");
    std::fs::write(dir.path().join("hash.toml"), GOOD).unwrap();
    std::fs::write(dir.path().join("notes.txt"), "ignored").unwrap();
    assert_eq!(load_dir(dir.path()).unwrap().len(), 1);
    std::fs::write(dir.path().join("more.toml"), GOOD).unwrap();
    let err = load_dir(dir.path()).unwrap_err().to_string();
    assert!(err.contains("already defined by"), "{err}");
}

const MEM: &str = r#"
[suite]
group = "mem"
default = false
isolate = true

[[bench]]
op = "keccak"
inputs = ["32B"]
workload = "hash/keccak256"
impls = ["sha3"]
"#;

#[test]
fn a_bench_can_measure_another_groups_workload_under_its_own_id() {
    let spec = Spec::parse(MEM, Path::new("specs/mem.toml")).unwrap();
    spec.check(&known()).unwrap();
    assert!(spec.isolate && !spec.default);
    let entries = plan(std::slice::from_ref(&spec), Some("mem"));
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].id, "mem/keccak/32B");
    assert_eq!(entries[0].workload, "hash/keccak256/32B");
    assert!(entries[0].isolate);
    // an ordinary bench runs its own id's workload, in a shared worker
    let own = plan(&[parse(GOOD).unwrap()], None);
    assert!(own.iter().all(|e| e.workload == e.id && !e.isolate));
}

#[test]
fn a_borrowed_workload_is_checked_and_a_bad_one_named_with_its_line() {
    let unknown_op = MEM.replace("hash/keccak256", "hash/keccak512");
    let spec = Spec::parse(&unknown_op, Path::new("specs/mem.toml")).unwrap();
    let err = spec.check(&known()).unwrap_err().to_string();
    assert!(
        err.contains("specs/mem.toml:10") && err.contains("keccak512"),
        "{err}"
    );
    assert!(err.contains("keccak256"), "suggests the nearest: {err}");
    let no_input = MEM.replace("32B", "1KiB");
    let spec = Spec::parse(&no_input, Path::new("specs/mem.toml")).unwrap();
    assert!(spec.check(&known()).is_err());
    let malformed = MEM.replace("hash/keccak256", "keccak256");
    let err = Spec::parse(&malformed, Path::new("specs/mem.toml"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("specs/mem.toml:10") && err.contains("group/op"),
        "{err}"
    );
}

/// An explicit bench (a costly input) joins a run only when a filter names
/// its input exactly; its other inputs and every other caller of `plan`
/// (no filter, a group, a wildcard) leave it out.
#[test]
fn an_explicit_bench_runs_only_when_its_input_is_named() {
    let text = GOOD.to_string()
        + r#"
[[bench]]
op = "keccak256"
inputs = ["1MiB"]
impls = ["sha3"]
explicit = true
"#;
    let spec = parse(&text).unwrap();
    let specs = [spec];
    let ids = |filter: Option<&str>| -> Vec<String> {
        plan(&specs, filter).into_iter().map(|e| e.id).collect()
    };
    let big = "hash/keccak256/1MiB".to_string();
    assert!(!ids(None).contains(&big));
    assert!(!ids(Some("hash")).contains(&big));
    assert!(!ids(Some("hash/keccak256")).contains(&big));
    assert!(!ids(Some("hash/*/*")).contains(&big));
    assert_eq!(ids(Some("hash/*/1MiB")), vec![big.clone()]);
    assert_eq!(ids(Some("hash/keccak256/1MiB")), vec![big]);
    assert_eq!(ids(Some("hash/keccak256")).len(), 4, "the others as before");
}

/// A `registry` suite takes its benchmarks from the registry: each op's
/// inputs with the same implementations one bench, the first
/// implementation the baseline; a registry suite that lists benches too is
/// refused naming the key.
#[test]
fn a_registry_suite_is_filled_from_the_built_in_suites() {
    let path = Path::new("specs/precompile.toml");
    let mut s = Spec::parse(
        "[suite]\ngroup = \"precompile\"\nregistry = true\n[defaults]\nthreshold = \"10%\"\n",
        path,
    )
    .unwrap();
    assert!(s.from_registry && s.benches.is_empty());
    s.fill_from_registry([
        ("precompile", "ecrecover", "a", "libsecp256k1"),
        ("precompile", "ecrecover", "a", "k256"),
        ("precompile", "ecrecover", "b", "libsecp256k1"),
        ("precompile", "ecrecover", "b", "k256"),
        ("precompile", "sha256", "x", "sha2"),
        ("precompile", "sha256", "y", "other"),
        ("hash", "keccak256", "32B", "tiny-keccak"),
    ]);
    let got: Vec<(String, Vec<String>, Vec<String>, String)> = s
        .benches
        .iter()
        .map(|b| {
            (
                b.op.value.clone(),
                b.inputs.iter().map(|i| i.value.clone()).collect(),
                b.impls.iter().map(|i| i.value.clone()).collect(),
                b.baseline.value.clone(),
            )
        })
        .collect();
    let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        got,
        [
            (
                "ecrecover".into(),
                v(&["a", "b"]),
                v(&["libsecp256k1", "k256"]),
                "libsecp256k1".into()
            ),
            ("sha256".into(), v(&["x"]), v(&["sha2"]), "sha2".into()),
            ("sha256".into(), v(&["y"]), v(&["other"]), "other".into()),
        ]
    );
    assert!(s.benches.iter().all(|b| (b.threshold - 0.10).abs() < 1e-12));
    let e = Spec::parse(
        "[suite]\ngroup = \"precompile\"\nregistry = true\n[[bench]]\nop = \"x\"\ninputs = [\"a\"]\nimpls = [\"b\"]\n",
        path,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("precompile.toml:3") && e.contains("suite.registry"),
        "{e}"
    );
}
