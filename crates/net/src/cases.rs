//! The suite's cases in the adapter protocol's portable form, so that the
//! Go adapter (go-ethereum's `p2p/rlpx` and `eth/protocols/eth`) is handed
//! the bytes dyno-net measures and checked against the same outputs
//! (`docs/adapter-protocol.md`, "Case schemas").

use dyno_protocol::Case;
use dyno_workload::{BuildError, Ctx, full_hex};
use serde_json::{Map, Value, json};

use crate::bench;
use crate::key::{node_id, public_key, secret_key_from_slice};

fn case(input: Map<String, Value>, field: &str, value: &[u8]) -> Case {
    let mut expected = Map::new();
    expected.insert(field.into(), Value::from(full_hex(value)));
    Case { input, expected }
}

/// The portable cases of `id`, or `None` if it is not one of the suite's.
pub fn cases(_ctx: &Ctx, id: &str) -> Option<Result<Vec<Case>, BuildError>> {
    let rest = id.strip_prefix("net/")?;
    let (op, input) = rest.split_once('/')?;
    let one = |m: &crate::Message, field: &str, bytes: Vec<u8>| {
        let mut input = Map::new();
        input.insert(field.into(), json!(full_hex(&bytes)));
        vec![case(input, "message", &m.to_rlp())]
    };
    Some(Ok(match (op, input) {
        ("encode", name) => {
            let m = bench::message(name)?;
            one(&m, "message", m.to_rlp())
        }
        ("decode", name) => {
            let m = bench::message(name)?;
            one(&m, "wire", bench::wire(&m))
        }
        ("route", "mixed") => bench::route_mix()
            .iter()
            .map(|m| {
                let mut input = Map::new();
                input.insert("code".into(), json!(m.code()));
                input.insert("wire".into(), json!(full_hex(&bench::wire(m))));
                case(input, "message", &m.to_rlp())
            })
            .collect(),
        ("handshake", "local") => {
            let mut cases = Vec::new();
            for (a, b) in bench::handshake_keys() {
                let responder = match secret_key_from_slice(&b) {
                    Ok(k) => k,
                    Err(e) => {
                        return Some(Err(BuildError::Setup {
                            what: "a handshake key".into(),
                            reason: e.to_string(),
                        }));
                    }
                };
                let mut input = Map::new();
                input.insert("initiator_key".into(), json!(full_hex(&a)));
                input.insert("responder_key".into(), json!(full_hex(&b)));
                cases.push(case(
                    input,
                    "node_id",
                    node_id(&public_key(&responder)).as_slice(),
                ));
            }
            cases
        }
        _ => return None,
    }))
}
