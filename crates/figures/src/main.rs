//! `cargo run -p dyno-figures -- check|write [ROOT]`: regenerate the tables
//! docs/ publishes from the raw files they cite (`write`), or say where a
//! doc and its files disagree (`check`, exit 1). ROOT: the repository
//! (default: the current folder).

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mode, root) = (args.next(), args.next().map(PathBuf::from));
    let root = root.unwrap_or_else(|| PathBuf::from("."));
    let result = match mode.as_deref() {
        Some("check") => dyno_figures::check(&root),
        Some("write") => dyno_figures::write(&root),
        _ => {
            eprintln!(
                "usage: dyno-figures check|write [ROOT]\n  check: say where a doc's generated table differs from its files (exit 1)\n  write: regenerate every table between <!-- figures: NAME --> and <!-- /figures -->"
            );
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(differences) => {
            for d in &differences {
                eprintln!("{d}");
            }
            match (mode.as_deref(), differences.is_empty()) {
                (Some("check"), false) => ExitCode::from(1),
                (Some("write"), _) => {
                    eprintln!("dyno-figures: {} table(s) rewritten", differences.len());
                    ExitCode::SUCCESS
                }
                _ => ExitCode::SUCCESS,
            }
        }
        Err(e) => {
            eprintln!("dyno-figures: {e}");
            ExitCode::from(2)
        }
    }
}
