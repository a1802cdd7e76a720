//! Progress on stderr while a session measures.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

/// Progress on stderr: a bar on a terminal, a line per benchmark otherwise.
pub(crate) struct Reporter {
    bar: Option<ProgressBar>,
    lines: bool,
}

impl Reporter {
    pub(crate) fn new(total: usize, quiet: bool) -> Self {
        let terminal = std::io::stderr().is_terminal();
        let bar = (!quiet && terminal).then(|| {
            let bar = ProgressBar::new(total as u64);
            bar.set_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed} {wide_msg}")
                    .expect("valid template"),
            );
            bar
        });
        Self {
            bar,
            lines: !quiet && !terminal,
        }
    }

    pub(crate) fn start(&self, index: usize, total: usize, id: &str, implementation: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!("{id} {implementation}"));
        } else if self.lines {
            eprintln!("dyno: [{}/{total}] {id} {implementation}", index + 1);
        }
    }

    pub(crate) fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
