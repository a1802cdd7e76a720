//! Records the compiler version and the git commit dyno is built from.

use std::path::{Path, PathBuf};
use std::process::Command;

fn output(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
}

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = output(&rustc, &["--version"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=DYNO_RUSTC_VERSION={version}");

    if let Some(git_dir) = output("git", &["rev-parse", "--absolute-git-dir"]) {
        // A clone's own .git, relative to this package as cargo reads it: an
        // absolute path would keep watching another clone's .git when a
        // target directory is shared (CI keeps one), and that clone's commit
        // would stay in this binary.
        let git_dir = PathBuf::from(git_dir);
        let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("../..");
        let watched = match (git_dir.canonicalize(), root.canonicalize()) {
            (Ok(git), Ok(root)) if git.starts_with(&root) => {
                Path::new("../..").join(git.strip_prefix(&root).unwrap())
            }
            _ => git_dir,
        };
        println!("cargo:rerun-if-changed={}", watched.join("HEAD").display());
        println!("cargo:rerun-if-changed={}", watched.join("index").display());
        if let Some(head) = output("git", &["rev-parse", "--short=12", "HEAD"]) {
            // --no-optional-locks: a plain `git status` refreshes and
            // rewrites the index of a fresh clone, which this script
            // watches, so the next cargo command would rebuild dyno.
            let dirty = output(
                "git",
                &[
                    "--no-optional-locks",
                    "status",
                    "--porcelain",
                    "--untracked-files=no",
                ],
            )
            .is_some();
            let suffix = if dirty { "-dirty" } else { "" };
            println!("cargo:rustc-env=DYNO_GIT_COMMIT={head}{suffix}");
        }
    }
}
