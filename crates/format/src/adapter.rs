//! Where the adapters of a run came from: each adapter folder whose worker
//! measured in it, with its own version and a digest of its sources, so a
//! result of an external adapter (`dyno run --adapter DIR`) can be traced
//! to the code that produced it.

use serde::{Deserialize, Serialize};

/// One adapter that measured in a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdapterRecord {
    /// Its name, the folder's (`go`, `scala-adapter`); the `runtime` of
    /// its results.
    pub name: String,
    /// True for a folder given with `--adapter` or `DYNO_ADAPTERS`.
    pub external: bool,
    /// Its folder: `adapters/<name>` for dyno's own, the absolute path of
    /// an external one.
    pub dir: String,
    /// What the worker says it is (`hello`'s `adapter`), e.g.
    /// `dyno-adapter-go 0.1.0`.
    pub adapter: String,
    /// Its runtime and version (`hello`'s `runtime`), e.g. `go go1.26.8`.
    pub runtime: String,
    /// The protocol version it spoke.
    pub protocol: u32,
    /// SHA-256 of its sources (and of the folders its `shared` file
    /// lists), as `dyno setup` records it; null if they could not be read.
    pub source_digest: Option<String>,
    /// True if the sources changed after `dyno setup` installed the
    /// worker that measured.
    pub stale: bool,
    /// The implementations it measured in this run.
    pub implementations: Vec<String>,
}
