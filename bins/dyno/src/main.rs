//! The `dyno` command: argument parsing and wiring. The work happens in the
//! `dyno-*` crates.
//!
//! Exit codes are a contract: 0 ok; 1 a benchmark returned a wrong result,
//! or missed its target under `--fail-on-target`; 2 a usage or runtime
//! error. A closed stdout (`dyno run | head`) is not an error.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::Parser;

mod ab;
mod adapter;
mod baseline;
mod check;
mod cli;
mod client;
mod completions;
#[cfg(test)]
mod doc_commands;
mod gas;
mod history;
mod list;
mod load;
mod man;
mod replay;
mod report;
mod run;
mod setup;

use cli::{Cli, ColorChoice, Command};
use dyno_lab::{Build, Lab, Outcome, Paths};

#[global_allocator]
static ALLOC: dyno_runner::CountingAlloc = dyno_runner::CountingAlloc;

/// What built this binary, recorded in every run.
const BUILD: Build = Build {
    rustc: env!("DYNO_RUSTC_VERSION"),
    version: env!("CARGO_PKG_VERSION"),
    git_commit: option_env!("DYNO_GIT_COMMIT"),
};

fn main() -> ExitCode {
    let Cli { command, global } = Cli::parse_from(cli::help_args(std::env::args_os()));
    let color = global.color;
    let result = Paths::from_flags(global.flags(), |name| std::env::var_os(name))
        .map_err(anyhow::Error::from)
        .and_then(|paths| {
            let lab = Lab {
                paths,
                build: BUILD,
            };
            dispatch(&command, &lab, color)
        });
    if dyno_lab::interrupt::ending() {
        // The interrupt handler owns the exit (130) once it has begun to
        // stop everything; a command that returned because its processes
        // were killed must not exit first with its own code.
        std::thread::sleep(std::time::Duration::from_secs(30));
        std::process::exit(130);
    }
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

/// `dyno worker`: the adapter protocol on stdin and stdout. The fleet's
/// flags it once took are refused, naming `dyno join`.
fn worker(lab: &Lab, args: &cli::WorkerArgs) -> anyhow::Result<Outcome> {
    args.refuse_fleet_flags()?;
    let stdin = std::io::stdin().lock();
    dyno_lab::worker::serve(lab, stdin, std::io::stdout().lock())?;
    Ok(Outcome::Ok)
}

/// `dyno join`: a fleet's load worker, or a new fleet key (`--new-key`).
fn join(lab: &Lab, args: &cli::JoinArgs) -> anyhow::Result<Outcome> {
    if let Some(path) = &args.new_key {
        dyno_lab::fleet::new_key(path)?;
        eprintln!(
            "dyno join: wrote a new fleet key to {} (mode 0600); copy it to every worker's machine and give it to `dyno load --fleet-key`",
            path.display()
        );
        return Ok(Outcome::Ok);
    }
    let req = args.request();
    dyno_lab::fleet::serve_worker(lab, &req)?;
    Ok(Outcome::Ok)
}

fn dispatch(command: &Command, lab: &Lab, color: ColorChoice) -> anyhow::Result<Outcome> {
    match command {
        Command::List(args) => list::list(lab, args),
        Command::Run(args) => run::run(lab, args, color),
        Command::Gas(args) => gas::gas(lab, args),
        Command::Setup(args) => setup::setup(lab, args),
        Command::Doctor(args) => setup::doctor(lab, args),
        Command::Load(args) => load::load(lab, args),
        Command::Replay(args) => replay::replay(lab, args),
        Command::Ab(args) => ab::ab(lab, args),
        Command::Worker(args) => worker(lab, args),
        Command::Join(args) => join(lab, args),
        Command::Adapter(args) => adapter::adapter(lab, args),
        Command::Client(args) => client::client(lab, args),
        Command::Baseline(args) => baseline::baseline(lab, args),
        Command::Check(args) => check::check(lab, args, color),
        Command::Compare(args) => check::compare(lab, args, color),
        Command::Report(args) => report::report(lab, args),
        Command::History(args) => history::history(lab, args),
        Command::Completions(args) => completions::completions(args),
        Command::Man(args) => man::man(args),
        Command::Count(args) => {
            let count = dyno_lab::callgrind::Count {
                id: args.id.clone(),
                implementation: args.implementation.clone(),
                iters: args.iters.clone(),
                calibrate: args.calibrate,
            };
            Ok(dyno_lab::callgrind::count(lab, &count)?)
        }
    }
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

/// Colour on stdout or stderr (`terminal`: is it one?): `--color`, then
/// the environment (`NO_COLOR`, `TERM=dumb`).
fn use_color(choice: ColorChoice, terminal: bool) -> bool {
    dyno_report::color::enabled(choice.into(), terminal)
}

/// A run measured by a command that prints its own view: kept (where its
/// files went said, saved to the history), then `text` (its table,
/// Markdown or JSON) printed on stdout.
fn deliver(
    lab: &Lab,
    measured: &dyno_lab::session::Measured,
    quiet: bool,
    text: &str,
) -> anyhow::Result<()> {
    measured.keep(&lab.paths, quiet);
    print_stdout(text)
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
}
