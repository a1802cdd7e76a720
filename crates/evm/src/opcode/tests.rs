use super::entries::{Make, entries_of};
use super::*;
use crate::precompile::tests::ctx;

fn built(id: &str) -> Box<dyn Workload> {
    let d = defs().into_iter().find(|d| d.id() == id).expect("known id");
    (d.build)(&ctx()).unwrap()
}

fn gas_of(id: &str) -> u64 {
    let mut w = built(id);
    w.verify().unwrap_or_else(|e| panic!("{id}: {e}"));
    match w.facts().as_slice() {
        [("gas_per_op", Param::Int(g))] => *g,
        other => panic!("{id}: {other:?}"),
    }
}

#[test]
fn opcode_every_benchmark_verifies_and_knows_its_gas() {
    let defs = defs();
    assert!(defs.len() >= 30, "{}", defs.len());
    for d in &defs {
        let mut w = (d.build)(&ctx()).unwrap();
        w.verify()
            .unwrap_or_else(|e| panic!("{} {}: {e}", d.id(), d.implementation));
        assert!(w.fitted());
        assert_eq!(w.facts().len(), 1, "{}", d.id());
    }
}

#[test]
fn opcode_gas_per_sequence_matches_the_osaka_schedule() {
    // DUP 3, POP 2, PUSH 3 (PUSH0 2), MLOAD/MSTORE 3, ADD 3, MUL 5,
    // ADDMOD 8, EXP 10 + 50 per exponent byte (b is 16 bytes).
    assert_eq!(gas_of("opcode/arith-add/a256-b128-c200"), 3 + 3 + 3 + 2);
    assert_eq!(gas_of("opcode/arith-mul/a256-b128-c200"), 3 + 3 + 5 + 2);
    assert_eq!(gas_of("opcode/arith-addmod/a256-b128-c200"), 9 + 8 + 2);
    assert_eq!(
        gas_of("opcode/arith-exp/a256-b128-c200"),
        6 + 10 + 50 * 16 + 2
    );
    // KECCAK256: 30 + 6 per word, plus two pushes and a pop.
    assert_eq!(gas_of("opcode/keccak256/1KiB"), 3 + 3 + 30 + 6 * 32 + 2);
    // SLOAD: cold 2100, warm 100; the key bookkeeping costs the same.
    let (cold, warm) = (gas_of("opcode/sload/cold"), gas_of("opcode/sload/warm"));
    assert_eq!(cold - warm, 2000);
    // LOG2 of 32 bytes: 375 + 2 x 375 + 8 x 32, plus four pushes.
    assert_eq!(gas_of("opcode/log2/32B"), 375 + 750 + 256 + 3 * 4);
    // SSTORE to a pre-set slot: cold 2100 + 2900, warm and dirty 100.
    let (cold, warm) = (gas_of("opcode/sstore/cold"), gas_of("opcode/sstore/warm"));
    assert_eq!(cold - warm, 4900);
    // The loop's own cost is not in any sequence's gas.
    assert_eq!(gas_of("opcode/loop/empty"), 0);
}

/// What an adapter does with an exported case: deploy `code`, call it
/// with the word N / unroll, the word N % unroll and `data`, and
/// compare the returned word with `output`.
#[test]
fn opcode_exported_cases_run_as_the_protocol_says_and_only_portable_ones_export() {
    let unhexed = |v: &serde_json::Value| unhex(v.as_str().unwrap()).unwrap();
    let mut exported = 0;
    for e in entries() {
        let Some(cases) = cases(&ctx(), &e.id()) else {
            assert!(!e.make.portable(), "{}", e.id());
            continue;
        };
        exported += 1;
        let [case] = cases.unwrap().try_into().unwrap();
        let mut vm = Vm::new(unhexed(&case.input["code"]));
        let unroll = case.input["unroll"].as_u64().unwrap();
        for n in [1, 2, unroll + 3] {
            let mut data = U256::from(n / unroll).to_be_bytes_vec();
            data.extend_from_slice(&U256::from(n % unroll).to_be_bytes::<32>());
            data.extend_from_slice(&unhexed(&case.input["data"]));
            let out = vm.call(&Bytes::from(data));
            assert!(out.success, "{} N={n}: {:?}", e.id(), out.error);
            assert_eq!(
                out.output[..],
                unhexed(&case.expected["output"])[..],
                "{} N={n}",
                e.id()
            );
        }
    }
    // What the table runs in the portable kinds, each input once.
    let portable: usize = dyno_spec::operations::builtin()
        .operations
        .iter()
        .filter(|o| matches!(o.kind.as_str(), "arith" | "keccak" | "memory" | "loop"))
        .map(|o| o.loop_inputs.len())
        .sum();
    assert!(portable >= 17);
    assert_eq!(exported, portable);
    assert!(cases(&ctx(), "opcode/sload/cold").is_none());
    assert!(cases(&ctx(), "opcode/no/such").is_none());
}

#[test]
fn opcode_a_wrong_expectation_fails_verification() {
    let mut b = memory("mload", 32);
    b.expect = Expect::Word([0xee; 32]);
    let err = OpcodeWorkload::new(&b).verify().unwrap_err();
    assert!(
        err.expected.contains("eeee") && !err.actual.contains("eeee"),
        "{err}"
    );
    // A halting sequence is a failed transaction, never a timing.
    let mut b = memory("mload", 32);
    b.body = vec![op::INVALID];
    let err = OpcodeWorkload::new(&b).verify().unwrap_err();
    assert!(err.actual.contains("transaction failed"), "{err}");
}

/// The suite is the table's loop level, in its order, with revm's bytes:
/// the ids the opcode suite had before the table, and a table that names
/// an opcode revm lacks, or a loop its kind cannot run, refused naming
/// the line and the operation.
#[test]
fn opcode_entries_are_the_tables_loop_level_and_a_bad_table_is_refused() {
    let ids: Vec<String> = entries().iter().map(Entry::id).collect();
    for id in [
        "opcode/arith-add/a256-b128-c200",
        "opcode/arith-addmod/a256-b128-c200",
        "opcode/keccak256/1KiB",
        "opcode/mcopy/32B",
        "opcode/sstore/warm",
        "opcode/delegatecall/returns-word",
        "opcode/create2/1-byte-code",
        "opcode/log4/32B",
        "opcode/loop/empty",
    ] {
        assert!(ids.iter().any(|i| i == id), "{id} in {ids:?}");
    }
    assert_eq!(ids.last().map(String::as_str), Some("opcode/loop/empty"));
    let e = entries().iter().find(|e| e.op == "arith-mulmod").unwrap();
    let Make::Arith(name, code) = e.make else {
        panic!("{e:?}")
    };
    assert_eq!((name, code.get(), code.inputs()), ("mulmod", 0x09, 3));
    assert_eq!(e.sequence, "DUP4 DUP4 DUP4 MULMOD POP");
    let log = entries().iter().find(|e| e.op == "log3").unwrap();
    assert!(matches!(log.make, Make::Log(3)), "{log:?}");

    let table_text = |body: &str| -> String {
        format!(
            "[series]\nbudgets_m=[30]\nlevels=5\nrepeats=1\nquick_budgets_m=[3]\nquick_repeats=1\nround_levels=5\nrounds=1\nquick_round_levels=5\nquick_rounds=1\ngas_limit_m=100\n\
             [[operation]]\nop='div'\nkind='arith'\nopcode='DIV'\nprice=['OPCODE_DIV']\n[[operation.series]]\nparam='x'\n{body}"
        )
    };
    let table = |body: &str| -> &'static dyno_spec::operations::Operations {
        let text = table_text(body);
        Box::leak(Box::new(
            dyno_spec::operations::parse(&text, std::path::Path::new("operations.toml")).unwrap(),
        ))
    };
    // The error names the line of the misspelt entry's `op`, however long the
    // [series] head above it grows.
    let misspelt =
        "[[operation]]\nop='shl'\nkind='arith'\nopcode='SHLL'\nloop=['a256-b128-c200']\n";
    let line = table_text(misspelt)
        .lines()
        .position(|l| l == "op='shl'")
        .unwrap()
        + 1;
    let e = entries_of(table(misspelt)).unwrap_err();
    assert!(
        e.contains(&format!("line {line},")) && e.contains("shl") && e.contains("SHLL"),
        "{e}"
    );
    let e = entries_of(table(
        "[[operation]]\nop='iszero'\nkind='arith'\nopcode='ISZERO'\nloop=['a256-b128-c200']\n",
    ))
    .unwrap_err();
    assert!(e.contains("takes 1 operands"), "{e}");
    let e = entries_of(table(
        "[[operation]]\nop='keccak256'\nkind='keccak'\nopcode='KECCAK256'\nloop=['big']\n",
    ))
    .unwrap_err();
    assert!(e.contains("a size"), "{e}");
    let shl = entries_of(table(
        "[[operation]]\nop='shl'\nkind='arith'\nopcode='SHL'\nloop=['a256-b128-c200']\n",
    ))
    .unwrap();
    assert_eq!(shl[0].id(), "opcode/arith-shl/a256-b128-c200");
    assert!(matches!(shl[0].make, Make::Arith("shl", c) if c.get() == 0x1b));
}
