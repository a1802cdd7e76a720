use clap::CommandFactory;

use super::*;
use crate::cli::Cli;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn checker() -> Checker {
    Checker {
        cli: Cli::command(),
        workspace: Workspace::read(&root()).expect("cargo metadata of the workspace"),
        root: root(),
    }
}

fn words(line: &str) -> Vec<Vec<String>> {
    commands(line).unwrap()
}

#[test]
fn every_command_the_docs_and_the_help_show_runs_as_written() {
    let c = checker();
    let shown = every_shown(&c.root, &c.cli);
    let faults = c.faults(&shown);
    assert!(
        faults.is_empty(),
        "{} of {} command lines the docs show have drifted from the CLI:\n{}",
        faults.len(),
        shown.len(),
        faults.join("\n")
    );
    // It read what it should: the README's two commands, a help
    // example, a docs/ line.
    let has = |p: &str, t: &str| {
        shown
            .iter()
            .any(|s| s.place.starts_with(p) && s.text.starts_with(t))
    };
    assert!(
        has("README.md:", "cargo run --release -- run"),
        "{shown:#?}"
    );
    assert!(has("README.md:", "scripts/test.sh"), "{shown:#?}");
    assert!(has("`dyno --help`", "dyno run hash"), "{shown:#?}");
    assert!(
        has("`dyno load --help`", "dyno load --self-test"),
        "{shown:#?}"
    );
    assert!(shown.iter().any(|s| s.place.starts_with("docs/")));
}

#[test]
fn every_command_the_docs_mention_exists_with_its_flags() {
    let c = checker();
    let mentions = every_mention(&c.root);
    let faults: Vec<String> = mentions
        .iter()
        .filter_map(|m| {
            c.check_mention(&m.text)
                .map(|f| format!("{}: `{}`: {f}", m.place, m.text))
        })
        .collect();
    assert!(
        faults.is_empty(),
        "{} of {} commands the docs mention have drifted from the CLI:\n{}",
        faults.len(),
        mentions.len(),
        faults.join("\n")
    );
    assert!(mentions.len() > 200, "{}", mentions.len());
    // Mentions may be incomplete, never wrong.
    for ok in [
        "dyno check",
        "dyno baseline save NAME --reason TEXT [--from RUN]",
        "dyno baseline save|list|show|export|import",
        "dyno <command> --help",
        "dyno run [FILTER] [OPTIONS]",
        "dyno doctor [--ids]",
        "dyno help COMMAND",
        "dyno report -o FILE",
        "dyno ab --base (this dyno) hash/keccak256 --quick --passes 8",
    ] {
        assert_eq!(c.check_mention(ok), None, "{ok}");
    }
    for bad in [
        "dyno evm --compare",
        "dyno run --quik",
        "dyno baseline save|list|drop",
        "dyno check --metrics instructions",
    ] {
        assert!(c.check_mention(bad).is_some(), "{bad}");
    }
}

/// The three planted faults of issue 50, each in a copy of the README.
#[test]
fn a_drifted_readme_fails_with_its_file_and_line() {
    let c = checker();
    let readme = std::fs::read_to_string(c.root.join("README.md")).unwrap();
    let first = shell_lines("README.md", &readme);
    assert!(c.faults(&first).is_empty(), "{:?}", c.faults(&first));

    // A wrong flag.
    let bad = readme.replacen("dyno run hash --impl ", "dyno run hash --imp ", 1);
    assert_ne!(bad, readme, "the README shows `dyno run hash --impl`");
    let faults = c.faults(&shell_lines("README.md", &bad));
    let line = line_of(&bad, "dyno run hash --imp ");
    assert_eq!(faults.len(), 1, "{faults:?}");
    assert!(faults[0].starts_with(&format!("README.md:{line}: `dyno run hash --imp ")));
    assert!(faults[0].contains("--imp"), "{faults:?}");

    // A subcommand the CLI no longer has: the real README against a CLI
    // without `ab`.
    let without = Checker {
        cli: without_subcommand(Cli::command(), "ab"),
        ..checker()
    };
    let faults = without.faults(&first);
    let line = line_of(&readme, "dyno ab --base-rev");
    assert_eq!(faults.len(), 1, "{faults:?}");
    assert!(
        faults[0].starts_with(&format!("README.md:{line}: `dyno ab --base-rev")),
        "{faults:?}"
    );
    // And a README naming one it never had.
    let bad = readme.replacen("dyno ab --base-rev", "dyno abba --base-rev", 1);
    let faults = c.faults(&shell_lines("README.md", &bad));
    assert_eq!(faults.len(), 1, "{faults:?}");
    assert!(faults[0].contains("abba"), "{faults:?}");

    // A second binary: the workspace as it was when dyno-figures came
    // in (no `default-run`), and one where a second package claims it.
    let mut two = c.workspace.clone();
    for p in &mut two.packages {
        p.default_run = None;
    }
    let broken = Checker {
        workspace: two,
        ..checker()
    };
    let faults = broken.faults(&first);
    let line = line_of(&readme, "cargo run --release -- run ");
    assert!(
        faults.iter().any(|f| f
            .starts_with(&format!("README.md:{line}: `cargo run --release -- run"))
            && f.contains("cannot tell which binary")
            && f.contains("dyno-figures")),
        "{faults:?}"
    );
    let mut rival = c.workspace.clone();
    rival.packages.push(Package {
        name: "dyno-rival".into(),
        bins: vec!["dyno-rival".into()],
        default_run: Some("dyno-rival".into()),
        features: vec![],
    });
    rival.default_members.push("dyno-rival".into());
    let broken = Checker {
        workspace: rival,
        ..checker()
    };
    assert!(!broken.faults(&first).is_empty());
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .expect("shown")
        + 1
}

/// `cmd` as it would be with the subcommand `name` removed.
fn without_subcommand(cmd: clap::Command, name: &str) -> clap::Command {
    let mut fresh = clap::Command::new("dyno").subcommand_required(true);
    for a in cmd.get_arguments() {
        fresh = fresh.arg(a.clone());
    }
    fresh.subcommands(
        cmd.get_subcommands()
            .filter(|s| s.get_name() != name)
            .cloned(),
    )
}

#[test]
fn shell_lines_come_from_shell_blocks_only() {
    let md = "x\n```sh\ndyno run a   # c\ncargo run --release \\\n  -- run\n```\n\
                  ```text\ndyno nothing here\n```\n```\ndyno out\n```\n```console\n$ dyno list\n```\n";
    let got: Vec<(String, String)> = shell_lines("f.md", md)
        .into_iter()
        .map(|s| (s.place, s.text))
        .collect();
    assert_eq!(
        got,
        [
            ("f.md:3".into(), "dyno run a   # c".into()),
            ("f.md:4".into(), "cargo run --release  -- run".into()),
            ("f.md:14".into(), "dyno list".into()),
        ]
    );
}

#[test]
fn a_shell_line_splits_as_a_shell_splits_it() {
    let w = |v: &[&[&str]]| -> Vec<Vec<String>> {
        v.iter()
            .map(|c| c.iter().map(|s| s.to_string()).collect())
            .collect()
    };
    assert_eq!(
        words("dyno run rlp --format csv -q > rlp.csv # data"),
        w(&[&["dyno", "run", "rlp", "--format", "csv", "-q"]])
    );
    assert_eq!(
        words("dyno setup geth && dyno load 2>&1 | tee x"),
        w(&[&["dyno", "setup", "geth"], &["dyno", "load"], &["tee", "x"]])
    );
    assert_eq!(
        words("FOO=1 dyno run 'crypto/secp256k1-*' --reason \"a \\\"b\\\"\" >&2"),
        w(&[&["dyno", "run", "crypto/secp256k1-*", "--reason", "a \"b\""]])
    );
    assert_eq!(
        words("dyno gas --from dyno-results/<run>.json --out $(mktemp -d)/x"),
        w(&[&[
            "dyno",
            "gas",
            "--from",
            "dyno-results/<run>.json",
            "--out",
            "$(mktemp -d)/x"
        ]])
    );
    assert!(commands("dyno run 'open").is_err());
    assert!(commands("dyno run >").is_err());
}

#[test]
fn help_examples_end_where_their_description_begins() {
    assert_eq!(
        cut_description("dyno run hash   ids \"x\""),
        "dyno run hash"
    );
    assert_eq!(
        cut_description("dyno run 'a  b' --impl x  what"),
        "dyno run 'a  b' --impl x"
    );
    assert_eq!(cut_description("dyno list"), "dyno list");
}

#[test]
fn cargo_run_resolves_as_cargo_does() {
    let c = checker();
    let ws = &c.workspace;
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let run = s(&["--release", "--", "run", "x"]);
    let (p, b, args) = ws.resolve(&run).unwrap();
    assert_eq!((p.name.as_str(), b, args), ("dyno", "dyno", &run[2..]));
    let figures = s(&["-p", "dyno-figures", "--", "write"]);
    assert_eq!(ws.resolve(&figures).unwrap().1, "dyno-figures");
    let feat = s(&["--release", "--features", "db-engines", "--", "run"]);
    assert!(ws.resolve(&feat).is_ok());
    let wrong = s(&["--features", "db-engine", "--", "run"]);
    assert!(
        ws.resolve(&wrong)
            .unwrap_err()
            .contains("no feature db-engine")
    );
    assert!(ws.resolve(&s(&["--bin", "nope"])).is_err());
    assert!(ws.resolve(&s(&["--relase", "--", "run"])).is_err());
    // dyno-figures' own arguments are checked by its own parser.
    assert!(c.check("cargo run -p dyno-figures -- write").is_empty());
    assert_eq!(c.check("cargo run -p dyno-figures -- rewrite").len(), 1);
}

#[test]
fn a_script_must_exist_and_be_executable() {
    let c = checker();
    assert!(c.check("scripts/test.sh").is_empty());
    assert!(
        c.check("scripts/setup.sh && cargo run --release -- run")
            .is_empty()
    );
    assert_eq!(c.check("scripts/no-such.sh").len(), 1);
    // A file without its x bit fails when run bare, not through bash.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("scripts")).unwrap();
    std::fs::write(tmp.path().join("scripts/plain.sh"), "true\n").unwrap();
    let c = Checker {
        root: tmp.path().to_path_buf(),
        ..checker()
    };
    assert!(c.check("scripts/plain.sh")[0].contains("not executable"));
    assert!(c.check("bash scripts/plain.sh").is_empty());
}
