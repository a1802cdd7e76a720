//! What every CLI test shares: the repository, the binary under test, and
//! reading what it wrote.

use std::path::{Path, PathBuf};

/// The repository's root (specs, vectors, adapters).
pub(crate) fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The dyno under test: `$DYNO_TEST_BIN` (another build, e.g. one from
/// before a fix, to see which rows it fails), else this build's.
pub(crate) fn bin() -> PathBuf {
    std::env::var_os("DYNO_TEST_BIN")
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_dyno")), PathBuf::from)
}

/// Output bytes as text.
pub(crate) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A JSON file dyno wrote.
pub(crate) fn read_json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap())
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}", p.display()))
}
