//! The compiled contracts: `<dir>/<name>.json`, the build files
//! `contracts/compile.mjs` writes (creation and runtime code).

use std::path::{Path, PathBuf};

/// A compiled contract.
#[derive(Debug, Clone)]
pub struct Contract {
    /// Creation code.
    pub bytecode: Vec<u8>,
    /// Runtime code.
    pub deployed: Vec<u8>,
}

/// A build file that is missing or malformed.
#[derive(Debug, thiserror::Error)]
#[error("{}: {reason}", path.display())]
pub struct ContractError {
    /// The build file.
    pub path: PathBuf,
    /// What is wrong, and what to do.
    pub reason: String,
}

#[derive(serde::Deserialize)]
struct BuildFile {
    bytecode: String,
    #[serde(rename = "deployedBytecode")]
    deployed_bytecode: String,
}

/// Load `<dir>/<name>.json`.
pub fn contract_at(dir: &Path, name: &str) -> Result<Contract, ContractError> {
    let path = dir.join(format!("{name}.json"));
    let bad = |reason: String| ContractError {
        path: path.clone(),
        reason,
    };
    let text = std::fs::read_to_string(&path).map_err(|e| {
        bad(format!(
            "{e} (the compiled contracts live in contracts/build; set DYNO_CONTRACTS to point elsewhere)"
        ))
    })?;
    let file: BuildFile =
        serde_json::from_str(&text).map_err(|e| bad(format!("not a solc build file: {e}")))?;
    let code = |field: &str, s: &str| {
        alloy_primitives::hex::decode(s).map_err(|e| bad(format!("{field}: {e}")))
    };
    Ok(Contract {
        bytecode: code("bytecode", &file.bytecode)?,
        deployed: code("deployedBytecode", &file.deployed_bytecode)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_files_load_and_faults_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("C.json"),
            r#"{"bytecode": "0x6001", "deployedBytecode": "6002"}"#,
        )
        .unwrap();
        let c = contract_at(dir.path(), "C").unwrap();
        assert_eq!((c.bytecode, c.deployed), (vec![0x60, 1], vec![0x60, 2]));
        let e = contract_at(dir.path(), "Missing").unwrap_err().to_string();
        assert!(
            e.contains("Missing.json") && e.contains("DYNO_CONTRACTS"),
            "{e}"
        );
        std::fs::write(
            dir.path().join("Bad.json"),
            r#"{"bytecode": "0xzz", "deployedBytecode": ""}"#,
        )
        .unwrap();
        let e = contract_at(dir.path(), "Bad").unwrap_err().to_string();
        assert!(e.contains("Bad.json: bytecode:"), "{e}");
    }
}
