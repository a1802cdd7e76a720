//! `dyno completions SHELL`: generated from the same clap definition the
//! binary parses with, so it cannot drift from it.

use clap::CommandFactory;
use dyno_lab::Outcome;

use crate::cli::{Cli, CompletionsArgs};

pub(crate) fn completions(args: &CompletionsArgs) -> anyhow::Result<Outcome> {
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut visible(), "dyno", &mut out);
    crate::print_stdout(&String::from_utf8_lossy(&out))?;
    Ok(Outcome::Ok)
}

/// dyno's commands without the hidden ones (the internal `__count`),
/// which clap_complete would offer otherwise.
pub(crate) fn visible() -> clap::Command {
    let cli = Cli::command();
    let mut cmd = clap::Command::new("dyno")
        .version(env!("CARGO_PKG_VERSION"))
        .subcommand_required(true);
    if let Some(about) = cli.get_about() {
        cmd = cmd.about(about.clone());
    }
    for arg in cli.get_arguments() {
        cmd = cmd.arg(arg.clone());
    }
    cmd = cmd.subcommands(cli.get_subcommands().filter(|s| !s.is_hide_set()).cloned());
    cmd.build();
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completions_know_every_visible_command_and_not_the_hidden_one() {
        let mut out = Vec::new();
        clap_complete::generate(clap_complete::Shell::Bash, &mut visible(), "dyno", &mut out);
        let bash = String::from_utf8(out).unwrap();
        for name in [
            "run",
            "gas",
            "replay",
            "load",
            "baseline",
            "completions",
            "man",
        ] {
            assert!(bash.contains(name), "{name} is not completed");
        }
        assert!(
            bash.contains("--fail-on-target"),
            "run's flags are completed"
        );
        assert!(
            !bash.contains("__count"),
            "the hidden command is not offered"
        );
    }
}
