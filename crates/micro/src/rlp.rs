//! rlp suite: encoding and decoding Ethereum objects.
//!
//! Two implementations are compared under every id `rlp/{encode,decode}/<input>`:
//!
//! * `alloy-rlp`: alloy-consensus's own types (`TxEnvelope`, `Header`,
//!   `BlockBody`, `ReceiptEnvelope`, `TrieAccount`) through
//!   `alloy_rlp::encode` and `alloy_rlp::decode_exact`;
//! * `rlp`: parity-common's `rlp` crate through field-for-field mirror structs
//!   (`rlp/parity.rs`) and `rlp::encode` / `rlp::decode`.
//!
//! The inputs are generated from `dyno_workload::seq` (`rlp/objects.rs`) in size
//! classes named by the input id. Before timing, each encode output must equal
//! the encoding the *other* library produced for the same object, and each
//! decode must return the generated object from the other library's bytes;
//! the builder also checks every one of those encodings against the
//! Keccak-256 hashes in `vectors/rlp.json`, which neither library made: the
//! vector generator (`vectors/gen/generate.py --only rlp`) draws the same
//! objects in Python and encodes them with pyrlp and with the Yellow Paper's
//! Appendix B. The tests pin both libraries to Ethereum's definitions with
//! the EIP-155 example transaction and the mainnet genesis header hash.
//!
//! The parity `encode` op returns what `rlp::encode` returns (a `BytesMut`),
//! so no conversion is timed; alloy's returns the `Vec<u8>` of
//! `alloy_rlp::encode` (sized from `length()` up front). alloy's decode of a
//! typed (EIP-2718) transaction also hashes it to cache its transaction hash;
//! that is part of what `alloy-rlp` decode measures.

pub mod generic;
pub mod objects;
mod parity;

use std::fmt::Debug;
use std::marker::PhantomData;

use alloy_consensus::{BlockBody, Header, ReceiptEnvelope, TrieAccount, TxEnvelope};
use dyno_workload::{BenchDef, BuildError, Cases, Ctx, Param, Workload, hex};
use serde::{Deserialize, Serialize};

use objects::Rng;
use parity::{PAccount, PBody, PHeader, PReceipts, PTx};

const GROUP: &str = "rlp";
const VECTORS: &str = "rlp.json";
const ALLOY: &str = "alloy-rlp";
const PARITY: &str = "rlp";

/// Every input set of the suite.
fn inputs() -> Vec<Box<dyn InputSet>> {
    vec![
        Box::new(Input::<TrieAccount, PAccount>::new(
            "tiny-account",
            "account",
            1000,
            8,
            objects::account,
        )),
        Box::new(Input::<TxEnvelope, PTx>::new(
            "small-legacy-tx",
            "legacy-tx",
            2000,
            8,
            objects::legacy_transfer,
        )),
        Box::new(Input::<TxEnvelope, PTx>::new(
            "small-eip1559-tx",
            "eip1559-tx",
            3000,
            8,
            objects::erc20_transfer_eip1559,
        )),
        Box::new(Input::<Header, PHeader>::new(
            "small-header",
            "header",
            4000,
            8,
            objects::header,
        )),
        Box::new(Input::<Vec<ReceiptEnvelope>, PReceipts>::new(
            "medium-receipts",
            "receipts",
            5000,
            4,
            |rng| objects::receipts(rng, 10),
        )),
        Box::new(Input::<BlockBody<TxEnvelope>, PBody>::new(
            "medium-body",
            "block-body",
            6000,
            4,
            |rng| objects::body(rng, 20, None),
        )),
        Box::new(Input::<BlockBody<TxEnvelope>, PBody>::new(
            "large-body",
            "block-body",
            7000,
            4,
            |rng| objects::body(rng, 200, None),
        )),
        Box::new(Input::<Vec<ReceiptEnvelope>, PReceipts>::new(
            "large-receipts",
            "receipts",
            8000,
            4,
            |rng| objects::receipts(rng, 100),
        )),
        Box::new(Input::<BlockBody<TxEnvelope>, PBody>::new(
            "vlarge-body",
            "block-body",
            9000,
            2,
            |rng| objects::body(rng, 1500, Some(150)),
        )),
    ]
}

/// The rlp benchmarks.
pub fn defs() -> Vec<BenchDef> {
    inputs()
        .into_iter()
        .flat_map(|input| {
            let mut d = input.defs();
            d.extend(generic_defs(input));
            d
        })
        .collect()
}

/// The input ids, in order.
pub fn input_ids() -> Vec<&'static str> {
    inputs().iter().map(|i| i.name()).collect()
}

/// An encoding and its generic tree.
pub type GenericCase = (Vec<u8>, generic::Item);

/// Input `input`'s encodings (checked against the vector file) and their
/// generic trees (alloy-rlp's and parity's decodings, which must agree).
pub fn generic_cases(ctx: &Ctx, input: &str) -> Option<Result<Vec<GenericCase>, BuildError>> {
    let set = inputs().into_iter().find(|i| i.name() == input)?;
    Some(trees(set.as_ref(), ctx))
}

fn trees(set: &dyn InputSet, ctx: &Ctx) -> Result<Vec<GenericCase>, BuildError> {
    let what = format!("{GROUP}/decode-generic/{}", set.name());
    let bytes = set.checked_encodings(ctx, &what)?;
    bytes
        .into_iter()
        .enumerate()
        .map(|(k, b)| {
            let a = generic::decode_alloy(&b);
            let p = generic::decode_parity(&b);
            match (a, p) {
                (Ok(a), Ok(p)) if a == p => Ok((b, a)),
                (a, p) => Err(BuildError::vectors(
                    &ctx.path(VECTORS),
                    format!(
                        "{what} case {k}: alloy-rlp and parity decode differently ({a:?} / {p:?})"
                    ),
                )),
            }
        })
        .collect()
}

/// `rlp/{decode,encode}-generic/<input>` for both libraries.
fn generic_defs(set: Box<dyn InputSet>) -> Vec<BenchDef> {
    let name = set.name();
    let params = set.params();
    let mut out = Vec::new();
    for op in ["decode-generic", "encode-generic"] {
        for implementation in [ALLOY, PARITY] {
            out.push(BenchDef {
                cases: Some(crate::cases::cases),
                group: GROUP,
                op,
                input: name.to_string(),
                implementation,
                version: crate::version(if implementation == ALLOY {
                    "alloy-rlp"
                } else {
                    "rlp"
                }),
                params: params.clone(),
                build: Box::new(move |ctx: &Ctx| {
                    let cases = generic_cases(ctx, name).expect("a known input")?;
                    Ok(generic_workload(op, implementation, cases))
                }),
            });
        }
    }
    out
}

fn generic_workload(op: &str, implementation: &str, cases: Vec<GenericCase>) -> Box<dyn Workload> {
    let show = |o: &Vec<u8>| hex(o);
    match (op, implementation == ALLOY) {
        ("decode-generic", alloy) => {
            let pairs = cases.into_iter().map(|(b, t)| (b, Ok(t))).collect();
            let f = if alloy {
                |b: &Vec<u8>| generic::decode_alloy(b)
            } else {
                |b: &Vec<u8>| generic::decode_parity(b)
            };
            Box::new(Cases::expect(pairs, f))
        }
        (_, alloy) => {
            let pairs = cases.into_iter().map(|(b, t)| (t, b)).collect();
            let f = if alloy {
                |t: &generic::Item| generic::encode_alloy(t)
            } else {
                |t: &generic::Item| generic::encode_parity(t)
            };
            Box::new(Cases::expect(pairs, f).show(show))
        }
    }
}

/// An object alloy encodes and decodes.
trait AlloyObject:
    alloy_rlp::Encodable + alloy_rlp::Decodable + Clone + PartialEq + Debug + 'static
{
}
impl<T> AlloyObject for T where
    T: alloy_rlp::Encodable + alloy_rlp::Decodable + Clone + PartialEq + Debug + 'static
{
}

/// An object parity's `rlp` encodes and decodes.
trait ParityObject: ::rlp::Encodable + ::rlp::Decodable + Clone + PartialEq + Debug + 'static {}
impl<T> ParityObject for T where
    T: ::rlp::Encodable + ::rlp::Decodable + Clone + PartialEq + Debug + 'static
{
}

/// One input id: how its objects are made, as alloy values `A` mirrored into
/// parity values `P`.
struct Input<A, P> {
    id: &'static str,
    kind: &'static str,
    /// Case `k` is generated from `seq(seed + k, ·)`.
    seed: u64,
    cases: usize,
    generate: fn(&mut Rng) -> A,
    mirror: PhantomData<fn() -> P>,
}

impl<A, P> Clone for Input<A, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A, P> Copy for Input<A, P> {}

/// What the suite and its tests need of an input, whatever its types.
trait InputSet {
    fn defs(&self) -> Vec<BenchDef>;
    /// The input id.
    fn name(&self) -> &'static str;
    /// Recorded parameters: the object kind and the first case's length.
    fn params(&self) -> Vec<(&'static str, Param)>;
    /// Every case's encoding, checked against the vector file.
    fn checked_encodings(&self, ctx: &Ctx, what: &str) -> Result<Vec<Vec<u8>>, BuildError>;
    #[cfg(test)]
    fn id(&self) -> &'static str;
    #[cfg(test)]
    fn seed(&self) -> u64;
    /// Each case's encoding by both libraries, after checking that each
    /// library decodes both back to the generated object.
    #[cfg(test)]
    fn encodings(&self) -> Result<Vec<Vec<u8>>, String>;
}

/// A built workload or why it could not be built.
type Built = Result<Box<dyn Workload>, BuildError>;

impl<A: AlloyObject, P: ParityObject + for<'a> From<&'a A>> Input<A, P> {
    fn new(
        id: &'static str,
        kind: &'static str,
        seed: u64,
        cases: usize,
        generate: fn(&mut Rng) -> A,
    ) -> Self {
        Self {
            id,
            kind,
            seed,
            cases,
            generate,
            mirror: PhantomData,
        }
    }

    fn object(&self, case: usize) -> A {
        (self.generate)(&mut Rng::new(self.seed + case as u64))
    }

    fn objects(&self) -> Vec<A> {
        (0..self.cases).map(|k| self.object(k)).collect()
    }

    fn def(
        &self,
        op: &'static str,
        implementation: &'static str,
        params: &[(&'static str, Param)],
        build: fn(&Self, &Ctx) -> Built,
    ) -> BenchDef {
        let me = *self;
        BenchDef {
            cases: None,
            group: GROUP,
            op,
            input: self.id.to_string(),
            implementation,
            version: crate::version(if implementation == ALLOY {
                "alloy-rlp"
            } else {
                "rlp"
            }),
            params: params.to_vec(),
            build: Box::new(move |ctx| build(&me, ctx)),
        }
    }

    /// Checks encodings made by one library against the vector file before
    /// they serve as the other library's expected output or input.
    fn check_vectors(
        &self,
        ctx: &Ctx,
        what: &str,
        encodings: &[Vec<u8>],
    ) -> Result<(), BuildError> {
        let path = ctx.path(VECTORS);
        let file: VectorFile = ctx.vector_json(VECTORS)?;
        let listed: Vec<&VectorCase> = file.cases.iter().filter(|c| c.input == self.id).collect();
        if listed.is_empty() {
            return Err(BuildError::NoVector {
                path,
                what: what.to_string(),
            });
        }
        if listed.len() != encodings.len() {
            return Err(BuildError::vectors(
                &path,
                format!(
                    "{what}: the file lists {} cases of {}, the generator makes {}",
                    listed.len(),
                    self.id,
                    encodings.len()
                ),
            ));
        }
        for (k, encoding) in encodings.iter().enumerate() {
            let Some(v) = listed.iter().find(|c| c.case == k) else {
                return Err(BuildError::NoVector {
                    path,
                    what: format!("{what} case {k}"),
                });
            };
            let (seed, hash) = (self.seed + k as u64, keccak256_hex(encoding));
            if v.seed != seed || v.len != encoding.len() || !v.keccak256.eq_ignore_ascii_case(&hash)
            {
                return Err(BuildError::vectors(
                    &path,
                    format!(
                        "{what} case {k}: generated from seed {seed}, {} bytes, keccak256 {hash}; \
                         the vector says seed {}, {} bytes, keccak256 {}",
                        encoding.len(),
                        v.seed,
                        v.len,
                        v.keccak256
                    ),
                ));
            }
        }
        Ok(())
    }

    fn what(&self, op: &str, implementation: &str) -> String {
        format!("{GROUP}/{op}/{} ({implementation})", self.id)
    }

    fn build_encode_alloy(&self, ctx: &Ctx) -> Built {
        let objects = self.objects();
        let expected: Vec<Vec<u8>> = objects.iter().map(|a| parity_encode(&P::from(a))).collect();
        self.check_vectors(ctx, &self.what("encode", ALLOY), &expected)?;
        Ok(Box::new(alloy_encoder(pairs(objects, expected))))
    }

    fn build_encode_parity(&self, ctx: &Ctx) -> Built {
        let objects = self.objects();
        let expected: Vec<Vec<u8>> = objects.iter().map(alloy_rlp::encode).collect();
        self.check_vectors(ctx, &self.what("encode", PARITY), &expected)?;
        let mirrors = objects.iter().map(P::from).collect();
        Ok(Box::new(parity_encoder(pairs(mirrors, expected))))
    }

    fn build_decode_alloy(&self, ctx: &Ctx) -> Built {
        let objects = self.objects();
        let bytes: Vec<Vec<u8>> = objects.iter().map(|a| parity_encode(&P::from(a))).collect();
        self.check_vectors(ctx, &self.what("decode", ALLOY), &bytes)?;
        Ok(Box::new(alloy_decoder::<A>(pairs(bytes, objects))))
    }

    fn build_decode_parity(&self, ctx: &Ctx) -> Built {
        let objects = self.objects();
        let bytes: Vec<Vec<u8>> = objects.iter().map(alloy_rlp::encode).collect();
        self.check_vectors(ctx, &self.what("decode", PARITY), &bytes)?;
        let mirrors = objects.iter().map(P::from).collect();
        Ok(Box::new(parity_decoder::<P>(pairs(bytes, mirrors))))
    }
}

impl<A: AlloyObject, P: ParityObject + for<'a> From<&'a A>> InputSet for Input<A, P> {
    fn params(&self) -> Vec<(&'static str, Param)> {
        let bytes = alloy_rlp::Encodable::length(&self.object(0));
        vec![
            ("kind", Param::Text(self.kind.to_string())),
            ("bytes", Param::Int(bytes as u64)),
        ]
    }

    fn defs(&self) -> Vec<BenchDef> {
        let params = self.params();
        vec![
            self.def("encode", ALLOY, &params, Self::build_encode_alloy),
            self.def("encode", PARITY, &params, Self::build_encode_parity),
            self.def("decode", ALLOY, &params, Self::build_decode_alloy),
            self.def("decode", PARITY, &params, Self::build_decode_parity),
        ]
    }

    fn name(&self) -> &'static str {
        self.id
    }

    fn checked_encodings(&self, ctx: &Ctx, what: &str) -> Result<Vec<Vec<u8>>, BuildError> {
        let bytes: Vec<Vec<u8>> = self.objects().iter().map(alloy_rlp::encode).collect();
        self.check_vectors(ctx, what, &bytes)?;
        Ok(bytes)
    }

    #[cfg(test)]
    fn id(&self) -> &'static str {
        self.id
    }

    #[cfg(test)]
    fn seed(&self) -> u64 {
        self.seed
    }

    #[cfg(test)]
    fn encodings(&self) -> Result<Vec<Vec<u8>>, String> {
        let mut out = Vec::with_capacity(self.cases);
        for (k, object) in self.objects().into_iter().enumerate() {
            let mirror = P::from(&object);
            let (alloy, parity) = (alloy_rlp::encode(&object), parity_encode(&mirror));
            if alloy != parity {
                let (e, a) = byte_difference(&alloy, &parity);
                return Err(format!("{} case {k}: alloy {e}, parity {a}", self.id));
            }
            if alloy_rlp::decode_exact::<A>(&alloy).as_ref() != Ok(&object) {
                return Err(format!("{} case {k}: alloy does not round-trip", self.id));
            }
            if ::rlp::decode::<P>(&parity).as_ref() != Ok(&mirror) {
                return Err(format!("{} case {k}: parity does not round-trip", self.id));
            }
            out.push(alloy);
        }
        Ok(out)
    }
}

/// `rlp::encode` as plain bytes (for expectations, not timed).
fn parity_encode<P: ::rlp::Encodable>(p: &P) -> Vec<u8> {
    ::rlp::encode(p).to_vec()
}

/// One workload input with the value it must produce.
struct Case<I, E> {
    input: I,
    expected: E,
}

fn pairs<I, E>(inputs: Vec<I>, expected: Vec<E>) -> Vec<Case<I, E>> {
    inputs
        .into_iter()
        .zip(expected)
        .map(|(input, expected)| Case { input, expected })
        .collect()
}

/// `alloy_rlp::encode(object)` must return the expected bytes.
fn alloy_encoder<A: AlloyObject>(cases: Vec<Case<A, Vec<u8>>>) -> impl Workload {
    Cases::checked(
        cases,
        |c: &Case<A, Vec<u8>>| alloy_rlp::encode(&c.input),
        |c, out| same_bytes(&c.expected, out),
    )
}

/// `rlp::encode(mirror)` must return the expected bytes.
fn parity_encoder<P: ParityObject>(cases: Vec<Case<P, Vec<u8>>>) -> impl Workload {
    Cases::checked(
        cases,
        |c: &Case<P, Vec<u8>>| ::rlp::encode(&c.input),
        |c, out| same_bytes(&c.expected, out),
    )
}

/// `alloy_rlp::decode_exact(bytes)` must return the generated object.
fn alloy_decoder<A: AlloyObject>(cases: Vec<Case<Vec<u8>, A>>) -> impl Workload {
    Cases::checked(
        cases,
        |c: &Case<Vec<u8>, A>| alloy_rlp::decode_exact::<A>(&c.input),
        |c, out| same_object(&c.expected, out.as_ref()),
    )
}

/// `rlp::decode(bytes)` must return the mirror of the generated object.
fn parity_decoder<P: ParityObject>(cases: Vec<Case<Vec<u8>, P>>) -> impl Workload {
    Cases::checked(
        cases,
        |c: &Case<Vec<u8>, P>| ::rlp::decode::<P>(&c.input),
        |c, out| same_object(&c.expected, out.as_ref()),
    )
}

fn same_bytes(expected: &[u8], actual: &[u8]) -> Result<(), (String, String)> {
    if expected == actual {
        Ok(())
    } else {
        Err(byte_difference(expected, actual))
    }
}

fn same_object<T: PartialEq + Debug, E: Debug>(
    expected: &T,
    actual: Result<&T, &E>,
) -> Result<(), (String, String)> {
    match actual {
        Ok(actual) if actual == expected => Ok(()),
        Ok(actual) => Err(debug_difference(expected, actual)),
        Err(e) => Err((
            window(&format!("{expected:?}"), 0),
            format!("decoding error {e:?}"),
        )),
    }
}

/// Both byte strings, shown from just before their first difference (a plain
/// `hex` would cut both at the same 64-byte prefix).
fn byte_difference(expected: &[u8], actual: &[u8]) -> (String, String) {
    let at = expected
        .iter()
        .zip(actual)
        .position(|(e, a)| e != a)
        .unwrap_or(expected.len().min(actual.len()));
    let start = at.saturating_sub(8);
    let show = |b: &[u8]| {
        let from = start.min(b.len());
        format!(
            "{} bytes, keccak256 {}, bytes from offset {start}: {}",
            b.len(),
            keccak256_hex(b),
            hex(&b[from..(from + 32).min(b.len())])
        )
    };
    (show(expected), show(actual))
}

/// Both values' `Debug` text around their first difference, truncated.
fn debug_difference<T: Debug>(expected: &T, actual: &T) -> (String, String) {
    let (e, a) = (format!("{expected:?}"), format!("{actual:?}"));
    let at = e
        .char_indices()
        .zip(a.chars())
        .find(|((_, x), y)| x != y)
        .map_or(e.len().min(a.len()), |((i, _), _)| i);
    (window(&e, at), window(&a, at))
}

/// About 200 characters of `s` around byte offset `at`.
fn window(s: &str, at: usize) -> String {
    let mut start = at.saturating_sub(60).min(s.len());
    while !s.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (start + 200).min(s.len());
    while !s.is_char_boundary(end) {
        end += 1;
    }
    let head = if start > 0 { "…" } else { "" };
    let tail = if end < s.len() { "…" } else { "" };
    format!("{head}{}{tail}", &s[start..end])
}

/// `0x`-prefixed Keccak-256 of `bytes` (tiny-keccak, independent of alloy).
fn keccak256_hex(bytes: &[u8]) -> String {
    use tiny_keccak::{Hasher, Keccak};
    let mut k = Keccak::v256();
    k.update(bytes);
    let mut out = [0u8; 32];
    k.finalize(&mut out);
    hex(out)
}

/// `vectors/rlp.json` (written by `vectors/gen/generate.py --only rlp`).
#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct VectorFile {
    /// What made it and how; not read here.
    provenance: serde_json::Value,
    cases: Vec<VectorCase>,
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct VectorCase {
    input: String,
    case: usize,
    seed: u64,
    len: usize,
    keccak256: String,
}

#[cfg(test)]
mod tests;
