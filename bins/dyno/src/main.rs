//! The `dyno` command: argument parsing and wiring. The work happens in the
//! `dyno-*` crates.
//!
//! Exit codes are a contract: 0 ok; 1 a benchmark returned a wrong result,
//! or missed its target under `--fail-on-target`; 2 a usage or runtime
//! error. A closed stdout (`dyno run | head`) is not an error.

use std::io::{IsTerminal, Write};
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
    let Cli { command, global } = Cli::parse_from(help_args(std::env::args_os()));
    let color = global.color;
    let result = global
        .with_env(|name| std::env::var_os(name))
        .and_then(|global| dispatch(&command, &global));
    match result {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::Failed) => ExitCode::from(1),
        Err(e) => {
            if is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            let color = use_color(color, std::io::stderr().is_terminal());
            let label = if color {
                "\x1b[1;31merror\x1b[0m"
            } else {
                "error"
            };
            for (k, line) in error_lines(&e).iter().enumerate() {
                if k == 0 {
                    eprintln!("{label}: {line}");
                } else {
                    eprintln!("  caused by: {line}");
                }
            }
            ExitCode::from(2)
        }
    }
}

fn dispatch(command: &Command, global: &cli::Global) -> anyhow::Result<Outcome> {
    match command {
        Command::List(args) => list::list(global, args),
        Command::Run(args) => run::run(global, args),
        Command::Gas(args) => gas::gas(global, args),
        Command::Setup(args) => setup::setup(args),
        Command::Doctor(args) => setup::doctor(args),
        Command::Load(args) => load::load(global, args),
        Command::Baseline(args) => baseline::baseline(global, args),
        Command::Check(args) => check::check(global, args),
        Command::Compare(args) => check::compare(global, args),
        Command::Report(args) => report::report(global, args),
        Command::History(args) => history::history(global, args),
        Command::Count(args) => instructions::count(global, args),
    }
}

/// `dyno help [COMMAND] --help` means `dyno help [COMMAND]` (clap's help
/// subcommand takes no flags of its own).
fn help_args(args: impl IntoIterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let args: Vec<_> = args.into_iter().collect();
    if args.get(1).is_some_and(|a| a == "help") {
        let mut kept: Vec<_> = args[..2].to_vec();
        kept.extend(
            args[2..]
                .iter()
                .filter(|a| *a != "--help" && *a != "-h")
                .cloned(),
        );
        return kept;
    }
    args
}

/// An error and its causes, one line each, leaving out a cause that the
/// line before already says in full (an OS error the message quoted).
fn error_lines(e: &anyhow::Error) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if lines.last().is_some_and(|prev| prev.contains(&text)) {
            continue;
        }
        lines.push(text);
    }
    lines
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
    use anyhow::Context as _;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("writing to stdout")
}

use dyno_lab::paths::data_dir;

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
    fn a_cause_already_quoted_is_not_repeated() {
        let io = std::io::Error::from(std::io::ErrorKind::NotFound);
        let quoted = anyhow::Error::new(std::io::Error::from(std::io::ErrorKind::NotFound))
            .context(format!("x.json: {io}"));
        assert_eq!(error_lines(&quoted), [format!("x.json: {io}")]);
        let new = anyhow::anyhow!("inner").context("outer");
        assert_eq!(error_lines(&new), ["outer", "inner"]);
    }

    #[test]
    fn help_takes_help() {
        let os = |v: &[&str]| v.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        assert_eq!(
            help_args(os(&["dyno", "help", "--help"])),
            os(&["dyno", "help"])
        );
        assert_eq!(
            help_args(os(&["dyno", "help", "run", "-h"])),
            os(&["dyno", "help", "run"])
        );
        assert_eq!(
            help_args(os(&["dyno", "run", "--help"])),
            os(&["dyno", "run", "--help"])
        );
    }

    #[test]
    fn empty_variables_are_unset_and_bad_ones_are_named() {
        use clap::Parser as _;
        let parse = |args: &[&str], env: &'static [(&'static str, &'static str)]| {
            let cli = Cli::try_parse_from(args).unwrap();
            cli.global.with_env(move |name| {
                env.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            })
        };
        let empty: &'static [_] = &[
            ("DYNO_SPECS", ""),
            ("DYNO_VECTORS", ""),
            ("DYNO_STORE", ""),
            ("DYNO_NO_STORE", ""),
        ];
        let g = parse(&["dyno", "list"], empty).unwrap();
        assert_eq!(
            (g.specs, g.vectors, g.store, g.no_store),
            (None, None, None, false)
        );
        let set: &'static [_] = &[
            ("DYNO_SPECS", "s"),
            ("DYNO_VECTORS", "v"),
            ("DYNO_STORE", "h.sqlite"),
            ("DYNO_NO_STORE", "yes"),
        ];
        let g = parse(&["dyno", "list"], set).unwrap();
        assert_eq!(g.specs, Some("s".into()));
        assert_eq!(g.vectors, Some("v".into()));
        assert_eq!(g.store.as_deref(), Some("h.sqlite"));
        assert!(g.no_store);
        // A flag wins over its variable.
        let g = parse(&["dyno", "list", "--specs", "flag"], set).unwrap();
        assert_eq!(g.specs, Some("flag".into()));
        let e = parse(&["dyno", "list"], &[("DYNO_NO_STORE", "maybe")])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("DYNO_NO_STORE=\"maybe\""), "{e}");
        assert!(!e.contains("--no-store"), "{e}");
    }

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
