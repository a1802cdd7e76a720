//! Every command line the docs show, checked against the CLI that runs it
//! (issue 50): a line in a shell block of README.md or docs/*.md, or an
//! example in dyno's own `--help`, that starts with `dyno`, `cargo run` or
//! `scripts/`. A `dyno` line must parse with the real definition (clap's,
//! the same `Cli` the binary parses with); a `cargo run` line must resolve
//! to exactly one binary of the workspace as cargo resolves it (read from
//! `cargo metadata`), with the features it names, and its arguments must
//! parse with that binary's own parser; a `scripts/` path must exist and be
//! executable. A line that drifted fails with its file and line.
//!
//! What counts as a shell block: a fenced block tagged `sh`, `bash`,
//! `shell` or `console` (a `$ ` prompt is dropped). Untagged and `text`
//! blocks are output and synopses (`[FILTER]`), not commands. In a shell
//! line, `<name>` with no space inside is a placeholder (`<run>.json`), not
//! a redirection.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A command line and where it was shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shown {
    /// `README.md:16`, or `dyno gas --help` for a help example.
    pub(crate) place: String,
    /// The line as shown (continuations joined).
    pub(crate) text: String,
}

/// The shell lines of a Markdown file's shell blocks, each with its first
/// line's number; a line ending in `\` continues on the next.
pub(crate) fn shell_lines(file: &str, markdown: &str) -> Vec<Shown> {
    let mut out = Vec::new();
    let mut fence: Option<(String, bool)> = None; // (the fence, a shell block)
    let mut pending: Option<(usize, String)> = None;
    for (k, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some((ref open, shell)) = fence {
            if trimmed.starts_with(open.as_str()) && trimmed.trim_end() == open.as_str() {
                if let Some((n, text)) = pending.take() {
                    out.push(shown(file, n, text));
                }
                fence = None;
                continue;
            }
            if !shell {
                continue;
            }
            let body = trimmed.strip_prefix("$ ").unwrap_or(trimmed);
            let (n, mut text) = pending.take().unwrap_or((k + 1, String::new()));
            match body.strip_suffix('\\') {
                Some(head) => {
                    text.push_str(head);
                    text.push(' ');
                    pending = Some((n, text));
                }
                None => {
                    text.push_str(body);
                    out.push(shown(file, n, text));
                }
            }
            continue;
        }
        let ticks = trimmed.chars().take_while(|&c| c == '`').count();
        if ticks >= 3 {
            let tag = trimmed[ticks..].trim();
            let lang = tag.split([' ', ',', '{']).next().unwrap_or("");
            let shell = matches!(lang, "sh" | "bash" | "shell" | "console");
            fence = Some(("`".repeat(ticks), shell));
        }
    }
    out
}

/// The code spans in a Markdown file's prose (outside fenced blocks) that
/// start with `dyno `: mentions of a command, not lines to run (`dyno
/// check` gates a run; `dyno baseline save NAME [--from RUN]`).
pub(crate) fn mentions(file: &str, markdown: &str) -> Vec<Shown> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (k, line) in markdown.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for (n, span) in line.split('`').enumerate() {
            if n % 2 == 1 && span.starts_with("dyno ") {
                out.push(shown(file, k + 1, span.to_string()));
            }
        }
    }
    out
}

fn shown(file: &str, line: usize, text: String) -> Shown {
    Shown {
        place: format!("{file}:{line}"),
        text: text.trim().to_string(),
    }
}

/// The example lines of every help text in `cmd`'s tree (its `after_help`,
/// `after_long_help`, `about` and `long_about`, and its arguments' help):
/// each line that starts with `dyno `, cut where two spaces begin its
/// description, a trailing `\` continuing it on the next line.
pub(crate) fn help_lines(cmd: &clap::Command) -> Vec<Shown> {
    let mut out = Vec::new();
    walk(cmd, "dyno", &mut out);
    out
}

fn walk(cmd: &clap::Command, path: &str, out: &mut Vec<Shown>) {
    let place = format!("`{path} --help`");
    let mut texts: Vec<String> = [
        cmd.get_after_help(),
        cmd.get_after_long_help(),
        cmd.get_about(),
        cmd.get_long_about(),
    ]
    .into_iter()
    .flatten()
    .map(|s| s.to_string())
    .collect();
    for arg in cmd.get_arguments() {
        texts.extend(
            [arg.get_help(), arg.get_long_help()]
                .into_iter()
                .flatten()
                .map(|s| s.to_string()),
        );
    }
    let mut seen = std::collections::BTreeSet::new();
    for text in texts {
        let mut pending: Option<String> = None;
        for line in text.lines() {
            let t = line.trim();
            let continued = pending.is_some();
            if !continued && !t.starts_with("dyno ") {
                continue;
            }
            let mut text = pending.take().unwrap_or_default();
            let command = if continued { t } else { cut_description(t) };
            match command.strip_suffix('\\') {
                Some(head) => {
                    text.push_str(head);
                    pending = Some(text);
                }
                None => {
                    text.push_str(command);
                    if seen.insert(text.clone()) {
                        out.push(Shown {
                            place: place.clone(),
                            text,
                        });
                    }
                }
            }
        }
    }
    for sub in cmd.get_subcommands() {
        if sub.is_hide_set() {
            continue;
        }
        walk(sub, &format!("{path} {}", sub.get_name()), out);
    }
}

/// `dyno run hash   ids containing "hash"` → `dyno run hash`: an example
/// ends where two spaces outside quotes begin its description.
fn cut_description(line: &str) -> &str {
    let mut quote = None;
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match (quote, b) {
            (None, b'\'' | b'"') => quote = Some(b),
            (Some(q), _) if q == b => quote = None,
            (None, b' ') if bytes.get(i + 1) == Some(&b' ') => return line[..i].trim_end(),
            _ => {}
        }
    }
    line
}

/// One shell line split into its simple commands' words: quotes removed,
/// `#` comments, redirections (`> file`, `2>&1`) and leading `VAR=value`
/// assignments left out, commands separated at `|`, `&&`, `||`, `;`, `&`.
pub(crate) fn commands(line: &str) -> Result<Vec<Vec<String>>, String> {
    let mut cmds: Vec<Vec<String>> = vec![Vec::new()];
    let mut word: Option<String> = None;
    let mut redirect = false; // the next word is a redirection's target
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    let end_word = |word: &mut Option<String>, redirect: &mut bool, cmds: &mut Vec<Vec<String>>| {
        if let Some(w) = word.take() {
            if *redirect {
                *redirect = false;
            } else {
                cmds.last_mut().expect("one command").push(w);
            }
        }
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' => end_word(&mut word, &mut redirect, &mut cmds),
            '#' if word.is_none() => break,
            '\'' => {
                let close = chars[i + 1..]
                    .iter()
                    .position(|&d| d == '\'')
                    .ok_or("an unclosed ' quote")?;
                word.get_or_insert_default()
                    .extend(&chars[i + 1..i + 1 + close]);
                i += close + 1;
            }
            '"' => {
                let w = word.get_or_insert_default();
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return Err("an unclosed \" quote".into()),
                        Some('"') => break,
                        Some('\\') if matches!(chars.get(i + 1), Some('"' | '\\' | '$' | '`')) => {
                            w.push(chars[i + 1]);
                            i += 1;
                        }
                        Some(&d) => w.push(d),
                    }
                    i += 1;
                }
            }
            '\\' => {
                if let Some(&d) = chars.get(i + 1) {
                    word.get_or_insert_default().push(d);
                    i += 1;
                }
            }
            '$' if chars.get(i + 1) == Some(&'(') => {
                // A command substitution stays one word, as its text.
                let w = word.get_or_insert_default();
                let mut depth = 0;
                loop {
                    let Some(&d) = chars.get(i) else {
                        return Err("an unclosed $( substitution".into());
                    };
                    w.push(d);
                    match d {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
            }
            '<' if placeholder_len(&chars[i..]).is_some() => {
                let n = placeholder_len(&chars[i..]).expect("checked");
                word.get_or_insert_default().extend(&chars[i..i + n]);
                i += n - 1;
            }
            '>' | '<' => {
                // `2>` and `2>&1`: a word of digits before it is the fd.
                if word
                    .as_deref()
                    .is_some_and(|w| w.chars().all(|d| d.is_ascii_digit()))
                {
                    word = None;
                } else {
                    end_word(&mut word, &mut redirect, &mut cmds);
                }
                while chars.get(i + 1) == Some(&'>') {
                    i += 1;
                }
                if chars.get(i + 1) == Some(&'&') {
                    // `>&2`: the target is a descriptor, in this word.
                    i += 1;
                    while chars.get(i + 1).is_some_and(char::is_ascii_digit) {
                        i += 1;
                    }
                } else {
                    redirect = true;
                }
            }
            '|' | ';' | '&' => {
                if c == '&' && chars.get(i + 1) == Some(&'>') {
                    // `&>file`
                    end_word(&mut word, &mut redirect, &mut cmds);
                    i += 1;
                    redirect = true;
                } else {
                    end_word(&mut word, &mut redirect, &mut cmds);
                    if matches!(chars.get(i + 1), Some('|' | '&')) && chars[i + 1] == c {
                        i += 1;
                    }
                    cmds.push(Vec::new());
                }
            }
            _ => word.get_or_insert_default().push(c),
        }
        i += 1;
    }
    end_word(&mut word, &mut redirect, &mut cmds);
    if redirect {
        return Err("a redirection without its file".into());
    }
    Ok(cmds
        .into_iter()
        .map(|words| {
            words
                .into_iter()
                .skip_while(|w| is_assignment(w))
                .collect::<Vec<_>>()
        })
        .filter(|words| !words.is_empty())
        .collect())
}

/// `<run>`: a placeholder, its length in chars.
fn placeholder_len(chars: &[char]) -> Option<usize> {
    let close = chars.iter().position(|&c| c == '>')?;
    (close >= 2
        && chars[1..close]
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    .then_some(close + 1)
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// One binary of the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Package {
    pub(crate) name: String,
    pub(crate) bins: Vec<String>,
    pub(crate) default_run: Option<String>,
    pub(crate) features: Vec<String>,
}

/// The workspace as `cargo run` sees it from its root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Workspace {
    pub(crate) packages: Vec<Package>,
    /// The packages `cargo run` without `-p` chooses from (the workspace's
    /// default members).
    pub(crate) default_members: Vec<String>,
}

impl Workspace {
    /// `cargo metadata --no-deps` of the workspace at `root`.
    pub(crate) fn read(root: &Path) -> Result<Self, String> {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let out = std::process::Command::new(cargo)
            .args([
                "metadata",
                "--no-deps",
                "--offline",
                "--format-version",
                "1",
            ])
            .current_dir(root)
            .output()
            .map_err(|e| format!("cargo metadata: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "cargo metadata: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let meta: serde_json::Value =
            serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo metadata: {e}"))?;
        Self::from_metadata(&meta)
    }

    fn from_metadata(meta: &serde_json::Value) -> Result<Self, String> {
        let strings = |v: &serde_json::Value| -> Vec<String> {
            v.as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut by_id = BTreeMap::new();
        let mut packages = Vec::new();
        for p in meta["packages"]
            .as_array()
            .ok_or("cargo metadata: no packages")?
        {
            let name = p["name"].as_str().unwrap_or_default().to_string();
            by_id.insert(
                p["id"].as_str().unwrap_or_default().to_string(),
                name.clone(),
            );
            let bins = p["targets"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|t| strings(&t["kind"]).iter().any(|k| k == "bin"))
                .filter_map(|t| t["name"].as_str().map(String::from))
                .collect();
            packages.push(Package {
                name,
                bins,
                default_run: p["default_run"].as_str().map(String::from),
                features: p["features"]
                    .as_object()
                    .map(|f| f.keys().cloned().collect())
                    .unwrap_or_default(),
            });
        }
        let default_members = strings(&meta["workspace_default_members"])
            .iter()
            .filter_map(|id| by_id.get(id).cloned())
            .collect();
        Ok(Self {
            packages,
            default_members,
        })
    }

    /// The package and binary `cargo run` with these flags runs, and the
    /// arguments it passes on, as cargo decides it: `--bin`, else the one
    /// `default-run` among the packages chosen, else their only binary.
    pub(crate) fn resolve<'a>(
        &'a self,
        flags_and_args: &'a [String],
    ) -> Result<(&'a Package, &'a str, &'a [String]), String> {
        let mut package: Option<&str> = None;
        let mut bin: Option<&str> = None;
        let mut features: Vec<&str> = Vec::new();
        let mut i = 0;
        while i < flags_and_args.len() {
            let w = flags_and_args[i].as_str();
            let (flag, inline) = match w.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f, Some(v)),
                _ => (w, None),
            };
            let mut value = || -> Result<&'a str, String> {
                if let Some(v) = inline {
                    return Ok(v);
                }
                i += 1;
                flags_and_args
                    .get(i)
                    .map(String::as_str)
                    .ok_or_else(|| format!("cargo run: {flag} needs a value"))
            };
            match flag {
                "--" => {
                    i += 1;
                    break;
                }
                "-p" | "--package" => package = Some(value()?),
                "--bin" => bin = Some(value()?),
                "-F" | "--features" => features.extend(value()?.split([',', ' '])),
                "--example" => return Err("cargo run --example: dyno's docs run no example".into()),
                "--profile" | "--target" | "--target-dir" | "-j" | "--jobs" | "--config"
                | "--color" | "--message-format" | "-Z" => {
                    value()?;
                }
                "-r"
                | "--release"
                | "-q"
                | "--quiet"
                | "-v"
                | "-vv"
                | "--verbose"
                | "--locked"
                | "--offline"
                | "--frozen"
                | "--all-features"
                | "--no-default-features" => {}
                f if f.starts_with('-') => {
                    return Err(format!("cargo run has no flag {f}"));
                }
                _ => break, // the binary's arguments start here
            }
            i += 1;
        }
        let args = &flags_and_args[i.min(flags_and_args.len())..];
        let chosen: Vec<&Package> =
            match package {
                Some(p) => vec![self.packages.iter().find(|q| q.name == p).ok_or_else(|| {
                    format!("cargo run -p {p}: the workspace has no package {p}")
                })?],
                None => self
                    .packages
                    .iter()
                    .filter(|q| self.default_members.contains(&q.name))
                    .collect(),
            };
        let (pkg, bin) = if let Some(b) = bin {
            let found: Vec<&Package> = chosen
                .iter()
                .copied()
                .filter(|q| q.bins.iter().any(|x| x == b))
                .collect();
            match found[..] {
                [one] => (one, b),
                [] => {
                    return Err(format!(
                        "cargo run --bin {b}: no binary {b} in the workspace"
                    ));
                }
                _ => return Err(format!("cargo run --bin {b}: several packages have it")),
            }
        } else {
            let default_runs: Vec<(&Package, &str)> = chosen
                .iter()
                .filter_map(|q| q.default_run.as_deref().map(|b| (*q, b)))
                .collect();
            if let [(p, b)] = default_runs[..] {
                (p, b)
            } else {
                let bins: Vec<(&Package, &str)> = chosen
                    .iter()
                    .flat_map(|q| q.bins.iter().map(move |b| (*q, b.as_str())))
                    .collect();
                match bins[..] {
                    [(p, b)] => (p, b),
                    [] => return Err("cargo run: the packages chosen have no binary".into()),
                    _ => {
                        let mut names: Vec<&str> = bins.iter().map(|(_, b)| *b).collect();
                        names.sort_unstable();
                        return Err(format!(
                            "cargo run cannot tell which binary to run (available: {}); give \
                             --bin or -p, or set `default-run` in the package that should run",
                            names.join(", ")
                        ));
                    }
                }
            }
        };
        for f in features.into_iter().filter(|f| !f.is_empty()) {
            let (owner, name) = match f.split_once('/') {
                Some((o, n)) => (o, n),
                None => (pkg.name.as_str(), f),
            };
            let known = self
                .packages
                .iter()
                .find(|q| q.name == owner)
                .is_some_and(|q| q.features.iter().any(|x| x == name));
            if !known {
                return Err(format!(
                    "cargo run --features {f}: {owner} has no feature {name}"
                ));
            }
        }
        Ok((pkg, bin, args))
    }
}

/// What checks a shown line: the CLI, the workspace and the repository.
pub(crate) struct Checker {
    /// dyno's CLI (the real one, or one with a planted fault).
    pub(crate) cli: clap::Command,
    pub(crate) workspace: Workspace,
    pub(crate) root: PathBuf,
}

impl Checker {
    /// Every fault in `line`, each a sentence.
    pub(crate) fn check(&self, line: &str) -> Vec<String> {
        let cmds = match commands(line) {
            Ok(c) => c,
            Err(e) => return vec![format!("not a shell line: {e}")],
        };
        let mut faults = Vec::new();
        for words in cmds {
            if let Err(e) = self.check_command(&words) {
                faults.push(e);
            }
        }
        faults
    }

    fn check_command(&self, words: &[String]) -> Result<(), String> {
        let first = words[0].as_str();
        if first == "dyno" || first.ends_with("/dyno") {
            return self.parse_dyno(&words[1..]);
        }
        if first == "cargo" && words.get(1).is_some_and(|w| w == "run") {
            let (pkg, bin, args) = self.workspace.resolve(&words[2..])?;
            return match bin {
                "dyno" => self.parse_dyno(args),
                "dyno-figures" => dyno_figures::Mode::parse(args).map(|_| ()),
                other => Err(format!(
                    "cargo run runs {other} (package {}), whose arguments this check cannot parse",
                    pkg.name
                )),
            };
        }
        let script = match first {
            "bash" | "sh" => words.get(1).map(String::as_str).unwrap_or(""),
            _ => first,
        };
        let script = script.strip_prefix("./").unwrap_or(script);
        if script.starts_with("scripts/") {
            let path = self.root.join(script);
            let meta = std::fs::metadata(&path)
                .map_err(|_| format!("{script}: no such file in the repository"))?;
            if first != "bash" && first != "sh" && !executable(&meta) {
                return Err(format!("{script} is not executable (chmod +x it)"));
            }
        }
        Ok(())
    }

    fn parse_dyno(&self, args: &[String]) -> Result<(), String> {
        let argv = crate::cli::help_args(
            std::iter::once("dyno".into()).chain(args.iter().map(std::ffi::OsString::from)),
        );
        match self.cli.clone().try_get_matches_from(argv) {
            Ok(_) => Ok(()),
            Err(e)
                if matches!(
                    e.kind(),
                    clap::error::ErrorKind::DisplayHelp
                        | clap::error::ErrorKind::DisplayVersion
                        | clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
                ) =>
            {
                Ok(())
            }
            Err(e) => Err(first_line(&e.render().to_string())),
        }
    }

    /// The fault in a mention of a command, if any: each word where a
    /// subcommand stands must be one (alternatives `a|b` each one, a
    /// placeholder `<command>` or `COMMAND` ends the walk), and each flag
    /// must be one of the command's (or a global one). Values, positionals
    /// and synopsis brackets are not checked: a mention need not be
    /// complete.
    pub(crate) fn check_mention(&self, text: &str) -> Option<String> {
        let mut cmd = &self.cli;
        let mut path = vec!["dyno".to_string()];
        let mut at_subcommand = true;
        for raw in text.split_whitespace().skip(1) {
            let word = raw.trim_matches(|c| matches!(c, '[' | ']' | '(' | ')' | ',' | '.' | ';'));
            if word.is_empty() || word == "..." || word == "…" {
                continue;
            }
            if let Some(flag) = word.strip_prefix('-') {
                let flag = flag.split('=').next().unwrap_or("");
                if flag.is_empty() || flag.starts_with(|c: char| c.is_ascii_digit()) {
                    continue;
                }
                if !has_flag(&self.cli, cmd, flag) {
                    return Some(format!("`{}` has no flag -{flag}", path.join(" ")));
                }
                continue;
            }
            if !at_subcommand || cmd.get_subcommands().next().is_none() {
                at_subcommand = false;
                continue;
            }
            let placeholder = word.starts_with('<')
                || word
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c == '_' || c == '-');
            if placeholder {
                at_subcommand = false;
                continue;
            }
            if word == "help" {
                // clap's own: `dyno help COMMAND`.
                at_subcommand = false;
                continue;
            }
            let alternatives: Vec<&str> = word.split('|').collect();
            for alt in &alternatives {
                if cmd.find_subcommand(alt).is_none() && *alt != "help" {
                    return Some(format!("`{}` has no subcommand {alt}", path.join(" ")));
                }
            }
            if alternatives.len() > 1 {
                at_subcommand = false;
                continue;
            }
            let Some(sub) = cmd.find_subcommand(word) else {
                return Some(format!("`{}` has no subcommand {word}", path.join(" ")));
            };
            cmd = sub;
            path.push(word.to_string());
        }
        None
    }

    /// Every fault of every line in `shown`, each `PLACE: `LINE`: FAULT`.
    pub(crate) fn faults(&self, shown: &[Shown]) -> Vec<String> {
        let mut out = Vec::new();
        for s in shown {
            for f in self.check(&s.text) {
                out.push(format!("{}: `{}`: {f}", s.place, s.text));
            }
        }
        out
    }
}

/// True if `flag` (`quick`, or `q` for a short one) is `cmd`'s or a global
/// flag of the tree.
fn has_flag(root: &clap::Command, cmd: &clap::Command, flag: &str) -> bool {
    let matches = |a: &clap::Arg| {
        if flag.len() == 1 && !flag.starts_with('-') {
            a.get_short().is_some_and(|s| s.to_string() == flag)
        } else {
            let long = flag.trim_start_matches('-');
            a.get_long() == Some(long) || a.get_all_aliases().is_some_and(|v| v.contains(&long))
        }
    };
    ["help", "h"].contains(&flag.trim_start_matches('-'))
        || ["version", "V"].contains(&flag.trim_start_matches('-'))
        || cmd.get_arguments().any(matches)
        || root
            .get_arguments()
            .any(|a| a.is_global_set() && matches(a))
}

fn executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.is_file() && meta.permissions().mode() & 0o111 != 0
}

fn first_line(s: &str) -> String {
    s.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .trim_start_matches("error: ")
        .to_string()
}

/// README.md and every docs/*.md, as (name, text).
pub(crate) fn doc_files(root: &Path) -> Vec<(String, String)> {
    let mut names = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ is readable")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    names.extend(docs);
    names
        .into_iter()
        .map(|n| {
            let text = std::fs::read_to_string(root.join(&n)).expect("a doc is readable");
            (n, text)
        })
        .collect()
}

/// Every line the docs and the help texts show that this check reads.
pub(crate) fn every_shown(root: &Path, cli: &clap::Command) -> Vec<Shown> {
    let mut out: Vec<Shown> = doc_files(root)
        .iter()
        .flat_map(|(name, text)| shell_lines(name, text))
        .collect();
    out.extend(help_lines(cli));
    out
}

/// Every command the docs' prose mentions.
pub(crate) fn every_mention(root: &Path) -> Vec<Shown> {
    doc_files(root)
        .iter()
        .flat_map(|(name, text)| mentions(name, text))
        .collect()
}

#[cfg(test)]
mod tests;
