//! The built-in suites' inputs in the adapter protocol's portable form
//! (`docs/adapter-protocol.md`, "Case schemas"), so that Go, Java, Python
//! and Node implementations are measured on exactly the inputs the Rust
//! ones are, and checked against exactly the same expected outputs.
//!
//! [`cases`] builds a benchmark id's cases from `vectors/`; [`check`] is the
//! orchestrator's own check of the outputs a worker returns (the worker
//! checks them too; this catches a worker whose comparison is broken).

use std::path::Path;

use dyno_protocol::Case;
use dyno_workload::{BuildError, Ctx, hex, unhex};
use serde_json::{Map, Value, json};

use crate::{hash, jsonrpc, rlp, trie};

/// The cases of `id` for other runtimes' adapters, or `None` if this crate
/// does not export it (the definitions that carry this function say which
/// do).
pub fn cases(ctx: &Ctx, id: &str) -> Option<Result<Vec<Case>, BuildError>> {
    let mut parts = id.splitn(3, '/');
    let (group, op, input) = (parts.next()?, parts.next()?, parts.next()?);
    match group {
        "hash" => {
            let (_, len) = hash::SIZES.into_iter().find(|(s, _)| *s == input)?;
            Some(hash_cases(ctx, op, len, id))
        }
        "crypto" => Some(crypto_cases(ctx, op)),
        "trie" => Some(trie_cases(ctx, op, input, id)?),
        "rlp" if op == "decode-generic" || op == "encode-generic" => {
            let cases = rlp::generic_cases(ctx, input)?;
            Some(cases.map(|cases| {
                cases
                    .into_iter()
                    .map(|(bytes, tree)| {
                        if op == "decode-generic" {
                            let c = tree.counts();
                            Case::new(
                                [("encoded", json!(full_hex(&bytes)))],
                                [
                                    ("lists", json!(c.lists)),
                                    ("strings", json!(c.strings)),
                                    ("bytes", json!(c.bytes)),
                                    ("digest", json!(full_hex(&tree.digest()))),
                                ],
                            )
                        } else {
                            Case::new(
                                [("tree", tree.to_json())],
                                [("encoded", json!(full_hex(&bytes)))],
                            )
                        }
                    })
                    .collect()
            }))
        }
        "jsonrpc" => {
            let n: usize = input.parse().ok()?;
            if !jsonrpc::SIZES.contains(&n) {
                return None;
            }
            let c = jsonrpc::portable_cases(n);
            let expected = match op {
                "getlogs-raw" => c.raw_json(),
                "getlogs-typed" => c.typed_json(),
                _ => return None,
            };
            let Value::Object(expected) = expected else {
                unreachable!("summaries are objects")
            };
            let mut input = Map::new();
            input.insert("body".into(), Value::String(c.body));
            Some(Ok(vec![Case { input, expected }]))
        }
        _ => None,
    }
}

fn hash_cases(ctx: &Ctx, alg: &str, len: usize, id: &str) -> Result<Vec<Case>, BuildError> {
    Ok(hash::load(ctx, alg, len, id)?
        .into_iter()
        .map(|c| {
            Case::new(
                [("data", json!(full_hex(&c.data)))],
                [("digest", json!(full_hex(&c.digest)))],
            )
        })
        .collect())
}

/// `trie/state-root/<N>`: the generated accounts in columns; the worker
/// hashes each address, RLP-encodes `[nonce, balance, storage_root,
/// code_hash]`, sorts by hashed key and builds the trie, inside the timed
/// operation. `trie/storage-root/<N>-slots`: keys and values as 32-byte
/// words; the trie key is `keccak256(key)`, the value the RLP of the
/// minimal big-endian integer. `None` for other trie ids.
fn trie_cases(ctx: &Ctx, op: &str, input: &str, id: &str) -> Option<Result<Vec<Case>, BuildError>> {
    let arr = |v: Vec<Value>| Value::Array(v);
    match op {
        "state-root" => {
            let n: usize = input.parse().ok()?;
            if !trie::STATE_SIZES.contains(&n) {
                return None;
            }
            let accounts = trie::accounts(n);
            Some(trie::expected_state_root(ctx, n, id).map(|root| {
                vec![Case::new(
                    [
                        (
                            "addresses",
                            arr(accounts
                                .iter()
                                .map(|a| json!(full_hex(&a.address)))
                                .collect()),
                        ),
                        (
                            "nonces",
                            arr(accounts.iter().map(|a| json!(a.nonce)).collect()),
                        ),
                        (
                            "balances",
                            arr(accounts
                                .iter()
                                .map(|a| json!(format!("{:#x}", a.balance)))
                                .collect()),
                        ),
                        (
                            "storage_roots",
                            arr(accounts
                                .iter()
                                .map(|a| json!(full_hex(&a.storage_root)))
                                .collect()),
                        ),
                        (
                            "code_hashes",
                            arr(accounts
                                .iter()
                                .map(|a| json!(full_hex(&a.code_hash)))
                                .collect()),
                        ),
                    ],
                    [("root", json!(full_hex(&root)))],
                )]
            }))
        }
        "storage-root" => {
            let n: usize = input.strip_suffix("-slots")?.parse().ok()?;
            if n != trie::STORAGE_SLOTS {
                return None;
            }
            let slots = trie::slots(n);
            Some(trie::expected_storage_root(ctx, n, id).map(|root| {
                vec![Case::new(
                    [
                        (
                            "keys",
                            arr(slots.iter().map(|s| json!(full_hex(&s.key))).collect()),
                        ),
                        (
                            "values",
                            arr(slots.iter().map(|s| json!(full_hex(&s.value))).collect()),
                        ),
                    ],
                    [("root", json!(full_hex(&root)))],
                )]
            }))
        }
        _ => None,
    }
}

pub use dyno_workload::full_hex;

fn read(ctx: &Ctx, file: &str) -> Result<(std::path::PathBuf, Vec<Value>), BuildError> {
    let path = ctx.vectors.join(file);
    let text = std::fs::read_to_string(&path).map_err(|e| BuildError::vectors(&path, e))?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| BuildError::vectors(&path, e))?;
    let cases = doc
        .get("cases")
        .and_then(Value::as_array)
        .cloned()
        .ok_or_else(|| BuildError::vectors(&path, "no \"cases\" array"))?;
    Ok((path, cases))
}

/// A hex field of a vector case, normalised to lower case.
fn field(path: &Path, k: usize, case: &Value, name: &str) -> Result<Value, BuildError> {
    let mut v = case;
    for part in name.split('.') {
        v = v.get(part).unwrap_or(&Value::Null);
    }
    match v {
        Value::String(s) => {
            let bytes = unhex(s)
                .map_err(|e| BuildError::vectors(path, format!("case {k}, {name}: {e}")))?;
            Ok(json!(full_hex(&bytes)))
        }
        Value::Number(_) | Value::Bool(_) => Ok(v.clone()),
        _ => Err(BuildError::vectors(
            path,
            format!("case {k}: missing field {name}"),
        )),
    }
}

fn crypto_cases(ctx: &Ctx, op: &str) -> Result<Vec<Case>, BuildError> {
    let (curve, what) = op.split_once('-').expect("crypto ops are curve-op");
    let (path, raw) = read(ctx, &format!("{curve}.json"))?;
    let f = |k: usize, c: &Value, n: &str| field(&path, k, c, n);
    raw.iter()
        .enumerate()
        .map(|(k, c)| {
            let get = |n: &str| f(k, c, n);
            Ok(match (curve, what) {
                ("secp256k1", "sign") => Case::new(
                    [
                        ("private_key", get("private_key")?),
                        ("message_hash", get("message_hash")?),
                    ],
                    [("r", get("r")?), ("s", get("s")?), ("v", get("v")?)],
                ),
                ("secp256k1", "verify") => Case::new(
                    [
                        ("public_key", get("public_key")?),
                        ("message_hash", get("message_hash")?),
                        ("r", get("r")?),
                        ("s", get("s")?),
                    ],
                    [("valid", json!(true))],
                ),
                ("secp256k1", "recover") => Case::new(
                    [
                        ("message_hash", get("message_hash")?),
                        ("r", get("r")?),
                        ("s", get("s")?),
                        ("v", get("v")?),
                    ],
                    [("public_key", get("public_key")?)],
                ),
                ("secp256k1", "keygen") => Case::new(
                    [("private_key", get("private_key")?)],
                    [("public_key", get("public_key")?)],
                ),
                (_, "sign") => Case::new(
                    [
                        ("private_key", get("private_key")?),
                        ("public_key", get("public_key")?),
                        ("message", get("message")?),
                    ],
                    [("r", get("rfc6979.r")?), ("s", get("rfc6979.s")?)],
                ),
                (_, "verify") => Case::new(
                    [
                        ("public_key", get("public_key")?),
                        ("message", get("message")?),
                        ("r", get("random.r")?),
                        ("s", get("random.s")?),
                    ],
                    [("valid", json!(true))],
                ),
                _ => unreachable!("CRYPTO lists only these ops"),
            })
        })
        .collect()
}

/// A returned output that is wrong: the field, what was expected, what came.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wrong {
    /// The output field.
    pub field: String,
    /// Expected value, for a person.
    pub expected: String,
    /// Returned value.
    pub actual: String,
}

/// Check one returned output against its case. Byte strings compare
/// case-insensitively. A P-256/P-384 signature that is not the RFC 6979 one
/// passes if it verifies under the case's public key (random-nonce
/// signers); this function verifies it with the RustCrypto crates.
pub fn check(id: &str, case: &Case, output: &Map<String, Value>) -> Result<(), Wrong> {
    let first_wrong = case.expected.iter().find_map(|(k, want)| {
        let got = output.get(k).unwrap_or(&Value::Null);
        (!same(want, got)).then(|| Wrong {
            field: k.clone(),
            expected: show(want),
            actual: show(got),
        })
    });
    let Some(wrong) = first_wrong else {
        return Ok(());
    };
    let nist = match id {
        "crypto/p256-sign/32B" => Some(Nist::P256),
        "crypto/p384-sign/32B" => Some(Nist::P384),
        _ => None,
    };
    match nist {
        Some(curve) if curve.verifies(case, output) => Ok(()),
        Some(_) => Err(Wrong {
            expected: format!(
                "the RFC 6979 signature, or one that verifies ({} {})",
                wrong.field, wrong.expected
            ),
            actual: format!("{}, which does not verify", wrong.actual),
            ..wrong
        }),
        None => Err(wrong),
    }
}

fn same(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::String(a), Value::String(b)) => a.eq_ignore_ascii_case(b),
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        _ => want == got,
    }
}

fn show(v: &Value) -> String {
    match v {
        Value::String(s) => match unhex(s) {
            Ok(b) => hex(b),
            Err(_) => s.clone(),
        },
        Value::Null => "nothing".into(),
        other => other.to_string(),
    }
}

#[derive(Clone, Copy)]
enum Nist {
    P256,
    P384,
}

impl Nist {
    fn verifies(self, case: &Case, output: &Map<String, Value>) -> bool {
        let bytes = |m: &Map<String, Value>, k: &str| {
            m.get(k).and_then(Value::as_str).and_then(|s| unhex(s).ok())
        };
        let (Some(pk), Some(msg), Some(r), Some(s)) = (
            bytes(&case.input, "public_key"),
            bytes(&case.input, "message"),
            bytes(output, "r"),
            bytes(output, "s"),
        ) else {
            return false;
        };
        let mut rs = r;
        rs.extend_from_slice(&s);
        match self {
            Self::P256 => {
                use p256::ecdsa::signature::Verifier as _;
                let (Ok(key), Ok(sig)) = (
                    p256::ecdsa::VerifyingKey::from_sec1_bytes(&pk),
                    p256::ecdsa::Signature::from_slice(&rs),
                ) else {
                    return false;
                };
                key.verify(&msg, &sig).is_ok()
            }
            Self::P384 => {
                use p384::ecdsa::signature::Verifier as _;
                let (Ok(key), Ok(sig)) = (
                    p384::ecdsa::VerifyingKey::from_sec1_bytes(&pk),
                    p384::ecdsa::Signature::from_slice(&rs),
                ) else {
                    return false;
                };
                key.verify(&msg, &sig).is_ok()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::ctx;

    #[test]
    fn every_id_exports_cases_with_its_schema() {
        let ctx = ctx();
        let mut ids: Vec<String> = crate::catalog()
            .into_iter()
            .filter(|d| d.cases.is_some())
            .map(|d| d.id())
            .collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), 66, "the micro ids other runtimes run");
        for id in ids {
            let cases = cases(&ctx, &id).expect("exported").expect("loads");
            assert!(!cases.is_empty(), "{id}");
            let c = &cases[0];
            if id.starts_with("hash/") {
                assert!(c.input.contains_key("data") && c.expected.contains_key("digest"));
            }
            // the expected output passes the orchestrator's own check
            assert_eq!(check(&id, c, &c.expected), Ok(()), "{id}");
        }
        // An algorithm the suite does not have: no vectors, an error.
        assert!(cases(&ctx, "hash/md5/32B").is_some_and(|r| r.is_err()));
        assert!(cases(&ctx, "rlp/encode/tiny-account").is_none());
    }

    #[test]
    fn hash_inputs_are_the_suites_inputs() {
        let c = &cases(&ctx(), "hash/keccak256/32B").unwrap().unwrap()[0];
        let data = unhex(c.input["data"].as_str().unwrap()).unwrap();
        assert_eq!(data.len(), 32);
        let digest = unhex(c.expected["digest"].as_str().unwrap()).unwrap();
        assert_eq!(digest, hash::keccak256_tiny(&data));
    }

    #[test]
    fn check_catches_a_wrong_output_and_accepts_other_case() {
        let c = &cases(&ctx(), "hash/sha256/1B").unwrap().unwrap()[0];
        let mut out = c.expected.clone();
        let upper = out["digest"]
            .as_str()
            .unwrap()
            .to_uppercase()
            .replace("0X", "0x");
        out.insert("digest".into(), json!(upper));
        assert_eq!(check("hash/sha256/1B", c, &out), Ok(()));
        out.insert("digest".into(), json!("0x00"));
        let e = check("hash/sha256/1B", c, &out).unwrap_err();
        assert_eq!(e.field, "digest");
        assert_eq!(e.actual, "0x00");
        out.remove("digest");
        assert_eq!(
            check("hash/sha256/1B", c, &out).unwrap_err().actual,
            "nothing"
        );
    }

    #[test]
    fn a_random_nonce_nist_signature_passes_only_if_it_verifies() {
        let ctx = ctx();
        let verify = &cases(&ctx, "crypto/p256-verify/32B").unwrap().unwrap()[0];
        let sign = &cases(&ctx, "crypto/p256-sign/32B").unwrap().unwrap()[0];
        // the verify case carries a random-nonce signature of the same key and message
        let mut out = Map::new();
        out.insert("r".into(), verify.input["r"].clone());
        out.insert("s".into(), verify.input["s"].clone());
        assert_ne!(out["r"], sign.expected["r"]);
        assert_eq!(check("crypto/p256-sign/32B", sign, &out), Ok(()));
        out.insert("s".into(), sign.expected["s"].clone());
        assert!(check("crypto/p256-sign/32B", sign, &out).is_err());
        // a secp256k1 signature gets no such allowance
        let k1 = &cases(&ctx, "crypto/secp256k1-sign/recid-direct")
            .unwrap()
            .unwrap()[0];
        let mut bad = k1.expected.clone();
        bad.insert("v".into(), json!(1 - bad["v"].as_u64().unwrap()));
        assert_eq!(
            check("crypto/secp256k1-sign/recid-direct", k1, &bad)
                .unwrap_err()
                .field,
            "v"
        );
    }
}
