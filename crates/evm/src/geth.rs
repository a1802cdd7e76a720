//! go-ethereum's canonical precompile vectors, read from the Go module cache
//! at a pinned version (`core/vm/testdata/precompiles/*.json`). They are not
//! copied into this repository: `scripts/setup.sh` (and `scripts/test.sh`)
//! fetch the module with `go mod download`, and dyno reads them in place.

use std::path::{Path, PathBuf};

use dyno_workload::{BuildError, unhex};
use serde::Deserialize;

/// The go-ethereum release whose vectors dyno uses; the same version the
/// load lab builds its geth binary from.
pub const GETH_MODULE: &str = "github.com/ethereum/go-ethereum";
/// Pinned version.
pub const GETH_VERSION: &str = "v1.17.8";

/// One vector: an input and the output (or error) it must give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GethVector {
    /// geth's name for the case, e.g. `nagydani-1-pow0x10001`.
    pub name: String,
    /// Call data.
    pub input: Vec<u8>,
    /// Expected return data (empty for failure vectors).
    pub expected: Vec<u8>,
    /// Gas geth charges for this input, if the file states it.
    pub gas: Option<u64>,
    /// geth skips this case in its own benchmarks.
    pub no_benchmark: bool,
    /// For `fail-*.json`: the error geth reports.
    pub expected_error: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Raw {
    name: String,
    input: String,
    #[serde(default)]
    expected: String,
    gas: Option<u64>,
    #[serde(default)]
    no_benchmark: bool,
    expected_error: Option<String>,
}

/// Where the vectors are: `$DYNO_GETH_VECTORS`, else the module cache
/// (`$GOMODCACHE`, else `$GOPATH/pkg/mod`, else `~/go/pkg/mod`).
pub fn vectors_dir() -> Result<PathBuf, BuildError> {
    if let Some(dir) = std::env::var_os("DYNO_GETH_VECTORS") {
        return Ok(PathBuf::from(dir));
    }
    let modcache = std::env::var_os("GOMODCACHE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("GOPATH").map(|p| PathBuf::from(p).join("pkg/mod")))
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join("go/pkg/mod")))
        .unwrap_or_else(|| PathBuf::from("go/pkg/mod"));
    let dir = modcache
        .join(format!("{GETH_MODULE}@{GETH_VERSION}"))
        .join("core/vm/testdata/precompiles");
    if dir.is_dir() {
        Ok(dir)
    } else {
        Err(BuildError::vectors(
            &dir,
            format!(
                "go-ethereum {GETH_VERSION} precompile vectors not found; run \
                 `go mod download {GETH_MODULE}@{GETH_VERSION}` (scripts/setup.sh does), \
                 or set DYNO_GETH_VECTORS to the folder holding them"
            ),
        ))
    }
}

/// Load one vector file, e.g. `bn256Add.json` or `fail-blsG1Add.json`.
pub fn load(file: &str) -> Result<Vec<GethVector>, BuildError> {
    load_from(&vectors_dir()?.join(file))
}

/// Load a vector file at `path`.
pub fn load_from(path: &Path) -> Result<Vec<GethVector>, BuildError> {
    let text = std::fs::read_to_string(path).map_err(|e| BuildError::vectors(path, e))?;
    let raw: Vec<Raw> = serde_json::from_str(&text).map_err(|e| {
        BuildError::vectors(path, format!("not a geth precompile vector file: {e}"))
    })?;
    raw.into_iter()
        .map(|r| {
            let hex = |field: &str, s: &str| {
                unhex(s).map_err(|e| BuildError::vectors(path, format!("{}: {field}: {e}", r.name)))
            };
            Ok(GethVector {
                input: hex("Input", &r.input)?,
                expected: hex("Expected", &r.expected)?,
                name: r.name,
                gas: r.gas,
                no_benchmark: r.no_benchmark,
                expected_error: r.expected_error,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_files_parse_and_name_bad_fields() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("x.json");
        std::fs::write(
            &good,
            r#"[{"Input":"0102","Expected":"ff","Name":"a","Gas":15,"NoBenchmark":false}]"#,
        )
        .unwrap();
        let v = load_from(&good).unwrap();
        assert_eq!(v[0].input, vec![1, 2]);
        assert_eq!(v[0].gas, Some(15));

        let fail = dir.path().join("fail.json");
        std::fs::write(
            &fail,
            r#"[{"Input":"01","ExpectedError":"invalid input length","Name":"b"}]"#,
        )
        .unwrap();
        let v = load_from(&fail).unwrap();
        assert_eq!(v[0].expected_error.as_deref(), Some("invalid input length"));
        assert!(v[0].expected.is_empty());

        let bad = dir.path().join("bad.json");
        std::fs::write(&bad, r#"[{"Input":"0g","Expected":"","Name":"c"}]"#).unwrap();
        let err = load_from(&bad).unwrap_err().to_string();
        assert!(
            err.contains("bad.json") && err.contains("c: Input"),
            "{err}"
        );
    }

    #[test]
    fn the_setup_script_fetches_the_pinned_version() {
        let script = include_str!("../../../scripts/setup.sh");
        assert!(
            script.contains(&format!("geth_version={GETH_VERSION}")),
            "scripts/setup.sh must download {GETH_VERSION}"
        );
    }

    #[test]
    fn a_missing_module_says_how_to_fetch_it() {
        // Only meaningful when the override is unset and the cache lacks geth.
        if std::env::var_os("DYNO_GETH_VECTORS").is_some() {
            return;
        }
        if let Err(e) = vectors_dir() {
            let msg = e.to_string();
            assert!(
                msg.contains("go mod download") && msg.contains(GETH_VERSION),
                "{msg}"
            );
        }
    }
}
