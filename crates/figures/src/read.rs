//! Raw files: Result JSON, gzipped or not.

use std::path::{Path, PathBuf};

use dyno_format::Run;

use crate::FiguresError;

/// The text of `path`, gunzipped when it is gzip.
pub(crate) fn text(path: &Path) -> Result<String, FiguresError> {
    dyno_format::read_text(path).map_err(|e| FiguresError::Data {
        path: path.to_path_buf(),
        why: e.to_string(),
    })
}

/// The Result file at `path`.
pub(crate) fn run(path: &Path) -> Result<Run, FiguresError> {
    Run::parse(&text(path)?, path).map_err(|e| FiguresError::Data {
        path: path.to_path_buf(),
        why: e.to_string(),
    })
}

/// One sentence for a table's caption: how noisy the machine was while
/// `run` measured, from its noise probe (CPU steal, the reference
/// workload's spread and drift, the probe's wait for a CPU), or that its
/// file keeps none. `what` names the run in the sentence ("the blocks'
/// run").
pub(crate) fn noise_note(run: &Run, what: &str) -> String {
    let Some(n) = &run.noise else {
        return format!(
            " The machine's noise over {what}: not known (its file keeps no noise probe; \
             dyno kept one for `dyno run` and `dyno ab` only until issue 53)."
        );
    };
    let steal = match (n.steal_pct, n.steal_max_pct) {
        (Some(s), Some(m)) => format!("CPU steal {s:.1}% (max {m:.0}% in a second)"),
        (Some(s), None) => format!("CPU steal {s:.1}%"),
        _ => "CPU steal not known".into(),
    };
    let speed = n.speed.as_ref().map_or_else(String::new, |s| {
        let how = match s.window_ms {
            Some(ms) => format!("the median of {ms:.0} ms windows"),
            None => "the best of 2 ms windows, which a preemption inflates".into(),
        };
        format!(
            ", a fixed reference workload's time spread {:.0}% and drifted {:+.1}% ({} windows, {how})",
            s.spread_pct, s.drift_pct, s.windows
        )
    });
    let waited = n.waited_pct.map_or_else(String::new, |w| {
        format!(", the probe waited {w:.0}% of its time for a CPU")
    });
    format!(
        " The machine's noise over {what} (dyno's noise probe, {:.0} s): {steal}{speed}{waited}.",
        n.seconds
    )
}

/// A generated table's caption (`out`, ending in its newline) with
/// [`noise_note`] for each of `runs` at its end.
pub(crate) fn with_noise(out: &mut String, runs: &[(&Run, &str)]) {
    let newline = out.ends_with('\n');
    if newline {
        out.pop();
    }
    for (run, what) in runs {
        out.push_str(&noise_note(run, what));
    }
    if newline {
        out.push('\n');
    }
}

/// The entries of `dir` named `trial-K` + `suffix` (a file's extension, or
/// "" for folders), by K; an error naming the folder when there are none.
pub(crate) fn trials(dir: &Path, suffix: &str) -> Result<Vec<(usize, PathBuf)>, FiguresError> {
    let entries = std::fs::read_dir(dir).map_err(|source| FiguresError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut found: Vec<(usize, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let k = name.strip_prefix("trial-")?.strip_suffix(suffix)?;
            Some((k.parse().ok()?, e.path()))
        })
        .collect();
    found.sort();
    if found.is_empty() {
        return Err(FiguresError::Data {
            path: dir.to_path_buf(),
            why: format!("no trial-K{suffix} in the folder"),
        });
    }
    Ok(found)
}
