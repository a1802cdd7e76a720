//! Paths filled into a command line are data, never shell: a `TMPDIR`
//! holding a space and a `;` (which once ran a command through a
//! `--client-cmd` wrapped in `sh -c`) and an install folder with a space
//! in it. The checks run in a child process of this test binary, started
//! with the hostile `TMPDIR` in its environment.

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use dyno_node::LocalNode;

const CHILD: &str = "DYNO_SHELL_QUOTING_CHILD";

fn wait_for(path: &Path) -> bool {
    let until = Instant::now() + Duration::from_secs(10);
    while Instant::now() < until {
        if path.exists() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn a_hostile_tmpdir_and_a_home_with_a_space_stay_data() {
    if std::env::var_os(CHILD).is_some() {
        return hostile_tmpdir_checks();
    }
    let base = tempfile::tempdir().unwrap();
    let pwned = base.path().join("pwned");
    let hostile = format!("{}/a b;touch {};", base.path().display(), pwned.display());
    std::fs::create_dir_all(&hostile).unwrap();
    let o = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_hostile_tmpdir_and_a_home_with_a_space_stay_data",
            "--nocapture",
        ])
        .env(CHILD, base.path())
        .env("TMPDIR", &hostile)
        .output()
        .unwrap();
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "{out}");
    assert!(out.contains("1 passed"), "the checks did not run:\n{out}");
    assert!(!pwned.exists(), "TMPDIR's ';' ran a command");
}

/// What the child checks, with the hostile TMPDIR.
fn hostile_tmpdir_checks() {
    let base = std::path::PathBuf::from(std::env::var_os(CHILD).unwrap());
    assert!(std::env::temp_dir().display().to_string().contains(';'));
    // The line as docs/clients.md writes geth's: a nested `sh -c '...'`.
    let (mut node, _) = LocalNode::start_engine_cmd(
        "sh -c 'touch {datadir}/ran; exec sleep 30'",
        "{}",
        &[3u8; 32],
    )
    .unwrap();
    let folder = node.folder().unwrap().to_path_buf();
    assert!(
        dyno_node::shell_plain(&folder.display().to_string()),
        "{}",
        folder.display()
    );
    assert!(wait_for(&folder.join("data/ran")), "the client did not run");
    node.stop(Duration::from_secs(5));

    // A built-in client's {home} with a space in it.
    let home = base.join("my home");
    std::fs::create_dir_all(&home).unwrap();
    let run = home.join("run");
    std::fs::write(&run, "#!/bin/sh\ntouch \"$1/ran\"\nexec sleep 30\n").unwrap();
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (mut node, _) =
        LocalNode::start_engine_cmd_in("{home}/run {datadir}", Some(&home), "{}", &[3u8; 32])
            .unwrap();
    let data = node.folder().unwrap().join("data");
    assert!(
        wait_for(&data.join("ran")),
        "the client in a folder with a space did not run"
    );
    node.stop(Duration::from_secs(5));

    // A misspelt placeholder is refused, naming the ones there are.
    let e = LocalNode::start_engine_cmd("run --datadir {datdir} {jwt}", "{}", &[3u8; 32])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("{datdir} is no placeholder") && e.contains("{datadir}"),
        "{e}"
    );
}
