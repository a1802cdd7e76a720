//! Signals and faults (issue 16): SIGTERM and SIGHUP stop a run as Ctrl-C
//! does, an interrupted check never passes, and SIGTERM, SIGINT or SIGKILL
//! at any point of a run or a save leaves a result file that parses and a
//! history that passes SQLite's integrity check.

use dyno_process::group::running;
use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::helpers::{bin, read_json, repo, text};

fn command(cwd: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(bin());
    cmd.current_dir(cwd)
        .args(args)
        .env("DYNO_SPECS", repo().join("specs"))
        .env("DYNO_VECTORS", repo().join("vectors"))
        .env("DYNO_DATA", cwd.join("data"))
        .env_remove("DYNO_NO_STORE")
        .env_remove("DYNO_STORE");
    cmd
}

fn dyno(cwd: &Path, args: &[&str]) -> Output {
    command(cwd, args).output().expect("dyno runs")
}

/// Send SIG`name` to the child through the shell's `kill` builtin (no
/// procps needed).
fn signal(child: &Child, name: &str) {
    let ok = Command::new("sh")
        .args(["-c", &format!("kill -{name} {}", child.id())])
        .status()
        .expect("sh runs")
        .success();
    assert!(ok, "kill -{name} failed");
}

/// Start `args`, wait until a stderr line contains `after`, send
/// `signal_name`, and return the exit code and all of stderr.
fn interrupt_after(
    cwd: &Path,
    args: &[&str],
    after: &str,
    signal_name: &str,
) -> (Option<i32>, String) {
    let mut child = command(cwd, args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("dyno starts");
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let mut seen = String::new();
    let deadline = Instant::now() + Duration::from_secs(120);
    for line in lines.by_ref() {
        let line = line.unwrap();
        seen.push_str(&line);
        seen.push('\n');
        if line.contains(after) {
            break;
        }
        assert!(Instant::now() < deadline, "never saw {after:?}: {seen}");
    }
    signal(&child, signal_name);
    for line in lines {
        seen.push_str(&line.unwrap());
        seen.push('\n');
    }
    let status = child.wait().unwrap();
    (status.code(), seen)
}

#[test]
fn sigterm_and_sighup_stop_a_run_keep_it_and_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path();
    let store = cwd.join("h.sqlite");
    for sig in ["TERM", "HUP", "INT"] {
        let out = cwd.join(format!("{sig}.json"));
        let (code, stderr) = interrupt_after(
            cwd,
            &[
                "run",
                "hash",
                "--quick",
                "-o",
                out.to_str().unwrap(),
                "--store",
                store.to_str().unwrap(),
            ],
            "dyno: [3/",
            sig,
        );
        assert_eq!(code, Some(2), "SIG{sig}: {stderr}");
        assert!(stderr.contains("dyno: interrupted"), "SIG{sig}: {stderr}");
        assert!(
            stderr.contains("run incomplete") && stderr.contains("saved"),
            "SIG{sig}: {stderr}"
        );
        let json = read_json(&out);
        assert_eq!(json["run"]["complete"], false, "SIG{sig}");
        let done = json["results"].as_array().unwrap().len();
        assert!(done >= 2, "SIG{sig}: {done} results kept");
        assert!(out.with_extension("md").exists(), "SIG{sig}: no Markdown");
        let o = dyno(
            cwd,
            &["history", "--json", "--store", store.to_str().unwrap()],
        );
        let rows: serde_json::Value = serde_json::from_str(&text(&o.stdout)).unwrap();
        assert!(
            rows.as_array()
                .unwrap()
                .iter()
                .any(|r| r["id"] == json["run"]["id"] && r["complete"] == false),
            "SIG{sig}: the run is not in the history as incomplete: {rows}"
        );
    }
}

#[test]
fn an_interrupted_check_does_not_pass() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path();
    let base = cwd.join("base.json");
    let o = dyno(
        cwd,
        &[
            "run",
            "hash/keccak256/*",
            "--quick",
            "-q",
            "--no-store",
            "-o",
            base.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let (code, stderr) = interrupt_after(
        cwd,
        &["check", "--baseline", base.to_str().unwrap(), "--no-store"],
        "dyno: [2/",
        "INT",
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("the check is incomplete"), "{stderr}");
    assert!(stderr.contains("the gate did not pass"), "{stderr}");
}

/// A small deterministic generator: the "random" points are the same on
/// every run of the test.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

fn integrity(path: &Path) -> String {
    let c = rusqlite::Connection::open(path).expect("open for the integrity check");
    c.query_row("PRAGMA integrity_check", [], |r| r.get::<_, String>(0))
        .expect("integrity_check runs")
}

#[test]
fn signals_at_any_point_of_a_run_or_a_save_leave_files_and_history_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path();
    let store = cwd.join("h.sqlite");
    let store_arg = store.to_str().unwrap().to_string();
    let mut rng = Lcg(0x5eed_d1c0);
    let mut results = Vec::new();
    // Runs, stopped somewhere between their start and their end.
    for (k, sig) in ["TERM", "INT", "KILL", "TERM", "KILL", "INT"]
        .iter()
        .enumerate()
    {
        let out = cwd.join(format!("run{k}.json"));
        let mut child = command(
            cwd,
            &[
                "run",
                "hash/keccak256/*,hash/sha256/*",
                "--quick",
                "-q",
                "-o",
                out.to_str().unwrap(),
                "--store",
                &store_arg,
            ],
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
        std::thread::sleep(Duration::from_millis(200 + rng.below(4000)));
        signal(&child, sig);
        let status = child.wait().unwrap();
        // Finished before the signal (0), stopped and saved (2), or
        // killed (no code): never anything else.
        assert!(
            matches!(status.code(), Some(0) | Some(2) | None),
            "SIG{sig}: {status:?}"
        );
        if out.exists() {
            let json = read_json(&out);
            assert_eq!(json["schema_version"], 1);
            results.push(out);
        }
    }
    assert!(!results.is_empty(), "no run left a result file");
    // Saves: imports of every result, stopped at random points.
    for sig in ["KILL", "TERM", "KILL", "INT", "KILL"] {
        let mut args: Vec<&str> = vec!["history", "--store", &store_arg, "--import"];
        for _ in 0..10 {
            args.extend(results.iter().map(|p| p.to_str().unwrap()));
        }
        let child = command(cwd, &args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(rng.below(400)));
        signal(&child, sig);
        let mut child = child;
        child.wait().unwrap();
    }
    if store.exists() {
        assert_eq!(integrity(&store), "ok");
        let o = dyno(cwd, &["history", "--json", "--store", &store_arg]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let rows: serde_json::Value = serde_json::from_str(&text(&o.stdout)).unwrap();
        for r in rows.as_array().unwrap() {
            let id = r["id"].as_str().unwrap();
            let o = dyno(
                cwd,
                &["report", id, "--format", "json", "--store", &store_arg],
            );
            assert_eq!(o.status.code(), Some(0), "run {id}: {}", text(&o.stderr));
        }
    }
    // Every result file still parses, whole.
    for p in &results {
        read_json(p);
    }
}

/// `dyno adapter check` had no signal handler: SIGTERM or SIGHUP killed
/// dyno (143, 129) and left its `setup` and what that started running.
/// Now each signal stops them all and exits 130.
#[test]
fn an_interrupted_adapter_check_leaves_nothing_running() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path();
    let adapter = cwd.join("slow-adapter");
    std::fs::create_dir(&adapter).unwrap();
    for sig in ["TERM", "HUP", "INT"] {
        let pidfile = cwd.join(format!("build-{sig}.pid"));
        std::fs::write(
            adapter.join("setup"),
            format!(
                "(trap '' TERM HUP INT; sleep 300) &\necho $! > {}\necho 'building the worker' >&2\nwait\n",
                pidfile.display()
            ),
        )
        .unwrap();
        let (code, stderr) = interrupt_after(
            cwd,
            &["adapter", "check", adapter.to_str().unwrap()],
            "building the worker",
            sig,
        );
        assert_eq!(code, Some(130), "SIG{sig}: {stderr}");
        assert!(
            stderr.contains("stopped everything dyno had started"),
            "SIG{sig}: {stderr}"
        );
        let pid: u32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        std::thread::sleep(Duration::from_millis(200));
        assert!(!running(pid), "SIG{sig}: setup's child outlived dyno");
    }
}
