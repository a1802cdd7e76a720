//! Each row of the table run, and the checks that no secret reaches any output and that a full stdout loses no run.

use super::*;

/// Split a row's arguments like a shell would (single quotes only).
pub(crate) fn split(args: &str, root: &Path, fx: &Fixtures) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in args.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            c => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out.into_iter()
        .flat_map(|a| {
            if a == "ONE" {
                ONE.iter().map(|s| s.to_string()).collect()
            } else if let Some(rest) = a.strip_prefix('@') {
                vec![format!("{}{rest}", root.display())]
            } else if a == "%null" {
                vec![fx.null.display().to_string()]
            } else if a == "%full" {
                vec![fx.full.display().to_string()]
            } else {
                vec![a]
            }
        })
        .collect()
}

#[test]
pub(crate) fn bad_inputs_get_the_right_exit_code_a_clear_first_line_and_lose_nothing() {
    let fx = Fixtures::new();
    let root = fx.root();
    assert!(ROWS.len() >= 50, "{} rows", ROWS.len());
    let mut failures = Vec::new();
    for (k, r) in ROWS.iter().enumerate() {
        let cwd = root.join(format!("row{k}"));
        std::fs::create_dir(&cwd).unwrap();
        if r.args.contains("link.json") {
            std::os::unix::fs::symlink("target.json", cwd.join("link.json")).unwrap();
        }
        let args = split(r.args, &root, &fx);
        let env: Vec<(&str, Option<String>)> = r
            .env
            .iter()
            .map(|(k, v)| (*k, v.map(String::from)))
            .collect();
        let o = dyno(&cwd, &args, &env);
        let stderr = text(&o.stderr);
        let stdout = text(&o.stdout);
        let mut wrong = Vec::new();
        if o.status.code() != Some(r.code) {
            wrong.push(format!("exit {:?}, expected {}", o.status.code(), r.code));
        }
        let line = if r.code == 2 {
            stderr
                .lines()
                .find(|l| l.starts_with("error:"))
                .unwrap_or("")
                .to_string()
        } else {
            stderr.clone()
        };
        if !line.contains(r.says) {
            wrong.push(format!("message lacks {:?}", r.says));
        }
        if r.code == 2 && line.is_empty() {
            wrong.push("no error: line".into());
        }
        if stderr.contains(SECRET) || stdout.contains(SECRET) {
            wrong.push("printed the secret".into());
        }
        if stderr.contains("panicked") || o.status.code() == Some(101) {
            wrong.push("panicked".into());
        }
        // A cause never repeats the line before it.
        let lines: Vec<&str> = stderr.lines().collect();
        for w in lines.windows(2) {
            if let Some(cause) = w[1].strip_prefix("  caused by: ")
                && w[0].contains(cause)
            {
                wrong.push(format!("cause printed twice: {cause}"));
            }
        }
        // Nothing is left half-written, and nothing measured is lost.
        for e in walk(&cwd) {
            if e.to_string_lossy().ends_with(".partial") {
                wrong.push(format!("left {}", e.display()));
            }
        }
        match r.kept {
            None => {}
            Some("-") => {}
            Some("stdout") => match serde_json::from_str::<serde_json::Value>(&stdout) {
                Ok(v) if v["results"].as_array().is_some_and(|a| !a.is_empty()) => {
                    if cwd.join("-").exists() || cwd.join("-.md").exists() {
                        wrong.push("wrote a file named -".into());
                    }
                }
                _ => wrong.push("stdout is not the result JSON".into()),
            },
            Some(pattern) => {
                let found: Vec<PathBuf> = walk(&cwd)
                    .into_iter()
                    .filter(|p| {
                        let rel = p.strip_prefix(&cwd).unwrap().to_string_lossy().into_owned();
                        glob_match(pattern, &rel)
                    })
                    .collect();
                match found.first() {
                    Some(p) => {
                        let json: serde_json::Value =
                            serde_json::from_str(&std::fs::read_to_string(p).unwrap())
                                .unwrap_or_default();
                        if json["results"].as_array().is_none_or(|a| a.is_empty()) {
                            wrong.push(format!("{} holds no results", p.display()));
                        }
                    }
                    None => wrong.push(format!("the run is not kept at {pattern}")),
                }
            }
        }
        if !wrong.is_empty() {
            failures.push(format!(
                "row {k}: dyno {}\n  {}\n  stderr: {}",
                r.args,
                wrong.join("; "),
                stderr.trim().replace('\n', "\n          ")
            ));
        }
    }
    // What the rows must not have changed.
    use std::os::unix::fs::FileTypeExt as _;
    let mut broke = |what: String| failures.push(what);
    for dev in [&fx.null, &fx.full] {
        if !std::fs::metadata(dev).is_ok_and(|m| m.file_type().is_char_device()) {
            broke(format!("{} is no longer a device", dev.display()));
        }
    }
    if std::fs::read_to_string(root.join("ro.json"))
        .ok()
        .as_deref()
        != Some("keep")
    {
        broke("the read-only ro.json was overwritten".into());
    }
    // `--store afile` did not turn the file into a database.
    if std::fs::read_to_string(root.join("afile")).ok().as_deref() != Some("x") {
        broke("afile was turned into a database".into());
    }
    for k in 0..ROWS.len() {
        let cwd = root.join(format!("row{k}"));
        if cwd.join("missing.sqlite").exists() {
            broke(format!("row {k} created a store"));
        }
        if cwd.join("mysql:").exists() {
            broke(format!("row {k} made a folder of a URL"));
        }
    }
    let link = root.join(format!(
        "row{}/link.json",
        ROWS.iter()
            .position(|r| r.args.contains("link.json"))
            .unwrap()
    ));
    if !std::fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink()) {
        broke("link.json is no longer a link".into());
    }
    set_mode(&root.join("rodir"), 0o755);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

pub(crate) fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// `*` within one path part.
pub(crate) fn glob_match(pattern: &str, s: &str) -> bool {
    fn go(p: &[u8], s: &[u8]) -> bool {
        match (p.first(), s.first()) {
            (None, None) => true,
            (Some(b'*'), _) => go(&p[1..], s) || (!s.is_empty() && s[0] != b'/' && go(p, &s[1..])),
            (Some(a), Some(b)) if a == b => go(&p[1..], &s[1..]),
            _ => false,
        }
    }
    go(pattern.as_bytes(), s.as_bytes())
}

#[test]
pub(crate) fn a_password_never_reaches_any_output() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path();
    let url = format!("postgres://dyno:{SECRET}@127.0.0.1:9/dyno?connect_timeout=2");
    let mut outputs: Vec<(String, String)> = Vec::new();
    let mut keep = |what: &str, o: &Output| {
        outputs.push((format!("{what} stdout"), text(&o.stdout)));
        outputs.push((format!("{what} stderr"), text(&o.stderr)));
    };
    // A run whose history is a PostgreSQL URL with a password, given as a
    // flag and as the variable (nothing listens there: the save fails
    // with a warning, and the run is kept).
    let mut args: Vec<String> = ONE.iter().map(|s| s.to_string()).collect();
    args.extend([
        "-o".into(),
        "flag.json".into(),
        "--store".into(),
        url.clone(),
    ]);
    let o = dyno(cwd, &args, &[("DYNO_NO_STORE", None)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    keep("run --store", &o);
    let mut args: Vec<String> = ONE.iter().map(|s| s.to_string()).collect();
    args.extend(["-o".into(), "env.json".into()]);
    let o = dyno(
        cwd,
        &args,
        &[("DYNO_NO_STORE", None), ("DYNO_STORE", Some(url.clone()))],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    keep("run DYNO_STORE", &o);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(cwd.join("flag.json")).unwrap()).unwrap();
    let recorded: Vec<&str> = json["run"]["command_line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(
        recorded.contains(&"postgres://dyno:***@127.0.0.1:9/dyno?connect_timeout=2"),
        "{recorded:?}"
    );
    // An RPC endpoint with secrets in its query and path (a provider's
    // `/v3/KEY`): nothing listens, and the error names the URL.
    for rpc in [
        format!("http://127.0.0.1:9/?password={SECRET}&token={SECRET}"),
        format!("http://127.0.0.1:9/v3/{SECRET}0123456789"),
    ] {
        let o = dyno(
            cwd,
            &[
                "load".into(),
                "--rpc".into(),
                rpc,
                "--txs".into(),
                "10".into(),
            ],
            &[],
        );
        assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains("127.0.0.1:9"),
            "{}",
            text(&o.stderr)
        );
        keep("load --rpc", &o);
    }
    // Every way the run is shown again.
    let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    for (what, args) in [
        (
            "import",
            s(&[
                "history",
                "--import",
                "flag.json",
                "env.json",
                "--store",
                "h.sqlite",
            ]),
        ),
        ("history", s(&["history", "--store", "h.sqlite"])),
        (
            "history --json",
            s(&["history", "--json", "--store", "h.sqlite"]),
        ),
        (
            "report html",
            s(&["report", "flag.json", "-o", "report.html"]),
        ),
        (
            "report markdown",
            s(&["report", "flag.json", "--format", "markdown"]),
        ),
        (
            "report json",
            s(&[
                "report", "latest", "--format", "json", "--store", "h.sqlite",
            ]),
        ),
        ("history at the URL", s(&["history", "--store", &url])),
    ] {
        let o = dyno(cwd, &args, &[]);
        keep(what, &o);
    }
    // Every file the commands left: results, Markdown, the report, and
    // the history database with its write-ahead log.
    for file in walk(cwd) {
        let bytes = std::fs::read(&file).unwrap();
        outputs.push((
            file.display().to_string(),
            String::from_utf8_lossy(&bytes).into_owned(),
        ));
    }
    let leaks: Vec<&String> = outputs
        .iter()
        .filter(|(_, t)| t.contains(SECRET))
        .map(|(w, _)| w)
        .collect();
    assert!(leaks.is_empty(), "the password is in: {leaks:?}");
    assert!(cwd.join("h.sqlite").exists() && cwd.join("report.html").exists());
}

/// `dyno run > /dev/full`: the error says it was stdout, and the run is in
/// its file and in the history all the same.
#[test]
pub(crate) fn a_full_stdout_is_named_and_the_run_is_still_saved() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path();
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let mut args: Vec<String> = ONE.iter().map(|s| s.to_string()).collect();
    args.extend([
        "-o".into(),
        "run.json".into(),
        "--store".into(),
        "h.sqlite".into(),
    ]);
    let o = Command::new(bin())
        .current_dir(cwd)
        .args(&args)
        .env("DYNO_SPECS", repo().join("specs"))
        .env("DYNO_VECTORS", repo().join("vectors"))
        .env_remove("DYNO_NO_STORE")
        .env_remove("DYNO_STORE")
        .stdout(full)
        .output()
        .unwrap();
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    let first = stderr
        .lines()
        .find(|l| l.starts_with("error:"))
        .unwrap_or("");
    assert!(first.contains("writing to stdout"), "{stderr}");
    assert!(cwd.join("run.json").exists());
    let h = dyno(
        cwd,
        &[
            "history".into(),
            "--json".into(),
            "--store".into(),
            "h.sqlite".into(),
        ],
        &[],
    );
    let rows: serde_json::Value = serde_json::from_str(&text(&h.stdout)).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 1, "{}", text(&h.stderr));
}
