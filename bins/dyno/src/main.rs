//! The `dyno` command: argument parsing and wiring. The work happens in the
//! `dyno-*` crates.
//!
//! Exit codes are a contract: 0 ok; 1 a benchmark returned a wrong result,
//! or missed its target under `--fail-on-target`; 2 a usage or runtime
//! error. A closed stdout (`dyno run | head`) is not an error.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;

mod baseline;
mod check;
mod cli;
mod gas;
mod history;
mod instructions;
mod list;
mod load;
mod others;
mod portable;
mod report;
mod run;
mod setup;

use cli::{Cli, ColorChoice, Command};

#[global_allocator]
static ALLOC: dyno_runner::CountingAlloc = dyno_runner::CountingAlloc;

/// How a command ended, for the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Ok,
    /// A wrong result, or a missed target under `--fail-on-target`.
    Failed,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::List(args) => list::list(&cli.global, args),
        Command::Run(args) => run::run(&cli.global, args),
        Command::Gas(args) => gas::gas(&cli.global, args),
        Command::Setup(args) => setup::setup(args),
        Command::Doctor(args) => setup::doctor(args),
        Command::Load(args) => load::load(&cli.global, args),
        Command::Baseline(args) => baseline::baseline(&cli.global, args),
        Command::Check(args) => check::check(&cli.global, args),
        Command::Compare(args) => check::compare(&cli.global, args),
        Command::Report(args) => report::report(&cli.global, args),
        Command::History(args) => history::history(&cli.global, args),
        Command::Count(args) => instructions::count(&cli.global, args),
    };
    match result {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::Failed) => ExitCode::from(1),
        Err(e) => {
            if is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            let color = use_color(cli.global.color, std::io::stderr().is_terminal());
            let label = if color {
                "\x1b[1;31merror\x1b[0m"
            } else {
                "error"
            };
            eprintln!("{label}: {e}");
            for cause in e.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Colour on a terminal, unless `NO_COLOR` is set or `TERM=dumb`; the flag
/// overrides.
fn use_color(choice: ColorChoice, terminal: bool) -> bool {
    color_enabled(
        choice,
        terminal,
        std::env::var_os("NO_COLOR"),
        std::env::var("TERM").ok(),
    )
}

/// The colour decision from its inputs (testable without touching the
/// environment). An empty `NO_COLOR` does not count, as no-color.org says.
fn color_enabled(
    choice: ColorChoice,
    terminal: bool,
    no_color: Option<std::ffi::OsString>,
    term: Option<String>,
) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            terminal && no_color.is_none_or(|v| v.is_empty()) && term.is_none_or(|t| t != "dumb")
        }
    }
}

/// Write data to stdout; a closed pipe surfaces as an error that `main`
/// treats as success.
fn print_stdout(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// A data folder: the flag, else `./NAME` if present, else the repository
/// folder dyno was built from.
fn data_dir(flag: Option<&Path>, name: &str) -> PathBuf {
    if let Some(p) = flag {
        return p.to_path_buf();
    }
    let here = PathBuf::from(name);
    if here.is_dir() {
        return here;
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(name)
}

/// Every benchmark the built-in suites can build.
fn catalog() -> Vec<dyno_workload::BenchDef> {
    let mut defs = dyno_micro::catalog();
    defs.extend(dyno_evm::catalog());
    defs.extend(dyno_db::catalog());
    defs.extend(dyno_net::bench::defs());
    defs.extend(dyno_pow::bench::defs());
    defs
}

/// Load and check the specs against what the built-in suites can build.
fn load_specs(
    global: &cli::Global,
) -> anyhow::Result<(Vec<dyno_spec::Spec>, Vec<dyno_workload::BenchDef>)> {
    let dir = data_dir(global.specs.as_deref(), "specs");
    let specs = dyno_spec::load_dir(&dir)?;
    let catalog = catalog();
    let known = dyno_spec::Known::new(catalog.iter().map(|d| {
        (
            d.group.to_string(),
            d.op.to_string(),
            d.input.clone(),
            d.implementation.to_string(),
        )
    }));
    for spec in &specs {
        spec.check(&known)?;
    }
    Ok((specs, catalog))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_only_on_a_terminal_without_no_color_or_dumb_term() {
        let auto = |terminal, no_color: Option<&str>, term: Option<&str>| {
            color_enabled(
                ColorChoice::Auto,
                terminal,
                no_color.map(Into::into),
                term.map(Into::into),
            )
        };
        assert!(auto(true, None, Some("xterm")));
        assert!(!auto(false, None, Some("xterm")), "not a terminal");
        assert!(!auto(true, Some("1"), Some("xterm")), "NO_COLOR set");
        assert!(
            auto(true, Some(""), Some("xterm")),
            "empty NO_COLOR is unset"
        );
        assert!(!auto(true, None, Some("dumb")), "TERM=dumb");
        assert!(color_enabled(
            ColorChoice::Always,
            false,
            Some("1".into()),
            None
        ));
        assert!(!color_enabled(ColorChoice::Never, true, None, None));
    }
}
