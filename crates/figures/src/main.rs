//! `cargo run -p dyno-figures -- check|write [ROOT]`: regenerate the tables
//! docs/ publishes from the raw files they cite (`write`), or say where a
//! doc and its files disagree (`check`, exit 1). ROOT: the repository
//! (default: the current folder).

use std::process::ExitCode;

use dyno_figures::Mode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = match Mode::parse(&args) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("dyno-figures: {e}\n{}", Mode::USAGE);
            return ExitCode::from(2);
        }
    };
    let result = match &mode {
        Mode::Check(root) => dyno_figures::check(root),
        Mode::Write(root) => dyno_figures::write(root),
    };
    match result {
        Ok(differences) => {
            for d in &differences {
                eprintln!("{d}");
            }
            match (&mode, differences.is_empty()) {
                (Mode::Check(_), false) => ExitCode::from(1),
                (Mode::Write(_), _) => {
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
