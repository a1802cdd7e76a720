//! dyno report's, history's, completions' and man's flags.

use super::*;

pub(crate) const REPORT_HELP: &str = "\
Examples:
  dyno report dyno-results/<id>.json -o report.html
  dyno report latest dyno-results/<id>-load.json --trend hash/keccak256/32B -o report.html
  dyno report latest --format markdown > comment.md
  dyno report latest --format bmf > bench.json        Bencher Metric Format
  dyno report latest --format gobench > new.txt       then: benchstat old.txt new.txt";

#[derive(Debug, Args)]
#[command(after_help = REPORT_HELP)]
pub(crate) struct ReportArgs {
    /// Runs: result files, run ids, `latest` or `latest~N`.
    #[arg(required = true, value_name = "RUN")]
    pub(crate) runs: Vec<String>,
    /// The format (html needs -o, or writes to stdout).
    #[arg(long, value_enum, default_value_t = ReportFormat::Html)]
    pub(crate) format: ReportFormat,
    /// Write here instead of stdout.
    #[arg(long, short, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
    /// Add a trend chart of this id over the history (repeatable).
    #[arg(long, value_name = "ID")]
    pub(crate) trend: Vec<String>,
    /// Runs of history in a trend (at least 2: a trend needs two points).
    #[arg(long, default_value_t = 50, value_name = "N", value_parser = clap::value_parser!(u32).range(2..))]
    pub(crate) trend_runs: u32,
    /// The fork whose schedule prices precompiles in the gas chart.
    #[arg(long, default_value = "osaka", value_name = "FORK")]
    pub(crate) fork: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ReportFormat {
    Html,
    Markdown,
    Csv,
    Json,
    Bmf,
    Gobench,
}

pub(crate) const COMPLETIONS_HELP: &str = "\
Install (each generated from this binary's own flags, so it matches it):
  bash:  dyno completions bash > ~/.local/share/bash-completion/completions/dyno
  zsh:   dyno completions zsh > ~/.zfunc/_dyno   (with fpath+=~/.zfunc before compinit)
  fish:  dyno completions fish > ~/.config/fish/completions/dyno.fish

Examples:
  dyno completions bash
  dyno completions zsh > _dyno";

#[derive(Debug, Args)]
#[command(after_help = COMPLETIONS_HELP)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum, value_name = "SHELL")]
    pub(crate) shell: clap_complete::Shell,
}

pub(crate) const MAN_HELP: &str = "\
Examples:
  dyno man | man -l -                  read it now
  dyno man > dyno.1                    the top-level page
  dyno man --dir man/man1              dyno.1 and a page per command (dyno-run.1, ...)";

#[derive(Debug, Args)]
#[command(after_help = MAN_HELP)]
pub(crate) struct ManArgs {
    /// Write `dyno.1` and one page per command and subcommand
    /// (`dyno-run.1`, `dyno-baseline-save.1`, ...) into this folder
    /// (created if missing) instead of printing the top-level page.
    #[arg(long, value_name = "DIR")]
    pub(crate) dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  dyno history\n  dyno history hash/keccak256/32B\n  dyno history --import dyno-results/*.json"
)]
pub(crate) struct HistoryArgs {
    /// Show this id's P50 over the saved runs instead of the run list.
    pub(crate) id: Option<String>,
    /// Only this implementation (with an id).
    #[arg(long = "impl", value_name = "NAME")]
    pub(crate) implementation: Option<String>,
    /// How many runs.
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub(crate) limit: usize,
    /// Add these result files to the history (e.g. ones saved while the
    /// history was unreachable).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub(crate) import: Vec<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub(crate) json: bool,
}
