//! Spec errors: each names the file, the line and the key.

use std::path::{Path, PathBuf};

/// A spec that cannot be used, and where it went wrong.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// The file or folder could not be read.
    #[error("{}: {reason}", path.display())]
    Io {
        /// File or folder.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// Not valid TOML, or a key the format does not have.
    #[error("{}:{line}: {reason}{}", path.display(), hint(suggestion))]
    Syntax {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// The parser's message.
        reason: String,
        /// The nearest valid key, if one is close.
        suggestion: Option<String>,
    },
    /// A key with a value that cannot be used.
    #[error("{}:{line}: {key}: {reason}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// The key, e.g. `bench[op=keccak256].threshold`.
        key: String,
        /// What is wrong and what would be right.
        reason: String,
    },
    /// A group, op, input or implementation dyno does not have.
    #[error(
        "{}:{line}: unknown {what} {name:?}{} (known: {})",
        path.display(),
        hint(suggestion),
        valid.join(", ")
    )]
    Unknown {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// `group`, `op`, `input` or `implementation`.
        what: &'static str,
        /// The name given.
        name: String,
        /// The nearest valid name, if one is close.
        suggestion: Option<String>,
        /// Every valid name.
        valid: Vec<String>,
    },
}

fn hint(suggestion: &Option<String>) -> String {
    suggestion
        .as_ref()
        .map(|s| format!(" (did you mean {s:?}?)"))
        .unwrap_or_default()
}

/// The closest of `valid` to `name`, if it is close enough to be a typo.
pub(crate) fn nearest(name: &str, valid: &[String]) -> Option<String> {
    valid
        .iter()
        .map(|v| (strsim::jaro_winkler(name, v), v))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, v)| v.clone())
}

/// Turn a TOML error into one that names file and line, with a suggestion
/// for an unknown key (serde lists the expected ones in its message).
pub(crate) fn from_toml(e: &toml::de::Error, text: &str, path: &Path) -> SpecError {
    let line = e.span().map(|s| super::line_of(text, s.start)).unwrap_or(1);
    let reason = e.message().trim().to_string();
    let suggestion = unknown_field(&reason).and_then(|(name, expected)| nearest(&name, &expected));
    SpecError::Syntax {
        path: path.to_path_buf(),
        line,
        reason,
        suggestion,
    }
}

/// From "unknown field `smaples`, expected one of `a`, `b`", the unknown
/// name and the expected ones.
fn unknown_field(message: &str) -> Option<(String, Vec<String>)> {
    let rest = message.strip_prefix("unknown field `")?;
    let (name, rest) = rest.split_once('`')?;
    let expected = rest
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect();
    Some((name.to_string(), expected))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_field_messages_are_understood() {
        let (name, expected) =
            unknown_field("unknown field `inptus`, expected one of `op`, `inputs`, `impls`")
                .unwrap();
        assert_eq!(name, "inptus");
        assert_eq!(expected, vec!["op", "inputs", "impls"]);
        assert_eq!(nearest(&name, &expected).as_deref(), Some("inputs"));
        assert_eq!(nearest("zzzzzz", &expected), None);
    }
}
