//! dyno's EVM lab (issue 3, in progress): precompiles called directly, and
//! the gas schedule of each fork kept as data.
//!
//! - [`precompile`]: every Prague/Osaka precompile called in-process through
//!   revm-precompile, with its alternative backends side by side, checked
//!   against go-ethereum's canonical vectors (read from the Go module cache
//!   at a pinned version, never copied into this repository).
//! - [`gas`]: nominal gas per fork from `specs/gas/*.toml`.
//!
//! Status and the plan for the rest of the lab: `docs/evm.md`.

use dyno_workload::BenchDef;

mod arkworks_bls;
pub mod asm;
pub mod block;
pub mod bytecode;
pub mod chain;
pub mod client_import;
pub mod gas;
pub mod geth;
pub mod opcode;
pub mod precompile;
pub mod reprice;
pub mod tx;
pub mod vm;

/// Every EVM benchmark this crate can build.
pub fn catalog() -> Vec<BenchDef> {
    let mut defs = precompile::defs();
    defs.extend(bytecode::defs());
    defs.extend(opcode::defs());
    defs.extend(tx::defs());
    defs.extend(block::defs());
    defs.extend(chain::defs());
    defs
}
