//! The reliability suite: dyno tried as a hostile new user would (issue
//! 16). One table of bad inputs and awkward outputs, each row asserting
//! the exit code, the first line of the message, that no secret is
//! printed, and that nothing measured is lost.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::helpers::{bin, repo, text};

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

const ROWS: &[Row] = &[
    // Flags.
    row(
        "run --samples 4",
        2,
        "invalid value '4' for '--samples <N>'",
    ),
    row(
        "run --samples 0",
        2,
        "invalid value '0' for '--samples <N>'",
    ),
    row(
        "run --samples lots",
        2,
        "invalid value 'lots' for '--samples <N>'",
    ),
    row("run --bogus", 2, "unexpected argument '--bogus'"),
    row("frobnicate", 2, "unrecognized subcommand 'frobnicate'"),
    row("help --help", 0, ""),
    row("gas --fork nosuch", 2, "--fork"),
    row("gas --factor 1", 2, "--factor 1 cannot flag anything"),
    row("gas --anchor fast", 2, "\"fast\" is not an anchor"),
    row(
        "report @/ok.json --trend-runs 0",
        2,
        "invalid value '0' for '--trend-runs <N>'",
    ),
    // Filters.
    row("run ''", 2, "the filter \"\" holds no pattern"),
    row("run ,", 2, "the filter \",\" holds no pattern"),
    row(
        "run hash,crpyto",
        2,
        "\"crpyto\" matches no benchmark id (did you mean \"crypto\"?)",
    ),
    row(
        "run zzzzqq",
        2,
        "\"zzzzqq\" matches no benchmark id; see `dyno list`",
    ),
    row("list crpyto", 2, "(did you mean \"crypto\"?)"),
    row("run hash --impl ''", 2, "--impl is empty"),
    row(
        "run hash --impl k257",
        2,
        "--impl: unknown implementation \"k257\"",
    ),
    // dyno replay: refused before any block is made or client started.
    row(
        "replay --client reth",
        2,
        "--client \"reth\": the clients dyno installs are ethereumjs, ethrex, geth, geth-1.17.7 and revm",
    ),
    row(
        "replay --client geth,geth",
        2,
        "--client geth,geth: geth is named twice",
    ),
    row(
        "replay --client geth,revm --against geth",
        2,
        "an A/B compares one client (A) with another (B)",
    ),
    row(
        "replay --fork cancun",
        2,
        "\"cancun\": dyno makes its chains under prague or osaka",
    ),
    row(
        "replay --fork prague --set 30M --blocks 1 --warmup 0 --client-cmd 'x {jwt}'",
        2,
        "it must put the Engine API on {authrpc_port}",
    ),
    // dyno client check: refused before any client starts.
    row(
        "client check revm",
        2,
        "revm runs inside dyno, with no Engine API to check",
    ),
    row(
        "client check nethermind",
        2,
        "--client \"nethermind\": the clients dyno installs are",
    ),
    row(
        "client check --client-cmd 'my-client --port 1'",
        2,
        "it must put the Engine API on {authrpc_port} with the secret in {jwt}",
    ),
    row(
        "replay --set 31M",
        2,
        "--set \"31M\": choose from 30M, 36M, 60M",
    ),
    // Lists with a stray comma or a name twice, and flags that would drop
    // one another: refused before anything starts (issue 51, list 11).
    row(
        "gas --blocks --client geth,,revm",
        2,
        "--client geth,,revm: an empty choice",
    ),
    row(
        "gas --blocks --client revm,revm",
        2,
        "--client revm,revm: revm is named twice",
    ),
    row(
        "gas --blocks --client revm --only ecrecover,,sha256",
        2,
        "--only ecrecover,,sha256: an empty choice",
    ),
    row(
        "gas --blocks --client nethermind",
        2,
        "the clients dyno installs are ethereumjs, ethrex, geth, geth-1.17.7 and revm (dyno's own, in-process)",
    ),
    row(
        "gas --blocks --client revm -o out.md",
        2,
        "the .md file written beside it would be the same file",
    ),
    row(
        "gas --blocks --client revm --compare @/peer-empty.csv",
        2,
        "a header and no rows",
    ),
    row(
        "gas --blocks --client revm --compare @/peer-twice.csv",
        2,
        ":3: ecrecover \"\" for n is given twice (first on line 2)",
    ),
    row(
        "replay --set 30M,30M",
        2,
        "--set 30M,30M: 30M is named twice",
    ),
    row(
        "replay --client geth --client-cmd 'x {authrpc_port} {jwt}'",
        2,
        "the argument '--client <NAME,...>' cannot be used with '--client-cmd <CMD>'",
    ),
    row(
        "replay --against geth --against-cmd 'x {authrpc_port} {jwt}'",
        2,
        "the argument '--against <NAME>' cannot be used with '--against-cmd <CMD>'",
    ),
    row(
        "replay --against geth --pairs 2",
        2,
        "an A/B needs at least 3 pairs of runs",
    ),
    row(
        "replay --client-cmd true",
        2,
        "it must put the Engine API on {authrpc_port}",
    ),
    row(
        "replay --set @/nowhere",
        2,
        "or give a chain folder (a directory holding genesis.json and blocks.rlp",
    ),
    row(
        "replay --set @/chain-noid",
        2,
        "chain-noid/genesis.json: field `config.chainId`: missing",
    ),
    row(
        "replay --set @/chain-cut",
        2,
        "chain-cut/blocks.rlp: block 0 (at byte 0): the block's list: input too short",
    ),
    row(
        "replay --client revm --set @/chains/30M",
        2,
        "30M: revm replays dyno's own block sets",
    ),
    row(
        "load --node anvil --record @/rec",
        2,
        "rec: records the blocks of one geth that dyno starts",
    ),
    row(
        "load --record @/adir-full",
        2,
        "adir-full: it exists and is not an empty folder",
    ),
    row(
        "ab hash/keccak256/1KiB",
        2,
        "dyno ab needs the other side: --base PATH",
    ),
    row(
        "ab --base @/nowhere hash/keccak256/1KiB",
        2,
        "nowhere: no such file; give the path of another dyno binary",
    ),
    row(
        "ab --base-adapter go hash",
        2,
        "--base-adapter \"go\": write RUNTIME=FOLDER",
    ),
    row(
        "ab --base-adapter cobol=@/adir hash",
        2,
        "no adapter \"cobol\"",
    ),
    row(
        "ab --base-adapter go=@/adir hash",
        2,
        "adir: no `run` in that folder",
    ),
    row(
        "ab --base @/ok.json --threshold 2 hash",
        2,
        "--threshold 2: give a fraction between 0 and 1",
    ),
    row("replay --blocks 0", 2, "--blocks 0"),
    row("replay --floor 2", 2, "--floor 2: give a fraction"),
    row("replay --confidence 95", 2, "--confidence 95: give a level"),
    row(
        "replay -o -",
        2,
        "-o -: the replay prints its result with --format json",
    ),
    // Where results go: refused before anything is measured.
    row("ONE -o @/adir", 2, "adir: is a directory"),
    row(
        "ONE -o @/afile/run.json",
        2,
        "afile is a file, not a folder",
    ),
    row(
        "ONE -o @/afile/x/y/run.json",
        2,
        "afile is a file, not a folder",
    ),
    row("ONE -o @/ro.json", 2, "ro.json: the file is read-only"),
    row(
        "ONE -o @/rodir/run.json",
        2,
        "rodir: the folder is read-only",
    ),
    row(
        "ONE -o out.md",
        2,
        "the .md file written beside it would be the same file",
    ),
    row("ONE -o ''", 2, "a value is required for '--out <FILE>'"),
    row("ONE --instructions -o -", 2, "-o - with --instructions"),
    row(
        "gas --quick -o -",
        2,
        "-o -: `dyno gas` prints its table on stdout",
    ),
    // ... and where a write fails at the end: the run is kept elsewhere.
    measured(
        "ONE -o %full",
        2,
        "could not write the results to ",
        "dyno-results/*.json",
    ),
    measured("ONE -o %null", 0, "dyno: wrote ", "-"),
    measured("ONE -o -", 0, "wrote the result JSON to stdout", "stdout"),
    measured("ONE -o link.json", 0, "dyno: wrote", "target.json"),
    row("report @/ok.json -o @/ok.json", 2, "that is also the input"),
    // Specs and vectors.
    row(
        "--specs @/specs-bad list",
        2,
        "hash.toml:2: unknown field `default`",
    ),
    row("--specs /nonexistent/specs list", 2, "/nonexistent/specs"),
    measured(
        "--vectors @/vt ONE -o run.json",
        1,
        "dyno: FAILED hash/keccak256/32B on tiny-keccak",
        "run.json",
    ),
    measured(
        "--vectors @/varray ONE -o run.json",
        2,
        "the file holds an array; a vector file is a JSON object",
        "run.json",
    ),
    // Result files.
    row(
        "compare @/ok.json @/nosuch.json",
        2,
        "nosuch.json: no such file",
    ),
    row("compare @/ok.json @/notjson.json", 2, "notjson.json:1:"),
    row(
        "compare @/ok.json @/array.json",
        2,
        "a JSON array, not an object",
    ),
    row(
        "compare @/ok.json @/v7.json",
        2,
        "schema_version 7 is not supported",
    ),
    row(
        "compare @/ok.json @/vstr.json",
        2,
        "schema_version is \"1\", a string; it must be the number 1",
    ),
    row(
        "check --baseline @/nosuch.json @/ok.json",
        2,
        "nosuch.json: no such file; give an existing baseline or result file",
    ),
    row(
        "check --baseline @/ok.json @/wrong.json",
        1,
        "dyno: WRONG result",
    ),
    row("check --baseline @/ok.json @/ok.json", 0, ""),
    // Baselines.
    row(
        "baseline save main --from @/wrong.json --reason x --no-store",
        1,
        "nothing saved: every result in",
    ),
    row(
        "baseline save 'bad name' --from @/ok.json --reason x",
        2,
        "baseline name",
    ),
    row(
        "baseline save main --from @/ok.json --reason ' '",
        2,
        "--reason is empty",
    ),
    // Stores.
    row(
        "history --store missing.sqlite",
        2,
        "missing.sqlite: no run history there",
    ),
    row(
        "compare latest latest~1 --store missing.sqlite",
        2,
        "no run history there",
    ),
    row(
        "baseline list --store missing.sqlite",
        2,
        "no run history there",
    ),
    row(
        "history --store mysql://u:HUNTER2SECRET@h/db",
        2,
        "unknown store scheme \"mysql\"",
    ),
    with_env(
        "ONE --store mysql://u:HUNTER2SECRET@h/db",
        &[("DYNO_NO_STORE", None)],
        2,
        "mysql://u:***@h/db: unknown store scheme \"mysql\"",
    ),
    row("history --store @/adir", 2, "it is a folder"),
    row(
        "history --store @/afile",
        2,
        "the file is not a SQLite database",
    ),
    row(
        "history --store @/h.sqlite --import @/notjson.json",
        2,
        "notjson.json:1:",
    ),
    row(
        "history --import /nonexistent/r.json",
        2,
        "/nonexistent/r.json: No such file",
    ),
    row(
        "compare latest latest~1 --store @/h.sqlite",
        2,
        "does not hold that many runs",
    ),
    row(
        "compare latest~x latest --store @/h.sqlite",
        2,
        "write latest~N",
    ),
    // The environment.
    with_env(
        "list hash",
        &[("DYNO_NO_STORE", Some("maybe"))],
        2,
        "DYNO_NO_STORE=\"maybe\": not a yes or no",
    ),
    with_env("list hash", &[("DYNO_SPECS", Some(""))], 0, ""),
    with_env("list hash", &[("DYNO_NO_STORE", Some(""))], 0, ""),
    with_env(
        "history",
        &[("DYNO_STORE", Some(""))],
        2,
        "no run history there",
    ),
    // The load lab refuses before it starts a node.
    row(
        "load --rpc http://u:HUNTER2SECRET@127.0.0.1:1",
        2,
        "credentials in the URL",
    ),
    row("load --rpc ftp://127.0.0.1:1", 2, "unsupported scheme"),
    // dyno load --fleet and dyno worker --broker: refused before any node
    // starts; a broker nobody listens for is said with how to start one.
    row(
        "load --fleet mqtt://127.0.0.1:1/t --fleet-key @/fleet.key --self-test",
        2,
        "cannot reach the MQTT broker at mqtt://127.0.0.1:1/t",
    ),
    row(
        "worker --broker mqtt://127.0.0.1:1/t --key @/fleet.key --name w1",
        2,
        "cannot reach the MQTT broker at mqtt://127.0.0.1:1/t",
    ),
    // The fleet's key: required, its owner's alone, 64 hex digits.
    row(
        "load --fleet mqtt://127.0.0.1:1/t --self-test",
        2,
        "--fleet needs --fleet-key FILE",
    ),
    row(
        "worker --broker mqtt://127.0.0.1:1/t",
        2,
        "the following required arguments were not provided",
    ),
    row(
        "worker --broker mqtt://127.0.0.1:1/t --key @/open.key",
        2,
        "mode 0644 lets others read or change it; run `chmod 600",
    ),
    row(
        "load --fleet mqtt://127.0.0.1:1/t --fleet-key @/short.key --self-test",
        2,
        "it must hold 64 hex digits",
    ),
    row(
        "load --fleet mqtt://127.0.0.1:1/t --fleet-key @/nokey --self-test",
        2,
        "make one with `dyno worker --new-key",
    ),
    row(
        "worker --new-key @/fleet.key",
        2,
        "the file exists; it is kept",
    ),
    // A worker's node is checked when it starts, not when a plan comes.
    row(
        "worker --broker mqtt://127.0.0.1:1/t --key @/fleet.key --rpc ftp://x",
        2,
        "--rpc: ",
    ),
    row(
        "worker --broker mqtt://127.0.0.1:1/t --key @/fleet.key --allow-node http://10.0.0.5",
        2,
        "--allow-node \"http://10.0.0.5\": give a host",
    ),
    row(
        "load --fleet http://127.0.0.1:1",
        2,
        "--fleet \"http://127.0.0.1:1\": not an MQTT URL; write mqtt://HOST:PORT",
    ),
    row(
        "load --fleet mqtt://user:HUNTER2SECRET@127.0.0.1:1",
        2,
        "--fleet \"mqtt://***@127.0.0.1:1\": credentials in the URL are not taken",
    ),
    row(
        "load --fleet mqtt://127.0.0.1:1 --workers 3 --accounts 2",
        2,
        "--accounts 2 is fewer than --workers 3",
    ),
    row(
        "load --fleet mqtt://127.0.0.1:1 --workload blob",
        2,
        "fleet workers do not send blob transactions",
    ),
    row(
        "load --fleet mqtt://127.0.0.1:1 --signer node",
        2,
        "--signer node: fleet workers send transactions they signed themselves",
    ),
    row(
        "load --workers 3",
        2,
        "required arguments were not provided",
    ),
    row(
        "worker --broker mqtt://127.0.0.1:1 --key @/fleet.key --name 'a b'",
        2,
        "--name \"a b\": use letters, digits",
    ),
    row(
        "--specs @/specs-mix load --workload x --self-test",
        2,
        "mixes.toml:3: unknown kind \"erc2O\" (did you mean \"erc20\"?)",
    ),
    row(
        "load --rpc http://127.0.0.1:1 -o -",
        2,
        "-o -: the load lab writes CSV",
    ),
    row(
        "load --rpc http://127.0.0.1:1 -o out.md",
        2,
        "would be the same file",
    ),
    // The 2026 transaction types: what a node or a signer cannot do is
    // refused before anything starts, naming the fix.
    row(
        "load --node hardhat --workload blob --txs 10",
        2,
        "--workload blob: no node asked for can take it: the workload has blob transactions: Hardhat 3.17",
    ),
    row(
        "load --rpc http://127.0.0.1:1 --workload setcode --signer node",
        2,
        "--signer node: setcode transactions are signed by dyno only",
    ),
    row(
        "load --rpc http://127.0.0.1:1 --workload types --accounts 1",
        2,
        "--accounts 1: a mix with blob transactions needs at least 2 accounts",
    ),
    row(
        "load --rpc http://127.0.0.1:1 --workload blob --txs 400 --accounts 10",
        2,
        "blob transactions over 10 blob-sending accounts is 40 each, more than geth's blob pool holds of one account (16); give --accounts 25 or more",
    ),
    row(
        "load --rpc http://127.0.0.1:1 --metrics-url 127.0.0.1:6060",
        2,
        "--metrics-url 127.0.0.1:6060: give an http:// URL",
    ),
    // Issue 32: sizes checked before anything starts (u64::MAX panicked,
    // 2e9 aborted on a 64 GB allocation with geth left running).
    row(
        "load --rpc http://127.0.0.1:1 --txs 18446744073709551615",
        2,
        "--txs 18446744073709551615: at most 5000000 in one run",
    ),
    row(
        "load --node geth --txs 2000000000",
        2,
        "--txs 2000000000: at most 5000000 in one run",
    ),
    // The record folder checked before the run, not after it (its blocks
    // were lost).
    row(
        "load --node geth --txs 10 --record @/ok.json/rec",
        2,
        "ok.json is a file, not a folder; choose another path",
    ),
];

/// Split a row's arguments like a shell would (single quotes only).
fn split(args: &str, root: &Path, fx: &Fixtures) -> Vec<String> {
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
fn bad_inputs_get_the_right_exit_code_a_clear_first_line_and_lose_nothing() {
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

fn walk(dir: &Path) -> Vec<PathBuf> {
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
fn glob_match(pattern: &str, s: &str) -> bool {
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
fn a_password_never_reaches_any_output() {
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
fn a_full_stdout_is_named_and_the_run_is_still_saved() {
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
