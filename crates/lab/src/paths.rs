//! Where dyno's data lives: the specs, vectors, adapters and dev nodes of
//! the repository (or of the folder dyno runs in), and the cache that
//! `dyno setup` installs into.

use std::path::{Path, PathBuf};

/// A data folder: the flag, else `./NAME` if present, else the repository
/// folder dyno was built from.
pub fn data_dir(flag: Option<&Path>, name: &str) -> PathBuf {
    if let Some(p) = flag {
        return p.to_path_buf();
    }
    let here = PathBuf::from(name);
    if here.is_dir() {
        return here;
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(name)
}

/// The adapters' sources: `$DYNO_ADAPTERS`, else `./adapters`, else the
/// repository's.
pub fn adapters_root() -> PathBuf {
    data_dir(
        std::env::var_os("DYNO_ADAPTERS")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .as_deref(),
        "adapters",
    )
}

/// The dev nodes' set-up: `$DYNO_NODES`, else `./nodes`, else the
/// repository's.
pub fn nodes_root() -> PathBuf {
    data_dir(
        std::env::var_os("DYNO_NODES")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .as_deref(),
        "nodes",
    )
}

/// Where `dyno setup` installs workers and nodes: `$DYNO_CACHE`, else
/// `$XDG_CACHE_HOME/dyno`, else `~/.cache/dyno`.
pub fn cache_dir() -> PathBuf {
    dyno_node::cache_dir()
}
