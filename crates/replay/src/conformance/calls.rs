//! The Engine API's calls: capabilities, the genesis, new payloads (a bad block refused) and the forkchoice.

use super::*;

pub(crate) fn capabilities(run: &mut Run, engine: &mut Engine) {
    match engine.call("engine_exchangeCapabilities", json!([METHODS])) {
        Ok((Value::Array(offered), _)) => {
            let missing: Vec<&str> = METHODS
                .iter()
                .filter(|m| !offered.iter().any(|o| o.as_str() == Some(m)))
                .copied()
                .collect();
            if missing.is_empty() {
                run.pass(
                    "capabilities",
                    format!(
                        "offers {} Engine-API methods, {} among them",
                        offered.len(),
                        METHODS.join(" and ")
                    ),
                );
            } else {
                run.fail(
                    "capabilities",
                    format!("does not offer {}: a replay calls them", missing.join(", ")),
                );
            }
        }
        Ok((other, _)) => run.fail(
            "capabilities",
            format!("engine_exchangeCapabilities answered {other:.100}, not a list of methods"),
        ),
        Err(e) => run.fail("capabilities", one_line(&e.to_string())),
    }
}

/// `eth_getBlockByNumber(tag)`'s hash and number, on the Engine port.
pub(crate) fn block_by_number(engine: &mut Engine, tag: &str) -> Result<(String, u64), String> {
    let (block, _) = engine
        .call("eth_getBlockByNumber", json!([tag, false]))
        .map_err(|e| e.to_string())?;
    let hash = block
        .get("hash")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("eth_getBlockByNumber({tag}) answered {block:.100}"))?;
    let number = block
        .get("number")
        .and_then(Value::as_str)
        .and_then(|n| u64::from_str_radix(n.trim_start_matches("0x"), 16).ok())
        .ok_or_else(|| format!("eth_getBlockByNumber({tag}) has no number"))?;
    Ok((hash.to_ascii_lowercase(), number))
}

pub(crate) fn genesis(run: &mut Run, engine: &mut Engine, set: &BlockSet) {
    let want = set.blocks[0].payload.header.parent_hash.to_string();
    match block_by_number(engine, "0x0") {
        Ok((hash, _)) if hash == want => run.pass(
            "genesis",
            format!("its block 0 is dyno's genesis {}", short(&want)),
        ),
        Ok((hash, _)) => run.fail(
            "genesis",
            format!(
                "its block 0 is {}, not dyno's genesis {}: it read {{genesis}} otherwise (a field \
                 dropped or a fork not turned on)",
                short(&hash),
                short(&want)
            ),
        ),
        Err(e) => run.fail(
            "genesis",
            format!(
                "{} (the Engine port must serve eth_getBlockByNumber)",
                one_line(&e)
            ),
        ),
    }
}

/// A message in one line of at most 300 characters.
pub(crate) fn one_line(s: &str) -> String {
    let flat: Vec<&str> = s.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let flat = flat.join(" | ");
    match flat.char_indices().nth(300) {
        Some((at, _)) => format!("{} …", &flat[..at]),
        None => flat,
    }
}

pub(crate) fn short(hash: &str) -> String {
    hash.get(..10).map_or(hash.to_string(), |h| format!("{h}…"))
}

/// `engine_newPayloadV4` of `payload`: its status (and validation error)
/// and how long it took.
pub(crate) fn new_payload(
    engine: &mut Engine,
    payload: &Payload,
) -> Result<(String, Value, Duration), String> {
    let (status, took) = engine
        .call("engine_newPayloadV4", payload.new_payload_params())
        .map_err(|e| e.to_string())?;
    let s = status
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    Ok((s, status, took))
}

/// The second block with a wrong state root and the hash of that header:
/// only executing it shows it is bad.
pub(crate) fn bad_block(good: &Payload) -> Payload {
    let mut header = good.header.clone();
    header.state_root = B256::from(header.state_root.0.map(|b| !b));
    Payload {
        hash: header.hash_slow(),
        header,
        ..good.clone()
    }
}

/// The blocks sent and found `VALID`, in order.
pub(crate) fn blocks<'s>(
    run: &mut Run,
    client: &mut Running,
    set: &'s BlockSet,
    log: &mut SlowLog,
) -> Vec<&'s Planned> {
    let (first, second) = (&set.blocks[0], &set.blocks[1]);
    let engine = &mut client.engine;
    let mut sent = Vec::new();
    match new_payload(engine, &first.payload) {
        Ok((s, _, _)) if s == "VALID" => sent.push(first),
        Ok((s, status, _)) => {
            run.fail(
                "valid",
                format!("block 1 ({}): {s} ({status:.200})", first.class),
            );
            run.skip(&["invalid", "forkchoice"], "block 1 was not VALID");
            return sent;
        }
        Err(e) => {
            run.fail("valid", format!("block 1: {}", one_line(&e)));
            run.skip(&["invalid", "forkchoice"], "block 1 was not VALID");
            return sent;
        }
    }
    // The bad block before the good one of the same height: a client that
    // answers VALID to it did not execute it.
    let bad = bad_block(&second.payload);
    let invalid = match new_payload(engine, &bad) {
        Ok((s, status, took)) if s == "INVALID" => {
            let why = status
                .get("validationError")
                .and_then(Value::as_str)
                .map_or("no validationError".into(), |r| {
                    format!("\"{}\"", one_line(r).chars().take(120).collect::<String>())
                });
            Ok(format!(
                "block 2 with a wrong state root is INVALID after {:.0} ms: {why}",
                took.as_secs_f64() * 1e3
            ))
        }
        Ok((s, _, _)) if s == "VALID" => Err(
            "block 2 with a wrong state root (its hash matching) is VALID: the client does not \
             check a block's state root, so its newPayload times are not block processing"
                .to_string(),
        ),
        Ok((s, _, _)) if s == "SYNCING" || s == "ACCEPTED" => Err(format!(
            "block 2 with a wrong state root is {s}: the client did not execute it (a replay \
             would fail at such a block too)"
        )),
        Ok((s, status, _)) => Err(format!(
            "block 2 with a wrong state root: {s} ({status:.200})"
        )),
        Err(e) => Err(format!("block 2 with a wrong state root: {}", one_line(&e))),
    };
    log.add(client.node.tail.take_kept());
    let second_status = new_payload(&mut client.engine, &second.payload);
    match second_status {
        Ok((s, _, took)) if s == "VALID" => {
            sent.push(second);
            run.pass(
                "valid",
                format!(
                    "blocks 1 ({}) and 2 ({}, {} transactions) are VALID, block 2 after {:.0} ms",
                    first.class,
                    second.class,
                    second.payload.transactions.len(),
                    took.as_secs_f64() * 1e3
                ),
            );
        }
        Ok((s, status, _)) => run.fail(
            "valid",
            format!("block 2 ({}): {s} ({status:.200})", second.class),
        ),
        Err(e) => run.fail("valid", format!("block 2: {}", one_line(&e))),
    }
    match invalid {
        Ok(detail) => run.pass("invalid", detail),
        Err(detail) => run.fail("invalid", detail),
    }
    forkchoice(run, &mut client.engine, &sent);
    sent
}

pub(crate) fn forkchoice(run: &mut Run, engine: &mut Engine, sent: &[&Planned]) {
    let Some(head) = sent.last() else {
        run.add("forkchoice", Outcome::Skip, "no block was VALID".into());
        return;
    };
    if let Err(e) = engine.forkchoice_updated(head.payload.forkchoice_params()) {
        run.fail("forkchoice", one_line(&e.to_string()));
        return;
    }
    let want = head.payload.hash.to_string();
    let number = head.payload.header.number;
    let said = engine
        .call("eth_blockNumber", json!([]))
        .map_err(|e| e.to_string())
        .and_then(|(n, _)| {
            n.as_str()
                .and_then(|n| u64::from_str_radix(n.trim_start_matches("0x"), 16).ok())
                .ok_or_else(|| format!("eth_blockNumber answered {n}"))
        });
    let latest = block_by_number(engine, "latest");
    match (said, latest) {
        (Ok(n), Ok((hash, m))) if n == number && m == number && hash == want => run.pass(
            "forkchoice",
            format!(
                "the head moved to block {number}: eth_blockNumber and eth_getBlockByNumber(latest) agree ({})",
                short(&want)
            ),
        ),
        (Ok(n), Ok((hash, m))) => run.fail(
            "forkchoice",
            format!(
                "after forkchoiceUpdated to block {number} ({}), eth_blockNumber says {n} and \
                 latest is block {m} ({})",
                short(&want),
                short(&hash)
            ),
        ),
        (Err(e), _) | (_, Err(e)) => run.fail(
            "forkchoice",
            format!(
                "{} (the Engine port must serve eth_blockNumber and eth_getBlockByNumber)",
                one_line(&e)
            ),
        ),
    }
}
