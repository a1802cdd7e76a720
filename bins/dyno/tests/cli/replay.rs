//! `dyno replay` end to end against the geth `dyno setup geth` built (the
//! test script builds it first; without it these tests are skipped with a
//! message, except under `CI=true`, where that is a failure).
//!
//! 1. `--quick --format json --no-store` through `--client-cmd` (geth
//!    started from a command line with placeholders): the Result JSON on
//!    stdout, valid against the schema, every class's blocks timed and
//!    joined to geth's own slow-block log.
//! 2. Killing the client mid-replay: exit 2, the blocks timed before it
//!    saved and marked incomplete, no client process and no data
//!    directory left behind.
//! 3. A load run's blocks: `dyno load --record` saves what geth built as a
//!    chain folder, and a fresh geth answers VALID to every block of it;
//!    the same folder with its last block's state root changed is refused
//!    at that block, the blocks before it kept.

use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::helpers::{
    assert_schema_valid, bin, child_named, kill_and_wait, read_json, read_until, repo, text,
};

fn geth_home() -> Option<PathBuf> {
    dyno_node::installed_for_tests(dyno_node::Kind::Geth)
}

/// dyno with the repository's data, no history, and its temporary folders
/// in `tmp` (where the client's data directories go).
fn dyno(tmp: &Path) -> Command {
    let mut c = Command::new(bin());
    c.current_dir(repo())
        .env("DYNO_NO_STORE", "1")
        .env("TMPDIR", tmp)
        .env_remove("DYNO_STORE");
    c
}

/// What dyno left in its temporary folder that a client started.
fn leftovers(tmp: &Path) -> Vec<String> {
    std::fs::read_dir(tmp)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("dyno-geth-engine-") || n.starts_with("dyno-client-"))
        .collect()
}

#[test]
fn quick_json_times_every_class_and_joins_the_clients_own_log() {
    let Some(home) = geth_home() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let geth = home.join("geth").display().to_string();
    let cmd = format!(
        "sh -c '{geth} init --datadir {{datadir}} {{genesis}} >/dev/null 2>&1 && exec {geth} \
         --datadir {{datadir}} --networkid 1337 --syncmode full --authrpc.addr 127.0.0.1 \
         --authrpc.port {{authrpc_port}} --authrpc.jwtsecret {{jwt}} --port {{p2p_port}} \
         --nat none --nodiscover --maxpeers 0 --ipcdisable --debug.logslowblock 0 \
         --metrics --metrics.addr 127.0.0.1 --metrics.port {{metrics_port}}'"
    );
    let o = dyno(tmp.path())
        .args([
            "replay", "--quick", "--set", "30M", "--format", "json", "-q",
        ])
        .args(["--client-cmd", &cmd, "-o"])
        .arg(tmp.path().join("r.json"))
        .output()
        .unwrap();
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "stderr:\n{stderr}");
    let run: Value = serde_json::from_slice(&o.stdout).expect("the Result JSON on stdout");
    assert_eq!(
        run,
        read_json(&tmp.path().join("r.json")),
        "stdout = the file"
    );
    assert_schema_valid(&run);
    assert_eq!(run["run"]["complete"], true);

    let results = run["results"].as_array().unwrap();
    let ids: Vec<&str> = results.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        ["empty", "transfers", "mix", "full"].map(|c| format!("client/newpayload/30M-{c}"))
    );
    for r in results {
        assert_eq!(r["implementation"]["name"], "cmd");
        assert_eq!(r["implementation"]["runtime"], "engine-api");
        assert_eq!(r["verification"]["status"], "passed");
        assert_eq!(r["mode"], "single");
        let blocks = r["blocks"].as_array().unwrap();
        assert_eq!(blocks.len(), 3, "{}", r["id"]);
        assert_eq!(r["samples"].as_array().unwrap().len(), 3);
        assert_eq!(r["warmup_iters"], 3);
        for (b, s) in blocks.iter().zip(r["samples"].as_array().unwrap()) {
            assert_eq!(b["new_payload_ns"], s["ns"]);
            // The client's own account, as geth names it, of this block.
            let log = &b["client_log"];
            assert_eq!(log["block"]["hash"], b["hash"], "joined by hash");
            for f in [
                "execution_ms",
                "state_read_ms",
                "state_hash_ms",
                "commit_ms",
            ] {
                assert!(log["timing"][f].is_number(), "{f} in {log}");
            }
            assert!(log["timing"]["total_ms"].as_f64().unwrap() > 0.0);
        }
        let command = r["parameters"]["client_command"].as_str().unwrap();
        assert!(command.contains("{folder}/data"), "{command}");
        assert!(
            !command.contains(&tmp.path().display().to_string()),
            "{command}"
        );
    }
    // The full blocks fill the gas limit; MGas/s is gas over time.
    let full = &results[3];
    let gas: u64 = full["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["gas_used"].as_u64().unwrap())
        .sum();
    let ns: u64 = full["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["ns"].as_u64().unwrap())
        .sum();
    assert!(gas > 3 * 29_000_000, "{gas}");
    let mgas = full["parameters"]["mgas_per_s"].as_f64().unwrap();
    assert!((mgas - gas as f64 / ns as f64 * 1e3).abs() < 1e-6 * mgas);
    // The client's process and its own metrics over the replay.
    let clients = run["clients"].as_array().unwrap();
    assert_eq!(clients.len(), 1);
    let c = &clients[0];
    assert_eq!(
        (c["set"].as_str(), c["blocks"].as_u64()),
        (Some("30M"), Some(24))
    );
    assert!(c["cpu_s"].as_f64().unwrap() > 0.0, "{c}");
    assert!(c["rss_peak_bytes"].as_u64().unwrap() > 10_000_000, "{c}");
    assert!(c["io_write_bytes"].is_u64(), "{c}");
    assert_eq!(
        c["metrics"]["chain_inserts_count"],
        serde_json::json!([0.0, 24.0]),
        "geth counted the 24 blocks it inserted"
    );
    assert!(
        leftovers(tmp.path()).is_empty(),
        "{:?}",
        leftovers(tmp.path())
    );
}

/// `--client geth,revm --fork prague`: one set of blocks, made under
/// Prague, replayed into each client in turn; a result per id and client,
/// the fork in each client run, and the side-by-side table.
#[test]
fn two_clients_replay_the_same_blocks_side_by_side_under_the_fork_asked() {
    if geth_home().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r.json");
    let o = dyno(tmp.path())
        .args([
            "replay",
            "--client",
            "geth,revm",
            "--fork",
            "prague",
            "--set",
            "30M",
        ])
        .args([
            "--blocks", "1", "--warmup", "0", "--format", "markdown", "-q", "-o",
        ])
        .arg(&out)
        .output()
        .unwrap();
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "stderr:\n{stderr}");
    // -q silences progress, never the line that says where the run went.
    assert!(
        stderr.contains(&format!("dyno: wrote {}", out.display())),
        "{stderr}"
    );
    let md = text(&o.stdout);
    let side = md
        .split("### The clients side by side")
        .nth(1)
        .unwrap_or_else(|| panic!("no side-by-side table:\n{md}"));
    assert!(
        side.contains("| id | geth P50 [95% CI] | geth MGas/s | geth execution P50 | revm P50 [95% CI] | revm MGas/s | revm / geth |"),
        "{side}"
    );
    let run = read_json(&out);
    let results = run["results"].as_array().unwrap();
    for client in ["geth", "revm"] {
        let mine: Vec<&Value> = results
            .iter()
            .filter(|r| r["implementation"]["name"] == client)
            .collect();
        assert_eq!(mine.len(), 4, "{client}");
        assert!(mine.iter().all(|r| r["verification"]["status"] == "passed"));
    }
    // The same blocks in both: block by block, the same hashes.
    let hashes = |client: &str| -> Vec<String> {
        results
            .iter()
            .filter(|r| r["implementation"]["name"] == client)
            .flat_map(|r| r["blocks"].as_array().into_iter().flatten())
            .map(|b| b["hash"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(hashes("geth"), hashes("revm"));
    let forks: Vec<&str> = run["clients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["fork"].as_str().unwrap())
        .collect();
    assert_eq!(forks, ["prague", "prague"]);
    assert!(
        leftovers(tmp.path()).is_empty(),
        "{:?}",
        leftovers(tmp.path())
    );
}

/// `dyno replay` of 12 blocks of each class at 60M into geth, writing
/// `out`; the child and its stderr.
fn replay_48_blocks(
    tmp: &Path,
    out: &Path,
) -> (std::process::Child, BufReader<std::process::ChildStderr>) {
    let mut child = dyno(tmp)
        .args([
            "replay", "--set", "60M", "--warmup", "0", "--blocks", "12", "-o",
        ])
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    (child, stderr)
}

#[test]
fn killing_the_client_mid_replay_keeps_the_timed_blocks_and_leaves_nothing_behind() {
    if geth_home().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("killed.json");
    let (mut child, mut stderr) = replay_48_blocks(tmp.path(), &out);
    let mut log = String::new();
    // The first quarter of the 48 blocks is in: kill geth.
    read_until(&mut stderr, &mut log, "12/48 blocks");
    let geth = child_named(child.id(), "geth").expect("geth is dyno's child");
    let (status, rest) = kill_and_wait(geth, &mut child, stderr, Duration::from_secs(90));
    log.push_str(&rest);
    assert_eq!(status.code(), Some(2), "stderr:\n{log}");
    assert!(
        log.contains("stopped") && log.contains("geth exited"),
        "stderr:\n{log}"
    );

    let run = read_json(&out);
    assert_eq!(run["run"]["complete"], false);
    let reason = run["run"]["incomplete_reason"].as_str().unwrap();
    assert!(reason.contains("signal: 9"), "{reason}");
    let results = run["results"].as_array().unwrap();
    let timed: usize = results
        .iter()
        .map(|r| r["blocks"].as_array().map_or(0, Vec::len))
        .sum();
    assert!((12..48).contains(&timed), "{timed} blocks kept");
    for r in results {
        assert!(
            r["incomplete_reason"].as_str().is_some(),
            "{} ends after the kill",
            r["id"]
        );
    }
    // The dead client's record says what is known: no after-reading.
    let c = &run["clients"][0];
    assert!(
        c["cpu_s"].is_null() && c["metrics_missing"].is_string(),
        "{c}"
    );
    assert!((12..48).contains(&c["blocks"].as_u64().unwrap()), "{c}");
    assert!(
        !Path::new(&format!("/proc/{geth}")).exists(),
        "the client process is gone"
    );
    assert!(
        leftovers(tmp.path()).is_empty(),
        "{:?}",
        leftovers(tmp.path())
    );
}

#[test]
fn a_load_runs_recorded_blocks_replay_into_a_fresh_client() {
    if geth_home().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let rec = tmp.path().join("rec");
    let o = dyno(tmp.path())
        .args(["load", "--node", "geth", "--txs", "200", "--rate", "100"])
        .args(["--accounts", "10", "--finality-timeout", "0", "-q"])
        .arg("--record")
        .arg(&rec)
        .arg("-o")
        .arg(tmp.path().join("load.json"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "stderr:\n{}", text(&o.stderr));
    let manifest = read_json(&rec.join("chain.json"));
    let listed = manifest["blocks"].as_array().unwrap();
    let n = listed.len();
    assert!(n >= 3, "{manifest}");
    assert!(manifest["client"].as_str().unwrap().starts_with("Geth/"));
    for b in listed {
        let class = if b["class"] == "empty" {
            "empty"
        } else {
            "load"
        };
        assert_eq!(b["id"], format!("client/newpayload/rec-{class}"), "{b}");
    }

    let replay = |out: &str| {
        dyno(tmp.path())
            .args(["replay", "--set"])
            .arg(&rec)
            .args(["--format", "json", "-q", "-o"])
            .arg(tmp.path().join(out))
            .output()
            .unwrap()
    };
    let o = replay("r.json");
    assert_eq!(o.status.code(), Some(0), "stderr:\n{}", text(&o.stderr));
    let run: Value = serde_json::from_slice(&o.stdout).unwrap();
    let results = run["results"].as_array().unwrap();
    let load = results
        .iter()
        .find(|r| r["id"] == "client/newpayload/rec-load")
        .expect("the loaded blocks' result");
    let mut blocks: Vec<&Value> = results
        .iter()
        .flat_map(|r| r["blocks"].as_array().unwrap())
        .collect();
    blocks.sort_by_key(|b| b["number"].as_u64());
    assert_eq!(blocks.len(), n, "every recorded block timed");
    for (b, l) in blocks.iter().zip(listed) {
        assert_eq!(b["hash"], l["hash"]);
        assert_eq!(b["client_log"]["block"]["hash"], b["hash"]);
    }
    let txs: u64 = load["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["transactions"].as_u64().unwrap())
        .sum();
    assert!(
        txs >= 200,
        "the load's 200 transactions and its set-up: {txs}"
    );

    // The last block's state root changed (its hash with it, so the
    // manifest goes): geth refuses that block and keeps the rest.
    let payloads = std::fs::read_to_string(rec.join("payloads.jsonl")).unwrap();
    let last: Value = serde_json::from_str(payloads.lines().last().unwrap()).unwrap();
    let root = last[0]["stateRoot"].as_str().unwrap();
    let root: Vec<u8> = (2..66)
        .step_by(2)
        .map(|i| u8::from_str_radix(&root[i..i + 2], 16).unwrap())
        .collect();
    let mut rlp = std::fs::read(rec.join("blocks.rlp")).unwrap();
    let at = rlp.windows(32).rposition(|w| w == root.as_slice()).unwrap();
    rlp[at + 31] ^= 1;
    std::fs::write(rec.join("blocks.rlp"), rlp).unwrap();
    std::fs::remove_file(rec.join("chain.json")).unwrap();
    let o = replay("bad.json");
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "stderr:\n{stderr}");
    assert!(stderr.contains("INVALID"), "{stderr}");
    let run = read_json(&tmp.path().join("bad.json"));
    assert_eq!(run["run"]["complete"], false);
    let r = &run["results"][0];
    assert_eq!(r["id"], "client/newpayload/rec", "no manifest: one id");
    assert_eq!(
        r["verification"]["status"], "failed",
        "{}",
        r["verification"]
    );
    assert_eq!(r["blocks"].as_array().unwrap().len(), n - 1);
    assert!(leftovers(tmp.path()).is_empty());
}

/// A replay interrupted twice: geth left running with its 0644 secret and
/// data folder, and "results so far are saved" printed with nothing on
/// disk. Now the second signal kills geth's group, removes its folder and
/// says what is on disk.
#[test]
fn a_replay_interrupted_twice_leaves_nothing_and_says_what_is_saved() {
    if geth_home().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("twice.json");
    let (mut child, mut stderr) = replay_48_blocks(tmp.path(), &out);
    let mut log = String::new();
    read_until(&mut stderr, &mut log, "4/48 blocks");
    let geth = child_named(child.id(), "geth").expect("geth is dyno's child");
    let folder = leftovers(tmp.path());
    assert_eq!(folder.len(), 1, "{folder:?}");
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(tmp.path().join(&folder[0]).join("jwt.hex"))
            .unwrap()
            .permissions(),
    );
    assert_eq!(mode & 0o777, 0o600, "the JWT secret");
    for _ in 0..2 {
        let ok = Command::new("sh")
            .args(["-c", &format!("kill -INT {}", child.id())])
            .status()
            .unwrap()
            .success();
        assert!(ok);
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    log.push_str(&rest);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "stderr:\n{log}");
    let said_saved = log.contains("the results measured so far are in");
    assert!(
        said_saved || log.contains("nothing measured was saved"),
        "stderr:\n{log}"
    );
    if said_saved {
        assert!(out.is_file(), "it said saved: {log}");
    }
    std::thread::sleep(Duration::from_millis(200));
    // Killed, at most a zombie waiting for its new parent to reap it.
    let state = std::fs::read_to_string(format!("/proc/{geth}/stat")).unwrap_or_default();
    assert!(
        state.is_empty()
            || state
                .rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z'),
        "geth outlived dyno: {state}"
    );
    assert!(
        leftovers(tmp.path()).is_empty(),
        "{:?}",
        leftovers(tmp.path())
    );
}

/// Send SIGINT to `child` through the shell's `kill` builtin.
fn interrupt(child: &std::process::Child) {
    let ok = Command::new("sh")
        .args(["-c", &format!("kill -INT {}", child.id())])
        .status()
        .unwrap()
        .success();
    assert!(ok);
}

/// `dyno gas --blocks ARGS -o OUT`, its stderr piped.
fn gas_blocks(
    tmp: &Path,
    args: &[&str],
    out: &Path,
) -> (std::process::Child, BufReader<std::process::ChildStderr>) {
    let mut child = dyno(tmp)
        .args(["gas", "--blocks"])
        .args(args)
        .arg("-o")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    (child, stderr)
}

/// The rest of `child`'s stderr into `log`, and how it exited.
fn to_the_end(
    child: &mut std::process::Child,
    mut stderr: BufReader<std::process::ChildStderr>,
    log: &mut String,
) -> std::process::ExitStatus {
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    log.push_str(&rest);
    child.wait().unwrap()
}

/// One Ctrl-C while `gas --blocks` makes its blocks (revm counting every
/// block's operations, minutes in the default run) stops it at once: the
/// making hears the interrupt before every transaction, says nothing was
/// timed, and exits 2 (before issue 51 the step ran on for 195 s).
#[test]
fn gas_blocks_hears_one_interrupt_while_it_makes_its_blocks() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("made.json");
    let (mut child, mut stderr) = gas_blocks(tmp.path(), &["--client", "revm"], &out);
    let mut log = String::new();
    read_until(&mut stderr, &mut log, "making ");
    let sent = std::time::Instant::now();
    interrupt(&child);
    let status = to_the_end(&mut child, stderr, &mut log);
    let took = sent.elapsed();
    assert_eq!(status.code(), Some(2), "stderr:\n{log}");
    assert!(
        log.contains("interrupted") && log.contains("nothing was timed yet"),
        "stderr:\n{log}"
    );
    assert!(!log.contains("replaying"), "it went on to replay:\n{log}");
    // Generous for a loaded machine; it is milliseconds here.
    assert!(took < Duration::from_secs(5), "it took {took:?} to stop");
    eprintln!("gas --blocks stopped {took:?} after one Ctrl-C while making blocks");
}

/// Two Ctrl-Cs halfway through `gas --blocks`' replay into geth: the
/// second exits at once, and the file already holds every block timed
/// before the first (a checkpoint is written as soon as the first is
/// heard), marked incomplete; geth and its folder are gone.
#[test]
fn gas_blocks_interrupted_twice_mid_replay_keeps_every_timed_block() {
    if geth_home().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("twice.json");
    let (mut child, mut stderr) = gas_blocks(
        tmp.path(),
        &["--quick", "--client", "geth", "--only", "keccak256"],
        &out,
    );
    let mut log = String::new();
    read_until(&mut stderr, &mut log, "replaying ");
    // The first quarter is timed (the line says how many).
    read_until(&mut stderr, &mut log, "geth: ");
    let timed: usize = log
        .lines()
        .rev()
        .find_map(|l| l.split("geth: ").nth(1)?.split('/').next()?.parse().ok())
        .unwrap();
    interrupt(&child);
    std::thread::sleep(Duration::from_millis(300));
    interrupt(&child);
    let status = to_the_end(&mut child, stderr, &mut log);
    assert!(
        matches!(status.code(), Some(130 | 2)),
        "{status}; stderr:\n{log}"
    );
    let run = read_json(&out);
    assert_eq!(run["run"]["complete"], false, "stderr:\n{log}");
    // The blocks kept, by number (each series' warm-up block, one a
    // series, is timed but kept in no result).
    let results = run["results"].as_array().unwrap();
    let numbers: Vec<u64> = results
        .iter()
        .flat_map(|r| r["blocks"].as_array().into_iter().flatten())
        .map(|b| b["number"].as_u64().unwrap())
        .collect();
    let warm_ups = results.len();
    assert!(
        numbers.iter().max().copied().unwrap_or(0) >= timed as u64
            && numbers.len() + warm_ups >= timed,
        "blocks {numbers:?} kept, {timed} were timed before the first Ctrl-C; stderr:\n{log}"
    );
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        leftovers(tmp.path()).is_empty(),
        "{:?}",
        leftovers(tmp.path())
    );
}
