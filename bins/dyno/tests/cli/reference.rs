//! docs/cli.md's reference section is generated from the binary's own
//! `--help` (clap's), so it cannot drift: this test renders it and fails
//! on any difference. `DYNO_BLESS=1` writes it instead.

use std::process::Command;

use crate::helpers::{bin, repo, text};

const BEGIN: &str = "<!-- BEGIN generated from `dyno <command> --help`: regenerate with \
                     `DYNO_BLESS=1 cargo test -p dyno --test cli reference`; do not edit -->";
const END: &str = "<!-- END generated -->";

/// `dyno ARGS --help`, as a user piping it sees it.
fn help(args: &[&str]) -> String {
    let out = Command::new(bin())
        .args(args)
        .arg("--help")
        .env_remove("COLUMNS")
        .env("NO_COLOR", "1")
        .output()
        .expect("dyno runs");
    assert!(out.status.success(), "dyno {args:?} --help: {out:?}");
    text(&out.stdout)
}

/// The subcommands a help text lists (its `Commands:` section), but
/// `help` itself.
fn commands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(String::from)
        .collect()
}

/// Every command's help, depth first, each under its own heading.
fn render() -> String {
    let mut out = String::new();
    let mut stack: Vec<Vec<String>> = vec![Vec::new()];
    while let Some(path) = stack.pop() {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        let text = help(&args);
        let name = std::iter::once("dyno")
            .chain(args.iter().copied())
            .collect::<Vec<_>>()
            .join(" ");
        out.push_str(&format!(
            "### `{name}`\n\n```text\n{}\n```\n\n",
            text.trim_end()
        ));
        for c in commands(&text).into_iter().rev() {
            let mut next = path.clone();
            next.push(c);
            stack.push(next);
        }
    }
    out
}

#[test]
fn reference_in_docs_cli_md_is_the_binarys_own_help() {
    let path = repo().join("docs/cli.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let (Some(a), Some(b)) = (doc.find(BEGIN), doc.find(END)) else {
        panic!("docs/cli.md lacks the markers\n{BEGIN}\n{END}");
    };
    let generated = format!("{BEGIN}\n\n{}{END}", render());
    let current = &doc[a..b + END.len()];
    if std::env::var_os("DYNO_BLESS").is_some_and(|v| !v.is_empty()) {
        let new = format!("{}{generated}{}", &doc[..a], &doc[b + END.len()..]);
        std::fs::write(&path, new).unwrap();
        return;
    }
    if current != generated {
        let line = current
            .lines()
            .zip(generated.lines())
            .position(|(x, y)| x != y)
            .unwrap_or(current.lines().count().min(generated.lines().count()));
        panic!(
            "docs/cli.md's reference differs from the binary's --help (first at line {} of the \
             section: {:?} against {:?}); regenerate it with \
             `DYNO_BLESS=1 cargo test -p dyno --test cli reference` and commit it",
            line + 1,
            current.lines().nth(line),
            generated.lines().nth(line)
        );
    }
}

#[test]
fn the_reference_check_fails_on_a_changed_character() {
    let rendered = render();
    assert!(rendered.contains("### `dyno run`"), "{rendered}");
    assert!(rendered.contains("### `dyno baseline save`"), "{rendered}");
    assert!(
        !rendered.contains("__count"),
        "the hidden command stays hidden"
    );
    let mut changed = rendered.clone();
    changed.replace_range(10..11, "#");
    assert_ne!(rendered, changed);
}

#[test]
fn docs_layout_md_lists_every_crate() {
    let layout = std::fs::read_to_string(repo().join("docs/layout.md")).unwrap();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(repo().join("crates")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !layout.contains(&format!("`crates/{name}`")) {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "docs/layout.md has no line for crates/{missing:?}: add one where the crate sits in the pipeline"
    );
}

/// The dev and test profiles optimise every dependency (Cargo.toml's
/// `[profile.dev]`) and set each of dyno's own crates back by name: a crate
/// without its entry would quietly be built at -O2 with line tables only,
/// slower to build and to debug. Every workspace crate has one, with full
/// debug info.
#[test]
fn every_workspace_crate_has_its_own_dev_profile() {
    let root: toml::Table =
        toml::from_str(&std::fs::read_to_string(repo().join("Cargo.toml")).unwrap()).unwrap();
    let overrides = root["profile"]["dev"]["package"].as_table().unwrap();
    let mut dirs = vec![repo().join("bins/dyno")];
    for entry in std::fs::read_dir(repo().join("crates")).unwrap() {
        dirs.push(entry.unwrap().path());
    }
    let mut missing = Vec::new();
    for dir in dirs {
        let manifest: toml::Table =
            toml::from_str(&std::fs::read_to_string(dir.join("Cargo.toml")).unwrap()).unwrap();
        let name = manifest["package"]["name"].as_str().unwrap().to_string();
        let entry = overrides.get(&name).and_then(toml::Value::as_table);
        let debug = entry
            .and_then(|e| e.get("debug"))
            .and_then(toml::Value::as_bool);
        if entry.is_none_or(|e| !e.contains_key("opt-level")) || debug != Some(true) {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "Cargo.toml has no [profile.dev.package.NAME] with opt-level and debug = true for {missing:?}: \
         add one (opt-level = 0 unless its tests need speed), or the crate is built as a dependency is"
    );
}
