//! Process groups of the children dyno starts, and the folders they use.

use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use crate::tree::Proc;

/// Process groups running now.
static GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());
/// Folders to remove if dyno must exit at once.
static FOLDERS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn lock<T>(m: &'static Mutex<T>) -> MutexGuard<'static, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Start `cmd` as the leader of a process group of its own and a child
/// subreaper (every orphan below it is adopted by it, so its whole tree
/// stays below it: [`tree`]), registered for [`kill_all`] until [`stop`]
/// or [`forget`].
pub fn spawn(cmd: &mut Command) -> std::io::Result<Child> {
    subreaper(cmd);
    let child = cmd.process_group(0).spawn()?;
    lock(&GROUPS).push(child.id() as i32);
    Ok(child)
}

/// Make the process `cmd` starts a child subreaper (`PR_SET_CHILD_SUBREAPER`,
/// which `execve` keeps). A kernel that refuses it (before Linux 3.4) leaves
/// the process as it was: its group is still stopped as a whole.
#[allow(unsafe_code)]
fn subreaper(cmd: &mut Command) {
    // SAFETY: the closure runs in the child between fork and exec. It makes
    // one system call (prctl), which is async-signal-safe, and allocates
    // nothing, takes no lock and touches no state shared with the parent.
    unsafe {
        cmd.pre_exec(|| {
            let _ = nix::sys::prctl::set_child_subreaper(true);
            Ok(())
        });
    }
}

/// `child` and every process below it now, `child` first; nothing once it
/// has been reaped (its pid may be another process's by then).
pub fn tree(child: &mut Child) -> Vec<Proc> {
    match child.try_wait() {
        Ok(None) => match Proc::own_child(child.id()) {
            Some(leader) => {
                let mut all = vec![leader];
                all.extend(crate::tree::descendants(&[leader]));
                all
            }
            None => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// Send `signal` to `child`'s whole group (a no-op once it is gone).
pub fn signal(child: &Child, signal: Signal) {
    let _ = killpg(Pid::from_raw(child.id() as i32), signal);
}

/// Stop `child`'s group: SIGTERM, then SIGKILL after `grace` if the
/// leader has not exited; its whole tree is killed either way (what its
/// group holds, and every process found below it before the SIGTERM,
/// whatever its group), so nothing the leader started outlives it. Reaps
/// the leader and forgets the group. How the leader ended, if it ended by
/// itself within `grace` or before.
pub fn stop(child: &mut Child, grace: Duration) -> Option<ExitStatus> {
    let before = tree(child);
    let status = terminate(child, grace);
    kill_along(child, &before);
    status
}

/// SIGTERM `child`'s group (unless its leader has ended already) and wait
/// at most `grace` for the leader to exit; how it ended, if it did. The
/// group is left as it is: [`kill`] (or [`stop`]) ends the rest.
pub fn terminate(child: &mut Child, grace: Duration) -> Option<ExitStatus> {
    match child.try_wait() {
        Ok(Some(s)) => Some(s),
        _ => {
            signal(child, Signal::SIGTERM);
            let deadline = Instant::now() + grace;
            loop {
                match child.try_wait() {
                    Ok(Some(s)) => break Some(s),
                    Ok(None) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(10));
                    }
                    _ => break None,
                }
            }
        }
    }
}

/// SIGKILL `child`'s whole tree and group at once, reap the leader,
/// forget it.
pub fn kill(child: &mut Child) {
    kill_along(child, &[]);
}

/// [`kill`], and with it whatever of `found` (processes found below it
/// earlier, while it ran) still runs, and everything below those.
pub fn kill_along(child: &mut Child, found: &[Proc]) {
    // The leader first, while it runs: stopped, it still adopts the
    // orphans of the rest.
    let mut all = tree(child);
    all.extend(crate::tree::still_running(found));
    crate::tree::kill_tree(&all);
    signal(child, Signal::SIGKILL);
    let _ = child.kill();
    let _ = child.wait();
    forget(child);
}

/// Take `child`'s group off the list [`kill_all`] kills (it was reaped).
pub fn forget(child: &Child) {
    let pgid = child.id() as i32;
    lock(&GROUPS).retain(|&g| g != pgid);
}

/// True while `child`'s group is registered (for the tests).
#[cfg(test)]
fn registered(child: &Child) -> bool {
    lock(&GROUPS).contains(&(child.id() as i32))
}

/// True while process `pid` runs: it exists and is not a zombie (a killed
/// process whose parent has not reaped it yet has ended).
pub fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit(')')
            .next()
            .is_some_and(|r| !r.trim_start().starts_with('Z'))
    })
}

/// Remove `folder` in [`kill_all`] unless [`release_folder`] is called
/// first (its owner removed it, or keeps it).
pub fn hold_folder(folder: &Path) {
    lock(&FOLDERS).push(folder.to_path_buf());
}

/// Take `folder` off [`kill_all`]'s list.
pub fn release_folder(folder: &Path) {
    lock(&FOLDERS).retain(|f| f != folder);
}

/// SIGKILL every registered group and remove every held folder: for a
/// process that must exit now (a second interrupt) and so will not run
/// the destructors that stop them in order.
pub fn kill_all() {
    let groups: Vec<i32> = lock(&GROUPS).drain(..).collect();
    let mut all = Vec::new();
    for g in &groups {
        if let Some(leader) = Proc::own_child(*g as u32) {
            all.push(leader);
            all.extend(crate::tree::descendants(&[leader]));
        }
    }
    crate::tree::kill_tree(&all);
    for g in &groups {
        let _ = killpg(Pid::from_raw(*g), Signal::SIGKILL);
    }
    // A killed process may hold a file open for a moment: try twice.
    let folders: Vec<PathBuf> = lock(&FOLDERS).drain(..).collect();
    for f in folders {
        if std::fs::remove_dir_all(&f).is_err() {
            std::thread::sleep(Duration::from_millis(100));
            let _ = std::fs::remove_dir_all(&f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Stdio;

    /// A shell that starts a grandchild ignoring SIGTERM, prints its pid
    /// and waits: a `run` wrapper that does not `exec`.
    fn wrapper() -> (Child, u32) {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "sh -c 'trap \"\" TERM; sleep 300' & echo $!; wait"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped());
        let mut child = spawn(&mut cmd).unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        (child, line.trim().parse().unwrap())
    }

    #[test]
    fn stop_ends_the_grandchild_a_wrapper_left_behind() {
        let _one = crate::serial();
        let (mut child, grandchild) = wrapper();
        assert!(running(grandchild));
        assert!(registered(&child));
        let started = Instant::now();
        stop(&mut child, Duration::from_millis(300));
        assert!(started.elapsed() < Duration::from_secs(5));
        std::thread::sleep(Duration::from_millis(100));
        assert!(
            !running(grandchild),
            "the grandchild ignoring SIGTERM outlived stop"
        );
        assert!(!registered(&child));
    }

    #[test]
    fn kill_all_kills_every_group_and_removes_held_folders() {
        let _one = crate::serial();
        let (child, grandchild) = wrapper();
        let dir = tempfile::tempdir().unwrap().keep();
        std::fs::write(dir.join("secret"), "x").unwrap();
        hold_folder(&dir);
        let kept = tempfile::tempdir().unwrap();
        hold_folder(kept.path());
        release_folder(kept.path());
        kill_all();
        std::thread::sleep(Duration::from_millis(100));
        assert!(!running(grandchild));
        assert!(!dir.exists(), "a held folder outlived kill_all");
        assert!(kept.path().exists(), "a released folder was removed");
        let mut child = child;
        let _ = child.wait();
    }
}
