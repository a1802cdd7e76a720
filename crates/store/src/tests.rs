use super::*;

#[test]
fn a_store_can_move_between_threads() {
    fn send<T: Send>() {}
    send::<Store>();
    send::<StoreError>();
}

#[test]
fn json_facts_reads_counts_and_id() {
    let json = r#"{"run": {"id": "x"}, "results": [1, 2], "load": [3]}"#;
    assert_eq!(json_facts(json), Ok((2, 1, "x".to_string())));
    assert!(json_facts("{").is_err());
}
