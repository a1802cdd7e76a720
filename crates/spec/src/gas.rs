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

mod file;
mod modexp;
use file::*;
use modexp::*;

/// The precompiles dyno knows, by its names for them (not the EIPs'):
/// the `precompile` operations of the operation table
/// (`specs/operations.toml`). A schedule may name only these.
pub fn known() -> Vec<&'static str> {
    crate::operations::builtin()
        .operations
        .iter()
        .filter_map(|o| o.precompile.as_deref())
        .collect()
}

/// The Osaka schedule dyno was built with: the precompile suite's
/// addresses (`specs/gas/osaka.toml`, compiled in as the operation table
/// is, so an id means the same precompile in every run and adapter).
pub fn built_in_osaka() -> &'static Schedule {
    static OSAKA: std::sync::OnceLock<Schedule> = std::sync::OnceLock::new();
    OSAKA.get_or_init(|| {
        Schedule::parse(
            include_str!("../../../specs/gas/osaka.toml"),
            Path::new("specs/gas/osaka.toml"),
        )
        .unwrap_or_else(|e| panic!("the Osaka schedule dyno was built with: {e}"))
    })
}

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
        let text = crate::read(path)?;
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
            let known = known();
            if !known.contains(&name.as_str()) {
                let line = header_line(text, &name).unwrap_or_else(|| line_of(text, span.start));
                return Err(GasError::Spec(SpecError::Invalid {
                    path: path.to_path_buf(),
                    line,
                    key,
                    reason: format!(
                        "not a precompile dyno knows (known: {}; add it to specs/operations.toml)",
                        known.join(", ")
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

#[cfg(test)]
mod tests;
