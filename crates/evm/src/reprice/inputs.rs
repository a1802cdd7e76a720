//! Inputs made fresh for every call, for the precompiles whose input must
//! be a valid structure that no single changed word keeps valid (`vary =
//! "calldata"`): the pairings and POINT_EVALUATION. Each call's whole input
//! comes from the transaction's calldata, made here from a global call
//! index, so no two calls of a run share one.
//!
//! - `bn254-pairing` (EIP-197) and `bls12-pairing` (EIP-2537), `units`
//!   pairs (even): pairs `(P, Q), (−P, Q)` with `P = k·G1` for a `k` drawn
//!   from the call's index and `Q` the first G2 point of the series' vector;
//!   the product of the pairings is 1, so every call does the whole work
//!   and returns true.
//! - `kzg-point-evaluation` (EIP-4844): the degree-1 polynomial
//!   `p(X) = a + bX`, committed as `C = a·[1] + b·[τ]` with the ceremony's
//!   `[τ]G1` (`vectors/kzg-tau.json`); at `z` the value is `a + bz` and the
//!   proof `b·[1]`, so each call opens the same commitment at a new point.

use ark_ec::{AffineRepr, CurveGroup, PrimeGroup};
use ark_ff::{BigInteger, PrimeField};
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use dyno_workload::Ctx;
use sha2::{Digest, Sha256};

/// The precompiles whose inputs this module makes.
pub const MADE: [&str; 3] = ["bn254-pairing", "bls12-pairing", "kzg-point-evaluation"];

/// What one series' calls are made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Feed {
    /// Pairs `(P, Q), (−P, Q)`: the encoded G2 point `q`, `pairs` pairs.
    Bn254 {
        q: Vec<u8>,
        pairs: u64,
    },
    Bls12 {
        q: Vec<u8>,
        pairs: u64,
    },
    /// Openings of one degree-1 commitment.
    Kzg {
        commitment: [u8; 48],
        proof: [u8; 48],
    },
}

/// The coefficients of the KZG series' polynomial.
const KZG_A: u64 = 0x00d1_e0a0;
const KZG_B: u64 = 0x00d1_e0b0;

fn hex48(v: &serde_json::Value, key: &str) -> Result<[u8; 48], String> {
    let text = v[key]
        .as_str()
        .ok_or_else(|| format!("vectors/kzg-tau.json has no {key}"))?;
    let bytes = alloy_primitives::hex::decode(text).map_err(|e| format!("{key}: {e}"))?;
    bytes
        .try_into()
        .map_err(|_| format!("{key}: a compressed G1 point is 48 bytes"))
}

fn compress(p: ark_bls12_381::G1Affine) -> [u8; 48] {
    let mut out = Vec::with_capacity(48);
    p.serialize_compressed(&mut out)
        .expect("a point serializes");
    out.try_into().expect("48 bytes")
}

impl Feed {
    /// The feed of `precompile` for a series of `units` pairs whose vector
    /// input is `template`.
    pub fn new(ctx: &Ctx, precompile: &str, template: &[u8], units: u64) -> Result<Self, String> {
        match precompile {
            "bn254-pairing" | "bls12-pairing" => {
                let (g1, g2) = if precompile == "bn254-pairing" {
                    (64, 128)
                } else {
                    (128, 256)
                };
                if units == 0 || units % 2 == 1 {
                    return Err(format!(
                        "units {units}: pairs come as (P, Q), (-P, Q), so an even number"
                    ));
                }
                let q = template
                    .get(g1..g1 + g2)
                    .ok_or("the vector holds no pair to take a G2 point from")?
                    .to_vec();
                Ok(if precompile == "bn254-pairing" {
                    Self::Bn254 { q, pairs: units }
                } else {
                    Self::Bls12 { q, pairs: units }
                })
            }
            "kzg-point-evaluation" => {
                let path = ctx.vectors.join("kzg-tau.json");
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                let v: serde_json::Value =
                    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
                let read = |key: &str| -> Result<ark_bls12_381::G1Affine, String> {
                    let bytes = hex48(&v, key)?;
                    ark_bls12_381::G1Affine::deserialize_compressed(&bytes[..])
                        .map_err(|e| format!("vectors/kzg-tau.json {key}: {e}"))
                };
                let one = read("g1_monomial_0")?;
                let tau = read("g1_monomial_1")?;
                if one != ark_bls12_381::G1Affine::generator() {
                    return Err(
                        "vectors/kzg-tau.json: g1_monomial_0 is not the G1 generator: the encoding is not the one expected".into(),
                    );
                }
                let (a, b) = (
                    ark_bls12_381::Fr::from(KZG_A),
                    ark_bls12_381::Fr::from(KZG_B),
                );
                let commitment = (one * a + tau * b).into_affine();
                let proof = (one * b).into_affine();
                Ok(Self::Kzg {
                    commitment: compress(commitment),
                    proof: compress(proof),
                })
            }
            other => Err(format!(
                "vary = \"calldata\" makes inputs for {} only, not {other}",
                MADE.join(", ")
            )),
        }
    }

    /// Bytes of one call's input.
    pub fn len(&self) -> usize {
        match self {
            Self::Bn254 { pairs, .. } => 192 * *pairs as usize,
            Self::Bls12 { pairs, .. } => 384 * *pairs as usize,
            Self::Kzg { .. } => 192,
        }
    }

    /// Never empty; for clippy's `len` rule.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The input of call `index` (distinct for every index).
    pub fn input(&self, index: u64) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        match self {
            Self::Bn254 { q, pairs } => {
                for j in 0..pairs / 2 {
                    let k = ark_bn254::Fr::from(index * 64 + j + 1);
                    let p = (ark_bn254::G1Projective::generator() * k).into_affine();
                    for point in [p, -p] {
                        let (x, y) = point.xy().expect("k·G is never infinity");
                        out.extend(x.into_bigint().to_bytes_be());
                        out.extend(y.into_bigint().to_bytes_be());
                        out.extend_from_slice(q);
                    }
                }
            }
            Self::Bls12 { q, pairs } => {
                for j in 0..pairs / 2 {
                    let k = ark_bls12_381::Fr::from(index * 64 + j + 1);
                    let p = (ark_bls12_381::G1Projective::generator() * k).into_affine();
                    for point in [p, -p] {
                        let (x, y) = point.xy().expect("k·G is never infinity");
                        for c in [x, y] {
                            out.extend([0u8; 16]);
                            out.extend(c.into_bigint().to_bytes_be());
                        }
                        out.extend_from_slice(q);
                    }
                }
            }
            Self::Kzg { commitment, proof } => {
                let mut hash: [u8; 32] = Sha256::digest(commitment).into();
                hash[0] = 0x01;
                // z full width (a hash of the index), so every call's
                // calldata costs the same whatever its index.
                let z = ark_bls12_381::Fr::from_be_bytes_mod_order(
                    alloy_primitives::keccak256(index.to_be_bytes()).as_slice(),
                );
                let y = ark_bls12_381::Fr::from(KZG_A) + ark_bls12_381::Fr::from(KZG_B) * z;
                out.extend(hash);
                out.extend(z.into_bigint().to_bytes_be());
                out.extend(y.into_bigint().to_bytes_be());
                out.extend(commitment);
                out.extend(proof);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use revm_precompile::{PrecompileSpecId, PrecompileStatus, Precompiles, u64_to_address};

    /// revm's precompile (libraries dyno did not write: arkworks, blst,
    /// c-kzg) on a made input: its output.
    fn run(address: u64, input: &[u8]) -> Vec<u8> {
        let p = Precompiles::new(PrecompileSpecId::OSAKA);
        let out = p
            .get(&u64_to_address(address))
            .unwrap()
            .execute(input, 1 << 40, 0)
            .unwrap();
        assert!(
            matches!(out.status, PrecompileStatus::Success),
            "{:?}",
            out.status
        );
        out.bytes.to_vec()
    }

    #[test]
    fn made_inputs_are_valid_true_and_distinct() {
        let ctx = crate::precompile::tests::ctx();
        let true32 = {
            let mut t = vec![0u8; 32];
            t[31] = 1;
            t
        };
        for (name, vector, address, pairs) in [
            ("bn254-pairing", "precompile/bn254-pairing/jeff1", 0x08, 2),
            ("bn254-pairing", "precompile/bn254-pairing/jeff1", 0x08, 4),
            (
                "bls12-pairing",
                "precompile/bls12-pairing/matter_pairing_0",
                0x0f,
                2,
            ),
            (
                "kzg-point-evaluation",
                "precompile/kzg-point-evaluation/pointEvaluation1",
                0x0a,
                1,
            ),
        ] {
            let (_, template) = crate::precompile::input_of(&ctx, vector).unwrap().unwrap();
            let feed = Feed::new(&ctx, name, &template, pairs).unwrap();
            let a = feed.input(7);
            let b = feed.input(8);
            assert_eq!(a.len(), feed.len());
            assert_ne!(a, b, "{name}");
            for input in [a, b] {
                let out = run(address, &input);
                if name == "kzg-point-evaluation" {
                    // FIELD_ELEMENTS_PER_BLOB ‖ BLS_MODULUS: verified.
                    assert_eq!(out.len(), 64);
                } else {
                    assert_eq!(out, true32, "{name} {pairs}");
                }
            }
        }
        // The check can fail: a made KZG input with y off by one is refused.
        let (_, t) =
            crate::precompile::input_of(&ctx, "precompile/kzg-point-evaluation/pointEvaluation1")
                .unwrap()
                .unwrap();
        let feed = Feed::new(&ctx, "kzg-point-evaluation", &t, 1).unwrap();
        let mut bad = feed.input(3);
        bad[95] ^= 1;
        let p = Precompiles::new(PrecompileSpecId::OSAKA);
        let out = p
            .get(&u64_to_address(0x0a))
            .unwrap()
            .execute(&bad, 1 << 40, 0);
        assert!(!matches!(
            out.map(|o| o.status),
            Ok(PrecompileStatus::Success)
        ));
        assert!(Feed::new(&ctx, "bn254-pairing", &t, 3).is_err());
    }
}
