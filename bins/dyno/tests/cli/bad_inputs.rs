//! The reliability suite: dyno tried as a hostile new user would (issue
//! 16). One table of bad inputs and awkward outputs, each row asserting
//! the exit code, the first line of the message, that no secret is
//! printed, and that nothing measured is lost.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::helpers::{bin, repo, text};

mod checks;
mod rows;
use rows::*;

/// The benchmark the rows that measure use: one id, one implementation,
/// about a second.
const ONE: &[&str] = &[
    "run",
    "hash/keccak256/32B",
    "--impl",
    "tiny-keccak",
    "--quick",
    "-q",
];

/// Run dyno in `cwd` with the repository's specs and vectors, no history
/// unless a row names one, and `env` on top (a `None` value unsets).
fn dyno(cwd: &Path, args: &[String], env: &[(&str, Option<String>)]) -> Output {
    let mut cmd = Command::new(bin());
    cmd.current_dir(cwd)
        .args(args)
        .env("DYNO_SPECS", repo().join("specs"))
        .env("DYNO_VECTORS", repo().join("vectors"))
        .env("DYNO_NO_STORE", "1")
        .env("DYNO_DATA", cwd.join("data"))
        .env_remove("DYNO_STORE")
        .env_remove("NO_COLOR");
    for (k, v) in env {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    cmd.output().expect("dyno runs")
}

/// The files every row may use, made once.
struct Fixtures {
    dir: tempfile::TempDir,
    /// A null and a full device: private copies of /dev/null and /dev/full
    /// made with mknod where the test may (as root, where a dyno that
    /// replaced its -o would otherwise replace the machine's own), else
    /// the machine's (which a non-root dyno cannot replace).
    null: PathBuf,
    full: PathBuf,
}

/// A character device node `1, minor` at `path`, else `fallback`.
fn device(path: &Path, minor: &str, fallback: &str) -> PathBuf {
    let made = Command::new("mknod")
        .args([path.to_str().unwrap(), "c", "1", minor])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if made {
        set_mode(path, 0o666);
        path.to_path_buf()
    } else {
        PathBuf::from(fallback)
    }
}

impl Fixtures {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let null = device(&root.join("null"), "3", "/dev/null");
        let full = device(&root.join("full"), "7", "/dev/full");
        let f = Self { dir, null, full };
        // A real run, and a real run whose every result is wrong (its
        // vectors corrupted), both measured by dyno.
        let mut args: Vec<String> = ONE.iter().map(|s| s.to_string()).collect();
        args.extend(["-o".into(), root.join("ok.json").display().to_string()]);
        let o = dyno(&root, &args, &[]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let vt = root.join("vt");
        copy_dir(&repo().join("vectors"), &vt);
        let hash = vt.join("hash.json");
        let mut json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&hash).unwrap()).unwrap();
        for c in json["cases"].as_array_mut().unwrap() {
            c["digest"] = format!("0x{}", "00".repeat(32)).into();
        }
        std::fs::write(&hash, json.to_string()).unwrap();
        let mut args: Vec<String> = ONE.iter().map(|s| s.to_string()).collect();
        args.extend(["-o".into(), root.join("wrong.json").display().to_string()]);
        args.extend(["--vectors".into(), vt.display().to_string()]);
        let o = dyno(&root, &args, &[]);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
        // Vectors whose hash file is a bare array.
        let va = root.join("varray");
        copy_dir(&repo().join("vectors"), &va);
        std::fs::write(va.join("hash.json"), "[]").unwrap();
        // A spec with an unknown key on line 3.
        let sb = root.join("specs-bad");
        std::fs::create_dir(&sb).unwrap();
        std::fs::write(
            sb.join("hash.toml"),
            "group = \"hash\"\ndefault = true\nthreshhold = 0.05\n",
        )
        .unwrap();
        // A load mix with a misspelt kind on line 3.
        std::fs::create_dir_all(root.join("specs-mix/load")).unwrap();
        std::fs::write(
            root.join("specs-mix/load/mixes.toml"),
            "[mix.x]\ntransfer = 1\nerc2O = 1\n",
        )
        .unwrap();
        // Result files that are not quite result files.
        let ok = std::fs::read_to_string(root.join("ok.json")).unwrap();
        std::fs::write(root.join("notjson.json"), "oops").unwrap();
        std::fs::write(root.join("array.json"), "[]").unwrap();
        std::fs::write(
            root.join("v7.json"),
            ok.replace("\"schema_version\": 1", "\"schema_version\": 7"),
        )
        .unwrap();
        std::fs::write(
            root.join("vstr.json"),
            ok.replace("\"schema_version\": 1", "\"schema_version\": \"1\""),
        )
        .unwrap();
        // Chain folders that do not parse: a genesis without a chain id,
        // and a good genesis with a block file cut short.
        let chain = |name: &str, genesis: &str, blocks: &[u8]| {
            let d = root.join(name);
            std::fs::create_dir(&d).unwrap();
            std::fs::write(d.join("genesis.json"), genesis).unwrap();
            std::fs::write(d.join("blocks.rlp"), blocks).unwrap();
        };
        chain(
            "chain-noid",
            r#"{"config": {}, "alloc": {}, "gasLimit": "0x1c9c380"}"#,
            b"",
        );
        chain(
            "chain-cut",
            r#"{"config": {"chainId": 1337}, "alloc": {}, "gasLimit": "0x1c9c380"}"#,
            &[0xf9, 0x02, 0x00, 0xc0],
        );
        // A good chain folder, as dyno exports it, and a folder in use.
        let args: Vec<String> = "replay --export chains --set 30M --blocks 1 --warmup 0 -q"
            .split(' ')
            .map(String::from)
            .collect();
        let o = dyno(&root, &args, &[]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        assert_eq!(text(&o.stdout).trim(), "chains/30M");
        std::fs::create_dir(root.join("adir-full")).unwrap();
        std::fs::write(root.join("adir-full/keep.txt"), "mine").unwrap();
        // Peer tables for `gas --blocks --compare`: a header and no rows,
        // and a row given twice.
        std::fs::write(
            root.join("peer-empty.csv"),
            "operation,parameter,client,gas\n",
        )
        .unwrap();
        std::fs::write(
            root.join("peer-twice.csv"),
            "\u{feff}operation,parameter,client,gas\necrecover,,n,3000\n\"ECRECOVER\",\"\",n,2900\n",
        )
        .unwrap();
        // Places that cannot take a result.
        std::fs::write(root.join("afile"), "x").unwrap();
        std::fs::create_dir(root.join("adir")).unwrap();
        std::fs::write(root.join("ro.json"), "keep").unwrap();
        set_mode(&root.join("ro.json"), 0o444);
        std::fs::create_dir(root.join("rodir")).unwrap();
        set_mode(&root.join("rodir"), 0o555);
        // Fleet keys: a good one, one others may read, one too short.
        let key = format!("{}\n", "ab".repeat(32));
        for (name, text, mode) in [
            ("fleet.key", key.as_str(), 0o600),
            ("open.key", key.as_str(), 0o644),
            ("short.key", "abcd\n", 0o600),
        ] {
            std::fs::write(root.join(name), text).unwrap();
            set_mode(&root.join(name), mode);
        }
        // A history holding the good run.
        let o = dyno(
            &root,
            &[
                "history".into(),
                "--import".into(),
                root.join("ok.json").display().to_string(),
                "--store".into(),
                root.join("h.sqlite").display().to_string(),
            ],
            &[],
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        f
    }

    fn root(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }
}

fn set_mode(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// What a row expects.
struct Row {
    /// Arguments; `@` at the start of one is replaced by the fixtures'
    /// folder, `ONE` expands to the one-benchmark run.
    args: &'static str,
    env: &'static [(&'static str, Option<&'static str>)],
    code: i32,
    /// In the first `error:` line (exit 2), or anywhere on stderr.
    says: &'static str,
    /// Where the measured run must be, complete JSON (relative to the
    /// row's own working folder, or `@/...`), if the row measures.
    kept: Option<&'static str>,
}

const fn row(args: &'static str, code: i32, says: &'static str) -> Row {
    Row {
        args,
        env: &[],
        code,
        says,
        kept: None,
    }
}

const fn measured(args: &'static str, code: i32, says: &'static str, kept: &'static str) -> Row {
    Row {
        args,
        env: &[],
        code,
        says,
        kept: Some(kept),
    }
}

const fn with_env(
    args: &'static str,
    env: &'static [(&'static str, Option<&'static str>)],
    code: i32,
    says: &'static str,
) -> Row {
    Row {
        args,
        env,
        code,
        says,
        kept: None,
    }
}

/// A secret that appears in some rows' arguments and must never be
/// printed.
const SECRET: &str = "HUNTER2SECRET";
