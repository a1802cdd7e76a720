//! The processes descended from one dyno started, read from `/proc`, and
//! how to end them all. A process group is not enough to hold a hostile
//! client: a daemon that calls `setsid` (or `setpgid`) leaves the group,
//! and one that double-forks leaves its parent too. Each process dyno
//! starts is therefore made a *child subreaper* ([`group::spawn`]): an
//! orphan anywhere below it is adopted by it rather than by init, so while
//! it runs every process of its tree, in whatever group or session, is its
//! descendant, and [`descendants`] finds them all. What is found is named
//! by pid and start time ([`Proc`]), so a pid the kernel gives to another
//! process later is never taken for it.
//!
//! [`group::spawn`]: crate::group::spawn

use std::collections::{BTreeMap, BTreeSet};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// A process: its pid and when it started (in clock ticks after boot), so
/// that it is told apart from a later process given the same pid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Proc {
    pub pid: u32,
    start: u64,
}

/// The fields of `/proc/PID/stat` dyno reads.
#[derive(Debug, Clone, Copy)]
struct Stat {
    state: char,
    parent: u32,
    start: u64,
}

/// `/proc/PID/stat`'s fields after the command name, which is in
/// parentheses and may hold spaces or parentheses itself.
fn parse_stat(text: &str) -> Option<Stat> {
    let rest = text.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(Stat {
        state: f.first()?.chars().next()?,
        parent: f.get(1)?.parse().ok()?,
        // Field 22 of the file; the 20th after the name.
        start: f.get(19)?.parse().ok()?,
    })
}

fn stat(pid: u32) -> Option<Stat> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Every process on the machine and its fields, from one read of `/proc`.
fn table() -> BTreeMap<u32, Stat> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return BTreeMap::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, stat(pid)?)))
        .collect()
}

impl Proc {
    /// Process `pid` as it is now, if it exists.
    pub fn of(pid: u32) -> Option<Proc> {
        stat(pid).map(|s| Proc {
            pid,
            start: s.start,
        })
    }

    /// Process `pid`, if it is a child of this process (not yet reaped): a
    /// leader dyno started, never a stranger given its pid after it.
    pub fn own_child(pid: u32) -> Option<Proc> {
        stat(pid)
            .filter(|s| s.parent == std::process::id())
            .map(|s| Proc {
                pid,
                start: s.start,
            })
    }

    /// True while this very process runs: its pid exists, started when it
    /// did, and is not a zombie (ended, not yet reaped).
    pub fn running(&self) -> bool {
        stat(self.pid).is_some_and(|s| s.start == self.start && s.state != 'Z')
    }

    /// Its command name (`/proc/PID/comm`), or `?` once it is gone.
    pub fn command(&self) -> String {
        std::fs::read_to_string(format!("/proc/{}/comm", self.pid))
            .map(|c| c.trim().to_string())
            .unwrap_or_else(|_| "?".into())
    }

    /// `pid (command)`, for a message.
    pub fn describe(&self) -> String {
        format!("{} ({})", self.pid, self.command())
    }

    /// Send `signal` if it is still this process.
    fn signal(&self, signal: Signal) {
        if self.running() {
            let _ = kill(Pid::from_raw(self.pid as i32), signal);
        }
    }
}

/// Every process below `roots` now (children, their children, and so on:
/// whatever their process group or session), running or not yet reaped,
/// without the roots themselves; from one read of `/proc`.
pub fn descendants(roots: &[Proc]) -> Vec<Proc> {
    below(&table(), roots)
}

fn below(table: &BTreeMap<u32, Stat>, roots: &[Proc]) -> Vec<Proc> {
    let mut children: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for (pid, s) in table {
        children.entry(s.parent).or_default().push(*pid);
    }
    // Only a root still alive as itself has children of its own.
    let mut todo: Vec<u32> = roots
        .iter()
        .filter(|r| table.get(&r.pid).is_some_and(|s| s.start == r.start))
        .map(|r| r.pid)
        .collect();
    let mut seen: BTreeSet<u32> = todo.iter().copied().collect();
    let mut found = Vec::new();
    while let Some(pid) = todo.pop() {
        for child in children.get(&pid).into_iter().flatten() {
            if seen.insert(*child) {
                found.push(Proc {
                    pid: *child,
                    start: table[child].start,
                });
                todo.push(*child);
            }
        }
    }
    found.sort();
    found
}

/// `procs` (as found earlier) that still run, and everything below them
/// now: what is left of a tree whose leader is gone.
pub fn still_running(procs: &[Proc]) -> Vec<Proc> {
    let table = table();
    let mut left: BTreeSet<Proc> = procs
        .iter()
        .filter(|p| {
            table
                .get(&p.pid)
                .is_some_and(|s| s.start == p.start && s.state != 'Z')
        })
        .copied()
        .collect();
    let roots: Vec<Proc> = left.iter().copied().collect();
    left.extend(
        below(&table, &roots)
            .into_iter()
            .filter(|p| table.get(&p.pid).is_some_and(|s| s.state != 'Z')),
    );
    left.into_iter().collect()
}

/// SIGKILL each of `procs` and everything below them, leaving none a
/// moment to fork away: each is stopped (SIGSTOP) first, and the tree read
/// again, until no new process appears below a stopped one; then all are
/// killed. The first of `procs` should be the subreaper whose tree this
/// is, alive: stopped, it still adopts the orphans of the rest.
pub fn kill_tree(procs: &[Proc]) {
    let mut stopped: BTreeSet<Proc> = BTreeSet::new();
    let mut todo: Vec<Proc> = procs.to_vec();
    // Bounded: a tree that grows faster than it is stopped is killed as far
    // as it was found.
    for _ in 0..64 {
        let new: Vec<Proc> = todo
            .into_iter()
            .filter(|p| p.running() && !stopped.contains(p))
            .collect();
        if new.is_empty() {
            break;
        }
        for p in &new {
            p.signal(Signal::SIGSTOP);
            stopped.insert(*p);
        }
        let all: Vec<Proc> = stopped.iter().copied().collect();
        todo = descendants(&all);
    }
    for p in &stopped {
        p.signal(Signal::SIGKILL);
    }
    // A killed process is not gone at once: a large one (a client with
    // gigabytes mapped, on a busy host) takes a while to tear down, and
    // a caller about to exit or remove the folder it writes must not
    // leave it running. Wait until each has ended (a zombie has), bounded.
    let deadline = std::time::Instant::now() + KILL_WAIT;
    while stopped.iter().any(Proc::running) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// How long [`kill_tree`] waits for the processes it killed to end.
pub const KILL_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufRead as _;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    #[test]
    fn stat_fields_are_read_after_a_name_with_spaces_and_parentheses() {
        let line = "4242 (a (b) c) S 17 4242 4242 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 987654 1 2";
        let s = parse_stat(line).unwrap();
        assert_eq!((s.state, s.parent, s.start), ('S', 17, 987654));
        assert!(parse_stat("4242 (x) S 1").is_none());
    }

    #[test]
    fn a_tree_is_read_through_parents_and_a_stale_root_has_none() {
        let st = |parent, start| Stat {
            state: 'S',
            parent,
            start,
        };
        let table: BTreeMap<u32, Stat> = [
            (10, st(1, 100)),
            (11, st(10, 101)),
            (12, st(11, 102)),
            (13, st(1, 103)),
        ]
        .into();
        let root = Proc {
            pid: 10,
            start: 100,
        };
        let found: Vec<u32> = below(&table, &[root]).iter().map(|p| p.pid).collect();
        assert_eq!(found, [11, 12]);
        // The same pid, another start: another process, whose children are
        // not this root's.
        let stale = Proc { pid: 10, start: 99 };
        assert!(below(&table, &[stale]).is_empty());
    }

    /// A shell that starts a daemon which leaves its session and its parent
    /// (`setsid`, then the shell between them exits) and prints its pid.
    fn daemonizing() -> (std::process::Child, u32) {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "setsid sh -c 'sleep 300 & echo $!' ; exec sleep 300"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped());
        let mut child = crate::group::spawn(&mut cmd).unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        (child, line.trim().parse().unwrap())
    }

    /// Wait until the daemon is found below the leader; the tree then.
    fn found_below(leader: Proc, daemon: u32) -> Vec<Proc> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let found = descendants(&[leader]);
            if found.iter().any(|p| p.pid == daemon) {
                return found;
            }
            assert!(
                Instant::now() < deadline,
                "the daemon {daemon} is not below the leader: {found:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn ends(d: Proc) -> bool {
        let deadline = Instant::now() + Duration::from_secs(5);
        while d.running() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        !d.running() && still_running(&[d]).is_empty()
    }

    #[test]
    fn a_double_forked_daemon_is_found_below_its_leader_and_killed_with_it() {
        let _one = crate::serial();
        let (mut child, daemon) = daemonizing();
        let leader = Proc::of(child.id()).unwrap();
        // Its parent shell has exited: the daemon, in a session and group
        // of its own, is adopted by the leader (a subreaper), not by init.
        let found = found_below(leader, daemon);
        let d = Proc::of(daemon).unwrap();
        let mut all = vec![leader];
        all.extend(found);
        kill_tree(&all);
        let _ = child.wait();
        crate::group::forget(&child);
        assert!(ends(d), "the daemon outlived kill_tree");
    }

    /// kill_tree returns once what it killed has ended: a caller that
    /// exits or removes a client's folder right after it (a second
    /// interrupt) leaves nothing running. A SIGKILLed process ends a moment
    /// after the signal, so without the wait this fails most times.
    #[test]
    fn kill_tree_returns_once_every_process_it_killed_has_ended() {
        let _one = crate::serial();
        for _ in 0..5 {
            let mut cmd = Command::new("sh");
            cmd.args(["-c", "for i in 1 2 3 4 5 6 7 8; do sleep 300 & done; wait"])
                .stdin(Stdio::null());
            let mut child = crate::group::spawn(&mut cmd).unwrap();
            let leader = Proc::of(child.id()).unwrap();
            let deadline = Instant::now() + Duration::from_secs(10);
            let mut all = vec![leader];
            while descendants(&[leader]).len() < 8 {
                assert!(Instant::now() < deadline, "the sleeps did not start");
                std::thread::sleep(Duration::from_millis(10));
            }
            all.extend(descendants(&[leader]));
            kill_tree(&all);
            let left: Vec<&Proc> = all.iter().filter(|p| p.running()).collect();
            let _ = child.wait();
            crate::group::forget(&child);
            assert!(left.is_empty(), "still running after kill_tree: {left:?}");
        }
    }

    #[test]
    fn stopping_the_leader_stops_the_daemon_that_left_its_group() {
        let _one = crate::serial();
        let (mut child, daemon) = daemonizing();
        found_below(Proc::of(child.id()).unwrap(), daemon);
        let d = Proc::of(daemon).unwrap();
        // SIGTERM reaches the group only; the leader (sleep) exits, the
        // daemon does not: it is killed as part of the tree found before.
        crate::group::stop(&mut child, Duration::from_millis(500));
        assert!(ends(d), "the daemon outlived group::stop");
    }
}
