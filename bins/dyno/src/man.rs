//! `dyno man`: the manual, generated from the same clap definition the
//! binary parses with (clap_mangen), so it cannot drift from it.

use std::path::Path;

use anyhow::Context;
use dyno_lab::Outcome;

use crate::cli::ManArgs;
use crate::completions::visible;

pub(crate) fn man(args: &ManArgs) -> anyhow::Result<Outcome> {
    let cmd = visible();
    match &args.dir {
        None => {
            let mut out = Vec::new();
            clap_mangen::Man::new(cmd)
                .render(&mut out)
                .context("rendering the manual page")?;
            crate::print_stdout(&String::from_utf8_lossy(&out))?;
        }
        Some(dir) => {
            let written = write_pages(cmd, dir)?;
            eprintln!(
                "dyno man: {written} pages in {} (man -l {}/dyno.1)",
                dir.display(),
                dir.display()
            );
        }
    }
    Ok(Outcome::Ok)
}

/// `dyno.1` and a page per command (clap_mangen's names: `dyno-run.1`);
/// how many.
fn write_pages(cmd: clap::Command, dir: &Path) -> anyhow::Result<usize> {
    std::fs::create_dir_all(dir).with_context(|| format!("--dir {}", dir.display()))?;
    clap_mangen::generate_to(cmd.clone(), dir)
        .with_context(|| format!("--dir: writing the pages into {}", dir.display()))?;
    fn count(cmd: &clap::Command) -> usize {
        1 + cmd
            .get_subcommands()
            .filter(|s| !s.is_hide_set() && s.get_name() != "help")
            .map(count)
            .sum::<usize>()
    }
    Ok(count(&cmd))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manual_has_a_page_per_command() {
        let tmp = tempfile::tempdir().unwrap();
        let n = write_pages(visible(), tmp.path()).unwrap();
        let page = std::fs::read_to_string(tmp.path().join("dyno-baseline-save.1")).unwrap();
        assert!(
            page.starts_with(".ie"),
            "roff: {}",
            &page[..80.min(page.len())]
        );
        assert!(
            page.contains("\\-\\-reason"),
            "save's flags are on its page"
        );
        assert!(tmp.path().join("dyno.1").exists());
        assert!(!tmp.path().join("dyno-__count.1").exists());
        assert!(n > 20, "{n} pages");
    }
}
