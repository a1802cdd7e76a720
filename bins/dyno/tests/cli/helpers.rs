//! What every CLI test shares: the repository, the binary under test, and
//! reading what it wrote.

use std::path::{Path, PathBuf};

/// The repository's root (specs, vectors, adapters).
pub(crate) fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The dyno under test: `$DYNO_TEST_BIN` (another build, e.g. one from
/// before a fix, to see which rows it fails), else this build's.
pub(crate) fn bin() -> PathBuf {
    std::env::var_os("DYNO_TEST_BIN")
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_dyno")), PathBuf::from)
}

/// Output bytes as text.
pub(crate) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A JSON file dyno wrote.
pub(crate) fn read_json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap())
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}", p.display()))
}

/// The pid of `parent`'s child process whose command name is `name`.
pub(crate) fn child_named(parent: u32, name: &str) -> Option<u32> {
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // pid (comm) state ppid ...
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let comm = &stat[open + 1..close];
        let ppid: u32 = stat[close + 1..]
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse().ok())
            .unwrap_or(0);
        if ppid == parent && comm == name {
            return Some(pid);
        }
    }
    None
}

/// SIGKILL `pid`, then wait (at most `limit`) for `child` to exit, reading
/// the rest of its stderr: its exit status and that stderr.
pub(crate) fn kill_and_wait(
    pid: u32,
    child: &mut std::process::Child,
    mut stderr: impl std::io::Read + Send + 'static,
    limit: std::time::Duration,
) -> (std::process::ExitStatus, String) {
    let killed = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let started = std::time::Instant::now();
    let rest = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("dyno hung after process {pid} was killed");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    (status, rest.join().unwrap())
}

/// Read `stderr` line by line into `log` until a line holds `needle`;
/// panics, showing the log, if the stream ends first.
pub(crate) fn read_until(stderr: &mut impl std::io::BufRead, log: &mut String, needle: &str) {
    loop {
        let mut line = String::new();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "dyno ended early:\n{log}"
        );
        log.push_str(&line);
        if line.contains(needle) {
            return;
        }
    }
}

/// Assert that `json` is a valid Result (docs/schema/result-v1.schema.json),
/// listing every error with where it is.
pub(crate) fn assert_schema_valid(json: &serde_json::Value) {
    let path = repo().join("docs/schema/result-v1.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = v
        .iter_errors(json)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "result does not match the schema: {errors:#?}"
    );
}
