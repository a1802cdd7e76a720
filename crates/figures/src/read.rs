//! Raw files: Result JSON, gzipped or not.

use std::path::{Path, PathBuf};

use dyno_format::Run;

use crate::FiguresError;

/// The text of `path`, gunzipped when it is gzip.
pub(crate) fn text(path: &Path) -> Result<String, FiguresError> {
    dyno_format::read_text(path).map_err(|e| FiguresError::Data {
        path: path.to_path_buf(),
        why: e.to_string(),
    })
}

/// The Result file at `path`.
pub(crate) fn run(path: &Path) -> Result<Run, FiguresError> {
    Run::parse(&text(path)?, path).map_err(|e| FiguresError::Data {
        path: path.to_path_buf(),
        why: e.to_string(),
    })
}

/// The entries of `dir` named `trial-K` + `suffix` (a file's extension, or
/// "" for folders), by K; an error naming the folder when there are none.
pub(crate) fn trials(dir: &Path, suffix: &str) -> Result<Vec<(usize, PathBuf)>, FiguresError> {
    let entries = std::fs::read_dir(dir).map_err(|source| FiguresError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut found: Vec<(usize, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let k = name.strip_prefix("trial-")?.strip_suffix(suffix)?;
            Some((k.parse().ok()?, e.path()))
        })
        .collect();
    found.sort();
    if found.is_empty() {
        return Err(FiguresError::Data {
            path: dir.to_path_buf(),
            why: format!("no trial-K{suffix} in the folder"),
        });
    }
    Ok(found)
}
