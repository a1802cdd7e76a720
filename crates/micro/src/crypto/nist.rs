//! ECDSA over NIST P-256 (the curve of the RIP-7212 precompile, passkeys and
//! secure enclaves) and P-384: RustCrypto's `p256`/`p384` against `ring`.
//!
//! Each case of `vectors/p256.json` / `p384.json` is a key pair, a 32-byte
//! message (hashed by standard ECDSA with SHA-256 / SHA-384, so the timed
//! operations include that hash) and two signatures over it: the RFC 6979
//! one, which the `p256`/`p384` crates must reproduce exactly, and one with a
//! random nonce, which both libraries verify. ring signs only with random
//! nonces, so its signatures are checked by verifying them with the other
//! library.

use std::fmt::Debug;
use std::path::{Path, PathBuf};

use dyno_workload::{BenchDef, BuildError, Cases, Ctx, Param, Workload, hex};
use ring::rand::SystemRandom;
use ring::signature::{
    EcdsaKeyPair, EcdsaSigningAlgorithm, EcdsaVerificationAlgorithm, UnparsedPublicKey,
};
use serde::Deserialize;

use super::vectors::{self, bad, sized};
use crate::version;

/// What the benchmarks need of a curve and its RustCrypto crate.
pub(super) trait Curve: 'static {
    /// The crate, which is also the implementation name: `p256`.
    const CRATE: &'static str;
    /// The vector file: `p256.json`.
    const FILE: &'static str;
    /// The ids' operations: `p256-sign`, `p256-verify`.
    const SIGN_OP: &'static str;
    const VERIFY_OP: &'static str;
    /// The message digest ECDSA applies: `SHA-256`.
    const HASH: &'static str;
    /// Field element (and scalar) size in bytes.
    const FIELD: usize;

    type SigningKey;
    type VerifyingKey;
    type Signature: PartialEq + Debug + 'static;

    fn ring_signing() -> &'static EcdsaSigningAlgorithm;
    fn ring_verification() -> &'static EcdsaVerificationAlgorithm;

    fn signing_key(private_key: &[u8]) -> Result<Self::SigningKey, String>;
    fn verifying_key(public_key: &[u8]) -> Result<Self::VerifyingKey, String>;
    /// The verifying key of a signing key, to check the vector's key pair.
    fn public_of(key: &Self::SigningKey) -> &Self::VerifyingKey;
    fn keys_equal(a: &Self::VerifyingKey, b: &Self::VerifyingKey) -> bool;
    /// A signature from `r ‖ s`.
    fn signature(rs: &[u8]) -> Result<Self::Signature, String>;
    fn signature_bytes(sig: &Self::Signature) -> Vec<u8>;

    /// Hash `msg` and sign it with the RFC 6979 nonce.
    fn sign(key: &Self::SigningKey, msg: &[u8]) -> Option<Self::Signature>;
    /// Hash `msg` and verify `sig` over it.
    fn verify(key: &Self::VerifyingKey, msg: &[u8], sig: &Self::Signature) -> bool;
}

macro_rules! rustcrypto_curve {
    ($ty:ident, $krate:ident, $name:literal, $hash:literal, $field:literal, $ring_sign:ident, $ring_verify:ident) => {
        /// The curve of the
        #[doc = concat!("`", $name, "`")]
        /// crate.
        #[derive(Debug)]
        pub(super) struct $ty;

        impl Curve for $ty {
            const CRATE: &'static str = $name;
            const FILE: &'static str = concat!($name, ".json");
            const SIGN_OP: &'static str = concat!($name, "-sign");
            const VERIFY_OP: &'static str = concat!($name, "-verify");
            const HASH: &'static str = $hash;
            const FIELD: usize = $field;

            type SigningKey = $krate::ecdsa::SigningKey;
            type VerifyingKey = $krate::ecdsa::VerifyingKey;
            type Signature = $krate::ecdsa::Signature;

            fn ring_signing() -> &'static EcdsaSigningAlgorithm {
                &ring::signature::$ring_sign
            }

            fn ring_verification() -> &'static EcdsaVerificationAlgorithm {
                &ring::signature::$ring_verify
            }

            fn signing_key(private_key: &[u8]) -> Result<Self::SigningKey, String> {
                $krate::ecdsa::SigningKey::from_slice(private_key).map_err(|e| e.to_string())
            }

            fn verifying_key(public_key: &[u8]) -> Result<Self::VerifyingKey, String> {
                $krate::ecdsa::VerifyingKey::from_sec1_bytes(public_key).map_err(|e| e.to_string())
            }

            fn public_of(key: &Self::SigningKey) -> &Self::VerifyingKey {
                key.verifying_key()
            }

            fn keys_equal(a: &Self::VerifyingKey, b: &Self::VerifyingKey) -> bool {
                a == b
            }

            fn signature(rs: &[u8]) -> Result<Self::Signature, String> {
                $krate::ecdsa::Signature::from_slice(rs).map_err(|e| e.to_string())
            }

            fn signature_bytes(sig: &Self::Signature) -> Vec<u8> {
                sig.to_bytes().to_vec()
            }

            #[inline]
            fn sign(key: &Self::SigningKey, msg: &[u8]) -> Option<Self::Signature> {
                use $krate::ecdsa::signature::Signer as _;
                key.try_sign(msg).ok()
            }

            #[inline]
            fn verify(key: &Self::VerifyingKey, msg: &[u8], sig: &Self::Signature) -> bool {
                use $krate::ecdsa::signature::Verifier as _;
                key.verify(msg, sig).is_ok()
            }
        }
    };
}

rustcrypto_curve!(
    P256,
    p256,
    "p256",
    "SHA-256",
    32,
    ECDSA_P256_SHA256_FIXED_SIGNING,
    ECDSA_P256_SHA256_FIXED
);
rustcrypto_curve!(
    P384,
    p384,
    "p384",
    "SHA-384",
    48,
    ECDSA_P384_SHA384_FIXED_SIGNING,
    ECDSA_P384_SHA384_FIXED
);

// ---------------------------------------------------------------------------
// Vectors

#[derive(Deserialize)]
struct Vector {
    private_key: String,
    public_key: String,
    message: String,
    rfc6979: SigVector,
    random: SigVector,
}

#[derive(Deserialize)]
struct SigVector {
    r: String,
    s: String,
}

/// One case of a curve's vector file, decoded and length-checked.
#[derive(Debug, Clone)]
pub(super) struct Case {
    pub(super) private_key: Vec<u8>,
    /// Uncompressed SEC1, `0x04 ‖ x ‖ y`.
    pub(super) public_key: Vec<u8>,
    pub(super) message: [u8; 32],
    /// `r ‖ s` with the RFC 6979 nonce.
    pub(super) rfc6979: Vec<u8>,
    /// `r ‖ s` with a random nonce.
    pub(super) random: Vec<u8>,
}

fn rs(
    path: &Path,
    k: usize,
    field: &str,
    sig: &SigVector,
    n: usize,
) -> Result<Vec<u8>, BuildError> {
    let mut rs = sized(path, k, &format!("{field}.r"), &sig.r, n)?;
    rs.extend(sized(path, k, &format!("{field}.s"), &sig.s, n)?);
    Ok(rs)
}

/// Read and decode every case of `C::FILE`.
pub(super) fn load<C: Curve>(ctx: &Ctx) -> Result<(PathBuf, Vec<Case>), BuildError> {
    let file = vectors::load::<Vector>(ctx, C::FILE)?;
    let path = file.path;
    let n = C::FIELD;
    let cases = file
        .cases
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let public_key = sized(&path, k, "public_key", &c.public_key, 1 + 2 * n)?;
            if public_key[0] != 0x04 {
                return Err(bad(
                    &path,
                    k,
                    "public_key",
                    "not an uncompressed SEC1 key (0x04…)",
                ));
            }
            Ok(Case {
                private_key: sized(&path, k, "private_key", &c.private_key, n)?,
                public_key,
                message: vectors::bytes(&path, k, "message", &c.message)?,
                rfc6979: rs(&path, k, "rfc6979", &c.rfc6979, n)?,
                random: rs(&path, k, "random", &c.random, n)?,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((path, cases))
}

/// The RustCrypto keys of a case, checked to be a pair.
fn keys<C: Curve>(
    path: &Path,
    k: usize,
    c: &Case,
) -> Result<(C::SigningKey, C::VerifyingKey), BuildError> {
    let lib =
        |field: &str, e: String| bad(path, k, field, format!("rejected by {}: {e}", C::CRATE));
    let sk = C::signing_key(&c.private_key).map_err(|e| lib("private_key", e))?;
    let vk = C::verifying_key(&c.public_key).map_err(|e| lib("public_key", e))?;
    if !C::keys_equal(C::public_of(&sk), &vk) {
        return Err(bad(path, k, "public_key", "does not belong to private_key"));
    }
    Ok((sk, vk))
}

fn signature<C: Curve>(
    path: &Path,
    k: usize,
    field: &str,
    rs: &[u8],
) -> Result<C::Signature, BuildError> {
    C::signature(rs).map_err(|e| bad(path, k, field, format!("rejected by {}: {e}", C::CRATE)))
}

// ---------------------------------------------------------------------------
// Prepared inputs and the timed operations

/// Input of the RustCrypto signing benchmark.
pub(super) struct Sign<C: Curve> {
    pub(super) key: C::SigningKey,
    pub(super) msg: [u8; 32],
}

/// Input of the ring signing benchmark, with the RustCrypto key that checks
/// its output.
pub(super) struct RingSign<C: Curve> {
    pub(super) key: EcdsaKeyPair,
    pub(super) msg: [u8; 32],
    pub(super) check: C::VerifyingKey,
}

/// Input of the RustCrypto verification benchmark.
pub(super) struct Verify<C: Curve> {
    pub(super) key: C::VerifyingKey,
    pub(super) msg: [u8; 32],
    pub(super) sig: C::Signature,
}

/// Input of the ring verification benchmark. ring has no parsed ECDSA
/// public key type: `verify` parses (and validates) the key every call.
pub(super) struct RingVerify {
    pub(super) key: UnparsedPublicKey<Vec<u8>>,
    pub(super) msg: [u8; 32],
    pub(super) sig: Vec<u8>,
}

/// ring's signature compared by its bytes (it has no `PartialEq`).
#[derive(Clone, Copy)]
pub(super) struct RingSig(pub(super) ring::signature::Signature);

impl PartialEq for RingSig {
    fn eq(&self, other: &Self) -> bool {
        self.0.as_ref() == other.0.as_ref()
    }
}

impl Debug for RingSig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&hex(self.0.as_ref()))
    }
}

pub(super) fn sign<C: Curve>(c: &Sign<C>) -> Option<C::Signature> {
    C::sign(&c.key, &c.msg)
}

pub(super) fn ring_sign<C: Curve>(c: &RingSign<C>, rng: &SystemRandom) -> Option<RingSig> {
    c.key.sign(rng, &c.msg).ok().map(RingSig)
}

pub(super) fn verify<C: Curve>(c: &Verify<C>) -> bool {
    C::verify(&c.key, &c.msg, &c.sig)
}

pub(super) fn ring_verify(c: &RingVerify) -> bool {
    c.key.verify(&c.msg, &c.sig).is_ok()
}

/// A ring signature is right if the RustCrypto crate accepts it.
pub(super) fn check_ring_sign<C: Curve>(
    c: &RingSign<C>,
    out: &Option<RingSig>,
) -> Result<(), (String, String)> {
    let expected = || format!("a signature {} accepts", C::CRATE);
    let Some(sig) = out else {
        return Err((expected(), "an error".into()));
    };
    let accepted = C::signature(sig.0.as_ref()).is_ok_and(|s| C::verify(&c.check, &c.msg, &s));
    if accepted {
        Ok(())
    } else {
        Err((expected(), format!("{sig:?}, rejected")))
    }
}

// ---------------------------------------------------------------------------
// Workload builders

fn build_sign<C: Curve>(ctx: &Ctx) -> Result<Box<dyn Workload>, BuildError> {
    let (path, cases) = load::<C>(ctx)?;
    let pairs = cases
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let expected = signature::<C>(&path, k, "rfc6979", &c.rfc6979)?;
            let (key, _) = keys::<C>(&path, k, c)?;
            Ok((
                Sign::<C> {
                    key,
                    msg: c.message,
                },
                Some(expected),
            ))
        })
        .collect::<Result<Vec<_>, BuildError>>()?;
    let show = |o: &Option<C::Signature>| {
        o.as_ref()
            .map_or_else(|| "an error".into(), |s| hex(C::signature_bytes(s)))
    };
    Ok(Box::new(Cases::expect(pairs, sign::<C>).show(show)))
}

pub(super) fn ring_sign_inputs<C: Curve>(ctx: &Ctx) -> Result<Vec<RingSign<C>>, BuildError> {
    let (path, cases) = load::<C>(ctx)?;
    let rng = SystemRandom::new();
    cases
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let (_, check) = keys::<C>(&path, k, c)?;
            let key = EcdsaKeyPair::from_private_key_and_public_key(
                C::ring_signing(),
                &c.private_key,
                &c.public_key,
                &rng,
            )
            .map_err(|e| {
                bad(
                    &path,
                    k,
                    "private_key, public_key",
                    format!("rejected by ring: {e}"),
                )
            })?;
            Ok(RingSign {
                key,
                msg: c.message,
                check,
            })
        })
        .collect()
}

fn build_ring_sign<C: Curve>(ctx: &Ctx) -> Result<Box<dyn Workload>, BuildError> {
    let inputs = ring_sign_inputs::<C>(ctx)?;
    let rng = SystemRandom::new();
    let op = move |c: &RingSign<C>| ring_sign(c, &rng);
    Ok(Box::new(Cases::checked(inputs, op, check_ring_sign::<C>)))
}

/// `verify` over every case's random signature, each of which must
/// verify, with a control per case: the same signature over another
/// message, which must not.
pub(super) fn verify_cases<C: Curve, F: FnMut(&Verify<C>) -> bool>(
    ctx: &Ctx,
    verify: F,
) -> Result<Cases<Verify<C>, bool, F>, BuildError> {
    let (path, cases) = load::<C>(ctx)?;
    let mut pairs = Vec::new();
    let mut controls = Vec::new();
    for (k, c) in cases.iter().enumerate() {
        for (msg, valid) in [
            (c.message, true),
            (super::secp::other_message(c.message), false),
        ] {
            let (_, key) = keys::<C>(&path, k, c)?;
            let sig = signature::<C>(&path, k, "random", &c.random)?;
            let into = if valid { &mut pairs } else { &mut controls };
            into.push((Verify::<C> { key, msg, sig }, valid));
        }
    }
    Ok(Cases::expect(pairs, verify).controls(controls))
}

fn build_verify<C: Curve>(ctx: &Ctx) -> Result<Box<dyn Workload>, BuildError> {
    Ok(Box::new(verify_cases::<C, _>(ctx, verify::<C>)?))
}

/// The same for ring.
pub(super) fn ring_verify_cases<C: Curve, F: FnMut(&RingVerify) -> bool>(
    ctx: &Ctx,
    verify: F,
) -> Result<Cases<RingVerify, bool, F>, BuildError> {
    let (_, cases) = load::<C>(ctx)?;
    let input = |c: &Case, msg: [u8; 32]| RingVerify {
        key: UnparsedPublicKey::new(C::ring_verification(), c.public_key.clone()),
        msg,
        sig: c.random.clone(),
    };
    let pairs = cases.iter().map(|c| (input(c, c.message), true)).collect();
    let controls = cases
        .iter()
        .map(|c| (input(c, super::secp::other_message(c.message)), false))
        .collect();
    Ok(Cases::expect(pairs, verify).controls(controls))
}

fn build_ring_verify<C: Curve>(ctx: &Ctx) -> Result<Box<dyn Workload>, BuildError> {
    Ok(Box::new(ring_verify_cases::<C, _>(ctx, ring_verify)?))
}

fn def(
    op: &'static str,
    implementation: &'static str,
    hash: &'static str,
    build: fn(&Ctx) -> Result<Box<dyn Workload>, BuildError>,
) -> BenchDef {
    BenchDef {
        cases: None,
        group: "crypto",
        op,
        input: "32B".to_string(),
        implementation,
        version: version(implementation),
        params: vec![
            ("message_bytes", Param::Int(32)),
            ("hash", Param::Text(hash.to_string())),
        ],
        build: Box::new(build),
    }
}

fn curve_defs<C: Curve>() -> Vec<BenchDef> {
    vec![
        def(C::SIGN_OP, C::CRATE, C::HASH, build_sign::<C>),
        def(C::SIGN_OP, "ring", C::HASH, build_ring_sign::<C>),
        def(C::VERIFY_OP, C::CRATE, C::HASH, build_verify::<C>),
        def(C::VERIFY_OP, "ring", C::HASH, build_ring_verify::<C>),
    ]
}

/// The P-256 and P-384 benchmarks.
pub(super) fn defs() -> Vec<BenchDef> {
    let mut defs = curve_defs::<P256>();
    defs.extend(curve_defs::<P384>());
    defs
}
