//! Raw files: Result JSON, gzipped or not.

use std::io::Read as _;
use std::path::Path;

use dyno_format::Run;

use crate::FiguresError;

/// The text of `path`, gunzipped when it ends in `.gz`.
pub(crate) fn text(path: &Path) -> Result<String, FiguresError> {
    let io = |source| FiguresError::Io {
        path: path.to_path_buf(),
        source,
    };
    let bytes = std::fs::read(path).map_err(io)?;
    if path.extension().is_some_and(|x| x == "gz") {
        let mut s = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut s)
            .map_err(io)?;
        Ok(s)
    } else {
        String::from_utf8(bytes).map_err(|e| FiguresError::Data {
            path: path.to_path_buf(),
            why: e.to_string(),
        })
    }
}

/// The Result file at `path`.
pub(crate) fn run(path: &Path) -> Result<Run, FiguresError> {
    Run::parse(&text(path)?, path).map_err(|e| FiguresError::Data {
        path: path.to_path_buf(),
        why: e.to_string(),
    })
}
