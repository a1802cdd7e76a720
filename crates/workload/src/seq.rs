//! The deterministic byte stream every runtime uses to make benchmark inputs.
//!
//! SplitMix64 (Steele, Lea and Flood, 2014), emitted as little-endian 64-bit
//! words and truncated to the requested length. It is a few lines in every
//! language, so vector files store `(seed, len)` instead of megabytes of hex,
//! and every adapter regenerates the same bytes. See `docs/vectors.md`.

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// `len` bytes of the SplitMix64 stream started at `seed`.
pub fn seq(seed: u64, len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + 8);
    let mut state = seed;
    while out.len() < len {
        state = state.wrapping_add(GOLDEN);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        out.extend_from_slice(&z.to_le_bytes());
    }
    out.truncate(len);
    out
}

/// The first word of the stream at `seed`.
pub fn u64_le(seed: u64) -> u64 {
    let b = seq(seed, 8);
    u64::from_le_bytes(b.try_into().expect("8 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_reference_splitmix64_outputs() {
        // Reference values of SplitMix64 seeded with 0 (Vigna's splitmix64.c).
        let b = seq(0, 24);
        let words: Vec<u64> = b
            .chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(
            words,
            vec![
                0xE220_A839_7B1D_CDAF,
                0x6E78_9E6A_A1B9_65F4,
                0x06C4_5D18_8009_454F
            ]
        );
    }

    #[test]
    fn truncates_to_the_requested_length_and_is_a_prefix() {
        assert_eq!(seq(7, 3), seq(7, 16)[..3]);
        assert!(seq(7, 0).is_empty());
        assert_ne!(seq(7, 8), seq(8, 8));
    }
}
