//! JSON: the full result document, schema v1, as written to result files.

use dyno_format::Run;

/// Render `run` as pretty JSON (the same text `dyno run` writes to disk).
pub fn render(run: &Run) -> String {
    run.to_json()
}

/// The result document itself.
#[derive(Debug, Clone, Copy)]
pub struct Json;

impl crate::Export for Json {
    fn render(&self, run: &Run) -> String {
        render(run)
    }

    fn one_run_only(&self) -> Option<&'static str> {
        Some("--format json writes one run; give one RUN (or use --format csv)")
    }
}
