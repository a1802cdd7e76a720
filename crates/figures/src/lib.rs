//! The tables docs/ publishes, generated from the raw files they cite.
//!
//! A generated table sits between two markers in a Markdown file:
//!
//! ```text
//! <!-- figures: gate-trials -->
//! | trial | checks | ... |
//! <!-- /figures -->
//! ```
//!
//! The name picks a generator ([`generators`]): a function of the
//! repository's root that reads the raw files (Result files, trial series)
//! and renders the table. [`check`] regenerates every marked table and says
//! where a document differs from its files; [`write`] puts the generated
//! text in place. `cargo run -p dyno-figures -- write` regenerates the docs;
//! `crates/figures/tests/docs.rs` fails when any doc and its file disagree.
//!
//! The generators render; they never measure. Where the project's rules
//! changed since a file was written (the minimum detectable effect of issue
//! 33), a generator applies today's rules to the raw data the file keeps
//! (every pass of every comparison), so the doc says what the data shows
//! under the rules the code now follows.

use std::path::{Path, PathBuf};

pub mod blocks;
pub mod ci;
pub mod load;
mod read;
pub mod readme;
pub mod replay;
pub mod reprice;
pub mod state;
pub mod systems;
pub mod trials;

/// A whole number with spaces between thousands, as the docs write them:
/// 14 994 000.
pub(crate) fn thousands(x: f64) -> String {
    let digits = format!("{:.0}", x.round());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && c != '-' && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// One Markdown table row, every cell escaped: a client's version or a
/// name read from a raw file cannot end the row, add one, or close the
/// docs' `<!-- figures -->` marker.
pub(crate) fn line(cells: &[String]) -> String {
    format!("{}\n", dyno_format::escape::markdown_row(cells))
}

/// A Markdown table's header row and its separator.
pub(crate) fn head(header: &[String]) -> String {
    line(header) + &line(&vec!["---".to_string(); header.len()])
}

/// What went wrong reading a file or a doc.
#[derive(Debug, thiserror::Error)]
pub enum FiguresError {
    /// A file could not be read.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A raw file is not what its generator expects.
    #[error("{path}: {why}")]
    Data { path: PathBuf, why: String },
    /// A marker names no generator, or is not closed.
    #[error("{path}:{line}: {why}")]
    Marker {
        path: PathBuf,
        line: usize,
        why: String,
    },
}

/// A generator: the table (Markdown, ending in a newline) from the files
/// under the repository's `root`.
pub type Generate = fn(&Path) -> Result<String, FiguresError>;

/// Every generator, by the name a marker gives.
pub fn generators() -> Vec<(&'static str, Generate)> {
    vec![
        ("gate-trials", trials::gate_table as Generate),
        ("gate-counts", trials::count_table),
        ("readme-run", readme::run_excerpt),
        ("readme-times", ci::readme_times),
        ("load-peer", load::peer_table),
        ("load-logs", load::logs_table),
        ("blocks-validate", blocks::block_table),
        ("blocks-import", blocks::import_table),
        ("net", systems::net_table),
        ("pow", systems::pow_table),
        ("db", systems::db_table),
        ("state-gas-1e6", state::gas_table_1e6),
        ("state-sizes", state::sizes_table),
        ("state-growth", state::growth_table),
        ("replay-classes", replay::classes_table),
        ("replay-validate", replay::validate_table),
        ("replay-recorded-mix", replay::recorded_mix_table),
        ("replay-clients", replay::ethereumjs_table),
        ("replay-clients-ethrex", replay::ethrex_table),
        ("ci-rehearsals", ci::rehearsals_table),
        ("ci-ab-busy", ci::busy_ab_table),
        ("ci-cpu", ci::cpu_table),
        ("ci-rehearsals-wall-only", ci::wall_only_rehearsals_table),
        ("ci-build-units", ci::build_units_table),
        ("ci-rocksdb-flags", ci::rocksdb_flags_table),
        ("memory", systems::memory_table),
        ("reprice-attribution", reprice::attribution_table),
        ("reprice-joint", reprice::joint_table),
    ]
}

/// The documents that may hold generated tables, relative to the root.
pub fn documents(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.join("README.md"), root.join("docs/trials/README.md")];
    if let Ok(dir) = std::fs::read_dir(root.join("docs")) {
        let mut md: Vec<PathBuf> = dir
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .collect();
        md.sort();
        out.extend(md);
    }
    out
}

/// One marked table in a document.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// The generator's name.
    pub name: String,
    /// The 1-based line of the opening marker.
    pub line: usize,
    /// Byte range of the text between the markers.
    pub body: std::ops::Range<usize>,
}

const OPEN: &str = "<!-- figures: ";
const CLOSE: &str = "<!-- /figures -->";

/// The marked blocks of `text` (from `path`, for errors).
pub fn blocks(text: &str, path: &Path) -> Result<Vec<Block>, FiguresError> {
    let mut out = Vec::new();
    let mut open: Option<(String, usize, usize)> = None;
    let mut at = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let trimmed = line.trim();
        let marker = |why: String| FiguresError::Marker {
            path: path.to_path_buf(),
            line: i + 1,
            why,
        };
        if let Some(rest) = trimmed.strip_prefix(OPEN) {
            if open.is_some() {
                return Err(marker("a figures marker inside another".into()));
            }
            let name = rest
                .strip_suffix("-->")
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .ok_or_else(|| marker(format!("{trimmed:?}: write <!-- figures: NAME -->")))?;
            open = Some((name.to_string(), i + 1, at + line.len()));
        } else if trimmed == CLOSE {
            let (name, line_no, start) = open
                .take()
                .ok_or_else(|| marker("a closing marker with no opening".into()))?;
            out.push(Block {
                name,
                line: line_no,
                body: start..at,
            });
        }
        at += line.len();
    }
    if let Some((name, line, _)) = open {
        return Err(FiguresError::Marker {
            path: path.to_path_buf(),
            line,
            why: format!("figures {name}: no closing {CLOSE}"),
        });
    }
    Ok(out)
}

/// A document whose table differs from what its files give.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// The document, relative to the root.
    pub path: PathBuf,
    /// The opening marker's line.
    pub line: usize,
    /// The generator.
    pub name: String,
    /// The first line that differs: the doc's, then the generated one.
    pub doc: String,
    pub generated: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: figures {} differ from their files\n  doc:       {}\n  generated: {}",
            self.path.display(),
            self.line,
            self.name,
            self.doc,
            self.generated
        )
    }
}

/// The first differing line of two texts.
fn first_difference(doc: &str, generated: &str) -> (String, String) {
    let mut a = doc.lines();
    let mut b = generated.lines();
    loop {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) if x == y => continue,
            (x, y) => {
                return (
                    x.unwrap_or("(the table ends)").to_string(),
                    y.unwrap_or("(the table ends)").to_string(),
                );
            }
        }
    }
}

/// Every generator the documents name, checked to exist, then run once
/// each, side by side (the state and trial tables each take seconds of
/// Theil-Sen slopes and verdicts): the tables by name.
fn generate(
    root: &Path,
    docs: &[(PathBuf, String)],
    generators: &[(&'static str, Generate)],
) -> Result<Vec<(&'static str, String)>, FiguresError> {
    let mut named: Vec<(&'static str, Generate)> = Vec::new();
    for (path, text) in docs {
        for b in blocks(text, path)? {
            let g = generators
                .iter()
                .find(|(n, _)| *n == b.name)
                .ok_or_else(|| FiguresError::Marker {
                    path: path.clone(),
                    line: b.line,
                    why: format!(
                        "no generator {:?}; known: {}",
                        b.name,
                        generators
                            .iter()
                            .map(|(n, _)| *n)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                })?;
            if !named.iter().any(|(n, _)| *n == g.0) {
                named.push(*g);
            }
        }
    }
    std::thread::scope(|s| {
        let running: Vec<_> = named
            .iter()
            .map(|&(n, g)| (n, s.spawn(move || g(root))))
            .collect();
        running
            .into_iter()
            .map(|(n, h)| {
                let text = h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))?;
                Ok((n, text))
            })
            .collect()
    })
}

/// `text` with every marked table replaced by its generated one, and the
/// blocks that changed.
fn regenerate(
    root: &Path,
    path: &Path,
    text: &str,
    tables: &[(&'static str, String)],
) -> Result<(String, Vec<Difference>), FiguresError> {
    let mut out = String::with_capacity(text.len());
    let mut differences = Vec::new();
    let mut last = 0;
    for b in blocks(text, path)? {
        let generated = tables
            .iter()
            .find(|(n, _)| *n == b.name)
            .map(|(_, t)| t.as_str())
            .ok_or_else(|| FiguresError::Marker {
                path: path.to_path_buf(),
                line: b.line,
                why: format!("no generator {:?}", b.name),
            })?;
        let doc = &text[b.body.clone()];
        if doc != generated {
            let (d, g) = first_difference(doc, generated);
            differences.push(Difference {
                path: path.strip_prefix(root).unwrap_or(path).to_path_buf(),
                line: b.line,
                name: b.name.clone(),
                doc: d,
                generated: g,
            });
        }
        out.push_str(&text[last..b.body.start]);
        out.push_str(generated);
        last = b.body.end;
    }
    out.push_str(&text[last..]);
    Ok((out, differences))
}

/// The documents under `root` that exist, with their text.
fn read_docs(root: &Path) -> Result<Docs, FiguresError> {
    let mut out = Vec::new();
    for path in documents(root) {
        match std::fs::read_to_string(&path) {
            Ok(t) => out.push((path, t)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(FiguresError::Io { path, source }),
        }
    }
    Ok(out)
}

/// Documents and their text.
type Docs = Vec<(PathBuf, String)>;

/// Regenerate the documents under `root` with `generators`: each changed
/// one's new text, and every table that changed.
fn run(
    root: &Path,
    generators: &[(&'static str, Generate)],
) -> Result<(Docs, Vec<Difference>), FiguresError> {
    let docs = read_docs(root)?;
    let tables = generate(root, &docs, generators)?;
    let mut new = Vec::new();
    let mut differences = Vec::new();
    for (path, text) in &docs {
        let (t, d) = regenerate(root, path, text, &tables)?;
        if !d.is_empty() {
            new.push((path.clone(), t));
        }
        differences.extend(d);
    }
    Ok((new, differences))
}

/// Every marked table of the documents under `root` that differs from
/// what its files give (empty when the docs are true).
/// What `dyno-figures` is asked to do: its command line, `check|write
/// [ROOT]` (ROOT: the repository, default the current folder).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// Say where a doc's generated table differs from its files.
    Check(std::path::PathBuf),
    /// Regenerate every table.
    Write(std::path::PathBuf),
}

impl Mode {
    /// The usage line, for a command line this does not parse.
    pub const USAGE: &str = "usage: dyno-figures check|write [ROOT]\n  check: say where a doc's generated table differs from its files (exit 1)\n  write: regenerate every table between <!-- figures: NAME --> and <!-- /figures -->";

    /// Parse the arguments after the program's name.
    pub fn parse<S: AsRef<str>>(args: &[S]) -> Result<Mode, String> {
        let args: Vec<&str> = args.iter().map(AsRef::as_ref).collect();
        let root = |rest: &[&str]| match rest {
            [] => Ok(std::path::PathBuf::from(".")),
            [r] => Ok(std::path::PathBuf::from(r)),
            _ => Err(format!("dyno-figures takes one ROOT, not {rest:?}")),
        };
        match args.split_first() {
            Some((&"check", rest)) => Ok(Mode::Check(root(rest)?)),
            Some((&"write", rest)) => Ok(Mode::Write(root(rest)?)),
            Some((other, _)) => Err(format!(
                "dyno-figures has no mode {other:?} (check or write)"
            )),
            None => Err("dyno-figures needs a mode: check or write".into()),
        }
    }
}

pub fn check(root: &Path) -> Result<Vec<Difference>, FiguresError> {
    Ok(run(root, &generators())?.1)
}

/// Regenerate every marked table under `root` in place; the tables that
/// changed.
pub fn write(root: &Path) -> Result<Vec<Difference>, FiguresError> {
    let (new, differences) = run(root, &generators())?;
    for (path, text) in new {
        std::fs::write(&path, text).map_err(|source| FiguresError::Io { path, source })?;
    }
    Ok(differences)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(_: &Path) -> Result<String, FiguresError> {
        Ok("| a | b |\n|---|---|\n| 1 | 2 |\n".into())
    }

    fn doc(dir: &Path, text: &str) -> PathBuf {
        std::fs::create_dir_all(dir.join("docs")).unwrap();
        let p = dir.join("docs/d.md");
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn a_changed_cell_is_a_difference_and_write_restores_it() {
        let dir = tempfile::tempdir().unwrap();
        let gens = [("t", table as Generate)];
        let p = doc(
            dir.path(),
            "intro\n<!-- figures: t -->\n| a | b |\n|---|---|\n| 1 | 3 |\n<!-- /figures -->\nafter\n",
        );
        let (new, diffs) = run(dir.path(), &gens).unwrap();
        assert_eq!(diffs.len(), 1);
        assert_eq!(diffs[0].line, 2);
        assert_eq!(diffs[0].path, Path::new("docs/d.md"));
        assert_eq!(
            (diffs[0].doc.as_str(), diffs[0].generated.as_str()),
            ("| 1 | 3 |", "| 1 | 2 |")
        );
        let text = &new[0].1;
        assert!(
            text.contains("| 1 | 2 |") && text.starts_with("intro\n") && text.ends_with("after\n")
        );
        std::fs::write(&p, text).unwrap();
        let (unchanged, none) = run(dir.path(), &gens).unwrap();
        assert!(none.is_empty() && unchanged.is_empty());
    }

    #[test]
    fn a_bad_marker_is_an_error_naming_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let gens = [("t", table as Generate)];
        doc(dir.path(), "x\n<!-- figures: nope -->\n<!-- /figures -->\n");
        let e = run(dir.path(), &gens).unwrap_err().to_string();
        assert!(
            e.contains("d.md:2") && e.contains("no generator \"nope\""),
            "{e}"
        );
        let e = blocks("<!-- figures: t -->\n| a |\n", Path::new("d.md"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("d.md:1") && e.contains("no closing"), "{e}");
        let e = blocks("<!-- /figures -->\n", Path::new("d.md"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("no opening"), "{e}");
    }
}
