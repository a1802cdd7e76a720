//! Ethereum helpers that more than one lab needs and none owns: signers
//! with keys derived from a seed and sender recovery ([`signer`]), ABI call
//! data ([`abi`]), and the compiled contracts in `contracts/build`
//! ([`contracts`]). The EVM lab executes with them, the load lab signs and
//! deploys with them; neither has to compile the other to get them.

pub mod abi;
pub mod contracts;
pub mod signer;
