//! ABI call data: function selectors and calls whose arguments are words.

use alloy_primitives::{Bytes, U256, keccak256};

/// The 4-byte selector of a function signature.
pub fn selector(signature: &str) -> [u8; 4] {
    let h = keccak256(signature.as_bytes());
    [h[0], h[1], h[2], h[3]]
}

/// ABI-encode a call: the selector, then each argument as a word.
pub fn calldata(signature: &str, args: &[U256]) -> Bytes {
    let mut d = selector(signature).to_vec();
    for a in args {
        d.extend_from_slice(&a.to_be_bytes::<32>());
    }
    d.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_and_words_match_the_abi() {
        // The ERC-20 transfer selector every wallet knows.
        assert_eq!(
            selector("transfer(address,uint256)"),
            [0xa9, 0x05, 0x9c, 0xbb]
        );
        let d = calldata("f(uint256)", &[U256::from(1)]);
        assert_eq!(d.len(), 36);
        assert_eq!(d[35], 1);
        assert!(d[4..35].iter().all(|b| *b == 0));
    }
}
