//! The house's rules as tests: the layering rules of docs/layout.md
//! ("The rules") checked against the crates' real dependencies (`cargo
//! metadata`), no source file over 800 lines, and the binary's wiring
//! under 1 000.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::helpers::repo;

/// Each crate's dyno dependencies (normal ones), by short name (`stats`
/// for `dyno-stats`, `dyno` for the binary).
type Graph = BTreeMap<String, BTreeSet<String>>;

fn short(package: &str) -> String {
    package.strip_prefix("dyno-").unwrap_or(package).to_string()
}

/// The workspace's graph, from `cargo metadata --no-deps`.
fn workspace_graph() -> Graph {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(repo())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut graph = Graph::new();
    for p in meta["packages"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        let deps = p["dependencies"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["kind"].is_null())
            .filter_map(|d| d["name"].as_str())
            .filter(|d| *d == "dyno" || d.starts_with("dyno-"))
            .map(short)
            .collect();
        graph.insert(short(name), deps);
    }
    graph
}

/// Every crate `from` reaches, directly or through others.
fn reach(graph: &Graph, from: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut todo: Vec<&String> = graph.get(from).into_iter().flatten().collect();
    while let Some(c) = todo.pop() {
        if out.insert(c.clone()) {
            todo.extend(graph.get(c).into_iter().flatten());
        }
    }
    out
}

/// One row of the rules table.
#[derive(Debug)]
struct Rule {
    line: usize,
    crates: Vec<String>,
    only: Option<BTreeSet<String>>,
    never: BTreeSet<String>,
    reached_only_by: Option<BTreeSet<String>>,
}

fn names(cell: &str) -> BTreeSet<String> {
    cell.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty() && *s != "nothing")
        .map(String::from)
        .collect()
}

/// The table between `<!-- rules -->` and `<!-- /rules -->`.
fn rules(layout: &str) -> Vec<Rule> {
    let start = layout
        .find("<!-- rules -->")
        .expect("a <!-- rules --> marker");
    let end = layout
        .find("<!-- /rules -->")
        .expect("a <!-- /rules --> marker");
    let first_line = layout[..start].lines().count() + 1;
    let mut out = Vec::new();
    for (k, row) in layout[start..end].lines().enumerate() {
        let row = row.trim();
        if !row.starts_with('|') || row.starts_with("| crates") || row.starts_with("|---") {
            continue;
        }
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        assert_eq!(
            cells.len(),
            5,
            "docs/layout.md:{}: five cells",
            first_line + k
        );
        let optional = |c: &str| (!c.is_empty()).then(|| names(c));
        out.push(Rule {
            line: first_line + k,
            crates: names(cells[0]).into_iter().collect(),
            only: optional(cells[1]),
            never: names(cells[2]),
            reached_only_by: optional(cells[3]),
        });
    }
    out
}

/// What breaks the rules, one line each, naming the table's line.
fn violations(rules: &[Rule], graph: &Graph) -> Vec<String> {
    let mut out = Vec::new();
    for rule in rules {
        let at = format!("docs/layout.md:{}", rule.line);
        let named = rule
            .crates
            .iter()
            .chain(rule.only.iter().flatten())
            .chain(&rule.never)
            .chain(rule.reached_only_by.iter().flatten());
        for n in named {
            if !graph.contains_key(n) {
                out.push(format!("{at}: no crate {n:?} in the workspace"));
            }
        }
        for c in &rule.crates {
            let reached = reach(graph, c);
            if let Some(only) = &rule.only {
                for r in reached.difference(only) {
                    out.push(format!("{at}: {c} reaches {r}, outside what it may reach"));
                }
            }
            for r in reached.intersection(&rule.never) {
                out.push(format!("{at}: {c} reaches {r}, which it must never reach"));
            }
            if let Some(by) = &rule.reached_only_by {
                for other in graph.keys() {
                    if other != c && !by.contains(other) && reach(graph, other).contains(c) {
                        out.push(format!("{at}: {other} reaches {c}, which only {by:?} may"));
                    }
                }
            }
        }
    }
    out
}

fn layout() -> String {
    std::fs::read_to_string(repo().join("docs/layout.md")).unwrap()
}

#[test]
fn the_layering_rules_of_docs_layout_md_hold_in_the_real_dependencies() {
    let rules = rules(&layout());
    assert!(rules.len() >= 12, "{} rules read", rules.len());
    let broken = violations(&rules, &workspace_graph());
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// The check can fail: the real graph with one planted edge each rule
/// kind forbids, and a row naming a crate that does not exist.
#[test]
fn a_planted_dependency_breaks_its_rule() {
    let rules = rules(&layout());
    let real = workspace_graph();
    let planted = |from: &str, to: &str| {
        let mut g = real.clone();
        g.get_mut(from).unwrap().insert(to.into());
        violations(&rules, &g).join("\n")
    };
    // The figures tool reaching the session, then a suite.
    assert!(planted("figures", "lab").contains("figures reaches lab"));
    assert!(planted("figures", "evm").contains("figures reaches evm"));
    // The pricing reaching a suite (outside what it may reach).
    assert!(planted("price", "state").contains("price reaches state"));
    // The report reaching the prices: through them, a spec too.
    assert!(planted("report", "price").contains("report reaches price"));
    // A suite reaching the session's runner, and someone else the session.
    assert!(planted("micro", "runner").contains("micro reaches runner"));
    assert!(planted("replay", "lab").contains("replay reaches lab, which only"));
    // A leaf that is a leaf no more.
    assert!(planted("stats", "format").contains("stats reaches format"));
    let mut bad = rules;
    bad[0].crates.push("no-such-crate".into());
    assert!(
        violations(&bad, &real)
            .join("\n")
            .contains("no crate \"no-such-crate\"")
    );
}

/// The longest a source file may be.
const MAX_LINES: usize = 800;

/// Every source file dyno writes (not vendored, not generated), relative
/// to the repository: Rust, Go, Java, Python, JavaScript, TypeScript,
/// Scala and shell, found by `git ls-files`.
fn sources() -> Vec<String> {
    let out = std::process::Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(repo())
        .output()
        .expect("git ls-files runs");
    assert!(out.status.success(), "git ls-files failed");
    let exts = ["rs", "go", "java", "py", "js", "mjs", "ts", "scala", "sh"];
    String::from_utf8(out.stdout)
        .unwrap()
        .split('\0')
        .filter(|p| !p.is_empty())
        .filter(|p| {
            Path::new(p)
                .extension()
                .is_some_and(|e| exts.iter().any(|x| e == *x))
        })
        .filter(|p| !vendored_or_generated(p))
        .map(String::from)
        .collect()
}

/// Files copied from another project with their shape kept (each names
/// its origin and license at its head).
const VENDORED: &[&str] = &[
    // revm-precompile 43.0.3's arkworks BLS12-381 code, MIT.
    "crates/evm/src/arkworks_bls.rs",
];

/// Code dyno did not write by hand: vendored sources keep their own
/// shape, generated files are rewritten by their generators.
fn vendored_or_generated(path: &str) -> bool {
    VENDORED.contains(&path)
        || path.contains("/vendor/")
        || path.contains("/node_modules/")
        || path.starts_with("contracts/build/")
        || path.ends_with(".min.js")
}

/// The files over [`MAX_LINES`] that `files` lists, longest first.
fn too_long(files: &[(String, usize)]) -> Vec<String> {
    let mut long: Vec<&(String, usize)> = files.iter().filter(|(_, n)| *n > MAX_LINES).collect();
    long.sort_by_key(|f| std::cmp::Reverse(f.1));
    long.iter()
        .map(|(p, n)| format!("{p}: {n} lines"))
        .collect()
}

#[test]
fn no_source_file_is_over_800_lines() {
    let files: Vec<(String, usize)> = sources()
        .into_iter()
        .filter_map(|p| {
            let text = std::fs::read_to_string(repo().join(&p)).ok()?;
            Some((p, text.lines().count()))
        })
        .collect();
    assert!(files.len() > 100, "{} source files found", files.len());
    let long = too_long(&files);
    assert!(
        long.is_empty(),
        "over {MAX_LINES} lines (split along the file's nouns; tests go beside their module):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_length_check_can_fail() {
    let files = vec![
        ("a.rs".to_string(), MAX_LINES),
        ("b.rs".to_string(), MAX_LINES + 1),
        ("c.rs".to_string(), 5 * MAX_LINES),
    ];
    assert_eq!(too_long(&files), ["c.rs: 4000 lines", "b.rs: 801 lines"]);
    assert!(vendored_or_generated("adapters/node/vendor/x.js"));
    assert!(!vendored_or_generated("crates/lab/src/session.rs"));
}

/// The most lines the binary's wiring may take: every file of
/// `bins/dyno/src` but the argument definitions (`cli.rs`, `cli/`) and the
/// test-only docs check (`doc_commands`), less each file's `mod tests`
/// at its end (docs/layout.md, "The rules").
const MAX_BINARY_LINES: usize = 1000;

/// A file's lines before its `#[cfg(test)] mod tests`.
fn non_test_lines(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    lines
        .windows(2)
        .position(|w| w[0] == "#[cfg(test)]" && w[1].starts_with("mod tests"))
        .unwrap_or(lines.len())
}

/// The wiring's files with their non-test lines.
fn binary_lines(files: &[(String, String)]) -> usize {
    files
        .iter()
        .filter(|(p, _)| {
            p.starts_with("bins/dyno/src/")
                && p.ends_with(".rs")
                && p != "bins/dyno/src/cli.rs"
                && !p.starts_with("bins/dyno/src/cli/")
                && !p.starts_with("bins/dyno/src/doc_commands")
        })
        .map(|(_, t)| non_test_lines(t))
        .sum()
}

#[test]
fn the_binary_is_wiring_under_1000_lines() {
    let files: Vec<(String, String)> = sources()
        .into_iter()
        .filter(|p| p.starts_with("bins/dyno/src/"))
        .filter_map(|p| Some((p.clone(), std::fs::read_to_string(repo().join(&p)).ok()?)))
        .collect();
    let n = binary_lines(&files);
    assert!(n > 300, "{n} lines: the wiring was not found");
    assert!(
        n < MAX_BINARY_LINES,
        "the binary's wiring is {n} lines (at most {MAX_BINARY_LINES} besides cli.rs and cli/): \
         move what is not argument parsing, wiring or rendering into its library"
    );
}

#[test]
fn the_binary_count_can_fail() {
    let body = "fn a() {}\n".repeat(600);
    let files = vec![
        ("bins/dyno/src/main.rs".to_string(), body.clone()),
        (
            "bins/dyno/src/run.rs".to_string(),
            format!("{body}#[cfg(test)]\nmod tests {{\n}}\n"),
        ),
        ("bins/dyno/src/cli.rs".to_string(), body.clone()),
        ("bins/dyno/src/cli/run.rs".to_string(), body),
    ];
    assert_eq!(binary_lines(&files), 1200);
    assert!(binary_lines(&files) >= MAX_BINARY_LINES);
}
