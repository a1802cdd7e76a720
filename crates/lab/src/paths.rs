//! Where dyno's data lives: the specs, vectors, adapters and dev nodes of
//! the repository (or of the folder dyno runs in), the cache that `dyno
//! setup` installs into, and the history: one [`Paths`] value, resolved
//! once from the flags and the environment.

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

/// A folder of scripts dyno runs (the adapters' and the nodes' `setup`,
/// `test` and `run`): the variable, else the repository folder dyno was
/// built from. Never the current folder: `dyno setup geth` in a folder
/// someone else filled would run that folder's `nodes/geth/setup`.
pub fn script_dir(var: Option<&Path>, name: &str) -> PathBuf {
    match var {
        Some(p) => p.to_path_buf(),
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(name),
    }
}

/// Every place a session reads from or saves to, resolved once (by the
/// binary, from its flags and the environment) and passed down.
#[derive(Debug, Clone)]
pub struct Paths {
    /// Benchmark specs (`*.toml`), the gas schedules and the load mixes.
    pub specs: PathBuf,
    /// Test vectors.
    pub vectors: PathBuf,
    /// Compiled contracts: `$DYNO_CONTRACTS`, else `contracts/build`.
    pub contracts: PathBuf,
    /// dyno's own adapters' sources: `$DYNO_ADAPTER_ROOT`, else the
    /// repository's (never `./adapters`: see [`script_dir`]).
    pub adapters: PathBuf,
    /// Adapter folders that live anywhere: `--adapter DIR` (each), then
    /// `$DYNO_ADAPTERS` (a path list, `:`-separated).
    pub external: Vec<PathBuf>,
    /// The dev nodes' set-up: `$DYNO_NODES`, else the repository's (never
    /// `./nodes`).
    pub nodes: PathBuf,
    /// Where `dyno setup` installs workers and nodes: `$DYNO_CACHE`, else
    /// `$XDG_CACHE_HOME/dyno`, else `~/.cache/dyno`.
    pub cache: PathBuf,
    /// The run history as given (`--store`, `$DYNO_STORE`): a SQLite path
    /// or a `postgres://` URL; `None` for the default file. Parsed when a
    /// command first uses it, so a command that does not is not refused.
    pub store: Option<String>,
    /// Runs are not saved to the history.
    pub no_store: bool,
}

/// The flags behind [`Paths`], as given (`None` when not).
#[derive(Debug, Clone, Default)]
pub struct Flags {
    pub specs: Option<PathBuf>,
    pub vectors: Option<PathBuf>,
    pub store: Option<String>,
    pub no_store: bool,
    /// `--adapter DIR`, each.
    pub adapters: Vec<PathBuf>,
}

/// The environment variables behind [`Flags`].
pub const ENV_SPECS: &str = "DYNO_SPECS";
pub const ENV_VECTORS: &str = "DYNO_VECTORS";
pub const ENV_STORE: &str = "DYNO_STORE";
pub const ENV_NO_STORE: &str = "DYNO_NO_STORE";
pub const ENV_ADAPTERS: &str = "DYNO_ADAPTERS";

impl Paths {
    /// From the flags, each unset one filled from its environment variable
    /// (`var` reads it), else `./NAME`, else the repository's folder. A
    /// flag wins over its variable; an empty variable counts as unset, for
    /// every variable alike; a malformed one is an error that names the
    /// variable, not the flag.
    pub fn from_flags(
        flags: Flags,
        var: impl Fn(&str) -> Option<std::ffi::OsString>,
    ) -> crate::Result<Self> {
        let set = |name: &str| var(name).filter(|v| !v.is_empty());
        let specs = flags.specs.or_else(|| set(ENV_SPECS).map(PathBuf::from));
        let vectors = flags
            .vectors
            .or_else(|| set(ENV_VECTORS).map(PathBuf::from));
        let store = match flags.store {
            Some(s) => Some(s),
            None => match set(ENV_STORE) {
                Some(v) => Some(v.into_string().map_err(|_| {
                    crate::Error::Refused(format!(
                        "{ENV_STORE}: not valid UTF-8; give a path or a postgres:// URL"
                    ))
                })?),
                None => None,
            },
        };
        let mut no_store = flags.no_store;
        if !no_store && let Some(v) = set(ENV_NO_STORE) {
            let text = v.to_string_lossy().trim().to_ascii_lowercase();
            no_store = match text.as_str() {
                "1" | "true" | "yes" | "on" | "y" => true,
                "0" | "false" | "no" | "off" | "n" => false,
                _ => crate::refuse!(
                    "{ENV_NO_STORE}={:?}: not a yes or no; use 1/0, true/false, yes/no or \
                     on/off, or unset it",
                    v.to_string_lossy()
                ),
            };
        }
        Ok(Self {
            specs: data_dir(specs.as_deref(), "specs"),
            vectors: data_dir(vectors.as_deref(), "vectors"),
            contracts: set("DYNO_CONTRACTS")
                .map_or_else(|| data_dir(None, "contracts").join("build"), PathBuf::from),
            adapters: script_dir(
                set("DYNO_ADAPTER_ROOT").map(PathBuf::from).as_deref(),
                "adapters",
            ),
            external: flags
                .adapters
                .into_iter()
                .chain(set(ENV_ADAPTERS).iter().flat_map(std::env::split_paths))
                .filter(|p| !p.as_os_str().is_empty())
                .collect(),
            nodes: script_dir(set("DYNO_NODES").map(PathBuf::from).as_deref(), "nodes"),
            cache: dyno_node::cache_dir(),
            store,
            no_store,
        })
    }

    /// Where the suites find their vectors.
    pub fn ctx(&self) -> dyno_workload::Ctx {
        dyno_workload::Ctx {
            vectors: self.vectors.clone(),
        }
    }
}

/// What built the running binary, recorded in every run.
#[derive(Debug, Clone, Copy)]
pub struct Build {
    /// `rustc --version` of the compiler.
    pub rustc: &'static str,
    /// dyno's own version.
    pub version: &'static str,
    /// The git commit, `-dirty` when the tree had changes.
    pub git_commit: Option<&'static str>,
}

impl Build {
    /// The invocation a new run records: the command line with its
    /// secrets masked, and this build.
    pub fn invocation(&self) -> dyno_runner::Invocation {
        dyno_runner::Invocation {
            command_line: dyno_format::redact::command_line(std::env::args()),
            dyno_version: self.version.into(),
            git_commit: self.git_commit.map(String::from),
        }
    }
}

/// A session's surroundings: where data lives, and what built dyno.
#[derive(Debug, Clone)]
pub struct Lab {
    pub paths: Paths,
    pub build: Build,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(flags: Flags, env: &[(&str, &str)]) -> crate::Result<Paths> {
        Paths::from_flags(flags, |name| {
            env.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| std::ffi::OsString::from(v))
        })
    }

    #[test]
    fn empty_variables_are_unset_and_bad_ones_are_named() {
        let empty = [
            (ENV_SPECS, ""),
            (ENV_VECTORS, ""),
            (ENV_STORE, ""),
            (ENV_NO_STORE, ""),
        ];
        let p = from(Flags::default(), &empty).unwrap();
        assert_eq!(p.specs, data_dir(None, "specs"));
        assert_eq!(p.vectors, data_dir(None, "vectors"));
        assert_eq!((p.store, p.no_store), (None, false));
        let set = [
            (ENV_SPECS, "s"),
            (ENV_VECTORS, "v"),
            (ENV_STORE, "h.sqlite"),
            (ENV_NO_STORE, "yes"),
        ];
        let p = from(Flags::default(), &set).unwrap();
        assert_eq!(p.specs, PathBuf::from("s"));
        assert_eq!(p.vectors, PathBuf::from("v"));
        assert_eq!(p.store.as_deref(), Some("h.sqlite"));
        assert!(p.no_store);
        // A flag wins over its variable.
        let flags = Flags {
            specs: Some("flag".into()),
            ..Flags::default()
        };
        assert_eq!(from(flags, &set).unwrap().specs, PathBuf::from("flag"));
        let e = from(Flags::default(), &[(ENV_NO_STORE, "maybe")])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("DYNO_NO_STORE=\"maybe\""), "{e}");
        assert!(!e.contains("--no-store"), "{e}");
    }

    #[test]
    fn external_adapters_come_from_each_flag_then_the_path_list() {
        let external = |flags, env: &[(&str, &str)]| from(flags, env).unwrap().external;
        assert!(external(Flags::default(), &[]).is_empty());
        assert!(external(Flags::default(), &[(ENV_ADAPTERS, "")]).is_empty());
        let flags = Flags {
            adapters: vec!["flag-a".into(), "flag-b".into()],
            ..Flags::default()
        };
        assert_eq!(
            external(flags, &[(ENV_ADAPTERS, "/x/env-a::env-b")]),
            [
                PathBuf::from("flag-a"),
                "flag-b".into(),
                "/x/env-a".into(),
                "env-b".into()
            ]
        );
    }
}
