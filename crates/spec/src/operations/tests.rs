use super::*;

fn specs() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs")
}

const HEAD: &str = "[series]\nbudgets_m=[30]\nlevels=5\nrepeats=1\nquick_budgets_m=[3]\nquick_repeats=1\nround_levels=5\nrounds=1\nquick_round_levels=5\nquick_rounds=1\ngas_limit_m=100\n";

fn err(body: &str) -> String {
    parse(&format!("{HEAD}{body}"), Path::new("specs/operations.toml"))
        .unwrap_err()
        .to_string()
}

/// The file in the specs folder is the one compiled in: the opcode
/// suite and `dyno gas --blocks` read the same table.
#[test]
fn the_shipped_table_loads_and_is_the_builtin_one() {
    let t = load(&specs()).unwrap();
    assert_eq!(t.operations, builtin().operations);
    assert_eq!(t.reprice.ops, builtin().reprice.ops);
    // Every operation once; a series' op is one of them.
    for o in &t.reprice.ops {
        assert!(t.operations.iter().any(|x| x.op == o.op), "{}", o.id());
    }
    let div = t.operations.iter().find(|o| o.op == "div").unwrap();
    assert_eq!(div.loop_op(), "arith-div");
    assert_eq!(div.loop_inputs, ["a256-b128-c200"]);
    let pe = t
        .operations
        .iter()
        .find(|o| o.op == "point-evaluation")
        .unwrap();
    assert_eq!(pe.precompile.as_deref(), Some("kzg-point-evaluation"));
    let sload = t.reprice.ops.iter().find(|o| o.op == "sload").unwrap();
    assert_eq!(
        (sload.kind.as_str(), sload.price.clone()),
        ("state", Price::State)
    );
}

#[test]
fn a_bad_entry_names_its_line_and_key() {
    // HEAD is 11 lines: the entry's `op` is on line 13.
    let e = err("[[operation]]\nop='div'\nkind='precompile'\nopcode='DIV'\n");
    assert!(
        e.contains("operations.toml:13") && e.contains("operation[op=div].opcode"),
        "{e}"
    );
    let e = err("[[operation]]\nop='div'\nkind='arit'\nopcode='DIV'\n");
    assert!(e.contains("arith"), "{e}");
    let e = err(
        "[[operation]]\nop='e'\nkind='precompile'\nprecompile='ecrecover'\nvary='word0'\nprice=['A']\n[[operation.series]]\nparam='x'\ninput='precompile/ecrecover/ValidKey'\n",
    );
    assert!(e.contains("word@N"), "{e}");
    let e = err(
        "[[operation]]\nop='e'\nkind='arith'\nopcode='DIV'\nprice=['A*units']\n[[operation.series]]\nparam='x'\n",
    );
    assert!(e.contains("needs every series' `units`"), "{e}");
    let e = err("[[operation]]\nop='e'\nkind='arith'\nopcode='DIV'\nprice=['A']\n");
    assert!(e.contains("only an operation with series is priced"), "{e}");
    let e = err(
        "[[operation]]\nop='s'\nkind='storage'\nopcode='SLOAD'\nprice='state'\n[[operation.series]]\nparam='cold'\naccess='sload-cld'\n",
    );
    assert!(
        e.contains("operations.toml:18") && e.contains("sload-cold"),
        "{e}"
    );
    let e = err(
        "[[operation]]\nop='m'\nkind='memory'\nopcode='MLOAD'\nprice=['A']\n[[operation.series]]\nparam='x'\n",
    );
    assert!(e.contains("series[param=x].access"), "{e}");
    let e = err("[[operation]]\nop='b'\nkind='state'\nopcode='BALANCE'\nloop=['cold']\n");
    assert!(e.contains("operation[op=b].loop"), "{e}");
    let e = err(
        "[[operation]]\nop='d'\nkind='arith'\nopcode='DIV'\nprice=['A']\n[[operation.series]]\nparam='x'\n[[operation]]\nop='d'\nkind='arith'\nopcode='DIV'\n",
    );
    assert!(e.contains("listed twice"), "{e}");
    let over = HEAD.replace("budgets_m=[30]", "budgets_m=[300]");
    let e = parse(
        &format!(
            "{over}[[operation]]\nop='d'\nkind='arith'\nopcode='DIV'\nprice=['A']\n[[operation.series]]\nparam='x'\n"
        ),
        Path::new("specs/operations.toml"),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("300M"), "{e}");
}

#[test]
fn a_price_names_a_parameter_the_schedule_in_force_has() {
    let r = parse(
        &format!(
            "{HEAD}[[operation]]\nop='div'\nkind='arith'\nopcode='DIV'\nprice=['OPCODE_DVI']\n[[operation.series]]\nparam='x'\n"
        ),
        Path::new("specs/operations.toml"),
    )
    .unwrap()
    .reprice;
    let e = r
        .check_prices(&crate::reprice::schedules(&specs()).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("OPCODE_DVI") && e.contains("OPCODE_DIV"), "{e}");
}
