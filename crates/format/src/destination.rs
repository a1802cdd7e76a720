//! Where a command writes what it was told to write (`-o FILE`), and the
//! rules for writing there. Every `-o` in dyno goes through this, so the
//! rules are the same everywhere:
//!
//! - `-` is standard output.
//! - A regular file (or a new one) is written whole: into a temporary file
//!   beside it, synced, then renamed over it, so a reader or a crash never
//!   sees half a file. A failed write removes the temporary file.
//! - A symbolic link is followed: the file it points to is replaced and the
//!   link stays a link.
//! - A character device, FIFO or socket (`/dev/null`, `/dev/stdout`, a named
//!   pipe) is opened and written in place, never replaced by a file.
//! - A directory, a block device, a read-only file, a path under a file, or a
//!   folder that cannot be written is refused by [`Destination::check`],
//!   which a command calls before it measures anything.

use std::fmt;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Why a destination cannot be written. Each message names the path and
/// says what to do.
#[derive(Debug, thiserror::Error)]
pub enum DestinationError {
    /// An empty path.
    #[error("the path is empty; name a file, or `-` for standard output")]
    Empty,
    /// The path is a directory.
    #[error("{}: is a directory; name a file in it, e.g. {}", .0.display(), .0.join("run.json").display())]
    Directory(PathBuf),
    /// The path is a block device.
    #[error("{}: is a block device; dyno will not write over a disk; name a file", .0.display())]
    BlockDevice(PathBuf),
    /// A file on the way is not a directory.
    #[error("{}: {} is a file, not a folder; choose another path", path.display(), parent.display())]
    ParentNotDirectory {
        /// The path asked for.
        path: PathBuf,
        /// The part of it that is a file.
        parent: PathBuf,
    },
    /// The file exists and is read-only.
    #[error("{}: the file is read-only; make it writable (chmod u+w) or choose another path", .0.display())]
    ReadOnlyFile(PathBuf),
    /// The folder cannot be written.
    #[error("{}: cannot write in {}: {reason}; choose another path", path.display(), folder.display())]
    Folder {
        /// The path asked for.
        path: PathBuf,
        /// The folder that refuses.
        folder: PathBuf,
        /// Why.
        reason: String,
    },
    /// Two outputs of one command would be the same file.
    #[error("{}: {}", .0.display(), .1)]
    Collides(PathBuf, String),
    /// Writing failed.
    #[error("{target}: {source}")]
    Write {
        /// `stdout` or the path.
        target: String,
        /// The OS error.
        source: std::io::Error,
    },
}

/// A checked place to write to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// `-`: standard output.
    Stdout,
    /// A regular file, existing or not: written whole through a rename.
    /// A symbolic link's target when the path was a link.
    File(PathBuf),
    /// A character device, FIFO or socket: written in place.
    Special(PathBuf),
}

impl Destination {
    /// Check that `path` can be written, before any work is done.
    pub fn check(path: &Path) -> Result<Destination, DestinationError> {
        if path.as_os_str().is_empty() {
            return Err(DestinationError::Empty);
        }
        if path.as_os_str() == "-" {
            return Ok(Destination::Stdout);
        }
        let target = follow_links(path);
        match std::fs::metadata(&target) {
            Ok(meta) => {
                use std::os::unix::fs::FileTypeExt as _;
                let kind = meta.file_type();
                if kind.is_dir() {
                    return Err(DestinationError::Directory(path.to_path_buf()));
                }
                if kind.is_block_device() {
                    return Err(DestinationError::BlockDevice(path.to_path_buf()));
                }
                if kind.is_char_device() || kind.is_fifo() || kind.is_socket() {
                    return Ok(Destination::Special(target));
                }
                if meta.permissions().readonly() {
                    return Err(DestinationError::ReadOnlyFile(path.to_path_buf()));
                }
                check_folder(path, &target)?;
                Ok(Destination::File(target))
            }
            Err(_) => {
                check_folder(path, &target)?;
                Ok(Destination::File(target))
            }
        }
    }

    /// The file to write, if it is one (not standard output).
    pub fn path(&self) -> Option<&Path> {
        match self {
            Destination::Stdout => None,
            Destination::File(p) | Destination::Special(p) => Some(p),
        }
    }

    /// Whether it can take a checkpoint after every step and the whole at
    /// the end: only a file can; a device or a pipe would get every
    /// checkpoint one after the other.
    pub fn checkpoints(&self) -> bool {
        matches!(self, Destination::File(_))
    }

    /// A file beside this one with extension `ext` (the Markdown beside a
    /// JSON result), checked as [`Destination::check`] does; `None` for
    /// standard output and special files, which have no "beside". Refused
    /// if it would be this very file (`-o out.md`).
    pub fn beside(&self, ext: &str) -> Result<Option<Destination>, DestinationError> {
        let Destination::File(path) = self else {
            return Ok(None);
        };
        let other = path.with_extension(ext);
        if other == *path {
            return Err(DestinationError::Collides(
                path.clone(),
                format!(
                    "this names the JSON result, and the .{ext} file written beside it would \
                     be the same file; give the JSON's name, e.g. {}",
                    path.with_extension("json").display()
                ),
            ));
        }
        Destination::check(&other).map(Some)
    }

    /// Write `bytes` there, by the rules above.
    pub fn write(&self, bytes: &[u8]) -> Result<(), DestinationError> {
        match self {
            Destination::Stdout => {
                let mut out = std::io::stdout().lock();
                out.write_all(bytes)
                    .and_then(|()| out.flush())
                    .map_err(|source| DestinationError::Write {
                        target: "stdout".into(),
                        source,
                    })
            }
            Destination::Special(path) => std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .and_then(|mut f| f.write_all(bytes).and_then(|()| f.flush()))
                .map_err(|source| DestinationError::Write {
                    target: path.display().to_string(),
                    source,
                }),
            Destination::File(path) => {
                write_replacing(path, bytes).map_err(|source| DestinationError::Write {
                    target: path.display().to_string(),
                    source,
                })
            }
        }
    }
}

impl fmt::Display for Destination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Destination::Stdout => f.write_str("stdout"),
            Destination::File(p) | Destination::Special(p) => write!(f, "{}", p.display()),
        }
    }
}

/// The file a chain of symbolic links ends at (the path itself if it is
/// no link; the last name if the chain dangles or loops).
fn follow_links(path: &Path) -> PathBuf {
    let mut at = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::read_link(&at) {
            Ok(next) => {
                at = match at.parent() {
                    Some(dir) if next.is_relative() => dir.join(next),
                    _ => next,
                }
            }
            Err(_) => return at,
        }
    }
    at
}

/// The folder `target` goes in must be (or can become) a writable folder:
/// walk up to the nearest part that exists; it must be a folder, and one
/// this process can create a file in.
fn check_folder(path: &Path, target: &Path) -> Result<(), DestinationError> {
    let mut dir = target.parent().map(Path::to_path_buf).unwrap_or_default();
    if dir.as_os_str().is_empty() {
        dir = PathBuf::from(".");
    }
    loop {
        match std::fs::metadata(&dir) {
            Ok(meta) if meta.is_dir() => break,
            Ok(_) => {
                return Err(DestinationError::ParentNotDirectory {
                    path: path.to_path_buf(),
                    parent: dir,
                });
            }
            Err(_) => match dir.parent() {
                Some(up) if !up.as_os_str().is_empty() => dir = up.to_path_buf(),
                _ => {
                    dir = PathBuf::from(".");
                    break;
                }
            },
        }
    }
    let refuse = |reason: String| DestinationError::Folder {
        path: path.to_path_buf(),
        folder: dir.clone(),
        reason,
    };
    // The permission bits first (root may write anywhere, but a folder
    // marked read-only was marked so for a reason), then a real probe.
    let meta = std::fs::metadata(&dir).map_err(|e| refuse(e.to_string()))?;
    if meta.permissions().readonly() {
        return Err(refuse("the folder is read-only".into()));
    }
    // A file of a new random name, created exclusively (never through a
    // link planted under a name dyno would use) and removed at once.
    tempfile::Builder::new()
        .prefix(".dyno-write-probe-")
        .tempfile_in(&dir)
        .map_err(|e| refuse(e.to_string()))?;
    Ok(())
}

/// Write through a synced temporary file beside `path` and a rename; on
/// failure the temporary file is removed and `path` is as it was.
pub(crate) fn write_replacing(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_new(path, |f| f.write_all(bytes))
}

/// Write `path` through `write` into a temporary file beside it, synced,
/// then renamed over `path`. The temporary file has a new random name and
/// is created exclusively, so a link planted in the folder (which dyno
/// may not own) is never followed; the rename replaces whatever `path`
/// was (a planted link too) rather than writing through it. On failure
/// the temporary file is removed and `path` is as it was. The folder is
/// created if needed.
pub fn write_new(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<&std::fs::File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => {
            std::fs::create_dir_all(dir)?;
            dir
        }
        None => Path::new("."),
    };
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".partial")
        .tempfile_in(dir)?;
    {
        let mut w = std::io::BufWriter::new(tmp.as_file());
        write(&mut w)?;
        w.flush()?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map(drop).map_err(|e| e.error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{FileTypeExt as _, PermissionsExt as _};

    #[test]
    fn regular_files_are_replaced_whole_and_links_stay_links() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a/b/run.json");
        let d = Destination::check(&file).unwrap();
        assert_eq!(d, Destination::File(file.clone()));
        d.write(b"one").unwrap();
        d.write(b"two").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"two");
        assert_eq!(
            entries(&dir.path().join("a/b")),
            ["run.json"],
            "no temporary file left"
        );

        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink("a/b/run.json", &link).unwrap();
        let d = Destination::check(&link).unwrap();
        assert_eq!(d, Destination::File(dir.path().join("a/b/run.json")));
        d.write(b"three").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&file).unwrap(), b"three");
    }

    #[test]
    fn a_failed_write_leaves_no_partial_file_and_the_old_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("run.json");
        std::fs::write(&file, "checkpoint").unwrap();
        let d = Destination::check(&file).unwrap();
        // The rename fails: a folder now holds the file's name.
        std::fs::remove_file(&file).unwrap();
        std::fs::create_dir(&file).unwrap();
        std::fs::write(file.join("x"), "x").unwrap();
        let e = d.write(b"whole").unwrap_err().to_string();
        assert!(e.starts_with(&file.display().to_string()), "{e}");
        assert_eq!(entries(dir.path()), ["run.json"], "no temporary file left");
        // A failure after the temporary file was made removes it.
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        let target = sub.join("run.json");
        let d = Destination::check(&target).unwrap();
        std::fs::create_dir(&target).unwrap();
        assert!(d.write(b"whole").is_err());
        assert_eq!(entries(&sub), ["run.json"], "no temporary file left");
    }

    /// The names in `dir`, sorted.
    fn entries(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// Links planted under the names the old code used for its temporary
    /// file and its write probe (`run.json.partial`,
    /// `.dyno-write-probe-<pid>`) made dyno write the result into one file
    /// and truncate another; now neither is followed or touched.
    #[test]
    fn links_planted_under_temporary_names_are_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        let other = dir.path().join("other");
        std::fs::write(&victim, "precious").unwrap();
        std::fs::write(&other, "precious too").unwrap();
        let out = dir.path().join("out");
        std::fs::create_dir(&out).unwrap();
        std::os::unix::fs::symlink(&victim, out.join("run.json.partial")).unwrap();
        std::os::unix::fs::symlink(
            &other,
            out.join(format!(".dyno-write-probe-{}", std::process::id())),
        )
        .unwrap();
        let file = out.join("run.json");
        let d = Destination::check(&file).unwrap();
        d.write(b"result").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "result");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(std::fs::read_to_string(&other).unwrap(), "precious too");
    }

    /// A link planted under a name dyno writes beside the result (a CSV,
    /// a plot) is replaced, not written through.
    #[test]
    fn write_new_replaces_a_planted_link_instead_of_following_it() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let path = dir.path().join("run.csv");
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        write_new(&path, |w| w.write_all(b"a,b\n")).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert!(
            !std::fs::symlink_metadata(&path)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a,b\n");
    }

    #[test]
    fn special_files_are_written_in_place() {
        let d = Destination::check(Path::new("/dev/null")).unwrap();
        assert_eq!(d, Destination::Special("/dev/null".into()));
        d.write(b"x").unwrap();
        assert!(
            std::fs::metadata("/dev/null")
                .unwrap()
                .file_type()
                .is_char_device()
        );
        assert!(!d.checkpoints());
        assert_eq!(d.beside("md").unwrap(), None);
        // A full device fails the write and is still a device.
        if Path::new("/dev/full").exists() {
            let d = Destination::check(Path::new("/dev/full")).unwrap();
            let e = d.write(b"x").unwrap_err().to_string();
            assert!(e.starts_with("/dev/full: "), "{e}");
            assert!(
                std::fs::metadata("/dev/full")
                    .unwrap()
                    .file_type()
                    .is_char_device()
            );
        }
        assert_eq!(
            Destination::check(Path::new("-")).unwrap(),
            Destination::Stdout
        );
    }

    #[test]
    fn what_cannot_be_written_is_refused_before_any_work() {
        let dir = tempfile::tempdir().unwrap();
        let e = |p: &Path| Destination::check(p).unwrap_err().to_string();
        assert!(e(dir.path()).contains("is a directory"));
        assert!(e(Path::new("")).contains("empty"));
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        assert!(e(&file.join("run.json")).contains("is a file, not a folder"));
        assert!(e(&file.join("x/y/run.json")).contains("is a file, not a folder"));
        let ro = dir.path().join("ro.json");
        std::fs::write(&ro, "x").unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o444)).unwrap();
        assert!(e(&ro).contains("read-only"), "{}", e(&ro));
        let ro_dir = dir.path().join("ro");
        std::fs::create_dir(&ro_dir).unwrap();
        std::fs::set_permissions(&ro_dir, std::fs::Permissions::from_mode(0o555)).unwrap();
        assert!(e(&ro_dir.join("run.json")).contains("read-only"));
        assert!(e(&ro_dir.join("new/run.json")).contains("read-only"));
        std::fs::set_permissions(&ro_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        // A file and its Markdown twin may not be one file.
        let md = Destination::check(&dir.path().join("out.md")).unwrap();
        let e = md.beside("md").unwrap_err().to_string();
        assert!(e.contains("out.json"), "{e}");
        let json = Destination::check(&dir.path().join("out.json")).unwrap();
        assert_eq!(
            json.beside("md").unwrap(),
            Some(Destination::File(dir.path().join("out.md")))
        );
    }
}
