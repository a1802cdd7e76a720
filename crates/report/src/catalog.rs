//! The `dyno list` view: what there is to run, one row per benchmark and
//! implementation in every runtime, each ready or with the command that
//! installs it; then the clients and nodes dyno drives.

use std::fmt::Write as _;

use crate::units::duration;

/// Whether an implementation or client runs now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Part of dyno itself (Rust's implementations, revm).
    BuiltIn,
    /// Installed by `dyno setup`, from the sources it has now.
    Installed,
    /// Installed, from other sources: the command that reinstalls it.
    Stale(String),
    /// Not installed: the command that installs it.
    Missing(String),
}

impl Status {
    /// True if it runs without a `dyno setup` first (an out-of-date
    /// install runs too, with a warning).
    pub fn ready(&self) -> bool {
        !matches!(self, Status::Missing(_))
    }

    /// Its cell: `built in`, `installed`, or the command to run.
    pub fn cell(&self) -> String {
        match self {
            Status::BuiltIn => "built in".into(),
            Status::Installed => "installed".into(),
            Status::Stale(cmd) => format!("out of date: {cmd}"),
            Status::Missing(cmd) => format!("not installed: {cmd}"),
        }
    }
}

/// One benchmark and one of its implementations.
#[derive(Debug, Clone)]
pub struct Listed {
    pub id: String,
    pub implementation: String,
    /// `rust`, or the adapter's name (`go`, `java`, an external folder's).
    pub runtime: String,
    /// The id's baseline implementation (marked `*`).
    pub baseline: bool,
    /// The implementation's version (an adapter's: its library's), `?`
    /// when no suite builds it.
    pub version: String,
    /// The spec's target: the statistic's name and its limit (ns).
    pub target: Option<(String, f64)>,
    /// The regression threshold, a fraction.
    pub threshold: f64,
    /// In the default run (its spec says `default = true`).
    pub default: bool,
    pub status: Status,
}

/// A client or node dyno drives.
#[derive(Debug, Clone)]
pub struct ListedClient {
    pub name: String,
    /// The commands that use it (`replay --client geth`).
    pub uses: Vec<String>,
    /// The newest fork dyno makes blocks under for it.
    pub fork: Option<String>,
    /// Its version, when installed (or built in).
    pub version: Option<String>,
    pub status: Status,
}

/// Aligned columns: id, impl, runtime, version, target, threshold, status.
pub fn text(rows: &[Listed]) -> String {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|e| {
            let star = if e.baseline { " *" } else { "" };
            let target = e
                .target
                .as_ref()
                .map(|(stat, limit)| format!("{stat} ≤ {}", duration(*limit)))
                .unwrap_or_else(|| "-".into());
            let default = if e.default {
                ""
            } else {
                " (not in default run)"
            };
            vec![
                e.id.clone(),
                format!("{}{star}", e.implementation),
                e.runtime.clone(),
                e.version.clone(),
                target,
                format!("{:.0}%{default}", e.threshold * 100.0),
                e.status.cell(),
            ]
        })
        .collect();
    table(
        &[
            "id",
            "impl",
            "runtime",
            "version",
            "target",
            "threshold",
            "status",
        ],
        &cells,
    )
}

/// Aligned columns: client, uses, fork, version, status.
pub fn clients_text(clients: &[ListedClient]) -> String {
    let cells: Vec<Vec<String>> = clients
        .iter()
        .map(|c| {
            vec![
                c.name.clone(),
                c.uses.join(", "),
                c.fork.clone().unwrap_or_else(|| "-".into()),
                c.version.clone().unwrap_or_else(|| "-".into()),
                c.status.cell(),
            ]
        })
        .collect();
    table(&["client", "used by", "fork", "version", "status"], &cells)
}

fn table(headers: &[&str], cells: &[Vec<String>]) -> String {
    let mut width: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for r in cells {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut s = String::new();
        for (c, w) in cells.iter().zip(&width) {
            let pad = w.saturating_sub(c.chars().count());
            let _ = write!(s, "{c}{}  ", " ".repeat(pad));
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(&headers.iter().map(|h| h.to_string()).collect::<Vec<_>>());
    for r in cells {
        out.push_str(&line(r));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(imp: &str, runtime: &str, status: Status) -> Listed {
        Listed {
            id: "hash/keccak256/32B".into(),
            implementation: imp.into(),
            runtime: runtime.into(),
            baseline: imp == "tiny-keccak",
            version: "1.0".into(),
            target: Some(("p50".into(), 1_000.0)),
            threshold: 0.2,
            default: runtime == "rust",
            status,
        }
    }

    #[test]
    fn each_row_says_where_it_runs_and_how_to_get_it() {
        let t = text(&[
            row("tiny-keccak", "rust", Status::BuiltIn),
            row("geth", "go", Status::Missing("dyno setup go".into())),
            row("noble", "node", Status::Installed),
            row("web3j", "java", Status::Stale("dyno setup java".into())),
        ]);
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines[0].starts_with("id "), "{t}");
        assert!(
            lines[0].contains("runtime") && lines[0].ends_with("status"),
            "{t}"
        );
        assert!(
            lines[1].contains("tiny-keccak *") && lines[1].ends_with("built in"),
            "{t}"
        );
        assert!(lines[2].ends_with("not installed: dyno setup go"), "{t}");
        assert!(lines[3].ends_with("installed"), "{t}");
        assert!(lines[4].ends_with("out of date: dyno setup java"), "{t}");
        assert!(lines[2].contains("(not in default run)"), "{t}");
        // Columns line up: every status starts at the same character.
        let col = lines[0][..lines[0].find("status").unwrap()].chars().count();
        for l in &lines[1..] {
            let status: String = l.chars().skip(col).collect();
            assert!(
                ["built in", "installed", "not installed", "out of date"]
                    .iter()
                    .any(|s| status.starts_with(s)),
                "{t}"
            );
        }
    }

    #[test]
    fn the_clients_table_names_what_uses_each() {
        let t = clients_text(&[ListedClient {
            name: "geth".into(),
            uses: vec!["replay --client geth".into(), "load --node geth".into()],
            fork: Some("osaka".into()),
            version: None,
            status: Status::Missing("dyno setup geth".into()),
        }]);
        assert!(
            t.lines()
                .nth(1)
                .unwrap()
                .contains("replay --client geth, load --node geth"),
            "{t}"
        );
        assert!(
            t.contains("osaka") && t.ends_with("not installed: dyno setup geth\n"),
            "{t}"
        );
        assert!(Status::Stale("x".into()).ready() && !Status::Missing("x".into()).ready());
    }
}
