//! crypto suite: the signature operations Ethereum software spends its time
//! in, each timed on a set of vector cases after every output has been
//! checked.
//!
//! | id | implementations |
//! |----|-----------------|
//! | `crypto/secp256k1-sign/recid-direct` | libsecp256k1, k256: recovery id from the nonce point |
//! | `crypto/secp256k1-sign/recid-trial` | libsecp256k1, k256: sign `(r, s)`, then find `v` by recovering with `v = 0` |
//! | `crypto/secp256k1-verify/valid` | libsecp256k1, k256 |
//! | `crypto/secp256k1-recover/valid` | libsecp256k1, k256: 65-byte uncompressed key |
//! | `crypto/secp256k1-keygen/pubkey` | libsecp256k1, k256: 65-byte uncompressed key |
//! | `crypto/p256-sign/32B`, `crypto/p384-sign/32B` | p256/p384 (RFC 6979, exact), ring (random nonce, verified by p256/p384) |
//! | `crypto/p256-verify/32B`, `crypto/p384-verify/32B` | p256/p384, ring |
//!
//! Keys and signatures are parsed when the workload is built; the timed call
//! is only the sign, verify, recover or derive. Signatures are returned (and
//! compared) in each library's own type; a recovered or derived public key is
//! encoded as the 65 uncompressed bytes Ethereum hashes into an address,
//! which is part of those operations. NIST-curve operations hash the 32-byte
//! message with SHA-256 / SHA-384 inside the call, as standard ECDSA does;
//! secp256k1 operations take the 32-byte hash.
//!
//! k256's `recover_from_prehash` verifies the signature against the key it
//! recovered before returning it, so its recover (and its trial-recovery-id
//! signing) does an extra verification that libsecp256k1's does not.
//!
//! libsecp256k1 runs on the crate's global context (`secp256k1::SECP256K1`),
//! as reth and alloy use it.

use dyno_workload::BenchDef;
mod nist;
mod secp;
mod vectors;

pub use secp::{RecoverInput, recover_inputs, recover_libsecp256k1};

/// The crypto benchmarks.
pub fn defs() -> Vec<BenchDef> {
    let mut defs = secp::defs();
    defs.extend(nist::defs());
    // Other runtimes' adapters run every one of them.
    for d in &mut defs {
        d.cases = Some(crate::cases::cases);
    }
    defs
}

#[cfg(test)]
mod tests;
