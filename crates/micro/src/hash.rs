//! hash suite: the digests Ethereum software computes, one benchmark per
//! `(algorithm, input size, implementation)`.
//!
//! Ids are `hash/<algorithm>/<size>` with sizes `1B`, `32B`, `1KiB` and
//! `100KiB`. Inputs are `seq(seed, len)` for the eight `(seed, len)` pairs
//! `vectors/hash.json` lists per algorithm and length; every output is
//! compared with the digest stored there before timing.
//!
//! Each operation returns the library's own digest type (a `GenericArray`,
//! a byte array, ring's `Digest`, blake2b_simd's `Hash`), so the timed call
//! is the one-shot hash and nothing else; the check compares its bytes.

use std::path::Path;

use dyno_workload::{BenchDef, BuildError, Cases, Ctx, Param, Workload, hex, seq, unhex};
use serde::Deserialize;
use sha2::Digest as _;

use crate::version;

/// The vector file this suite reads.
const FILE: &str = "hash.json";

/// The input sizes: id part and byte count.
pub(crate) const SIZES: [(&str, usize); 4] = [
    ("1B", 1),
    ("32B", 32),
    ("1KiB", 1024),
    ("100KiB", 100 * 1024),
];

/// Keccak-256 with tiny-keccak: the exact function the `tiny-keccak`
/// benchmarks time, public so a criterion benchmark can time the same thing.
#[inline]
pub fn keccak256_tiny(data: &[u8]) -> [u8; 32] {
    use tiny_keccak::Hasher as _;
    let mut hasher = tiny_keccak::Keccak::v256();
    hasher.update(data);
    let mut out = [0u8; 32];
    hasher.finalize(&mut out);
    out
}

type Output<D> = sha2::digest::Output<D>;

fn keccak256_sha3(data: &[u8]) -> Output<sha3::Keccak256> {
    sha3::Keccak256::digest(data)
}

fn keccak256_asm(data: &[u8]) -> Output<keccak_asm::Keccak256> {
    keccak_asm::Keccak256::digest(data)
}

fn sha256_sha2(data: &[u8]) -> Output<sha2::Sha256> {
    sha2::Sha256::digest(data)
}

fn sha384_sha2(data: &[u8]) -> Output<sha2::Sha384> {
    sha2::Sha384::digest(data)
}

fn sha512_sha2(data: &[u8]) -> Output<sha2::Sha512> {
    sha2::Sha512::digest(data)
}

fn sha256_ring(data: &[u8]) -> RingDigest {
    RingDigest(ring::digest::digest(&ring::digest::SHA256, data))
}

fn sha384_ring(data: &[u8]) -> RingDigest {
    RingDigest(ring::digest::digest(&ring::digest::SHA384, data))
}

fn sha512_ring(data: &[u8]) -> RingDigest {
    RingDigest(ring::digest::digest(&ring::digest::SHA512, data))
}

fn ripemd160_ripemd(data: &[u8]) -> Output<ripemd::Ripemd160> {
    ripemd::Ripemd160::digest(data)
}

fn blake2b512_blake2(data: &[u8]) -> Output<blake2::Blake2b512> {
    blake2::Blake2b512::digest(data)
}

fn blake2b512_simd(data: &[u8]) -> blake2b_simd::Hash {
    blake2b_simd::blake2b(data)
}

fn blake2s256_blake2(data: &[u8]) -> Output<blake2::Blake2s256> {
    blake2::Blake2s256::digest(data)
}

/// ring's digest compared by its bytes (`ring::digest::Digest` has no
/// `PartialEq`). Wrapping moves the value; nothing is copied or converted.
#[derive(Clone, Copy)]
struct RingDigest(ring::digest::Digest);

impl PartialEq for RingDigest {
    fn eq(&self, other: &Self) -> bool {
        self.0.as_ref() == other.0.as_ref()
    }
}

impl AsRef<[u8]> for RingDigest {
    fn as_ref(&self) -> &[u8] {
        self.0.as_ref()
    }
}

/// The digest length in bytes of each algorithm the vectors cover.
fn digest_len(algorithm: &str) -> Option<usize> {
    Some(match algorithm {
        "keccak256" | "sha256" | "blake2s256" => 32,
        "sha384" => 48,
        "sha512" | "blake2b512" => 64,
        "ripemd160" => 20,
        _ => return None,
    })
}

/// The hash benchmarks.
pub fn defs() -> Vec<BenchDef> {
    let mut defs = Vec::new();
    for (input, len) in SIZES {
        let d = |alg, implementation, krate| Def {
            alg,
            input,
            len,
            implementation,
            version: version(krate),
        };
        defs.push(d("keccak256", "tiny-keccak", "tiny-keccak").build(keccak256_tiny));
        defs.push(d("keccak256", "sha3", "sha3").build(keccak256_sha3));
        defs.push(d("keccak256", "keccak-asm", "keccak-asm").build(keccak256_asm));
        defs.push(d("sha256", "sha2", "sha2").build(sha256_sha2));
        defs.push(d("sha256", "ring", "ring").build(sha256_ring));
        defs.push(d("sha384", "sha2", "sha2").build(sha384_sha2));
        defs.push(d("sha384", "ring", "ring").build(sha384_ring));
        defs.push(d("sha512", "sha2", "sha2").build(sha512_sha2));
        defs.push(d("sha512", "ring", "ring").build(sha512_ring));
        defs.push(d("ripemd160", "ripemd", "ripemd").build(ripemd160_ripemd));
        defs.push(d("blake2b512", "blake2", "blake2").build(blake2b512_blake2));
        defs.push(d("blake2b512", "blake2b_simd", "blake2b_simd").build(blake2b512_simd));
        defs.push(d("blake2s256", "blake2", "blake2").build(blake2s256_blake2));
    }
    defs
}

/// The parts of a hash benchmark's definition besides its operation.
struct Def {
    alg: &'static str,
    input: &'static str,
    len: usize,
    implementation: &'static str,
    version: &'static str,
}

impl Def {
    /// The definition timing `hash` (a function item, so the call is static
    /// and inlinable) over the vectors for this algorithm and size.
    fn build<O, F>(self, hash: F) -> BenchDef
    where
        O: AsRef<[u8]> + PartialEq + 'static,
        F: Fn(&[u8]) -> O + Copy + Send + Sync + 'static,
    {
        let Def {
            alg,
            input,
            len,
            implementation,
            version,
        } = self;
        BenchDef {
            cases: Some(crate::cases::cases),
            group: "hash",
            op: alg,
            input: input.to_string(),
            implementation,
            version,
            params: vec![("bytes", Param::Int(len as u64))],
            build: Box::new(move |ctx: &Ctx| {
                let cases = load(
                    ctx,
                    alg,
                    len,
                    &format!("hash/{alg}/{input} {implementation}"),
                )?;
                let numbers = cases.iter().map(|c| c.number).collect();
                let op = move |c: &HashCase| hash(&c.data);
                let workload: Box<dyn Workload> =
                    Box::new(Cases::checked(cases, op, check::<O>).numbered(numbers));
                Ok(workload)
            }),
        }
    }
}

/// One input and the digest it must hash to.
#[derive(Debug, Clone)]
pub struct HashCase {
    /// The input, `seq(seed, len)`.
    pub data: Vec<u8>,
    /// Its digest per `vectors/hash.json`.
    pub digest: Vec<u8>,
    /// Its index in the file's `cases` (from 0), as errors number it.
    pub number: usize,
}

fn check<O: AsRef<[u8]>>(case: &HashCase, out: &O) -> Result<(), (String, String)> {
    if out.as_ref() == case.digest.as_slice() {
        Ok(())
    } else {
        Err((hex(&case.digest), hex(out)))
    }
}

#[derive(Deserialize)]
struct HashFile {
    cases: Vec<HashVector>,
}

#[derive(Deserialize)]
struct HashVector {
    algorithm: String,
    len: u64,
    seed: u64,
    digest: String,
}

/// The cases of `hash.json` for `alg` at `len` bytes, inputs generated;
/// `what` names the benchmark in errors. Other suites that hash (the
/// SHA-256 and RIPEMD-160 precompiles) use the same vectors through this.
pub fn load(ctx: &Ctx, alg: &str, len: usize, what: &str) -> Result<Vec<HashCase>, BuildError> {
    let path = ctx.path(FILE);
    let file: HashFile = ctx.vector_json(FILE)?;
    let want = digest_len(alg).ok_or_else(|| BuildError::NoVector {
        path: path.clone(),
        what: what.to_string(),
    })?;
    let mut cases = Vec::new();
    for (k, v) in file.cases.iter().enumerate() {
        if v.algorithm != alg || v.len != len as u64 {
            continue;
        }
        let digest = parse_digest(&path, k, &v.digest, want)?;
        cases.push(HashCase {
            data: seq(v.seed, len),
            digest,
            number: k,
        });
    }
    if cases.is_empty() {
        return Err(BuildError::NoVector {
            path,
            what: what.to_string(),
        });
    }
    Ok(cases)
}

fn parse_digest(path: &Path, case: usize, s: &str, want: usize) -> Result<Vec<u8>, BuildError> {
    let bytes =
        unhex(s).map_err(|e| BuildError::vectors(path, format!("case {case}: digest: {e}")))?;
    if bytes.len() != want {
        return Err(BuildError::vectors(
            path,
            format!(
                "case {case}: digest is {} bytes, expected {want}",
                bytes.len()
            ),
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    use crate::testutil::ctx;

    fn edited_vectors(tag: &str, edit: impl FnOnce(&mut serde_json::Value)) -> PathBuf {
        crate::testutil::edited(&format!("hash-{tag}"), FILE, edit)
    }

    #[test]
    fn hash_defs_cover_every_algorithm_size_and_implementation() {
        let defs = defs();
        assert_eq!(defs.len(), 13 * 4);
        let ids: Vec<String> = defs
            .iter()
            .map(|d| format!("{} {}", d.id(), d.implementation))
            .collect();
        for want in [
            "hash/keccak256/1B tiny-keccak",
            "hash/keccak256/100KiB keccak-asm",
            "hash/sha384/1KiB ring",
            "hash/blake2b512/32B blake2b_simd",
            "hash/blake2s256/100KiB blake2",
            "hash/ripemd160/1B ripemd",
        ] {
            assert!(ids.iter().any(|i| i == want), "missing {want}");
        }
        for d in &defs {
            assert_ne!(d.version, "unknown", "{} {}", d.id(), d.implementation);
        }
    }

    #[test]
    fn hash_every_def_builds_and_verifies() {
        let ctx = ctx();
        for def in defs() {
            let mut w = (def.build)(&ctx)
                .unwrap_or_else(|e| panic!("{} {}: {e}", def.id(), def.implementation));
            assert_eq!(w.cases(), 8, "{} {}", def.id(), def.implementation);
            w.verify()
                .unwrap_or_else(|e| panic!("{} {}: {e}", def.id(), def.implementation));
            w.run(3);
        }
    }

    #[test]
    fn hash_corrupted_digest_fails_verify_naming_both_values() {
        // Flip the last hex digit of the first keccak256/32B digest.
        let mut original = String::new();
        let mut corrupted = String::new();
        let mut number = 0;
        let dir = edited_vectors("corrupt", |json| {
            let cases = json["cases"].as_array_mut().unwrap();
            number = cases
                .iter()
                .position(|c| c["algorithm"] == "keccak256" && c["len"] == 32)
                .unwrap();
            let case = &mut cases[number];
            original = case["digest"].as_str().unwrap().to_string();
            let mut s = original.clone();
            let last = s.pop().unwrap();
            s.push(if last == '0' { '1' } else { '0' });
            corrupted = s.clone();
            case["digest"] = serde_json::Value::String(s);
        });
        let ctx = Ctx {
            vectors: dir.clone(),
        };
        let defs: Vec<_> = defs()
            .into_iter()
            .filter(|d| d.id() == "hash/keccak256/32B")
            .collect();
        assert_eq!(defs.len(), 3);
        for def in defs {
            let err = (def.build)(&ctx).unwrap().verify().unwrap_err();
            // Numbered as in the file, as a parse error of it would be.
            assert_ne!(number, 0);
            assert_eq!(err.case, number.to_string(), "{}", def.implementation);
            assert_eq!(err.expected, corrupted, "{}", def.implementation);
            assert_eq!(err.actual, original, "{}", def.implementation);
        }
        // The other sizes are untouched and still pass.
        let other = defs_for("hash/keccak256/1B");
        (other.build)(&ctx).unwrap().verify().unwrap();
        std::fs::remove_dir_all(dir).unwrap();
        // A digest that does not parse names the same number.
        let dir = edited_vectors("unparsable", |json| {
            json["cases"][number]["digest"] = "0xZZ".into();
        });
        let ctx = Ctx {
            vectors: dir.clone(),
        };
        let Err(e) = (defs_for("hash/keccak256/32B").build)(&ctx) else {
            panic!("an unparsable digest built");
        };
        let e = e.to_string();
        assert!(e.contains(&format!("case {number}:")), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    fn defs_for(id: &str) -> BenchDef {
        defs().into_iter().find(|d| d.id() == id).unwrap()
    }

    #[test]
    fn hash_missing_or_malformed_vectors_are_build_errors_naming_the_file() {
        let missing = Ctx {
            vectors: PathBuf::from("/nonexistent/dyno-vectors"),
        };
        let err = (defs_for("hash/sha256/32B").build)(&missing)
            .err()
            .expect("build error")
            .to_string();
        assert!(err.contains("hash.json"), "{err}");

        let dir = edited_vectors("malformed", |json| {
            let case = json["cases"]
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .find(|c| c["algorithm"] == "sha256" && c["len"] == 1)
                .unwrap();
            case["digest"] = serde_json::Value::String("0xzz".into());
        });
        let bad = Ctx {
            vectors: dir.clone(),
        };
        let err = (defs_for("hash/sha256/1B").build)(&bad)
            .err()
            .expect("build error")
            .to_string();
        assert!(
            err.contains("hash.json") && err.contains("digest") && err.contains("not hex"),
            "{err}"
        );

        let dir2 = edited_vectors("nocases", |json| {
            json["cases"] = serde_json::Value::Array(Vec::new());
        });
        let empty = Ctx {
            vectors: dir2.clone(),
        };
        let err = (defs_for("hash/sha512/1KiB").build)(&empty)
            .err()
            .expect("build error")
            .to_string();
        assert!(
            err.contains("hash.json") && err.contains("no vector for hash/sha512/1KiB"),
            "{err}"
        );

        let dir3 = edited_vectors("notjson", |json| *json = serde_json::json!({"cases": 3}));
        let err = (defs_for("hash/sha512/1KiB").build)(&Ctx {
            vectors: dir3.clone(),
        })
        .err()
        .expect("build error")
        .to_string();
        assert!(
            err.contains("hash.json") && err.contains("malformed vector file"),
            "{err}"
        );
        // A top-level array is named in dyno's words, not serde's.
        let dir4 = edited_vectors("array", |json| *json = serde_json::json!([]));
        let err = (defs_for("hash/sha512/1KiB").build)(&Ctx {
            vectors: dir4.clone(),
        })
        .err()
        .expect("build error")
        .to_string();
        assert!(
            err.contains("hash.json: the file holds an array; a vector file is a JSON object"),
            "{err}"
        );
        assert!(!err.contains("invalid type"), "{err}");
        for d in [dir, dir2, dir3, dir4] {
            std::fs::remove_dir_all(d).unwrap();
        }
    }

    const KECCAK_EMPTY: &str = "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470";
    const SHA256_ABC: &str = "0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    #[test]
    fn hash_known_answers() {
        assert_eq!(hex(keccak256_tiny(b"")), KECCAK_EMPTY);
        assert_eq!(hex(keccak256_sha3(b"")), KECCAK_EMPTY);
        assert_eq!(hex(keccak256_asm(b"")), KECCAK_EMPTY);
        assert_eq!(hex(sha256_sha2(b"abc")), SHA256_ABC);
        assert_eq!(hex(sha256_ring(b"abc")), SHA256_ABC);
        // Not SHA3-256 of the empty string, which is a7ffc6f8….
        assert_ne!(hex(sha3::Sha3_256::digest(b"")), KECCAK_EMPTY);
    }

    #[test]
    fn hash_implementations_agree_on_inputs_beyond_the_vectors() {
        for seed in 0..20u64 {
            for len in [0, 1, 55, 56, 63, 64, 127, 128, 135, 136, 137, 1000] {
                let data = seq(seed ^ 0xabcd, len);
                let k = keccak256_tiny(&data);
                assert_eq!(&keccak256_sha3(&data)[..], k);
                assert_eq!(&keccak256_asm(&data)[..], k);
                assert_eq!(sha256_ring(&data).as_ref(), &sha256_sha2(&data)[..]);
                assert_eq!(sha384_ring(&data).as_ref(), &sha384_sha2(&data)[..]);
                assert_eq!(sha512_ring(&data).as_ref(), &sha512_sha2(&data)[..]);
                assert_eq!(
                    blake2b512_simd(&data).as_bytes(),
                    &blake2b512_blake2(&data)[..]
                );
            }
        }
    }
}
