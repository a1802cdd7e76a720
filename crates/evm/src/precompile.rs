//! precompile suite: every Prague/Osaka precompile (0x01-0x11 and 0x100)
//! called directly, in-process, through revm-precompile.
//!
//! Ids are `precompile/<op>/<input>`, where `<input>` is the name of a
//! go-ethereum vector (sanitized to `[A-Za-z0-9._-]`). The vectors are
//! geth's canonical ones ([`crate::geth`]); each def times one of them and
//! compares the output bytes with the vector's `Expected` before timing.
//! geth ships no vectors for sha256, ripemd160 and identity, so those read
//! the digests of `vectors/hash.json` (the hash suite's `seq` inputs) at
//! 32 B, 1 KiB and 100 KiB, and identity checks that it returns its input.
//!
//! Implementations, named by the backend that does the work:
//!
//! - The Osaka precompile table (`Precompiles::new(OSAKA)`) with the
//!   features reth builds revm with (decision D38, from reth 2.5.1's
//!   manifests: `crates/ethereum/node` turns on `secp256k1`, `blst`,
//!   `c-kzg` and `p256-aws-lc-rs`, `bin/reth`'s defaults `asm-keccak`
//!   and `gmp`, the last left out): `libsecp256k1` (ecrecover), `sha2`,
//!   `ripemd`, `revm` (identity, blake2f: revm's own code),
//!   `aurora-engine-modexp` (modexp: revm's default without `gmp`),
//!   `arkworks` (bn254: revm's default without its `bn` feature), `c-kzg`,
//!   `blst` (BLS12-381) and `aws-lc-rs` (p256verify).
//! - The alternative backends revm-precompile 43 exposes as callable
//!   functions, wrapped with the same input handling as revm's precompile:
//!   `k256` for ecrecover, `blst` and `arkworks` for the KZG point
//!   evaluation.
//! - Vendored from revm-precompile 43.0.3 (MIT), each with revm's own
//!   input handling at Osaka's gas, one file per backend under
//!   `precompile/`: `substrate-bn` for bn254 add, mul and pairing (revm's
//!   code behind its `bn` feature), the `p256` crate for p256verify
//!   (revm's without `p256-aws-lc-rs`), and `arkworks` for the seven
//!   BLS12-381 (EIP-2537) precompiles (`crate::arkworks_bls`).
//!
//! Every call gets a generous gas limit; the timed operation is the call
//! alone, on input bytes prepared by the builder.

use dyno_workload::{BenchDef, BuildError, Cases, Ctx, Param, Workload, hex, seq};
use revm_precompile::primitives::alloy_primitives::B512;
use revm_precompile::primitives::{B256, Bytes};
use revm_precompile::utilities::right_pad;
use revm_precompile::{
    EthPrecompileOutput, EthPrecompileResult, Precompile, PrecompileEthFn, PrecompileHalt,
    PrecompileSpecId, PrecompileStatus, Precompiles, kzg_point_evaluation, secp256k1,
    u64_to_address,
};

use crate::arkworks_bls::{
    bls12_g1_add_arkworks, bls12_g1_msm_arkworks, bls12_g2_add_arkworks, bls12_g2_msm_arkworks,
    bls12_map_fp_to_g1_arkworks, bls12_map_fp2_to_g2_arkworks, bls12_pairing_arkworks,
};
use crate::geth;

/// The revm-precompile version dyno links (checked against `Cargo.lock`).
pub const REVM_PRECOMPILE_VERSION: &str = "43.0.3";

/// The gas limit every call gets: far above any vector's cost.
const GAS_LIMIT: u64 = 1 << 48;

/// What a call returns: the output bytes, or why the precompile halted.
type Outcome = Result<Bytes, PrecompileHalt>;

/// One precompile implementation, callable on input bytes.
#[derive(Clone, Copy, Debug)]
enum Call {
    /// An entry of revm's precompile table.
    Table(&'static Precompile),
    /// A function with revm's `(input, gas_limit)` signature.
    Eth(PrecompileEthFn),
}

impl Call {
    /// The entry at `address` of the Osaka table.
    fn osaka(address: u64) -> Self {
        let p = Precompiles::new(PrecompileSpecId::OSAKA)
            .get(&u64_to_address(address))
            .unwrap_or_else(|| panic!("revm has no Osaka precompile at {address:#x}"));
        Self::Table(p)
    }

    /// Run on `input`: gas used and output, or the halt reason.
    #[inline]
    fn exec(self, input: &[u8]) -> Result<(u64, Bytes), PrecompileHalt> {
        match self {
            Self::Table(p) => match p.execute(input, GAS_LIMIT, 0) {
                Ok(out) => match out.status {
                    PrecompileStatus::Success => Ok((out.gas_used, out.bytes)),
                    PrecompileStatus::Revert => Err(PrecompileHalt::other_static("reverted")),
                    PrecompileStatus::Halt(h) => Err(h),
                },
                Err(fatal) => Err(PrecompileHalt::other(fatal.to_string())),
            },
            Self::Eth(f) => f(input, GAS_LIMIT).map(|o| (o.gas_used, o.bytes)),
        }
    }

    /// The timed operation: the call, keeping the output.
    #[inline]
    fn output(self, input: &[u8]) -> Outcome {
        self.exec(input).map(|(_, bytes)| bytes)
    }
}

/// ecrecover with revm's input handling and the `k256` backend
/// (`revm_precompile::secp256k1::k256::ecrecover`), mirroring
/// `secp256k1::ec_recover_run`, which uses libsecp256k1 in dyno's build.
fn ecrecover_k256(input: &[u8], gas_limit: u64) -> EthPrecompileResult {
    const ECRECOVER_BASE: u64 = 3_000;
    if ECRECOVER_BASE > gas_limit {
        return Err(PrecompileHalt::OutOfGas);
    }
    let input = right_pad::<128>(input);
    if !(input[32..63].iter().all(|&b| b == 0) && matches!(input[63], 27 | 28)) {
        return Ok(EthPrecompileOutput::new(ECRECOVER_BASE, Bytes::new()));
    }
    let (Ok(msg), Ok(sig)) = (
        <&B256>::try_from(&input[0..32]),
        <&B512>::try_from(&input[64..128]),
    ) else {
        return Err(PrecompileHalt::Secp256k1RecoverFailed);
    };
    let recid = input[63] - 27;
    let out = secp256k1::k256::ecrecover(sig, recid, msg)
        .map(|a| Bytes::copy_from_slice(a.as_slice()))
        .unwrap_or_default();
    Ok(EthPrecompileOutput::new(ECRECOVER_BASE, out))
}

/// A KZG proof check: `(commitment, z, y, proof) -> valid`.
type KzgVerify = fn(&[u8; 48], &[u8; 32], &[u8; 32], &[u8; 48]) -> bool;

/// The point evaluation precompile with revm's input handling
/// (`kzg_point_evaluation::run`) and the proof check `verify`.
#[inline]
fn kzg_with(input: &[u8], gas_limit: u64, verify: KzgVerify) -> EthPrecompileResult {
    use kzg_point_evaluation::{GAS_COST, RETURN_VALUE, kzg_to_versioned_hash};
    if gas_limit < GAS_COST {
        return Err(PrecompileHalt::OutOfGas);
    }
    if input.len() != 192 {
        return Err(PrecompileHalt::BlobInvalidInputLength);
    }
    let commitment = &input[96..144];
    if kzg_to_versioned_hash(commitment) != input[..32] {
        return Err(PrecompileHalt::BlobMismatchedVersion);
    }
    let (Ok(commitment), Ok(z), Ok(y), Ok(proof)) = (
        commitment.try_into(),
        input[32..64].try_into(),
        input[64..96].try_into(),
        input[144..192].try_into(),
    ) else {
        return Err(PrecompileHalt::BlobInvalidInputLength);
    };
    if !verify(commitment, z, y, proof) {
        return Err(PrecompileHalt::BlobVerifyKzgProofFailed);
    }
    Ok(EthPrecompileOutput::new(
        GAS_COST,
        Bytes::from_static(RETURN_VALUE),
    ))
}

fn kzg_blst(input: &[u8], gas_limit: u64) -> EthPrecompileResult {
    kzg_with(
        input,
        gas_limit,
        kzg_point_evaluation::blst::verify_kzg_proof,
    )
}

fn kzg_arkworks(input: &[u8], gas_limit: u64) -> EthPrecompileResult {
    kzg_with(
        input,
        gas_limit,
        kzg_point_evaluation::arkworks::verify_kzg_proof,
    )
}

/// Where a precompile's benchmark inputs come from.
#[derive(Clone, Copy, Debug)]
enum Source {
    /// A geth vector file.
    Geth(&'static str),
    /// `vectors/hash.json` digests of this algorithm (sha256, ripemd160).
    Hash(&'static str),
    /// `seq` inputs, expected back unchanged.
    Identity,
}

/// One benchmarked input: its name (geth's, or a size), byte count and
/// geth's gas for it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pick {
    pub(crate) name: &'static str,
    pub(crate) bytes: u64,
    gas: Option<u64>,
}

const fn pick(name: &'static str, bytes: u64, gas: u64) -> Pick {
    Pick {
        name,
        bytes,
        gas: Some(gas),
    }
}

const fn size(name: &'static str, bytes: u64) -> Pick {
    Pick {
        name,
        bytes,
        gas: None,
    }
}

/// A precompile: its op name (its name in `specs/gas/<fork>.toml`, which
/// gives its address), default backend, alternatives, input source and the
/// inputs benchmarked.
#[derive(Debug)]
pub(crate) struct Op {
    pub(crate) op: &'static str,
    default: &'static str,
    alternatives: &'static [(&'static str, PrecompileEthFn)],
    source: Source,
    picks: &'static [Pick],
}

impl Op {
    /// Its address, from the Osaka schedule dyno was built with
    /// (`specs/gas/osaka.toml`); the suite's tests check every op has one.
    pub(crate) fn address(&self) -> u64 {
        dyno_spec::gas::built_in_osaka()
            .get(self.op)
            .unwrap_or_else(|e| panic!("{e}"))
            .address
    }
}

const SIZES: [Pick; 3] = [
    size("32B", 32),
    size("1KiB", 1024),
    size("100KiB", 100 * 1024),
];

/// The suite: one entry per precompile, with the inputs it times.
const OPS: &[Op] = &[
    Op {
        op: "ecrecover",
        default: "libsecp256k1",
        alternatives: &[("k256", ecrecover_k256)],
        source: Source::Geth("ecRecover.json"),
        picks: &[
            pick("ValidKey", 128, 3000),
            pick("CallEcrecoverUnrecoverableKey", 160, 3000),
        ],
    },
    Op {
        op: "sha256",
        default: "sha2",
        alternatives: &[],
        source: Source::Hash("sha256"),
        picks: &SIZES,
    },
    Op {
        op: "ripemd160",
        default: "ripemd",
        alternatives: &[],
        source: Source::Hash("ripemd160"),
        picks: &SIZES,
    },
    Op {
        op: "identity",
        default: "revm",
        alternatives: &[],
        source: Source::Identity,
        picks: &SIZES,
    },
    Op {
        op: "modexp",
        default: "aurora-engine-modexp",
        alternatives: &[],
        source: Source::Geth("modexp_eip7883.json"),
        picks: &[
            pick("nagydani-1-square", 225, 500),
            pick("nagydani-1-pow0x10001", 227, 2048),
            pick("nagydani-3-pow0x10001", 611, 32768),
            pick("nagydani-5-square", 2145, 32768),
            pick("nagydani-5-pow0x10001", 2147, 524288),
            pick("marcin-1-base-heavy", 481, 1152),
            pick("marcin-1-exp-heavy", 193, 16624),
            pick("marcin-1-balanced", 180, 1200),
            pick("marcin-3-balanced", 192, 4080),
            pick("guido-3-even", 1312, 32400),
            pick("pawel-1-exp-heavy", 223, 24560),
        ],
    },
    Op {
        op: "bn254-add",
        default: "arkworks",
        alternatives: &[("substrate-bn", substrate_bn::bn254_add_substrate)],
        source: Source::Geth("bn256Add.json"),
        picks: &[pick("chfast1", 128, 150), pick("chfast2", 128, 150)],
    },
    Op {
        op: "bn254-mul",
        default: "arkworks",
        alternatives: &[("substrate-bn", substrate_bn::bn254_mul_substrate)],
        source: Source::Geth("bn256ScalarMul.json"),
        picks: &[pick("chfast1", 96, 6000), pick("chfast2", 96, 6000)],
    },
    Op {
        op: "bn254-pairing",
        default: "arkworks",
        alternatives: &[("substrate-bn", substrate_bn::bn254_pairing_substrate)],
        source: Source::Geth("bn256Pairing.json"),
        picks: &[
            pick("empty_data", 0, 45000),
            pick("one_point", 192, 79000),
            pick("jeff1", 384, 113000),
            pick("jeff4", 576, 147000),
            pick("ten_point_match_1", 1920, 385000),
        ],
    },
    Op {
        op: "blake2f",
        default: "revm",
        alternatives: &[],
        source: Source::Geth("blake2F.json"),
        picks: &[
            pick("vector 4", 213, 0),
            pick("vector 7", 213, 1),
            pick("vector 5", 213, 12),
            pick("vector 8", 213, 8_000_000),
        ],
    },
    Op {
        op: "kzg-point-evaluation",
        default: "c-kzg",
        alternatives: &[("blst", kzg_blst), ("arkworks", kzg_arkworks)],
        source: Source::Geth("pointEvaluation.json"),
        picks: &[pick("pointEvaluation1", 192, 50000)],
    },
    Op {
        op: "bls12-g1add",
        default: "blst",
        alternatives: &[("arkworks", bls12_g1_add_arkworks)],
        source: Source::Geth("blsG1Add.json"),
        picks: &[
            pick("bls_g1add_g1+p1", 256, 375),
            pick("matter_g1_add_0", 256, 375),
        ],
    },
    Op {
        op: "bls12-g1msm",
        default: "blst",
        alternatives: &[("arkworks", bls12_g1_msm_arkworks)],
        source: Source::Geth("blsG1MultiExp.json"),
        picks: &[
            pick("g1msm-1-jwasinger", 160, 12000),
            pick("g1msm-2-jwasinger", 320, 22776),
            pick("g1msm-4-jwasinger", 640, 38256),
            pick("g1msm-8-jwasinger", 1280, 69888),
            pick("g1msm-16-jwasinger", 2560, 129984),
            pick("g1msm-64-jwasinger", 10240, 442368),
            pick("g1msm-256-jwasinger", 40960, 1594368),
            pick("g1msm-1024-jwasinger", 163840, 6377472),
            pick("g1msm-4877-jwasinger", 780320, 30373956),
        ],
    },
    Op {
        op: "bls12-g2add",
        default: "blst",
        alternatives: &[("arkworks", bls12_g2_add_arkworks)],
        source: Source::Geth("blsG2Add.json"),
        picks: &[
            pick("bls_g2add_g2+p2", 512, 600),
            pick("matter_g2_add_0", 512, 600),
        ],
    },
    Op {
        op: "bls12-g2msm",
        default: "blst",
        alternatives: &[("arkworks", bls12_g2_msm_arkworks)],
        source: Source::Geth("blsG2MultiExp.json"),
        picks: &[
            pick("g2msm-1-jwasinger", 288, 22500),
            pick("g2msm-2-jwasinger", 576, 45000),
            pick("g2msm-4-jwasinger", 1152, 79560),
            pick("g2msm-8-jwasinger", 2304, 143280),
            pick("g2msm-16-jwasinger", 4608, 258120),
            pick("g2msm-64-jwasinger", 18432, 838080),
            pick("g2msm-256-jwasinger", 73728, 3018240),
            pick("g2msm-1024-jwasinger", 294912, 12072960),
        ],
    },
    Op {
        op: "bls12-pairing",
        default: "blst",
        alternatives: &[("arkworks", bls12_pairing_arkworks)],
        source: Source::Geth("blsPairing.json"),
        picks: &[
            pick("matter_pairing_0", 384, 70300),
            pick("matter_pairing_16", 768, 102900),
            pick("matter_pairing_32", 1152, 135500),
            pick("matter_pairing_48", 1536, 168100),
            pick("matter_pairing_80", 3072, 298500),
            pick("bls_pairing_10paircheckstrue", 3840, 363700),
        ],
    },
    Op {
        op: "bls12-map-fp-to-g1",
        default: "blst",
        alternatives: &[("arkworks", bls12_map_fp_to_g1_arkworks)],
        source: Source::Geth("blsMapG1.json"),
        picks: &[pick("matter_fp_to_g1_0", 64, 5500)],
    },
    Op {
        op: "bls12-map-fp2-to-g2",
        default: "blst",
        alternatives: &[("arkworks", bls12_map_fp2_to_g2_arkworks)],
        source: Source::Geth("blsMapG2.json"),
        picks: &[pick("matter_fp2_to_g2_0", 128, 23800)],
    },
    Op {
        op: "p256verify",
        default: "aws-lc-rs",
        alternatives: &[("p256", p256_crate::p256verify_p256)],
        source: Source::Geth("p256Verify.json"),
        picks: &[
            pick("CallP256Verify", 160, 6900),
            pick("invalid public key x param errors", 160, 6900),
        ],
    },
];

/// A geth vector name as an id part: `[A-Za-z0-9._-]`, others become `-`.
pub fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// The precompile benchmarks.
pub fn defs() -> Vec<BenchDef> {
    let mut defs = Vec::new();
    for op in OPS {
        for pick in op.picks {
            let implementations = std::iter::once((op.default, None))
                .chain(op.alternatives.iter().map(|&(name, f)| (name, Some(f))));
            for (implementation, alternative) in implementations {
                defs.push(def(op, *pick, implementation, alternative));
            }
        }
    }
    defs
}

/// Every precompile and input the suite times, in order.
pub(crate) fn picks() -> impl Iterator<Item = (&'static Op, Pick)> {
    OPS.iter()
        .flat_map(|op| op.picks.iter().map(move |&pick| (op, pick)))
}

/// The op and pick behind a direct-mode id `precompile/<op>/<input>`.
fn lookup(id: &str) -> Option<(&'static Op, Pick)> {
    let rest = id.strip_prefix("precompile/")?;
    let (op_name, input) = rest.split_once('/')?;
    picks().find(|(op, pick)| op.op == op_name && sanitize(pick.name) == input)
}

/// The precompile (op name) and input bytes behind a direct-mode id, for
/// pricing; `None` for an id this suite does not define.
pub fn input_of(ctx: &Ctx, id: &str) -> Option<Result<(&'static str, Vec<u8>), BuildError>> {
    let (op, pick) = lookup(id)?;
    Some(case(ctx, op.op, pick, id).map(|(input, _)| (op.op, input)))
}

/// The bytecode-mode control: a STATICCALL of IDENTITY with no input.
const BYTECODE_NOOP: &str = "precompile-bytecode/noop/identity-empty";

/// The cases of a direct-mode id in the adapter protocol's form (`input`,
/// `gas` → `output`), or `None` for an id this suite does not define. `gas`
/// is go-ethereum's price where its vector states one.
///
/// Bytecode-mode ids (`precompile-bytecode/...`) carry the same cases plus
/// `code`, the loop program of [`crate::bytecode::precompile_loop`] for
/// that precompile: the worker deploys it in its own EVM and calls it.
pub fn cases(ctx: &Ctx, id: &str) -> Option<Result<Vec<dyno_protocol::Case>, BuildError>> {
    let hexed =
        |b: &[u8]| serde_json::Value::String(format!("0x{}", alloy_primitives::hex::encode(b)));
    // Bytecode mode hands the worker the loop program too, built here
    // once (bytecode.rs), so no adapter assembles its own.
    let code = |target: u64| {
        (
            "code",
            hexed(&crate::bytecode::precompile_loop(u64_to_address(target))),
        )
    };
    if id == BYTECODE_NOOP {
        // IDENTITY, the bytecode-mode control's target.
        let identity = dyno_spec::gas::built_in_osaka()
            .get("identity")
            .map_or(0x04, |p| p.address);
        return Some(Ok(vec![dyno_protocol::Case::new(
            [
                ("input", hexed(&[])),
                ("gas", serde_json::json!(15)),
                ("address", serde_json::json!(identity)),
                code(identity),
            ],
            [("output", hexed(&[]))],
        )]));
    }
    let bytecode = id.starts_with("precompile-bytecode/");
    let direct = id.replacen("precompile-bytecode/", "precompile/", 1);
    let (op, pick) = lookup(&direct)?;
    Some(load(ctx, op.source, pick, id).map(|pairs| {
        pairs
            .into_iter()
            .map(|(input, output)| {
                let mut case = dyno_protocol::Case::new(
                    [
                        ("input", hexed(&input)),
                        (
                            "gas",
                            serde_json::json!(pick.gas.unwrap_or(u64::from(u32::MAX))),
                        ),
                        // From the fork's gas file: no adapter keeps a
                        // table of addresses.
                        ("address", serde_json::json!(op.address())),
                    ],
                    [("output", hexed(&output))],
                );
                if bytecode {
                    let (k, v) = code(op.address());
                    case.input.insert(k.into(), v);
                }
                case
            })
            .collect()
    }))
}

/// Inputs priced above this at Osaka are left out of quick runs of
/// `dyno gas`: a single call takes 50 ms to over a second.
pub const HEAVY_GAS: u64 = 1_000_000;

/// True if `id` (direct or bytecode mode) is an input above [`HEAVY_GAS`].
pub fn is_heavy(id: &str) -> bool {
    let direct = id.replacen("precompile-bytecode/", "precompile/", 1);
    lookup(&direct).is_some_and(|(_, pick)| pick.gas.is_some_and(|g| g > HEAVY_GAS))
}

/// The first `(input, expected output)` of `op_name`'s `pick`.
pub(crate) fn case(ctx: &Ctx, op_name: &str, pick: Pick, what: &str) -> Result<Pair, BuildError> {
    let op = OPS
        .iter()
        .find(|o| o.op == op_name)
        .expect("a known precompile");
    let mut cases = load(ctx, op.source, pick, what)?;
    Ok(cases.swap_remove(0))
}

fn def(
    op: &'static Op,
    pick: Pick,
    implementation: &'static str,
    alternative: Option<PrecompileEthFn>,
) -> BenchDef {
    let mut params = vec![
        ("input_bytes", Param::Int(pick.bytes)),
        ("address", Param::Text(format!("{:#x}", op.address()))),
    ];
    if let Some(gas) = pick.gas {
        params.push(("geth_gas", Param::Int(gas)));
    }
    let input = sanitize(pick.name);
    let what = format!("precompile/{}/{input} {implementation}", op.op);
    BenchDef {
        cases: Some(crate::precompile::cases),
        group: "precompile",
        op: op.op,
        input,
        implementation,
        version: REVM_PRECOMPILE_VERSION,
        params,
        build: Box::new(move |ctx: &Ctx| {
            let call = alternative.map_or_else(|| Call::osaka(op.address()), Call::Eth);
            let cases = load(ctx, op.source, pick, &what)?;
            Ok(workload(call, cases))
        }),
    }
}

/// An input and the output it must give.
type Pair = (Vec<u8>, Vec<u8>);

/// The benchmark body: `call` on each input, checked against its output.
fn workload(call: Call, cases: Vec<Pair>) -> Box<dyn Workload> {
    let pairs = cases
        .into_iter()
        .map(|(input, expected)| (input, Ok(Bytes::from(expected))))
        .collect();
    Box::new(Cases::expect(pairs, move |input: &Vec<u8>| call.output(input)).show(show))
}

fn show(o: &Outcome) -> String {
    match o {
        Ok(bytes) => hex(bytes),
        Err(halt) => format!("error: {halt}"),
    }
}

/// The `(input, expected output)` pairs of one benchmarked input.
fn load(ctx: &Ctx, source: Source, pick: Pick, what: &str) -> Result<Vec<Pair>, BuildError> {
    match source {
        Source::Geth(file) => {
            let vectors = geth::load(file)?;
            let v = vectors
                .into_iter()
                .find(|v| v.name == pick.name)
                .ok_or_else(|| BuildError::NoVector {
                    path: geth::vectors_dir()
                        .map(|d| d.join(file))
                        .unwrap_or_else(|_| file.into()),
                    what: what.to_string(),
                })?;
            Ok(vec![(v.input, v.expected)])
        }
        Source::Hash(alg) => hash_cases(ctx, alg, pick.bytes, what),
        Source::Identity => {
            let input = seq(0x1d, pick.bytes as usize);
            Ok(vec![(input.clone(), input)])
        }
    }
}

/// The `hash.json` cases of `alg` at `len` bytes (shared with the hash
/// suite), as precompile outputs: ripemd160's 20-byte digest left-padded to
/// a 32-byte word.
fn hash_cases(ctx: &Ctx, alg: &str, len: u64, what: &str) -> Result<Vec<Pair>, BuildError> {
    let cases = dyno_micro::hash::load(ctx, alg, len as usize, what)?;
    Ok(cases
        .into_iter()
        .map(|c| {
            let mut word = vec![0u8; 32usize.saturating_sub(c.digest.len())];
            word.extend_from_slice(&c.digest);
            (c.data, word)
        })
        .collect())
}

mod p256_crate;
mod substrate_bn;
#[cfg(test)]
pub(crate) mod tests;
