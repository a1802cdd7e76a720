//! crypto suite: the signature operations Ethereum software spends its time
//! in, each timed on a set of vector cases after every output has been
//! checked.
//!
//! | id | implementations |
//! |----|-----------------|
//! | `crypto/secp256k1-sign/recid-direct` | libsecp256k1, k256: recovery id from the nonce point |
//! | `crypto/secp256k1-sign/recid-trial` | libsecp256k1, k256: sign `(r, s)`, then find `v` by recovering with `v = 0` |
//! | `crypto/secp256k1-verify/valid` | libsecp256k1, k256 |
//! | `crypto/secp256k1-recover/valid` | libsecp256k1, k256: 65-byte uncompressed key |
//! | `crypto/secp256k1-keygen/pubkey` | libsecp256k1, k256: 65-byte uncompressed key |
//! | `crypto/p256-sign/32B`, `crypto/p384-sign/32B` | p256/p384 (RFC 6979, exact), ring (random nonce, verified by p256/p384) |
//! | `crypto/p256-verify/32B`, `crypto/p384-verify/32B` | p256/p384, ring |
//!
//! Keys and signatures are parsed when the workload is built; the timed call
//! is only the sign, verify, recover or derive. Signatures are returned (and
//! compared) in each library's own type; a recovered or derived public key is
//! encoded as the 65 uncompressed bytes Ethereum hashes into an address,
//! which is part of those operations. NIST-curve operations hash the 32-byte
//! message with SHA-256 / SHA-384 inside the call, as standard ECDSA does;
//! secp256k1 operations take the 32-byte hash.
//!
//! k256's `recover_from_prehash` verifies the signature against the key it
//! recovered before returning it, so its recover (and its trial-recovery-id
//! signing) does an extra verification that libsecp256k1's does not.
//!
//! libsecp256k1 runs on the crate's global context (`secp256k1::SECP256K1`),
//! as reth and alloy use it.

use dyno_workload::BenchDef;

mod vectors {
    //! Reading the crypto vector files: parse errors and malformed fields become
    //! [`BuildError`]s naming the file, the case and the field.

    use std::path::{Path, PathBuf};

    use dyno_workload::{BuildError, Ctx, unhex};
    use serde::de::DeserializeOwned;

    /// A parsed vector file and where it came from.
    #[derive(Debug)]
    pub(super) struct File<T> {
        pub(super) path: PathBuf,
        pub(super) cases: Vec<T>,
    }

    /// Read `name` from the vectors dir and parse its `cases`; an empty list is
    /// an error too.
    pub(super) fn load<T: DeserializeOwned>(ctx: &Ctx, name: &str) -> Result<File<T>, BuildError> {
        #[derive(serde::Deserialize)]
        struct Cases<T> {
            cases: Vec<T>,
        }
        let path = ctx.path(name);
        let parsed: Cases<T> = ctx.vector_json(name)?;
        if parsed.cases.is_empty() {
            return Err(BuildError::vectors(&path, "the file lists no cases"));
        }
        Ok(File {
            path,
            cases: parsed.cases,
        })
    }

    /// A field of case `case` that is wrong in some way.
    pub(super) fn bad(
        path: &Path,
        case: usize,
        field: &str,
        reason: impl std::fmt::Display,
    ) -> BuildError {
        BuildError::vectors(path, format!("case {case}: {field}: {reason}"))
    }

    /// A hex field that must decode to exactly `N` bytes.
    pub(super) fn bytes<const N: usize>(
        path: &Path,
        case: usize,
        field: &str,
        hex: &str,
    ) -> Result<[u8; N], BuildError> {
        let v = unhex(hex).map_err(|e| bad(path, case, field, e))?;
        let len = v.len();
        v.try_into()
            .map_err(|_| bad(path, case, field, format!("{len} bytes, expected {N}")))
    }

    /// A hex field that must decode to exactly `len` bytes (for sizes known
    /// only at run time).
    pub(super) fn sized(
        path: &Path,
        case: usize,
        field: &str,
        hex: &str,
        len: usize,
    ) -> Result<Vec<u8>, BuildError> {
        let v = unhex(hex).map_err(|e| bad(path, case, field, e))?;
        if v.len() != len {
            return Err(bad(
                path,
                case,
                field,
                format!("{} bytes, expected {len}", v.len()),
            ));
        }
        Ok(v)
    }
}

mod secp {
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
        let pk = PublicKey::from_byte_array_uncompressed(c.public_key)
            .map_err(|e| lib("public_key", e))?;
        if PublicKey::from_secret_key(SECP256K1, &sk) != pk {
            return Err(bad(path, k, "public_key", "does not belong to private_key"));
        }
        let msg = Message::from_digest(c.hash);
        let sig = Signature::from_compact(&c.rs).map_err(|e| lib("r, s", e))?;
        let id = RecoveryId::try_from(i32::from(c.v)).map_err(|e| lib("v", e))?;
        let signature =
            RecoverableSignature::from_compact(&c.rs, id).map_err(|e| lib("r, s, v", e))?;
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
        let recid = k256::ecdsa::RecoveryId::from_byte(c.v)
            .ok_or_else(|| lib("v", &"not a recovery id"))?;
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
        let v = match RecoverableSignature::from_compact(&sig.serialize_compact(), RecoveryId::Zero)
        {
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
                let pairs =
                    libsecp_pairs(ctx, |l, _| (l.sig, l.rec.signature.serialize_compact().0))?;
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
}

mod nist {
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
                    $krate::ecdsa::VerifyingKey::from_sec1_bytes(public_key)
                        .map_err(|e| e.to_string())
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
}

pub use secp::{RecoverInput, recover_inputs, recover_libsecp256k1};

/// The crypto benchmarks.
pub fn defs() -> Vec<BenchDef> {
    let mut defs = secp::defs();
    defs.extend(nist::defs());
    // Other runtimes' adapters run every one of them.
    for d in &mut defs {
        d.cases = Some(crate::cases::cases);
    }
    defs
}

#[cfg(test)]
mod tests;
