//! A fork's gas file read: its precompiles, each formula checked, every error naming the file's line and key.

use super::*;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSchedule {
    pub(crate) fork: Spanned<String>,
    #[serde(default)]
    pub(crate) precompile: BTreeMap<String, Spanned<RawPrecompile>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Kind {
    Fixed,
    PerWord,
    PerRound,
    PerPair,
    Msm,
    ModexpEip2565,
    ModexpEip7883,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
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
    pub(crate) fn params(self) -> &'static [&'static str] {
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
pub(crate) struct RawPrecompile {
    pub(crate) address: Spanned<u64>,
    pub(crate) source: Spanned<String>,
    pub(crate) kind: Spanned<Kind>,
    pub(crate) gas: Option<Spanned<u64>>,
    pub(crate) base: Option<Spanned<u64>>,
    pub(crate) per_word: Option<Spanned<u64>>,
    pub(crate) word_bytes: Option<Spanned<u64>>,
    pub(crate) per_round: Option<Spanned<u64>>,
    pub(crate) input_bytes: Option<Spanned<u64>>,
    pub(crate) per_pair: Option<Spanned<u64>>,
    pub(crate) pair_bytes: Option<Spanned<u64>>,
    pub(crate) mul_gas: Option<Spanned<u64>>,
    pub(crate) discount_divisor: Option<Spanned<u64>>,
    pub(crate) discount: Option<Spanned<Vec<u64>>>,
    pub(crate) exp_multiplier: Option<Spanned<u64>>,
    pub(crate) divisor: Option<Spanned<u64>>,
    pub(crate) min_gas: Option<Spanned<u64>>,
    pub(crate) small_max_len: Option<Spanned<u64>>,
    pub(crate) small_complexity: Option<Spanned<u64>>,
    pub(crate) complexity_multiplier: Option<Spanned<u64>>,
}

pub(crate) struct Ctx<'a> {
    pub(crate) text: &'a str,
    pub(crate) path: &'a Path,
}

impl Ctx<'_> {
    pub(crate) fn invalid(
        &self,
        span: Range<usize>,
        key: &str,
        reason: impl Into<String>,
    ) -> GasError {
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
    pub(crate) fn numbers(&self) -> [(&'static str, Option<&Spanned<u64>>); 16] {
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

    pub(crate) fn check(
        self,
        ctx: &Ctx<'_>,
        name: &str,
        span: Range<usize>,
    ) -> Result<Precompile, GasError> {
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
pub(crate) fn key_line(text: &str, key: &str) -> usize {
    text.lines()
        .position(|l| {
            l.trim_start()
                .strip_prefix(key)
                .is_some_and(|r| r.trim_start().starts_with('='))
        })
        .map_or(1, |i| i + 1)
}

/// The line of `[precompile.<name>]`, if written as a header.
pub(crate) fn header_line(text: &str, name: &str) -> Option<usize> {
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
