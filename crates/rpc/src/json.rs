//! JSON-RPC 2.0 encoding and fast response parsing.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use crate::error::RpcError;

/// A successful JSON-RPC response: the `result` member kept as raw JSON text.
///
/// Nothing of the result is parsed until asked: [`Reply::as_str`] borrows a
/// plain string result (a transaction hash) with no copy,
/// [`Reply::deserialize`] parses it into any type.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The response `id` when it is a non-negative integer (dyno only sends
    /// those); `None` when absent, `null` or of another type.
    pub id: Option<u64>,
    /// The `result` member as raw JSON text (e.g. `"0x12…"` with its quotes,
    /// or `null`).
    pub result: Box<RawValue>,
}

impl Reply {
    /// The raw JSON text of the result.
    pub fn raw(&self) -> &str {
        self.result.get()
    }

    /// The result as a string when it is a JSON string without escapes (a
    /// hash, a hex quantity): a borrow of the text between the quotes.
    /// `None` for any other result, or a string with `\` escapes (use
    /// [`Reply::deserialize`] for those).
    pub fn as_str(&self) -> Option<&str> {
        let raw = self.result.get();
        let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
        (!inner.contains('\\')).then_some(inner)
    }

    /// Parses the result into `T`.
    pub fn deserialize<T: DeserializeOwned>(&self) -> Result<T, RpcError> {
        serde_json::from_str(self.result.get()).map_err(|e| {
            RpcError::invalid(format!(
                "result {} does not have the expected type {}: {e}",
                snippet(self.result.get().as_bytes()),
                std::any::type_name::<T>()
            ))
        })
    }

    /// The result as a [`serde_json::Value`].
    pub fn into_value(self) -> Result<serde_json::Value, RpcError> {
        self.deserialize()
    }
}

/// One response object as it comes off the wire, borrowing from the body.
#[derive(Deserialize)]
struct Wire<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<WireError<'a>>,
}

#[derive(Deserialize)]
struct WireError<'a> {
    #[serde(default)]
    code: i64,
    #[serde(borrow, default)]
    message: Cow<'a, str>,
    #[serde(borrow, default)]
    data: Option<&'a RawValue>,
}

/// Keeps `"result": null` apart from an absent `result`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&'de RawValue>::deserialize(d).map(Some)
}

/// The start of a body for error messages: lossy UTF-8, at most 256 bytes.
pub(crate) fn snippet(body: &[u8]) -> String {
    const MAX: usize = 256;
    if body.len() <= MAX {
        format!("{:?}", String::from_utf8_lossy(body))
    } else {
        format!(
            "{:?}… ({} bytes)",
            String::from_utf8_lossy(&body[..MAX]),
            body.len()
        )
    }
}

fn numeric_id(id: Option<&RawValue>) -> Option<u64> {
    id.and_then(|raw| raw.get().parse::<u64>().ok())
}

impl Wire<'_> {
    fn into_result(self) -> Result<Reply, RpcError> {
        if let Some(err) = self.error {
            return Err(RpcError::Rpc {
                code: err.code,
                message: err.message.into_owned(),
                data: err.data.and_then(|d| serde_json::from_str(d.get()).ok()),
            });
        }
        match self.result {
            Some(result) => Ok(Reply {
                id: numeric_id(self.id),
                result: result.to_owned(),
            }),
            None => Err(RpcError::invalid(
                "JSON-RPC response has neither \"result\" nor \"error\"",
            )),
        }
    }
}

/// Parses a single JSON-RPC response body.
///
/// Returns the [`Reply`] for a `result`, [`RpcError::Rpc`] for an `error`
/// object, and [`RpcError::InvalidResponse`] (with the start of the body) for
/// anything else. Only the top-level object is parsed: the result stays raw
/// text, so parsing costs one pass over the body and one small allocation.
pub fn parse_response(body: &[u8]) -> Result<Reply, RpcError> {
    if let Some(reply) = fast_string_result(body) {
        return Ok(reply);
    }
    match serde_json::from_slice::<Wire<'_>>(body) {
        Ok(wire) => wire.into_result(),
        Err(e) => Err(RpcError::invalid(format!(
            "not a JSON-RPC response ({e}): {}",
            snippet(body)
        ))),
    }
}

/// The shape geth, reth and the null sink give a string result, e.g. a
/// transaction hash: `{"jsonrpc":"2.0","id":7,"result":"0x…"}` (plus
/// trailing whitespace). Recognised byte by byte, without the general
/// parser; anything else returns `None` and goes the general way.
fn fast_string_result(body: &[u8]) -> Option<Reply> {
    const HEAD: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":";
    const MID: &[u8] = b",\"result\":\"";
    let rest = body.strip_prefix(HEAD)?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 20 || (digits > 1 && rest[0] == b'0') {
        return None;
    }
    let id: u64 = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
    let rest = rest[digits..].strip_prefix(MID)?;
    // The string must end at the first quote, with no escapes or controls.
    let len = memchr::memchr2(b'"', b'\\', rest)?;
    if rest[len] != b'"' {
        return None;
    }
    let value = &rest[..len];
    if !value.iter().all(|&b| (0x20..0x80).contains(&b)) {
        return None;
    }
    let tail = rest[len + 1..].strip_prefix(b"}")?;
    if !tail.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    // ASCII without quotes, escapes or controls: valid JSON string text.
    let mut raw = String::with_capacity(len + 2);
    raw.push('"');
    raw.push_str(std::str::from_utf8(value).ok()?);
    raw.push('"');
    let result = RawValue::from_string(raw).ok()?;
    Some(Reply {
        id: Some(id),
        result,
    })
}

/// Parses a batch response body into one result per request, matched by id.
///
/// `first_id` is the id of the first request; request `i` had id
/// `first_id + i`. A top-level error object (a server that rejects the whole
/// batch) is returned as the outer error.
pub(crate) fn parse_batch(
    body: &[u8],
    first_id: u64,
    n: usize,
) -> Result<Vec<Result<Reply, RpcError>>, RpcError> {
    let first = body.iter().find(|b| !b.is_ascii_whitespace()).copied();
    if first == Some(b'{') {
        // Some servers answer a batch they refuse with one error object.
        return match parse_response(body) {
            Err(e) => Err(e),
            Ok(_) => Err(RpcError::invalid(format!(
                "batch request answered with a single result object: {}",
                snippet(body)
            ))),
        };
    }
    let wires: Vec<Wire<'_>> = serde_json::from_slice(body).map_err(|e| {
        RpcError::invalid(format!(
            "not a JSON-RPC batch response ({e}): {}",
            snippet(body)
        ))
    })?;
    let mut out: Vec<Option<Result<Reply, RpcError>>> = (0..n).map(|_| None).collect();
    for wire in wires {
        let slot = numeric_id(wire.id)
            .and_then(|id| id.checked_sub(first_id))
            .and_then(|i| usize::try_from(i).ok())
            .filter(|&i| i < n);
        match slot {
            Some(i) if out[i].is_none() => out[i] = Some(wire.into_result()),
            Some(i) => {
                return Err(RpcError::invalid(format!(
                    "batch response has two answers for id {}",
                    first_id + i as u64
                )));
            }
            None => {
                let id = wire.id.map_or("none", |r| r.get()).to_owned();
                return Err(RpcError::invalid(format!(
                    "batch response has an answer with id {id}, which was not requested"
                )));
            }
        }
    }
    Ok(out
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            r.unwrap_or_else(|| {
                Err(RpcError::invalid(format!(
                    "batch response has no answer for id {}",
                    first_id + i as u64
                )))
            })
        })
        .collect())
}

/// Serialises `{"jsonrpc":"2.0","id":id,"method":method,"params":params}`.
pub(crate) fn write_request(out: &mut Vec<u8>, id: u64, method: &str, params: &serde_json::Value) {
    #[derive(serde::Serialize)]
    struct Request<'a> {
        jsonrpc: &'static str,
        id: u64,
        method: &'a str,
        params: &'a serde_json::Value,
    }
    // Serialising strings and a Value into a Vec cannot fail.
    let _ = serde_json::to_writer(
        out,
        &Request {
            jsonrpc: "2.0",
            id,
            method,
            params,
        },
    );
}

/// Builds an `eth_sendRawTransaction` request body for an already
/// hex-encoded signed transaction (with or without the `0x` prefix), without
/// going through `serde_json`.
///
/// ```
/// let body = dyno_rpc::send_raw_transaction_body(7, "0x02f8");
/// assert_eq!(
///     &body[..],
///     br#"{"jsonrpc":"2.0","id":7,"method":"eth_sendRawTransaction","params":["0x02f8"]}"#
/// );
/// ```
pub fn send_raw_transaction_body(id: u64, raw_tx_hex: &str) -> bytes::Bytes {
    let hex = raw_tx_hex.strip_prefix("0x").unwrap_or(raw_tx_hex);
    let mut out = Vec::with_capacity(80 + hex.len());
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(id.to_string().as_bytes());
    out.extend_from_slice(b",\"method\":\"eth_sendRawTransaction\",\"params\":[\"0x");
    out.extend_from_slice(hex.as_bytes());
    out.extend_from_slice(b"\"]}");
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_result_and_error() {
        let r = parse_response(br#"{"jsonrpc":"2.0","id":7,"result":"0xabc"}"#).unwrap();
        assert_eq!(r.id, Some(7));
        assert_eq!(r.as_str(), Some("0xabc"));
        assert_eq!(r.raw(), "\"0xabc\"");

        let r = parse_response(br#"{"jsonrpc":"2.0","id":"x","result":null}"#).unwrap();
        assert_eq!((r.id, r.raw(), r.as_str()), (None, "null", None));

        let r = parse_response(br#"{"id":1,"result":{"a":[1,2]},"error":null}"#).unwrap();
        assert_eq!(r.raw(), r#"{"a":[1,2]}"#);
        assert_eq!(r.into_value().unwrap(), serde_json::json!({"a": [1, 2]}));

        let r = parse_response(br#"{"result":"a\"b"}"#).unwrap();
        assert_eq!(r.as_str(), None);
        assert_eq!(r.deserialize::<String>().unwrap(), "a\"b");

        let e = parse_response(
            br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"nonce too low: next nonce 5, tx nonce 3","data":{"x":1}}}"#,
        )
        .unwrap_err();
        match &e {
            RpcError::Rpc {
                code,
                message,
                data,
            } => {
                assert_eq!(*code, -32000);
                assert_eq!(message, "nonce too low: next nonce 5, tx nonce 3");
                assert_eq!(data, &Some(serde_json::json!({"x": 1})));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(e.class().as_str(), "nonce_too_low");
        assert_eq!(
            e.to_string(),
            "JSON-RPC error -32000: nonce too low: next nonce 5, tx nonce 3 (data: {\"x\":1})"
        );

        // Escaped message text is unescaped.
        let e =
            parse_response(br#"{"id":1,"error":{"code":3,"message":"execution reverted: \"x\""}}"#)
                .unwrap_err();
        assert!(e.to_string().contains("execution reverted: \"x\""), "{e}");
    }

    #[test]
    fn fast_path_agrees_with_the_general_parser() {
        let cases: &[&[u8]] = &[
            br#"{"jsonrpc":"2.0","id":7,"result":"0xabc"}"#,
            b"{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":\"\"}\n",
            br#"{"jsonrpc":"2.0","id":18446744073709551615,"result":"0x1"}"#,
        ];
        for body in cases {
            let fast = fast_string_result(body).expect("fast path");
            let wire: Wire<'_> = serde_json::from_slice(body).unwrap();
            let slow = wire.into_result().unwrap();
            assert_eq!((fast.id, fast.raw()), (slow.id, slow.raw()));
        }
        // Shapes the fast path leaves to the general parser, which still
        // gets them right.
        let general: &[(&[u8], Option<u64>, &str)] = &[
            (br#"{"jsonrpc":"2.0","id":07,"result":"x"}"#, None, ""),
            (
                br#"{"jsonrpc":"2.0","id":1,"result":"a\"b"}"#,
                Some(1),
                r#""a\"b""#,
            ),
            (
                br#"{"jsonrpc":"2.0","id":1,"result":"x","error":null}"#,
                Some(1),
                r#""x""#,
            ),
            (br#"{"jsonrpc":"2.0","id":1,"result":"x"} x"#, None, ""),
            (br#"{"jsonrpc":"2.0","id":1,"result":"x"}}"#, None, ""),
            (
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"é\"}".as_bytes(),
                Some(1),
                "\"é\"",
            ),
            (
                br#"{"jsonrpc":"2.0","id":99999999999999999999,"result":"x"}"#,
                None,
                r#""x""#,
            ),
        ];
        for (body, id, raw) in general {
            assert!(
                fast_string_result(body).is_none(),
                "{}",
                String::from_utf8_lossy(body)
            );
            match parse_response(body) {
                Ok(r) => assert_eq!((r.id, r.raw()), (*id, *raw)),
                Err(e) => {
                    assert!(raw.is_empty(), "{e}");
                    assert_eq!(e.class().as_str(), "invalid_response");
                }
            }
        }
    }

    #[test]
    fn invalid_bodies_are_invalid_response() {
        for body in [
            &b""[..],
            b"<html>",
            b"{\"id\":1}",
            b"[1]",
            b"{\"id\":1,\"result\":",
        ] {
            let e = parse_response(body).unwrap_err();
            assert_eq!(e.class().as_str(), "invalid_response", "{e}");
        }
        let big = vec![b'x'; 1000];
        let e = parse_response(&big).unwrap_err().to_string();
        assert!(e.contains("(1000 bytes)"), "{e}");
    }

    #[test]
    fn batch_matches_ids_out_of_order() {
        let body = br#"[{"id":12,"result":"0x2"},{"id":10,"result":"0x0"},{"id":11,"error":{"code":-32601,"message":"the method x does not exist"}}]"#;
        let out = parse_batch(body, 10, 3).unwrap();
        assert_eq!(out[0].as_ref().unwrap().as_str(), Some("0x0"));
        assert!(matches!(out[1], Err(RpcError::Rpc { code: -32601, .. })));
        assert_eq!(out[2].as_ref().unwrap().as_str(), Some("0x2"));

        let out = parse_batch(br#"[{"id":10,"result":1}]"#, 10, 2).unwrap();
        assert!(
            out[1]
                .as_ref()
                .unwrap_err()
                .to_string()
                .contains("no answer for id 11")
        );
        assert!(parse_batch(br#"[{"id":99,"result":1}]"#, 10, 2).is_err());
        assert!(parse_batch(br#"[{"id":10,"result":1},{"id":10,"result":1}]"#, 10, 2).is_err());
        let e = parse_batch(
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large"}}"#,
            10,
            2,
        )
        .unwrap_err();
        assert!(matches!(e, RpcError::Rpc { code: -32600, .. }));
    }

    #[test]
    fn request_encoding() {
        let mut v = Vec::new();
        write_request(
            &mut v,
            5,
            "eth_getBalance",
            &serde_json::json!(["0x1", "latest"]),
        );
        assert_eq!(
            String::from_utf8(v).unwrap(),
            r#"{"jsonrpc":"2.0","id":5,"method":"eth_getBalance","params":["0x1","latest"]}"#
        );
        let b = send_raw_transaction_body(1, "abcd");
        let v: serde_json::Value = serde_json::from_slice(&b).unwrap();
        assert_eq!(v["params"][0], "0xabcd");
    }
}
