//! Nominal gas per fork, from data.
//!
//! Each fork's schedule is a TOML file, `specs/gas/<fork>.toml`, holding
//! every number of every precompile's price (bases, per-word and per-pair
//! costs, the MSM discount tables, modexp's parameters). This module knows
//! only the *shapes* of the formulas ([`Formula`]) and evaluates them with the
//! file's numbers; a new fork is a new file (see `docs/gas.md`).
//!
//! The formulas follow go-ethereum v1.17.8 (`core/vm/contracts.go`),
//! including its edge cases: a blake2f input of the wrong length costs 0, an
//! MSM with no whole pair costs 0, and modexp saturates at `u64::MAX`.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::SpecError;
use crate::line_of;

/// The precompile ids dyno knows (its names for them, not the EIPs').
/// A schedule may name only these.
pub const PRECOMPILES: &[&str] = &[
    "ecrecover",
    "sha256",
    "ripemd160",
    "identity",
    "modexp",
    "bn254-add",
    "bn254-mul",
    "bn254-pairing",
    "blake2f",
    "kzg-point-evaluation",
    "bls12-g1add",
    "bls12-g1msm",
    "bls12-g2add",
    "bls12-g2msm",
    "bls12-pairing",
    "bls12-map-fp-to-g1",
    "bls12-map-fp2-to-g2",
    "p256verify",
];

/// A schedule that cannot be read or used (a [`SpecError`] naming file,
/// line and key), or a question it cannot answer.
#[derive(Debug, thiserror::Error)]
pub enum GasError {
    /// The file cannot be read, is not valid TOML, or has a key or value
    /// the format does not allow.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// No schedule file for this fork.
    #[error(
        "no gas schedule for fork {fork:?}: {} does not exist (known forks: {})",
        path.display(),
        known.join(", ")
    )]
    UnknownFork {
        /// The fork asked for.
        fork: String,
        /// Where its file would be.
        path: PathBuf,
        /// The forks that have a file.
        known: Vec<String>,
    },
    /// The fork's schedule has no such precompile.
    #[error("fork {fork} has no precompile {name:?} (known: {})", known.join(", "))]
    UnknownPrecompile {
        /// The schedule's fork.
        fork: String,
        /// The name asked for.
        name: String,
        /// The precompiles of this fork, in address order.
        known: Vec<String>,
    },
}

/// How a precompile's nominal gas depends on its input. Every number comes
/// from the schedule file; the names are its keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Formula {
    /// `gas`, whatever the input.
    Fixed {
        /// The price.
        gas: u64,
    },
    /// `base + per_word * ceil(len / word_bytes)` (sha256, ripemd160,
    /// identity).
    PerWord {
        /// Price of an empty input.
        base: u64,
        /// Price of each started word.
        per_word: u64,
        /// Word size in bytes.
        word_bytes: u64,
    },
    /// `per_round * rounds`, the rounds being the input's first four bytes
    /// (big-endian); 0 when the input is not `input_bytes` long (blake2f,
    /// EIP-152).
    PerRound {
        /// Price of one round.
        per_round: u64,
        /// The only valid input length.
        input_bytes: u64,
    },
    /// `base + per_pair * floor(len / pair_bytes)` (pairings).
    PerPair {
        /// Price of an empty input.
        base: u64,
        /// Price of each whole pair.
        per_pair: u64,
        /// Bytes in one pair.
        pair_bytes: u64,
    },
    /// Multi-scalar multiplication with a discount table (EIP-2537):
    /// `k = floor(len / pair_bytes)`; 0 when `k = 0`, else
    /// `k * mul_gas * discount[min(k, len) - 1] / discount_divisor`.
    Msm {
        /// Bytes in one (point, scalar) pair.
        pair_bytes: u64,
        /// Price of one scalar multiplication.
        mul_gas: u64,
        /// The discount entries are fractions of this.
        discount_divisor: u64,
        /// Discount by number of pairs (entry `k - 1` for `k` pairs; the last
        /// entry for more pairs than entries).
        discount: Vec<u64>,
    },
    /// Modexp, EIP-2565 (Berlin to Prague):
    /// `max(min_gas, ceil(max_len / word_bytes)^2 * iterations / divisor)`.
    ModexpEip2565 {
        /// Bytes per word in the multiplication complexity.
        word_bytes: u64,
        /// Iterations per exponent byte beyond the first 32.
        exp_multiplier: u64,
        /// Divisor of complexity times iterations.
        divisor: u64,
        /// Floor of the price.
        min_gas: u64,
    },
    /// Modexp, EIP-7883 (Osaka): `max(min_gas, complexity * iterations)`,
    /// complexity being `small_complexity` up to `small_max_len` bytes and
    /// `complexity_multiplier * ceil(max_len / word_bytes)^2` above.
    ModexpEip7883 {
        /// Bytes per word in the multiplication complexity.
        word_bytes: u64,
        /// Up to this many bytes the complexity is `small_complexity`.
        small_max_len: u64,
        /// Complexity of short operands.
        small_complexity: u64,
        /// Factor on the squared word count above `small_max_len`.
        complexity_multiplier: u64,
        /// Iterations per exponent byte beyond the first 32.
        exp_multiplier: u64,
        /// Floor of the price.
        min_gas: u64,
    },
}

/// One precompile in a schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Precompile {
    /// dyno's id, e.g. `bn254-pairing`.
    pub name: String,
    /// Its address (`0x01` to `0x11`, `0x100`).
    pub address: u64,
    /// Where the price is specified, e.g. `EIP-2537`.
    pub source: String,
    /// How the price is computed.
    pub formula: Formula,
}

/// A fork's nominal gas schedule for the precompiles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    /// The fork, e.g. `osaka`.
    pub fork: String,
    /// The file it was read from.
    pub path: PathBuf,
    /// In address order.
    entries: Vec<Precompile>,
}

impl Schedule {
    /// The schedule of `fork`, from `<specs_dir>/gas/<fork>.toml`. The file's
    /// `fork` key must be `fork`.
    pub fn for_fork(specs_dir: &Path, fork: &str) -> Result<Self, GasError> {
        let dir = specs_dir.join("gas");
        let path = dir.join(format!("{fork}.toml"));
        if !path.is_file() {
            return Err(GasError::UnknownFork {
                fork: fork.to_string(),
                path,
                known: Self::forks(specs_dir),
            });
        }
        let schedule = Self::load(&path)?;
        if schedule.fork != fork {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            return Err(GasError::Spec(SpecError::Invalid {
                line: key_line(&text, "fork"),
                path,
                key: "fork".into(),
                reason: format!(
                    "says {:?}, but the file is the schedule of {fork:?}",
                    schedule.fork
                ),
            }));
        }
        Ok(schedule)
    }

    /// The forks with a schedule in `<specs_dir>/gas/`, sorted.
    pub fn forks(specs_dir: &Path) -> Vec<String> {
        let mut forks: Vec<String> = std::fs::read_dir(specs_dir.join("gas"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
            .collect();
        forks.sort();
        forks
    }

    /// Load and check one schedule file.
    pub fn load(path: &Path) -> Result<Self, GasError> {
        let text = std::fs::read_to_string(path).map_err(|e| SpecError::Io {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        Self::parse(&text, path)
    }

    /// Parse a schedule's text; `path` is only used in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Self, GasError> {
        let raw: RawSchedule =
            toml::from_str(text).map_err(|e| crate::error::from_toml(&e, text, path))?;
        let ctx = Ctx { text, path };
        let fork = raw.fork.get_ref().trim().to_string();
        if fork.is_empty() {
            return Err(ctx.invalid(raw.fork.span(), "fork", "must name the fork"));
        }
        let mut entries = Vec::new();
        for (name, entry) in raw.precompile {
            let span = entry.span();
            let key = format!("precompile.{name}");
            if !PRECOMPILES.contains(&name.as_str()) {
                let line = header_line(text, &name).unwrap_or_else(|| line_of(text, span.start));
                return Err(GasError::Spec(SpecError::Invalid {
                    path: path.to_path_buf(),
                    line,
                    key,
                    reason: format!(
                        "not a precompile dyno knows (known: {})",
                        PRECOMPILES.join(", ")
                    ),
                }));
            }
            entries.push(entry.into_inner().check(&ctx, &name, span)?);
        }
        if entries.is_empty() {
            return Err(ctx.invalid(0..0, "precompile", "the schedule has no precompiles"));
        }
        entries.sort_by_key(|e| e.address);
        for pair in entries.windows(2) {
            if pair[0].address == pair[1].address {
                let line = header_line(text, &pair[1].name).unwrap_or(1);
                return Err(GasError::Spec(SpecError::Invalid {
                    path: path.to_path_buf(),
                    line,
                    key: format!("precompile.{}.address", pair[1].name),
                    reason: format!(
                        "{:#x} is also the address of {}",
                        pair[1].address, pair[0].name
                    ),
                }));
            }
        }
        Ok(Self {
            fork,
            path: path.to_path_buf(),
            entries,
        })
    }

    /// The precompiles of this fork, in address order.
    pub fn precompiles(&self) -> Vec<&str> {
        self.entries.iter().map(|e| e.name.as_str()).collect()
    }

    /// One precompile's entry.
    pub fn get(&self, precompile: &str) -> Result<&Precompile, GasError> {
        self.entries
            .iter()
            .find(|e| e.name == precompile)
            .ok_or_else(|| GasError::UnknownPrecompile {
                fork: self.fork.clone(),
                name: precompile.to_string(),
                known: self.entries.iter().map(|e| e.name.clone()).collect(),
            })
    }

    /// The gas this fork charges for calling `precompile` with `input`.
    pub fn nominal_gas(&self, precompile: &str, input: &[u8]) -> Result<u64, GasError> {
        Ok(self.get(precompile)?.formula.gas(input))
    }
}

impl Formula {
    /// The formula's name in the schedule file (`kind = "..."`).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Fixed { .. } => Kind::Fixed.name(),
            Self::PerWord { .. } => Kind::PerWord.name(),
            Self::PerRound { .. } => Kind::PerRound.name(),
            Self::PerPair { .. } => Kind::PerPair.name(),
            Self::Msm { .. } => Kind::Msm.name(),
            Self::ModexpEip2565 { .. } => Kind::ModexpEip2565.name(),
            Self::ModexpEip7883 { .. } => Kind::ModexpEip7883.name(),
        }
    }

    /// The gas for `input`.
    pub fn gas(&self, input: &[u8]) -> u64 {
        let len = input.len() as u64;
        match self {
            Self::Fixed { gas } => *gas,
            Self::PerWord {
                base,
                per_word,
                word_bytes,
            } => len
                .div_ceil(*word_bytes)
                .saturating_mul(*per_word)
                .saturating_add(*base),
            Self::PerRound {
                per_round,
                input_bytes,
            } => {
                if len != *input_bytes || input.len() < 4 {
                    return 0;
                }
                let rounds = u32::from_be_bytes([input[0], input[1], input[2], input[3]]);
                u64::from(rounds).saturating_mul(*per_round)
            }
            Self::PerPair {
                base,
                per_pair,
                pair_bytes,
            } => (len / pair_bytes)
                .saturating_mul(*per_pair)
                .saturating_add(*base),
            Self::Msm {
                pair_bytes,
                mul_gas,
                discount_divisor,
                discount,
            } => {
                let k = len / pair_bytes;
                if k == 0 {
                    return 0;
                }
                let i = usize::try_from(k).unwrap_or(usize::MAX).min(discount.len()) - 1;
                k.saturating_mul(*mul_gas).saturating_mul(discount[i]) / discount_divisor
            }
            Self::ModexpEip2565 {
                word_bytes,
                exp_multiplier,
                divisor,
                min_gas,
            } => {
                let m = ModexpInput::parse(input);
                let Some(complexity) = words_squared(m.max_len(), *word_bytes) else {
                    return u64::MAX;
                };
                match complexity.checked_mul(m.iterations(*exp_multiplier)) {
                    Some(gas) => (gas / divisor).max(*min_gas),
                    None => u64::MAX,
                }
            }
            Self::ModexpEip7883 {
                word_bytes,
                small_max_len,
                small_complexity,
                complexity_multiplier,
                exp_multiplier,
                min_gas,
            } => {
                let m = ModexpInput::parse(input);
                let max_len = m.max_len();
                let complexity = if max_len <= *small_max_len {
                    Some(*small_complexity)
                } else {
                    words_squared(max_len, *word_bytes)
                        .and_then(|c| c.checked_mul(*complexity_multiplier))
                };
                let Some(complexity) = complexity else {
                    return u64::MAX;
                };
                match complexity.checked_mul(m.iterations(*exp_multiplier)) {
                    Some(gas) => gas.max(*min_gas),
                    None => u64::MAX,
                }
            }
        }
    }
}

impl fmt::Display for Formula {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Fixed { gas } => write!(f, "{gas}"),
            Self::PerWord {
                base,
                per_word,
                word_bytes,
            } => write!(f, "{base} + {per_word} * ceil(len / {word_bytes})"),
            Self::PerRound { per_round, .. } => write!(f, "{per_round} * rounds"),
            Self::PerPair {
                base,
                per_pair,
                pair_bytes,
            } => write!(f, "{base} + {per_pair} * floor(len / {pair_bytes})"),
            Self::Msm {
                pair_bytes,
                mul_gas,
                discount_divisor,
                ..
            } => write!(
                f,
                "k * {mul_gas} * discount[k] / {discount_divisor}, k = floor(len / {pair_bytes})"
            ),
            Self::ModexpEip2565 { .. } => f.write_str("modexp (EIP-2565)"),
            Self::ModexpEip7883 { .. } => f.write_str("modexp (EIP-7883)"),
        }
    }
}

/// The header lengths and exponent head of a modexp input (EIP-198 layout:
/// three 32-byte big-endian lengths, then base, exponent, modulus).
#[derive(Debug)]
struct ModexpInput {
    base_len: u64,
    exp_len: u64,
    mod_len: u64,
    /// Bit length of the exponent's first (up to) 32 bytes.
    exp_head_bits: u64,
}

/// EIP-198: the part of the exponent whose bit length counts; beyond it,
/// each byte counts `exp_multiplier` iterations.
const EXP_HEAD_BYTES: u64 = 32;
/// EIP-198: each length in the header is a 32-byte word.
const LEN_BYTES: usize = 32;

impl ModexpInput {
    fn parse(input: &[u8]) -> Self {
        let word = |i: usize| padded(input, (i * LEN_BYTES) as u64, LEN_BYTES as u64);
        let base_len = saturating_u64(&word(0));
        let exp_len = saturating_u64(&word(1));
        let mod_len = saturating_u64(&word(2));
        let body = input.get(3 * LEN_BYTES..).unwrap_or(&[]);
        // As geth: the head is read only when the body reaches past the base.
        let exp_head_bits = if body.len() as u64 > base_len {
            bit_len(&padded(body, base_len, exp_len.min(EXP_HEAD_BYTES)))
        } else {
            0
        };
        Self {
            base_len,
            exp_len,
            mod_len,
            exp_head_bits,
        }
    }

    fn max_len(&self) -> u64 {
        self.base_len.max(self.mod_len)
    }

    /// The adjusted exponent length (EIP-2565's iteration count), at least 1.
    fn iterations(&self, exp_multiplier: u64) -> u64 {
        let beyond_head = self
            .exp_len
            .saturating_sub(EXP_HEAD_BYTES)
            .saturating_mul(exp_multiplier);
        beyond_head
            .saturating_add(self.exp_head_bits.saturating_sub(1))
            .max(1)
    }
}

/// `ceil(x / word_bytes)^2`, `None` on overflow.
fn words_squared(x: u64, word_bytes: u64) -> Option<u64> {
    let words = x.checked_add(word_bytes - 1)? / word_bytes;
    words.checked_mul(words)
}

/// `size` bytes of `data` from `start`, zero-padded on the right.
fn padded(data: &[u8], start: u64, size: u64) -> Vec<u8> {
    let len = data.len() as u64;
    let start = start.min(len) as usize;
    let end = (start as u64).saturating_add(size).min(len) as usize;
    let mut out = data[start..end].to_vec();
    out.resize(size as usize, 0);
    out
}

/// A big-endian number as u64, `u64::MAX` if it does not fit.
fn saturating_u64(be: &[u8]) -> u64 {
    let cut = be.len().saturating_sub(8);
    if be[..cut].iter().any(|&b| b != 0) {
        return u64::MAX;
    }
    be[cut..]
        .iter()
        .fold(0, |acc, &b| (acc << 8) | u64::from(b))
}

/// Bit length of a big-endian number.
fn bit_len(be: &[u8]) -> u64 {
    match be.iter().position(|&b| b != 0) {
        Some(i) => (be.len() - i - 1) as u64 * 8 + u64::from(8 - be[i].leading_zeros()),
        None => 0,
    }
}

// ---- the file format ------------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSchedule {
    fork: Spanned<String>,
    #[serde(default)]
    precompile: BTreeMap<String, Spanned<RawPrecompile>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Kind {
    Fixed,
    PerWord,
    PerRound,
    PerPair,
    Msm,
    ModexpEip2565,
    ModexpEip7883,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Self::Fixed => "fixed",
            Self::PerWord => "per-word",
            Self::PerRound => "per-round",
            Self::PerPair => "per-pair",
            Self::Msm => "msm",
            Self::ModexpEip2565 => "modexp-eip2565",
            Self::ModexpEip7883 => "modexp-eip7883",
        }
    }

    /// The parameters this kind takes (all required).
    fn params(self) -> &'static [&'static str] {
        match self {
            Self::Fixed => &["gas"],
            Self::PerWord => &["base", "per_word", "word_bytes"],
            Self::PerRound => &["per_round", "input_bytes"],
            Self::PerPair => &["base", "per_pair", "pair_bytes"],
            Self::Msm => &["pair_bytes", "mul_gas", "discount_divisor", "discount"],
            Self::ModexpEip2565 => &["word_bytes", "exp_multiplier", "divisor", "min_gas"],
            Self::ModexpEip7883 => &[
                "word_bytes",
                "small_max_len",
                "small_complexity",
                "complexity_multiplier",
                "exp_multiplier",
                "min_gas",
            ],
        }
    }
}

/// Every key any kind uses; [`Kind::params`] says which a kind takes.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPrecompile {
    address: Spanned<u64>,
    source: Spanned<String>,
    kind: Spanned<Kind>,
    gas: Option<Spanned<u64>>,
    base: Option<Spanned<u64>>,
    per_word: Option<Spanned<u64>>,
    word_bytes: Option<Spanned<u64>>,
    per_round: Option<Spanned<u64>>,
    input_bytes: Option<Spanned<u64>>,
    per_pair: Option<Spanned<u64>>,
    pair_bytes: Option<Spanned<u64>>,
    mul_gas: Option<Spanned<u64>>,
    discount_divisor: Option<Spanned<u64>>,
    discount: Option<Spanned<Vec<u64>>>,
    exp_multiplier: Option<Spanned<u64>>,
    divisor: Option<Spanned<u64>>,
    min_gas: Option<Spanned<u64>>,
    small_max_len: Option<Spanned<u64>>,
    small_complexity: Option<Spanned<u64>>,
    complexity_multiplier: Option<Spanned<u64>>,
}

struct Ctx<'a> {
    text: &'a str,
    path: &'a Path,
}

impl Ctx<'_> {
    fn invalid(&self, span: Range<usize>, key: &str, reason: impl Into<String>) -> GasError {
        GasError::Spec(SpecError::Invalid {
            path: self.path.to_path_buf(),
            line: line_of(self.text, span.start),
            key: key.to_string(),
            reason: reason.into(),
        })
    }
}

impl RawPrecompile {
    /// The numeric parameters present, with their spans.
    fn numbers(&self) -> [(&'static str, Option<&Spanned<u64>>); 16] {
        [
            ("gas", self.gas.as_ref()),
            ("base", self.base.as_ref()),
            ("per_word", self.per_word.as_ref()),
            ("word_bytes", self.word_bytes.as_ref()),
            ("per_round", self.per_round.as_ref()),
            ("input_bytes", self.input_bytes.as_ref()),
            ("per_pair", self.per_pair.as_ref()),
            ("pair_bytes", self.pair_bytes.as_ref()),
            ("mul_gas", self.mul_gas.as_ref()),
            ("discount_divisor", self.discount_divisor.as_ref()),
            ("exp_multiplier", self.exp_multiplier.as_ref()),
            ("divisor", self.divisor.as_ref()),
            ("min_gas", self.min_gas.as_ref()),
            ("small_max_len", self.small_max_len.as_ref()),
            ("small_complexity", self.small_complexity.as_ref()),
            ("complexity_multiplier", self.complexity_multiplier.as_ref()),
        ]
    }

    fn check(self, ctx: &Ctx<'_>, name: &str, span: Range<usize>) -> Result<Precompile, GasError> {
        let kind = *self.kind.get_ref();
        let params = kind.params();
        let key = |k: &str| format!("precompile.{name}.{k}");
        let header = header_line(ctx.text, name).unwrap_or_else(|| line_of(ctx.text, span.start));

        // No key the kind does not use.
        let mut present: Vec<(&str, Range<usize>)> = self
            .numbers()
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k, v.span())))
            .collect();
        if let Some(d) = &self.discount {
            present.push(("discount", d.span()));
        }
        for (k, s) in &present {
            if !params.contains(k) {
                return Err(ctx.invalid(
                    s.clone(),
                    &key(k),
                    format!(
                        "kind {:?} does not use `{k}` (it takes: {})",
                        kind.name(),
                        params.join(", ")
                    ),
                ));
            }
        }
        // Every key it does.
        for p in params {
            if !present.iter().any(|(k, _)| k == p) {
                return Err(GasError::Spec(SpecError::Invalid {
                    path: ctx.path.to_path_buf(),
                    line: header,
                    key: key(p),
                    reason: format!(
                        "missing; kind {:?} takes: {}",
                        kind.name(),
                        params.join(", ")
                    ),
                }));
            }
        }
        let numbers = self.numbers();
        let num = |k: &str| -> u64 {
            numbers
                .iter()
                .find(|(n, _)| *n == k)
                .and_then(|(_, v)| v.map(|v| *v.get_ref()))
                .unwrap_or(0)
        };
        // Divisors and sizes must not be zero.
        for k in [
            "word_bytes",
            "pair_bytes",
            "divisor",
            "discount_divisor",
            "input_bytes",
        ] {
            if let Some((_, Some(v))) = numbers.iter().find(|(n, _)| *n == k)
                && *v.get_ref() == 0
            {
                return Err(ctx.invalid(v.span(), &key(k), "must be at least 1"));
            }
        }
        let source = self.source.get_ref().trim().to_string();
        if source.is_empty() {
            return Err(ctx.invalid(
                self.source.span(),
                &key("source"),
                "must name where the price is specified, e.g. \"EIP-2537\"",
            ));
        }
        let formula = match kind {
            Kind::Fixed => Formula::Fixed { gas: num("gas") },
            Kind::PerWord => Formula::PerWord {
                base: num("base"),
                per_word: num("per_word"),
                word_bytes: num("word_bytes"),
            },
            Kind::PerRound => Formula::PerRound {
                per_round: num("per_round"),
                input_bytes: num("input_bytes"),
            },
            Kind::PerPair => Formula::PerPair {
                base: num("base"),
                per_pair: num("per_pair"),
                pair_bytes: num("pair_bytes"),
            },
            Kind::Msm => {
                let discount = self.discount.as_ref().expect("checked present above");
                if discount.get_ref().is_empty() {
                    return Err(ctx.invalid(
                        discount.span(),
                        &key("discount"),
                        "the discount table is empty",
                    ));
                }
                Formula::Msm {
                    pair_bytes: num("pair_bytes"),
                    mul_gas: num("mul_gas"),
                    discount_divisor: num("discount_divisor"),
                    discount: discount.get_ref().clone(),
                }
            }
            Kind::ModexpEip2565 => Formula::ModexpEip2565 {
                word_bytes: num("word_bytes"),
                exp_multiplier: num("exp_multiplier"),
                divisor: num("divisor"),
                min_gas: num("min_gas"),
            },
            Kind::ModexpEip7883 => Formula::ModexpEip7883 {
                word_bytes: num("word_bytes"),
                small_max_len: num("small_max_len"),
                small_complexity: num("small_complexity"),
                complexity_multiplier: num("complexity_multiplier"),
                exp_multiplier: num("exp_multiplier"),
                min_gas: num("min_gas"),
            },
        };
        Ok(Precompile {
            name: name.to_string(),
            address: *self.address.get_ref(),
            source,
            formula,
        })
    }
}

/// The line of a top-level `key = ...`, or 1.
fn key_line(text: &str, key: &str) -> usize {
    text.lines()
        .position(|l| {
            l.trim_start()
                .strip_prefix(key)
                .is_some_and(|r| r.trim_start().starts_with('='))
        })
        .map_or(1, |i| i + 1)
}

/// The line of `[precompile.<name>]`, if written as a header.
fn header_line(text: &str, name: &str) -> Option<usize> {
    let quoted = format!("[precompile.\"{name}\"]");
    let plain = format!("[precompile.{name}]");
    text.lines()
        .position(|l| {
            let l: String = l
                .split('#')
                .next()
                .unwrap_or("")
                .split_whitespace()
                .collect();
            l == plain || l == quoted
        })
        .map(|i| i + 1)
}

#[cfg(test)]
mod tests;
