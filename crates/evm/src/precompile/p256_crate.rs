//! P256VERIFY (0x100) on RustCrypto's `p256` crate, vendored so the
//! precompile suite can time it beside the aws-lc-rs backend revm's own
//! build uses, as reth builds it (revm-precompile's `p256-aws-lc-rs`
//! feature; decision D38).
//!
//! Origin: revm-precompile 43.0.3 (bluealloy/revm), `src/secp256r1.rs`:
//! `p256_verify_inner` at Osaka's gas (`P256VERIFY_BASE_GAS_FEE_OSAKA`,
//! revm's own), `verify_impl`'s input layout and the non-aws branch of
//! `verify_signature`; revm's own calls its `crypto()` provider, which is
//! the aws-lc-rs one here. MIT License, Copyright (c) 2021-2026
//! draganrakita. The logic is copied unchanged; only visibility and the
//! direct call are this crate's.

use p256::EncodedPoint;
use p256::ecdsa::signature::hazmat::PrehashVerifier;
use p256::ecdsa::{Signature, VerifyingKey};
use revm_precompile::primitives::{B256, Bytes};
use revm_precompile::secp256r1::P256VERIFY_BASE_GAS_FEE_OSAKA;
use revm_precompile::{EthPrecompileOutput, EthPrecompileResult, PrecompileHalt};

/// `Some(())` if the 160-byte input (hash, r, s, x, y) holds a valid
/// signature.
fn verify(input: &[u8]) -> Option<()> {
    if input.len() != 160 {
        return None;
    }
    let signature = Signature::from_slice(&input[32..96]).ok()?;
    let encoded_point = EncodedPoint::from_untagged_bytes(input[96..160].into());
    let public_key = VerifyingKey::from_encoded_point(&encoded_point).ok()?;
    public_key.verify_prehash(&input[..32], &signature).ok()
}

/// P256VERIFY at Osaka's gas on the `p256` crate.
pub(crate) fn p256verify_p256(input: &[u8], gas_limit: u64) -> EthPrecompileResult {
    let gas_cost = P256VERIFY_BASE_GAS_FEE_OSAKA;
    if gas_cost > gas_limit {
        return Err(PrecompileHalt::OutOfGas);
    }
    let result = if verify(input).is_some() {
        B256::with_last_byte(1).into()
    } else {
        Bytes::new()
    };
    Ok(EthPrecompileOutput::new(gas_cost, result))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p256_crate_prices_and_refuses_as_revm_does() {
        assert!(matches!(
            p256verify_p256(&[0u8; 160], 6_899),
            Err(PrecompileHalt::OutOfGas)
        ));
        // A wrong length or a point off the curve: success, empty output.
        for input in [vec![0u8; 159], vec![0u8; 160]] {
            let out = p256verify_p256(&input, 6_900).unwrap();
            assert_eq!((out.gas_used, out.bytes.len()), (6_900, 0));
        }
    }
}
