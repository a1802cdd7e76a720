use super::*;

#[test]
fn the_report_tallies_and_names_the_section_of_a_failure() {
    let r = Report {
        adapter: "toy (/x/toy)".into(),
        checks: vec![
            Check {
                name: "hello",
                outcome: Outcome::Pass,
                detail: "protocol 1".into(),
                section: HELLO,
            },
            Check {
                name: "clock",
                outcome: Outcome::Fail,
                detail: "too fast".into(),
                section: HARNESS,
            },
            Check {
                name: "overhead",
                outcome: Outcome::Info,
                detail: "5 ns".into(),
                section: HARNESS,
            },
        ],
    };
    assert!(r.failed());
    let text = r.render();
    assert!(
        text.contains(
            "FAIL  clock      too fast (read docs/adapter-protocol.md, \"The harness ids\")"
        ),
        "{text}"
    );
    assert!(text.contains("pass  hello      protocol 1\n"), "{text}");
    assert!(text.ends_with("1 of 2 checks failed\n"), "{text}");
}
