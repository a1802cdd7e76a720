use super::*;

#[test]
fn transfer_topic_is_the_event_signature_hash() {
    assert_eq!(
        TRANSFER_TOPIC,
        keccak256("Transfer(address,address,uint256)")
    );
    assert_eq!(
        emit_calldata(1, 2)[..4],
        [0x67, 0xa6, 0xd2, 0x24],
        "Logs.json's selector"
    );
}

#[test]
fn expected_logs_match_the_contract_formula() {
    let (t, data) = expected_log(5);
    assert_eq!(t[1], B256::with_last_byte(5));
    // address(uint160(~5)): 20 bytes of 0xff but the last, 0xfa.
    let mut to = [0u8; 32];
    to[12..].fill(0xff);
    to[31] = 0xfa;
    assert_eq!(t[2], B256::from(to));
    assert_eq!(data, B256::with_last_byte(5));
}

fn log_json(k: u64, address: Address, block: u64) -> serde_json::Value {
    let (t, data) = expected_log(k);
    json!({
        "address": address, "topics": t, "data": data,
        "blockNumber": format!("{block:#x}"), "transactionHash": B256::ZERO,
        "transactionIndex": "0x0", "blockHash": B256::ZERO, "logIndex": "0x0",
        "removed": false,
    })
}

#[test]
fn verification_catches_count_order_and_content() {
    let a = Address::repeat_byte(7);
    let body = |ks: &[u64]| {
        serde_json::to_vec(&json!({
            "jsonrpc": "2.0", "id": 1,
            "result": ks.iter().map(|k| log_json(*k, a, 10)).collect::<Vec<_>>(),
        }))
        .unwrap()
    };
    assert_eq!(verify_logs(&body(&[3, 4, 5]), 3, 3, a, (10, 10)), Ok(()));
    assert!(matches!(
        verify_logs(&body(&[3, 4]), 3, 3, a, (10, 10)),
        Err(LogsMismatch::Count { got: 2, want: 3 })
    ));
    assert!(matches!(
        verify_logs(&body(&[3, 5, 4]), 3, 3, a, (10, 10)),
        Err(LogsMismatch::Log { index: 1, .. })
    ));
    assert!(matches!(
        verify_logs(&body(&[3, 4, 5]), 3, 3, Address::ZERO, (10, 10)),
        Err(LogsMismatch::Log { index: 0, .. })
    ));
    assert!(matches!(
        verify_logs(&body(&[3, 4, 5]), 3, 3, a, (11, 12)),
        Err(LogsMismatch::Log { index: 0, .. })
    ));
    let err = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"request timed out"}}"#;
    assert!(matches!(
        verify_logs(err, 3, 3, a, (10, 10)),
        Err(LogsMismatch::Parse(_))
    ));
    let (raw, typed, reps) = parse_times(&body(&[3, 4, 5]), 3).unwrap();
    assert!(raw > 0.0 && typed > 0.0 && reps >= 5);
    assert!(parse_times(&body(&[3, 4, 5]), 4).is_err());
}

#[test]
fn methods_parse_and_interleave() {
    assert_eq!("eth_call".parse(), Ok(ReadMethod::Call));
    assert_eq!("logs".parse(), Ok(ReadMethod::GetLogs));
    assert!("eth_foo".parse::<ReadMethod>().is_err());
    let s = sequence(&ReadLoadOptions::default().mix, 8);
    assert_eq!(&s[..4], &ReadMethod::ALL);
    assert_eq!(&s[4..], &ReadMethod::ALL);
    let s = sequence(&[(ReadMethod::Call, 3), (ReadMethod::GetLogs, 1)], 8);
    assert_eq!(s.iter().filter(|m| **m == ReadMethod::GetLogs).count(), 2);
}

#[test]
fn replies_are_checked_against_what_was_asked() {
    let ok = |result: &str| {
        Ok(RawResponse {
            status: 200,
            body: format!(r#"{{"jsonrpc":"2.0","id":1,"result":{result}}}"#).into(),
        })
    };
    let word = B256::with_last_byte(9);
    assert!(check_reply(ok(&format!("\"{word}\"")), &Expect::Word(word)).is_ok());
    let (class, _) =
        check_reply(ok(&format!("\"{}\"", B256::ZERO)), &Expect::Word(word)).unwrap_err();
    assert_eq!(class, "invalid_response");
    assert!(check_reply(ok("\"0x1bc16d674ec80000\""), &Expect::Quantity).is_ok());
    assert!(check_reply(ok(r#"{"number":"0x5","hash":"0x00"}"#), &Expect::Block(5)).is_ok());
    assert!(check_reply(ok(r#"{"number":"0x6"}"#), &Expect::Block(5)).is_err());
    assert!(check_reply(ok("null"), &Expect::Block(5)).is_err());
    assert!(check_reply(ok("[{},{}]"), &Expect::Logs(2)).is_ok());
    assert!(check_reply(ok("[{}]"), &Expect::Logs(2)).is_err());
    let rpc = Ok(RawResponse {
        status: 200,
        body: r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"boom"}}"#.into(),
    });
    assert!(check_reply(rpc, &Expect::Quantity).is_err());
}
