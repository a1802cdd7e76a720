//! JSON: the full result document, schema v1, as written to result files.

use dyno_format::Run;

/// Render `run` as pretty JSON (the same text `dyno run` writes to disk).
pub fn render(run: &Run) -> String {
    run.to_json()
}
