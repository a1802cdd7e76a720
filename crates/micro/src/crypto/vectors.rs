//! Reading the crypto vector files: parse errors and malformed fields become
//! [`BuildError`]s naming the file, the case and the field.

use std::path::{Path, PathBuf};

use dyno_workload::{BuildError, Ctx, unhex};
use serde::de::DeserializeOwned;

/// A parsed vector file and where it came from.
#[derive(Debug)]
pub(super) struct File<T> {
    pub(super) path: PathBuf,
    pub(super) cases: Vec<T>,
}

/// Read `name` from the vectors dir and parse its `cases`; an empty list is
/// an error too.
pub(super) fn load<T: DeserializeOwned>(ctx: &Ctx, name: &str) -> Result<File<T>, BuildError> {
    #[derive(serde::Deserialize)]
    struct Cases<T> {
        cases: Vec<T>,
    }
    let path = ctx.path(name);
    let parsed: Cases<T> = ctx.vector_json(name)?;
    if parsed.cases.is_empty() {
        return Err(BuildError::vectors(&path, "the file lists no cases"));
    }
    Ok(File {
        path,
        cases: parsed.cases,
    })
}

/// A field of case `case` that is wrong in some way.
pub(super) fn bad(
    path: &Path,
    case: usize,
    field: &str,
    reason: impl std::fmt::Display,
) -> BuildError {
    BuildError::vectors(path, format!("case {case}: {field}: {reason}"))
}

/// A hex field that must decode to exactly `N` bytes.
pub(super) fn bytes<const N: usize>(
    path: &Path,
    case: usize,
    field: &str,
    hex: &str,
) -> Result<[u8; N], BuildError> {
    let v = unhex(hex).map_err(|e| bad(path, case, field, e))?;
    let len = v.len();
    v.try_into()
        .map_err(|_| bad(path, case, field, format!("{len} bytes, expected {N}")))
}

/// A hex field that must decode to exactly `len` bytes (for sizes known
/// only at run time).
pub(super) fn sized(
    path: &Path,
    case: usize,
    field: &str,
    hex: &str,
    len: usize,
) -> Result<Vec<u8>, BuildError> {
    let v = unhex(hex).map_err(|e| bad(path, case, field, e))?;
    if v.len() != len {
        return Err(bad(
            path,
            case,
            field,
            format!("{} bytes, expected {len}", v.len()),
        ));
    }
    Ok(v)
}
