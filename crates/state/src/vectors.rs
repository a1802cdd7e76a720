//! `vectors/state.json`: the root (and counts) of every generated state,
//! computed by `vectors/gen/generate.py --only state` in Python, with no
//! code shared with dyno's generator.

use alloy_primitives::B256;
use dyno_workload::{BuildError, Ctx};

use crate::shape;

/// The file's name under `vectors/`.
pub const FILE: &str = "state.json";

#[derive(serde::Deserialize)]
struct StateFile {
    version: u32,
    sizes: Vec<Size>,
}

#[derive(serde::Deserialize)]
struct Size {
    accounts: u64,
    contracts: u64,
    slots: u64,
    code_bytes: u64,
    root: String,
}

/// The root of the state of `n` accounts, after checking that the file is
/// of this shape version and that its counts are the definition's.
pub fn root(ctx: &Ctx, n: u64) -> Result<B256, BuildError> {
    let path = ctx.path(FILE);
    let file: StateFile = ctx.vector_json(FILE)?;
    if file.version != shape::VERSION {
        return Err(BuildError::vectors(
            &path,
            format!(
                "it holds version {} of the generated state; this dyno draws version {} \
                 (regenerate: python vectors/gen/generate.py --only state)",
                file.version,
                shape::VERSION
            ),
        ));
    }
    let size = file
        .sizes
        .iter()
        .find(|s| s.accounts == n)
        .ok_or_else(|| BuildError::NoVector {
            path: path.clone(),
            what: format!(
                "the state of {n} accounts (sizes there: {})",
                file.sizes
                    .iter()
                    .map(|s| s.accounts.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })?;
    let c = shape::counts(n);
    let theirs = (size.contracts, size.slots, size.code_bytes);
    if (c.contracts, c.slots, c.code_bytes) != theirs {
        return Err(BuildError::vectors(
            &path,
            format!(
                "the state of {n} accounts: {theirs:?} contracts, slots and code bytes there, \
                 {:?} by dyno's definition",
                (c.contracts, c.slots, c.code_bytes)
            ),
        ));
    }
    size.root
        .parse()
        .map_err(|e| BuildError::vectors(&path, format!("the root of {n} accounts: {e}")))
}
