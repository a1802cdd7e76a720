//! secp256k1 ECDSA, Ethereum's signature scheme: libsecp256k1 (through the
//! `secp256k1` crate, global context) against RustCrypto's `k256`.
//!
//! Every case of `vectors/secp256k1.json` is a private key, its public key,
//! a 32-byte message hash and the RFC 6979, low-s signature `(r, s, v)` over
//! it. Both libraries sign deterministically, so signing is compared with
//! the vector bit for bit.

use std::path::{Path, PathBuf};

use dyno_workload::{BenchDef, BuildError, Cases, Ctx, Workload, hex};
use k256::ecdsa::signature::hazmat::{PrehashSigner, PrehashVerifier};
use k256::elliptic_curve::sec1::ToEncodedPoint;
use secp256k1::ecdsa::{RecoverableSignature, RecoveryId, Signature};
use secp256k1::{Message, PublicKey, SECP256K1, SecretKey};
use serde::Deserialize;

use super::vectors::{self, bad, bytes};
use crate::version;

/// The vector file.
pub(super) const FILE: &str = "secp256k1.json";

const LIBSECP: &str = "libsecp256k1";
const K256: &str = "k256";

// ---------------------------------------------------------------------------
// Vectors

#[derive(Deserialize)]
struct Vector {
    private_key: String,
    public_key: String,
    message_hash: String,
    r: String,
    s: String,
    v: u64,
}

/// One case of the vector file, decoded and length-checked.
#[derive(Debug, Clone)]
pub(super) struct Case {
    pub(super) private_key: [u8; 32],
    pub(super) public_key: [u8; 65],
    pub(super) hash: [u8; 32],
    /// `r ‖ s`, 64 bytes.
    pub(super) rs: [u8; 64],
    pub(super) v: u8,
}

/// Read and decode every case of `secp256k1.json`.
pub(super) fn load(ctx: &Ctx) -> Result<(PathBuf, Vec<Case>), BuildError> {
    let file = vectors::load::<Vector>(ctx, FILE)?;
    let path = file.path;
    let cases = file
        .cases
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let r: [u8; 32] = bytes(&path, k, "r", &c.r)?;
            let s: [u8; 32] = bytes(&path, k, "s", &c.s)?;
            let mut rs = [0u8; 64];
            rs[..32].copy_from_slice(&r);
            rs[32..].copy_from_slice(&s);
            let v = match c.v {
                0 | 1 => c.v as u8,
                other => {
                    return Err(bad(
                        &path,
                        k,
                        "v",
                        format!("{other} is not a recovery id (0 or 1)"),
                    ));
                }
            };
            let public_key: [u8; 65] = bytes(&path, k, "public_key", &c.public_key)?;
            if public_key[0] != 0x04 {
                return Err(bad(
                    &path,
                    k,
                    "public_key",
                    "not an uncompressed SEC1 key (0x04…)",
                ));
            }
            Ok(Case {
                private_key: bytes(&path, k, "private_key", &c.private_key)?,
                public_key,
                hash: bytes(&path, k, "message_hash", &c.message_hash)?,
                rs,
                v,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((path, cases))
}

// ---------------------------------------------------------------------------
// Prepared inputs

/// A case in libsecp256k1's types.
#[derive(Debug, Clone, Copy)]
pub(super) struct Libsecp {
    pub(super) sk: SecretKey,
    pub(super) pk: PublicKey,
    pub(super) msg: Message,
    pub(super) sig: Signature,
    pub(super) rec: RecoverInput,
}

pub(super) fn libsecp(path: &Path, k: usize, c: &Case) -> Result<Libsecp, BuildError> {
    let lib = |field: &str, e: secp256k1::Error| {
        bad(path, k, field, format!("rejected by libsecp256k1: {e}"))
    };
    let sk = SecretKey::from_byte_array(c.private_key).map_err(|e| lib("private_key", e))?;
    let pk =
        PublicKey::from_byte_array_uncompressed(c.public_key).map_err(|e| lib("public_key", e))?;
    if PublicKey::from_secret_key(SECP256K1, &sk) != pk {
        return Err(bad(path, k, "public_key", "does not belong to private_key"));
    }
    let msg = Message::from_digest(c.hash);
    let sig = Signature::from_compact(&c.rs).map_err(|e| lib("r, s", e))?;
    let id = RecoveryId::try_from(i32::from(c.v)).map_err(|e| lib("v", e))?;
    let signature = RecoverableSignature::from_compact(&c.rs, id).map_err(|e| lib("r, s, v", e))?;
    Ok(Libsecp {
        sk,
        pk,
        msg,
        sig,
        rec: RecoverInput {
            message: msg,
            signature,
        },
    })
}

/// A case in k256's types.
#[derive(Debug, Clone)]
pub(super) struct K256Case {
    pub(super) sk: k256::SecretKey,
    pub(super) signing: k256::ecdsa::SigningKey,
    pub(super) vk: k256::ecdsa::VerifyingKey,
    pub(super) hash: [u8; 32],
    pub(super) sig: k256::ecdsa::Signature,
    pub(super) recid: k256::ecdsa::RecoveryId,
}

pub(super) fn k256_case(path: &Path, k: usize, c: &Case) -> Result<K256Case, BuildError> {
    let lib = |field: &str, e: &dyn std::fmt::Display| {
        bad(path, k, field, format!("rejected by k256: {e}"))
    };
    let sk = k256::SecretKey::from_slice(&c.private_key).map_err(|e| lib("private_key", &e))?;
    let signing = k256::ecdsa::SigningKey::from(&sk);
    let vk = k256::ecdsa::VerifyingKey::from_sec1_bytes(&c.public_key)
        .map_err(|e| lib("public_key", &e))?;
    if signing.verifying_key() != &vk {
        return Err(bad(path, k, "public_key", "does not belong to private_key"));
    }
    let sig = k256::ecdsa::Signature::from_slice(&c.rs).map_err(|e| lib("r, s", &e))?;
    let recid =
        k256::ecdsa::RecoveryId::from_byte(c.v).ok_or_else(|| lib("v", &"not a recovery id"))?;
    Ok(K256Case {
        sk,
        signing,
        vk,
        hash: c.hash,
        sig,
        recid,
    })
}

// ---------------------------------------------------------------------------
// The timed operations

/// k256's signing output: the signature and its recovery id.
pub(super) type K256Sig = (k256::ecdsa::Signature, k256::ecdsa::RecoveryId);

/// Sign with the recovery id libsecp256k1 derives from the nonce point.
pub(super) fn sign_direct_libsecp(c: &Libsecp) -> RecoverableSignature {
    SECP256K1.sign_ecdsa_recoverable(c.msg, &c.sk)
}

/// Sign without a recovery id, then find it by trial: recover with `v = 0`
/// and compare with the signer's key, else `v = 1`. What SDKs do when their
/// signing API returns only `(r, s)`. (libsecp256k1 builds a recoverable
/// signature only from bytes, hence the `serialize_compact`.)
pub(super) fn sign_trial_libsecp(c: &Libsecp) -> (Signature, RecoveryId) {
    let sig = SECP256K1.sign_ecdsa(c.msg, &c.sk);
    let v = match RecoverableSignature::from_compact(&sig.serialize_compact(), RecoveryId::Zero) {
        Ok(rec) if SECP256K1.recover_ecdsa(c.msg, &rec) == Ok(c.pk) => RecoveryId::Zero,
        _ => RecoveryId::One,
    };
    (sig, v)
}

/// Sign with the recovery id k256 derives from the nonce point.
pub(super) fn sign_direct_k256(c: &K256Case) -> Option<K256Sig> {
    c.signing.sign_prehash_recoverable(&c.hash).ok()
}

/// The k256 counterpart of [`sign_trial_libsecp`].
pub(super) fn sign_trial_k256(c: &K256Case) -> Option<K256Sig> {
    use k256::ecdsa::{RecoveryId, VerifyingKey};
    let sig: k256::ecdsa::Signature = c.signing.sign_prehash(&c.hash).ok()?;
    let zero = RecoveryId::new(false, false);
    let v = match VerifyingKey::recover_from_prehash(&c.hash, &sig, zero) {
        Ok(vk) if vk == c.vk => zero,
        _ => RecoveryId::new(true, false),
    };
    Some((sig, v))
}

pub(super) fn verify_libsecp(c: &Libsecp) -> bool {
    SECP256K1.verify_ecdsa(c.msg, &c.sig, &c.pk).is_ok()
}

pub(super) fn verify_k256(c: &K256Case) -> bool {
    c.vk.verify_prehash(&c.hash, &c.sig).is_ok()
}

/// The prepared input of the `crypto/secp256k1-recover/valid` libsecp256k1
/// benchmark: the message hash and the recoverable signature, parsed.
#[derive(Debug, Clone, Copy)]
pub struct RecoverInput {
    /// The signed 32-byte message hash.
    pub message: Message,
    /// `(r, s, v)` in libsecp256k1's form.
    pub signature: RecoverableSignature,
}

/// Recover the signer's uncompressed 65-byte public key with libsecp256k1:
/// exactly the operation the `crypto/secp256k1-recover/valid` libsecp256k1
/// benchmark times. `None` if the signature recovers no key.
#[inline]
pub fn recover_libsecp256k1(input: &RecoverInput) -> Option<[u8; 65]> {
    SECP256K1
        .recover_ecdsa(input.message, &input.signature)
        .ok()
        .map(|pk| pk.serialize_uncompressed())
}

/// The inputs of the libsecp256k1 recover benchmark, built from the
/// `secp256k1.json` in the vectors directory `vectors`, each paired with the
/// key [`recover_libsecp256k1`] must return for it. This is what the dyno
/// workload uses, so a criterion benchmark can time the same thing:
///
/// ```no_run
/// use dyno_micro::crypto::{recover_inputs, recover_libsecp256k1};
/// let cases = recover_inputs("vectors".as_ref()).expect("vectors");
/// for (input, key) in &cases {
///     assert_eq!(recover_libsecp256k1(input).as_ref(), Some(key));
/// }
/// // b.iter(|| recover_libsecp256k1(std::hint::black_box(&cases[i].0)))
/// ```
pub fn recover_inputs(vectors: &Path) -> Result<Vec<(RecoverInput, [u8; 65])>, BuildError> {
    let ctx = Ctx {
        vectors: vectors.to_path_buf(),
    };
    let (path, cases) = load(&ctx)?;
    cases
        .iter()
        .enumerate()
        .map(|(k, c)| Ok((libsecp(&path, k, c)?.rec, c.public_key)))
        .collect()
}

pub(super) fn recover_k256(c: &K256Case) -> Option<k256::EncodedPoint> {
    k256::ecdsa::VerifyingKey::recover_from_prehash(&c.hash, &c.sig, c.recid)
        .ok()
        .map(|vk| vk.to_encoded_point(false))
}

pub(super) fn keygen_libsecp(sk: &SecretKey) -> [u8; 65] {
    PublicKey::from_secret_key(SECP256K1, sk).serialize_uncompressed()
}

pub(super) fn keygen_k256(sk: &k256::SecretKey) -> k256::EncodedPoint {
    sk.public_key().to_encoded_point(false)
}

// ---------------------------------------------------------------------------
// Rendering outputs in mismatch messages

fn show_rsv(rs: &[u8], v: u8) -> String {
    format!("r={} s={} v={v}", hex(&rs[..32]), hex(&rs[32..]))
}

fn show_recoverable(o: &RecoverableSignature) -> String {
    let (v, rs) = o.serialize_compact();
    show_rsv(&rs, i32::from(v) as u8)
}

fn show_trial(o: &(Signature, RecoveryId)) -> String {
    show_rsv(&o.0.serialize_compact(), i32::from(o.1) as u8)
}

fn show_k256(o: &Option<K256Sig>) -> String {
    o.as_ref().map_or_else(
        || "an error".to_string(),
        |(sig, v)| show_rsv(&sig.to_bytes(), v.to_byte()),
    )
}

fn show_bytes<B: AsRef<[u8]>>(o: &B) -> String {
    hex(o)
}

fn show_opt_bytes<B: AsRef<[u8]>>(o: &Option<B>) -> String {
    o.as_ref().map_or_else(|| "an error".to_string(), hex)
}

// ---------------------------------------------------------------------------
// Definitions

fn def(
    op: &'static str,
    input: &'static str,
    implementation: &'static str,
    build: fn(&Ctx) -> Result<Box<dyn Workload>, BuildError>,
) -> BenchDef {
    let krate = if implementation == LIBSECP {
        "secp256k1"
    } else {
        implementation
    };
    BenchDef {
        cases: None,
        group: "crypto",
        op,
        input: input.to_string(),
        implementation,
        version: version(krate),
        params: Vec::new(),
        build: Box::new(build),
    }
}

/// `hash` with its first byte changed: another message, which a
/// signature over `hash` must not verify for.
pub(super) fn other_message(hash: [u8; 32]) -> [u8; 32] {
    let mut h = hash;
    h[0] ^= 0x01;
    h
}

/// `verify` (libsecp256k1's, or a wrong one in a test) over every case,
/// each of which must verify, with a control per case: the same
/// signature against another message, which must not.
pub(super) fn verify_libsecp_cases<F: FnMut(&Libsecp) -> bool>(
    ctx: &Ctx,
    verify: F,
) -> Result<Cases<Libsecp, bool, F>, BuildError> {
    let pairs = libsecp_pairs(ctx, |_, _| true)?;
    let controls = pairs
        .iter()
        .map(|(c, _)| {
            let msg = Message::from_digest(other_message(*c.msg.as_ref()));
            (Libsecp { msg, ..*c }, false)
        })
        .collect();
    Ok(Cases::expect(pairs, verify).controls(controls))
}

/// The same for k256.
pub(super) fn verify_k256_cases<F: FnMut(&K256Case) -> bool>(
    ctx: &Ctx,
    verify: F,
) -> Result<Cases<K256Case, bool, F>, BuildError> {
    let pairs = k256_pairs(ctx, |_, _, _| Ok(true))?;
    let controls = pairs
        .iter()
        .map(|(c, _)| {
            let hash = other_message(c.hash);
            (K256Case { hash, ..c.clone() }, false)
        })
        .collect();
    Ok(Cases::expect(pairs, verify).controls(controls))
}

/// Every case as `(libsecp256k1 input, expected)`.
fn libsecp_pairs<O>(
    ctx: &Ctx,
    expected: impl Fn(&Libsecp, &Case) -> O,
) -> Result<Vec<(Libsecp, O)>, BuildError> {
    let (path, cases) = load(ctx)?;
    cases
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let input = libsecp(&path, k, c)?;
            let expected = expected(&input, c);
            Ok((input, expected))
        })
        .collect()
}

/// Every case as `(k256 input, expected)`.
fn k256_pairs<O>(
    ctx: &Ctx,
    expected: impl Fn(&Path, usize, &Case) -> Result<O, BuildError>,
) -> Result<Vec<(K256Case, O)>, BuildError> {
    let (path, cases) = load(ctx)?;
    cases
        .iter()
        .enumerate()
        .map(|(k, c)| Ok((k256_case(&path, k, c)?, expected(&path, k, c)?)))
        .collect()
}

fn k256_sig(path: &Path, k: usize, c: &Case) -> Result<Option<K256Sig>, BuildError> {
    let K256Case { sig, recid, .. } = k256_case(path, k, c)?;
    Ok(Some((sig, recid)))
}

fn k256_point(path: &Path, k: usize, c: &Case) -> Result<k256::EncodedPoint, BuildError> {
    k256::EncodedPoint::from_bytes(c.public_key).map_err(|e| bad(path, k, "public_key", e))
}

fn boxed(w: impl Workload + 'static) -> Result<Box<dyn Workload>, BuildError> {
    Ok(Box::new(w))
}

/// The secp256k1 benchmarks.
pub(super) fn defs() -> Vec<BenchDef> {
    vec![
        def("secp256k1-sign", "recid-direct", LIBSECP, |ctx| {
            let pairs = libsecp_pairs(ctx, |l, _| l.rec.signature)?;
            boxed(Cases::expect(pairs, sign_direct_libsecp).show(show_recoverable))
        }),
        def("secp256k1-sign", "recid-direct", K256, |ctx| {
            let pairs = k256_pairs(ctx, k256_sig)?;
            boxed(Cases::expect(pairs, sign_direct_k256).show(show_k256))
        }),
        def("secp256k1-sign", "recid-trial", LIBSECP, |ctx| {
            let pairs = libsecp_pairs(ctx, |l, _| (l.sig, l.rec.signature.serialize_compact().0))?;
            boxed(Cases::expect(pairs, sign_trial_libsecp).show(show_trial))
        }),
        def("secp256k1-sign", "recid-trial", K256, |ctx| {
            let pairs = k256_pairs(ctx, k256_sig)?;
            boxed(Cases::expect(pairs, sign_trial_k256).show(show_k256))
        }),
        def("secp256k1-verify", "valid", LIBSECP, |ctx| {
            boxed(verify_libsecp_cases(ctx, verify_libsecp)?)
        }),
        def("secp256k1-verify", "valid", K256, |ctx| {
            boxed(verify_k256_cases(ctx, verify_k256)?)
        }),
        def("secp256k1-recover", "valid", LIBSECP, |ctx| {
            let pairs = recover_inputs(&ctx.vectors)?
                .into_iter()
                .map(|(input, key)| (input, Some(key)))
                .collect();
            boxed(Cases::expect(pairs, recover_libsecp256k1).show(show_opt_bytes))
        }),
        def("secp256k1-recover", "valid", K256, |ctx| {
            let pairs = k256_pairs(ctx, |p, k, c| k256_point(p, k, c).map(Some))?;
            boxed(Cases::expect(pairs, recover_k256).show(show_opt_bytes))
        }),
        def("secp256k1-keygen", "pubkey", LIBSECP, |ctx| {
            let pairs = libsecp_pairs(ctx, |_, c| c.public_key)?
                .into_iter()
                .map(|(input, key)| (input.sk, key))
                .collect();
            boxed(Cases::expect(pairs, keygen_libsecp).show(show_bytes))
        }),
        def("secp256k1-keygen", "pubkey", K256, |ctx| {
            let pairs = k256_pairs(ctx, k256_point)?
                .into_iter()
                .map(|(input, key)| (input.sk, key))
                .collect();
            boxed(Cases::expect(pairs, keygen_k256).show(show_bytes))
        }),
    ]
}
