//! The suite's cases in the adapter protocol's portable form, for core-geth
//! in `adapters/go-etc` (`docs/adapter-protocol.md`, "Case schemas").
//!
//! `pow/hashimoto-full/epoch0` is verified on block 1 and the 16 nonces
//! after it (hashimoto-light's answers), and timed as dyno's own
//! measurement is: case 0 says `"sweep": true`, so the worker hashes case
//! 0's header with a new nonce every operation instead of cycling the
//! cases, whose dataset pages would stay in the CPU's cache (docs/pow.md).
//! Every case names the folder of dyno's dataset file (`"dir"`), which the
//! worker reads instead of generating its own.

use alloy_rlp::Encodable;
use dyno_protocol::Case;
use dyno_workload::{BuildError, Ctx, full_hex};
use serde_json::{Map, Value, json};

use crate::Pow;
use crate::bench::{block1, block1_input, block1_pow, cache, dataset_dir, etchash_cases};

fn case(input: Value, expected: Value) -> Case {
    let map = |v: Value| match v {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    Case {
        input: map(input),
        expected: map(expected),
    }
}

/// The portable cases of `id`, or `None` if it is not exported.
pub fn cases(_ctx: &Ctx, id: &str) -> Option<Result<Vec<Case>, BuildError>> {
    Some(Ok(match id {
        "pow/hashimoto-light/epoch0" => {
            let h = block1();
            let seal = match crate::seal_hash(&h) {
                Ok(s) => s,
                Err(e) => {
                    return Some(Err(BuildError::Setup {
                        what: "block 1's seal hash".into(),
                        reason: e.to_string(),
                    }));
                }
            };
            let pow = block1_pow();
            vec![case(
                json!({"header_hash": full_hex(seal.as_slice()), "nonce": full_hex(&h.nonce.0)}),
                json!({"mix_digest": full_hex(pow.mix_digest.as_slice()), "result": full_hex(pow.result.as_slice())}),
            )]
        }
        "pow/hashimoto-full/epoch0" => {
            let (seal, nonce) = match block1_input() {
                Ok(x) => x,
                Err(e) => return Some(Err(e)),
            };
            let light = cache();
            let dir = dataset_dir().to_string_lossy().into_owned();
            let pow_json = |p: &crate::PowHash| json!({"mix_digest": full_hex(p.mix_digest.as_slice()), "result": full_hex(p.result.as_slice())});
            (0..=16u64)
                .map(|k| {
                    let n = nonce.wrapping_add(k);
                    let want = if k == 0 {
                        block1_pow()
                    } else {
                        light.hashimoto(seal, n)
                    };
                    let mut input = json!({
                        "header_hash": full_hex(seal.as_slice()),
                        "nonce": full_hex(&n.to_be_bytes()),
                        "dir": dir,
                    });
                    if k == 0 {
                        input["sweep"] = json!(true);
                    }
                    case(input, pow_json(&want))
                })
                .collect()
        }
        "pow/verify-header/mainnet-1" => {
            let good = block1();
            let mut bad = block1();
            bad.nonce.0[7] ^= 1;
            [(good, true), (bad, false)]
                .into_iter()
                .map(|(h, valid)| {
                    let mut rlp = Vec::new();
                    h.encode(&mut rlp);
                    case(json!({"header": full_hex(&rlp)}), json!({"valid": valid}))
                })
                .collect()
        }
        "pow/etchash-epoch/ecip1099" => etchash_cases()
            .into_iter()
            .map(|((block, pow), p)| {
                let fork = match pow {
                    Pow::Etchash { ecip1099_block } => json!(ecip1099_block),
                    Pow::Ethash => Value::Null,
                };
                case(
                    json!({"block": block, "ecip1099_block": fork}),
                    json!({
                        "epoch_length": p.epoch_length,
                        "epoch": p.epoch,
                        "seed_hash": full_hex(p.seed_hash.as_slice()),
                        "cache_size": p.cache_size,
                        "full_size": p.full_size,
                    }),
                )
            })
            .collect(),
        _ => return None,
    }))
}
