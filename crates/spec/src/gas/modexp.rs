//! MODEXP's input read as the gas formulas read it: the lengths, the exponent's head, its bit length.

/// The header lengths and exponent head of a modexp input (EIP-198 layout:
/// three 32-byte big-endian lengths, then base, exponent, modulus).
#[derive(Debug)]
pub(crate) struct ModexpInput {
    pub(crate) base_len: u64,
    pub(crate) exp_len: u64,
    pub(crate) mod_len: u64,
    /// Bit length of the exponent's first (up to) 32 bytes.
    pub(crate) exp_head_bits: u64,
}

/// EIP-198: the part of the exponent whose bit length counts; beyond it,
/// each byte counts `exp_multiplier` iterations.
pub(crate) const EXP_HEAD_BYTES: u64 = 32;
/// EIP-198: each length in the header is a 32-byte word.
pub(crate) const LEN_BYTES: usize = 32;

impl ModexpInput {
    pub(crate) fn parse(input: &[u8]) -> Self {
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

    pub(crate) fn max_len(&self) -> u64 {
        self.base_len.max(self.mod_len)
    }

    /// The adjusted exponent length (EIP-2565's iteration count), at least 1.
    pub(crate) fn iterations(&self, exp_multiplier: u64) -> u64 {
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
pub(crate) fn words_squared(x: u64, word_bytes: u64) -> Option<u64> {
    let words = x.checked_add(word_bytes - 1)? / word_bytes;
    words.checked_mul(words)
}

/// `size` bytes of `data` from `start`, zero-padded on the right.
pub(crate) fn padded(data: &[u8], start: u64, size: u64) -> Vec<u8> {
    let len = data.len() as u64;
    let start = start.min(len) as usize;
    let end = (start as u64).saturating_add(size).min(len) as usize;
    let mut out = data[start..end].to_vec();
    out.resize(size as usize, 0);
    out
}

/// A big-endian number as u64, `u64::MAX` if it does not fit.
pub(crate) fn saturating_u64(be: &[u8]) -> u64 {
    let cut = be.len().saturating_sub(8);
    if be[..cut].iter().any(|&b| b != 0) {
        return u64::MAX;
    }
    be[cut..]
        .iter()
        .fold(0, |acc, &b| (acc << 8) | u64::from(b))
}

/// Bit length of a big-endian number.
pub(crate) fn bit_len(be: &[u8]) -> u64 {
    match be.iter().position(|&b| b != 0) {
        Some(i) => (be.len() - i - 1) as u64 * 8 + u64::from(8 - be[i].leading_zeros()),
        None => 0,
    }
}

// ---- the file format ------------------------------------------------------
