//! Baselines: a named, versioned reference run that later runs are checked
//! against (`dyno baseline`, `dyno check`).
//!
//! Every change to a baseline adds a [`BaselineVersion`] with its date, what
//! changed and why, as a client team's published baselines keep a version
//! history with a justification for each change. The newest version is the
//! one checked against. A baseline exports to, and imports from, one JSON
//! file (`dyno_baseline: 1`), so a repository can commit it.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::{FormatError, Run};

/// The baseline file format this crate writes and reads.
pub const BASELINE_FORMAT: u32 = 1;

/// A named baseline and its history, oldest version first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// Always [`BASELINE_FORMAT`] when written by this crate.
    pub dyno_baseline: u32,
    /// e.g. `main` or `v1.4-release`.
    pub name: String,
    /// Oldest first; never empty in a valid baseline.
    pub versions: Vec<BaselineVersion>,
}

/// One version of a baseline: the run it holds, and why it changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaselineVersion {
    /// 1, 2, 3... in order of saving.
    pub version: u32,
    /// RFC 3339, UTC: when this version was saved.
    pub created_at: String,
    /// The justification given with `--reason`.
    pub reason: String,
    /// What changed from the previous version, one line each (ids added or
    /// removed, medians that moved); `["first version"]` for version 1.
    pub changes: Vec<String>,
    /// The run this version holds, raw samples included.
    pub run: Run,
}

impl Baseline {
    /// The newest version.
    pub fn latest(&self) -> Option<&BaselineVersion> {
        self.versions.last()
    }

    /// Serialize as pretty JSON.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("a Baseline always serializes");
        s.push('\n');
        s
    }

    /// Write to `path` atomically.
    pub fn write(&self, path: &Path) -> Result<(), FormatError> {
        crate::write_atomic(path, self.to_json().as_bytes())
    }

    /// Read a baseline file, checking its format version first.
    pub fn read(path: &Path) -> Result<Self, FormatError> {
        Self::parse(&crate::read_text(path)?, path)
    }

    /// Parse baseline JSON; `path` is used in error messages.
    pub fn parse(text: &str, path: &Path) -> Result<Self, FormatError> {
        let at_top = |reason: String| FormatError::Parse {
            path: path.to_path_buf(),
            line: 1,
            column: 1,
            reason,
        };
        let baseline: Self = crate::parse_versioned(
            text,
            path,
            "dyno_baseline",
            BASELINE_FORMAT,
            |found| {
                at_top(format!(
                    "dyno_baseline {found} is not supported (this dyno reads format \
                     {BASELINE_FORMAT}); export it again with the dyno that wrote it"
                ))
            },
            "no dyno_baseline field: not a dyno baseline file",
        )?;
        if baseline.versions.is_empty() {
            return Err(at_top(format!(
                "baseline {:?} has no versions",
                baseline.name
            )));
        }
        Ok(baseline)
    }
}
