//! Scratch folders for the nodes dyno starts, and the command-line words a user's client command may hold.

use super::*;

/// A fresh temporary data directory (0700: it holds the Engine API's
/// secret and the chain) and a free loopback port. The folder is held for
/// [`dyno_process::group::kill_all`] until the node is stopped.
pub(crate) fn scratch(prefix: &str) -> Result<(tempfile::TempDir, u16), NodeError> {
    use std::os::unix::fs::PermissionsExt as _;
    let datadir = tempfile::Builder::new()
        .prefix(prefix)
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir_in(scratch_root())
        .map_err(|source| NodeError::Spawn {
            command: "a temporary data directory".into(),
            source,
        })?;
    dyno_process::group::hold_folder(datadir.path());
    let port = free_port().map_err(|source| NodeError::Spawn {
        command: "a free loopback port".into(),
        source,
    })?;
    Ok((datadir, port))
}

/// Whether `s` is the same word in every shell context (bare, in single
/// or double quotes, in a nested `sh -c '...'`): letters, digits and
/// `/._-+:,@%=` only. Every path dyno fills into a command line is one.
pub fn shell_plain(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:,@%=".contains(c))
}

/// Where a node's scratch folder goes: the system's temporary folder
/// (`TMPDIR`) when its path is [`shell_plain`], else `/tmp`, so that a
/// space or a `;` in `TMPDIR` is never read by the shell that runs a
/// `--client-cmd` or `--node-cmd` line.
pub(crate) fn scratch_root() -> PathBuf {
    let t = std::env::temp_dir();
    if shell_plain(&t.display().to_string()) {
        t
    } else {
        PathBuf::from("/tmp")
    }
}

/// The placeholders [`LocalNode::start_engine_cmd`] fills in (a built-in
/// client's line has `{home}` too, its install's folder).
pub const ENGINE_PLACEHOLDERS: &[&str] = &[
    "datadir",
    "genesis",
    "jwt",
    "authrpc_port",
    "p2p_port",
    "http_port",
    "metrics_port",
];

/// The first `{name}` left in `line` that is not a shell's `${name}`,
/// after every known placeholder was filled: a misspelt placeholder.
pub fn unknown_placeholder(line: &str) -> Option<String> {
    let bytes = line.as_bytes();
    let mut i = 0;
    while let Some(open) = line[i..].find('{').map(|k| k + i) {
        i = open + 1;
        if open > 0 && bytes[open - 1] == b'$' {
            continue;
        }
        let Some(close) = line[open..].find('}').map(|k| k + open) else {
            break;
        };
        let name = &line[open + 1..close];
        if !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        {
            return Some(name.to_string());
        }
    }
    None
}
