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
    from_env("DYNO_ADAPTERS", "adapters")
}

/// The dev nodes' set-up: `$DYNO_NODES`, else `./nodes`, else the
/// repository's.
pub fn nodes_root() -> PathBuf {
    from_env("DYNO_NODES", "nodes")
}

/// [`data_dir`] with the variable `var` as the flag (empty is unset).
fn from_env(var: &str, name: &str) -> PathBuf {
    let set = std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    data_dir(set.as_deref(), name)
}

/// Where `dyno setup` installs workers and nodes: `$DYNO_CACHE`, else
/// `$XDG_CACHE_HOME/dyno`, else `~/.cache/dyno`.
pub fn cache_dir() -> PathBuf {
    dyno_node::cache_dir()
}
