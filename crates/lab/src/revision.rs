//! `dyno ab --base-rev REV`: the dyno binary of a git revision of the
//! repository dyno is run in. It is built once per commit, in a worktree
//! of its own (the working tree is never touched) with a target folder of
//! its own (shared by every revision built this way, so a second revision
//! rebuilds only what changed), and kept as `<cache>/ab/<commit>/dyno`: a
//! second comparison against the same commit starts at once.
//!
//! The build is `cargo build --release --locked -p dyno` with the default
//! features (no RocksDB or MDBX; `dyno ab` compares what both sides offer).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::paths::Paths;
use crate::{Error, refuse};

/// The folder of built revisions: `<cache>/ab`.
pub fn builds(paths: &Paths) -> PathBuf {
    paths.cache.join("ab")
}

/// Where the binary of `commit` is kept.
pub fn cached(paths: &Paths, commit: &str) -> PathBuf {
    builds(paths).join(commit).join("dyno")
}

/// `git args` in `dir`: its trimmed stdout, or why not.
fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("running git: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

/// The repository `dir` is in, and `rev`'s full commit hash in it.
pub fn resolve(dir: &Path, rev: &str) -> crate::Result<(PathBuf, String)> {
    let flag = format!("--base-rev {rev}");
    let root = git(dir, &["rev-parse", "--show-toplevel"]).map_err(|e| {
        Error::Refused(format!(
            "{flag}: {} is not in a git repository ({e}); run dyno ab from a clone of dyno, \
             or build the base yourself and give --base PATH",
            dir.display()
        ))
    })?;
    let commit = git(
        Path::new(&root),
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .ok()
    .filter(|c| !c.is_empty())
    .ok_or_else(|| {
        Error::Refused(format!(
            "{flag}: no such commit in {root}; give a commit, branch or tag (`git log --oneline` \
             lists them)"
        ))
    })?;
    Ok((PathBuf::from(root), commit))
}

/// The binary of `rev` and its commit: from the cache, else built
/// (cargo's progress on stderr) and cached. `say` tells the user what
/// happens.
pub fn binary(
    paths: &Paths,
    dir: &Path,
    rev: &str,
    say: &dyn Fn(&str),
) -> crate::Result<(PathBuf, String)> {
    let (root, commit) = resolve(dir, rev)?;
    let bin = cached(paths, &commit);
    let short = &commit[..commit.len().min(12)];
    if bin.is_file() {
        say(&format!(
            "--base-rev {rev}: the build of {short} from {}",
            bin.display()
        ));
        return Ok((bin, commit));
    }
    let flag = format!("--base-rev {rev}");
    // Before a build of many minutes: the revision must have the command
    // `dyno ab` drives each side with.
    let cli = git(&root, &["show", &format!("{commit}:bins/dyno/src/cli.rs")]).unwrap_or_default();
    if !has_worker(&cli) {
        refuse!(
            "{flag}: {short} has no `dyno worker` (the command `dyno ab` runs on each side), so \
             its build could not be compared; give a later revision, or build the base yourself \
             and give --base PATH"
        );
    }
    let work = builds(paths).join(format!("src-{commit}"));
    let target = builds(paths).join("target");
    std::fs::create_dir_all(builds(paths))
        .map_err(|e| Error::Refused(format!("{flag}: making {}: {e}", builds(paths).display())))?;
    // A worktree left by a build that was stopped.
    let _ = git(
        &root,
        &["worktree", "remove", "--force", &work.to_string_lossy()],
    );
    let _ = std::fs::remove_dir_all(&work);
    git(
        &root,
        &[
            "worktree",
            "add",
            "--detach",
            "--force",
            &work.to_string_lossy(),
            &commit,
        ],
    )
    .map_err(|e| Error::Refused(format!("{flag}: git worktree add {}: {e}", work.display())))?;
    say(&format!(
        "--base-rev {rev}: building {short} in {} (cargo build --release; the first build takes \
         many minutes, later revisions reuse {})",
        work.display(),
        target.display()
    ));
    // The worktree goes on every exit path: at the end here, and with the
    // build's process group on a second interrupt (kill_all).
    dyno_process::group::hold_folder(&work);
    let built = build(&work, &target);
    dyno_process::group::release_folder(&work);
    let result = match built {
        Err(e) => Err(e),
        Ok(s) if !s.success() => Err(format!(
            "cargo build --release -p dyno failed at {short} ({s}); its errors are above"
        )),
        Ok(_) => {
            let from = target.join("release").join("dyno");
            let tmp = bin.with_extension("partial");
            std::fs::create_dir_all(bin.parent().unwrap_or(&target))
                .and_then(|()| std::fs::copy(&from, &tmp))
                .and_then(|_| std::fs::rename(&tmp, &bin))
                .map_err(|e| format!("keeping {} as {}: {e}", from.display(), bin.display()))
        }
    };
    let _ = git(
        &root,
        &["worktree", "remove", "--force", &work.to_string_lossy()],
    );
    let _ = std::fs::remove_dir_all(&work);
    if let Err(e) = result {
        refuse!("{flag}: {e}");
    }
    Ok((bin, commit))
}

/// `cargo build --release --locked -p dyno` in `work`, in a process group
/// of its own, stopped when dyno is interrupted.
fn build(work: &Path, target: &Path) -> Result<std::process::ExitStatus, String> {
    let mut cmd = Command::new("cargo");
    cmd.args(["build", "--release", "--locked", "-p", "dyno"])
        .current_dir(work)
        .env("CARGO_TARGET_DIR", target)
        .stdin(Stdio::null())
        .stdout(Stdio::null());
    let mut child = dyno_process::group::spawn(&mut cmd).map_err(|e| {
        format!("running cargo: {e} (is Rust installed? scripts/setup.sh installs it)")
    })?;
    let interrupt = crate::interrupt::flag().map_err(|e| e.to_string())?;
    loop {
        match child.try_wait() {
            Ok(Some(s)) => {
                dyno_process::group::kill(&mut child);
                return Ok(s);
            }
            Ok(None) if interrupt.load(std::sync::atomic::Ordering::Relaxed) => {
                dyno_process::group::stop(&mut child, std::time::Duration::from_secs(5));
                return Err("interrupted during the build; nothing was kept".into());
            }
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(100)),
            Err(e) => {
                dyno_process::group::kill(&mut child);
                return Err(format!("waiting for cargo: {e}"));
            }
        }
    }
}

/// Whether a revision's `bins/dyno/src/cli.rs` declares the `worker`
/// command: a unit variant (`Worker,`, before the fleet) or one with its
/// arguments (`Worker(WorkerArgs),`).
fn has_worker(cli: &str) -> bool {
    cli.lines().any(|l| {
        let l = l.trim();
        l == "Worker," || l.starts_with("Worker(")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The regression: every revision since the fleet (issue 36) declares
    /// `Worker(WorkerArgs),`, which the check took for no worker at all.
    #[test]
    fn a_worker_is_found_with_or_without_its_arguments() {
        assert!(has_worker("enum Command {\n    Worker,\n}"));
        assert!(has_worker("enum Command {\n    Worker(WorkerArgs),\n}"));
        let today = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../bins/dyno/src/cli.rs"
        ))
        .unwrap();
        assert!(has_worker(&today), "this tree's cli.rs");
        assert!(!has_worker("enum Command {\n    Workers(X),\n    Run,\n}"));
        assert!(!has_worker("// Worker, a comment"));
    }
}
