//! Load mixes (`specs/load/mixes.toml`): `[mix.NAME]` tables of transaction
//! kinds and their weights, with errors that name file, line and key like
//! every other spec's. Which kinds exist is the load lab's to say, so the
//! caller passes their names.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::SpecError;

/// One `[mix.NAME]`: each kind's weight, in the file's key order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MixSpec {
    /// `NAME`.
    pub name: String,
    /// (kind, weight); every kind is one of the names the caller gave.
    pub weights: Vec<(String, u32)>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    mix: BTreeMap<Spanned<String>, BTreeMap<Spanned<String>, Spanned<u32>>>,
}

/// Parse a mixes file; `path` names it in errors and `kinds` are the valid
/// kind names.
pub fn parse_mixes(text: &str, path: &Path, kinds: &[&str]) -> Result<Vec<MixSpec>, SpecError> {
    let file: File = toml::from_str(text).map_err(|e| crate::error::from_toml(&e, text, path))?;
    let line = |offset: usize| crate::line_of(text, offset);
    let mut out = Vec::new();
    for (name, weights) in file.mix {
        let mut spec = MixSpec {
            name: name.get_ref().clone(),
            weights: Vec::new(),
        };
        for (kind, weight) in weights {
            if !kinds.contains(&kind.get_ref().as_str()) {
                let valid: Vec<String> = kinds.iter().map(|k| k.to_string()).collect();
                return Err(SpecError::Unknown {
                    path: path.to_path_buf(),
                    line: line(kind.span().start),
                    what: "kind",
                    name: kind.get_ref().clone(),
                    suggestion: crate::error::nearest(kind.get_ref(), &valid),
                    valid,
                });
            }
            spec.weights
                .push((kind.get_ref().clone(), *weight.get_ref()));
        }
        if spec.weights.iter().all(|(_, w)| *w == 0) {
            return Err(SpecError::Invalid {
                path: path.to_path_buf(),
                line: line(name.span().start),
                key: format!("mix.{}", spec.name),
                reason: "every weight is zero; give at least one kind a weight above 0".into(),
            });
        }
        out.push(spec);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The load lab's kinds (dyno_load::txs::Kind::ALL, which dyno-spec does not
    // depend on), so that the shipped file parses here too.
    const KINDS: &[&str] = &[
        "transfer",
        "erc20",
        "store",
        "deploy",
        "legacy",
        "accesslist",
        "blob",
        "setcode",
    ];

    #[test]
    fn mixes_parse_and_faults_name_file_line_and_key() {
        let p = Path::new("mixes.toml");
        let m = parse_mixes("[mix.a]\ntransfer = 3\nerc20 = 1\n", p, KINDS).unwrap();
        assert_eq!(m[0].name, "a");
        assert_eq!(
            m[0].weights,
            [("erc20".to_string(), 1), ("transfer".to_string(), 3)]
        );
        let e = parse_mixes("[mix.b]\ntransfer = 1\nerc2O = 1\n", p, KINDS)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("mixes.toml:3: unknown kind \"erc2O\""), "{e}");
        assert!(e.contains("did you mean \"erc20\""), "{e}");
        let e = parse_mixes("\n[mix.z]\ntransfer = 0\n", p, KINDS)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("mixes.toml:2: mix.z: every weight is zero"),
            "{e}"
        );
        let e = parse_mixes("[mix.c]\ntransfer = -1\n", p, KINDS)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("mixes.toml:2:"), "{e}");
        let shipped = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs/load/mixes.toml"),
        )
        .unwrap();
        assert!(
            parse_mixes(&shipped, p, KINDS)
                .unwrap()
                .iter()
                .any(|m| m.name == "mix")
        );
    }
}
