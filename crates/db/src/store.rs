//! One interface over every engine, and loading the data set into one.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::dataset::{self, LOAD_BATCH, VERSION};

/// Turns `engine`'s own error, met while doing `what`, into a [`DbError`]:
/// `store.get(k).map_err(engine_error("redb", "get"))`.
pub fn engine_error<E: std::fmt::Display>(
    engine: &'static str,
    what: &'static str,
) -> impl FnOnce(E) -> DbError {
    move |e| DbError::Engine {
        engine,
        what,
        reason: e.to_string(),
    }
}

/// What went wrong in an engine or on disk.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The engine reported an error.
    #[error("{engine}: {what}: {reason}")]
    Engine {
        /// The engine's name.
        engine: &'static str,
        /// What dyno asked it to do.
        what: &'static str,
        /// The engine's message.
        reason: String,
    },
    /// A file or folder could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A key of the data set is missing: the database is damaged or was
    /// changed by something other than dyno.
    #[error("{engine}: key {key} of the data set is missing (delete {} to reload it)", dir.display())]
    Missing {
        /// The engine's name.
        engine: &'static str,
        /// The key, hex.
        key: String,
        /// The database's folder.
        dir: PathBuf,
    },
}

/// An open database of one engine. Reads copy the value into a buffer the
/// caller reuses, so no engine pays for an allocation another avoids.
pub trait Store {
    /// Read `key` into `out` (cleared first); false if it is absent.
    fn get(&self, key: &[u8], out: &mut Vec<u8>) -> Result<bool, DbError>;

    /// Write one pair, committed (no fsync: see `docs/db.md`).
    fn put(&self, key: &[u8], value: &[u8]) -> Result<(), DbError>;

    /// Read `keys` in one call or read transaction, appending each value to
    /// `out` (cleared first) in order; returns how many were found.
    fn get_many(&self, keys: &[[u8; 32]], out: &mut Vec<u8>) -> Result<usize, DbError>;

    /// Write `keys[k]` → `values[k]` in one batch or transaction, committed.
    fn put_many(&self, keys: &[[u8; 32]], values: &[Vec<u8>]) -> Result<(), DbError>;

    /// Visit up to `limit` pairs in key order from the first key ≥ `from`;
    /// returns how many were visited.
    fn scan(
        &self,
        from: &[u8],
        limit: usize,
        visit: &mut dyn FnMut(&[u8], &[u8]),
    ) -> Result<usize, DbError>;

    /// After the load: compact (where the engine does that) and make every
    /// write durable.
    fn settle(&self) -> Result<(), DbError>;
}

/// How an engine is opened, and what it is.
#[derive(Debug, Clone, Copy)]
pub struct Engine {
    /// Its implementation name in ids' results: `rocksdb`.
    pub name: &'static str,
    /// The Rust crate's version (checked against `Cargo.lock`).
    pub version: &'static str,
    /// The library underneath, with its own version.
    pub library: &'static str,
    /// The durability setting, in words.
    pub durability: &'static str,
    /// The other settings that shape its speed.
    pub settings: &'static str,
    /// Open (creating if needed) the database in a folder; `None` when
    /// this dyno was built without the engine.
    pub open: Option<Open>,
}

/// Opens (creating if needed) an engine's database in a folder.
pub type Open = fn(&Path) -> Result<Box<dyn Store>, DbError>;

/// The marker's file name, written once the load is complete.
pub const READY: &str = "DYNO_READY";

/// Where the data sets live: `$DYNO_DB_DIR`, else `<cache>/db`.
pub fn root() -> PathBuf {
    std::env::var_os("DYNO_DB_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| dyno_workload::cache_dir().join("db"))
}

/// The folder of the data set of `n` keys under `root`.
pub fn set_dir(root: &Path, n: u64) -> PathBuf {
    root.join(format!("v{VERSION}-{n}"))
}

/// The folder of `engine`'s database of that data set.
pub fn engine_dir(root: &Path, n: u64, engine: &Engine) -> PathBuf {
    set_dir(root, n).join(format!("{}-{}", engine.name, engine.version))
}

/// The ready marker's content.
pub fn marker(n: u64, engine: &str, version: &str) -> String {
    format!("dyno-db v{VERSION} keys={n} engine={engine} version={version}")
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> DbError + '_ {
    move |source| DbError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// How the database came to be open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opened {
    /// It was ready from an earlier run.
    Reused,
    /// It was loaded now.
    Loaded,
}

/// Open `engine`'s database of the data set of `n` keys under `root`,
/// loading it first unless a complete load is there already (`docs/db.md`,
/// "Loading"). `say` hears one line before a load and one after.
pub fn open_loaded(
    engine: &Engine,
    open: Open,
    root: &Path,
    n: u64,
    say: &mut dyn FnMut(String),
) -> Result<(Box<dyn Store>, Opened), DbError> {
    let dir = engine_dir(root, n, engine);
    let data = dir.join("db");
    let ready = dir.join(READY);
    let want = marker(n, engine.name, engine.version);
    if std::fs::read_to_string(&ready).is_ok_and(|m| m == want) {
        return Ok((open(&data)?, Opened::Reused));
    }
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(io(&dir))?;
    }
    std::fs::create_dir_all(&data).map_err(io(&data))?;
    say(format!(
        "loading the db data set ({n} keys) into {} at {} (once: later runs reuse it)",
        engine.name,
        dir.display()
    ));
    let t0 = Instant::now();
    let store = open(&data)?;
    let mut start = 0;
    while start < n {
        let end = (start + LOAD_BATCH).min(n);
        let keys: Vec<[u8; 32]> = (start..end).map(dataset::key).collect();
        let values: Vec<Vec<u8>> = (start..end).map(dataset::value).collect();
        store.put_many(&keys, &values)?;
        start = end;
    }
    store.settle()?;
    let tmp = dir.join(format!("{READY}.tmp"));
    std::fs::write(&tmp, &want).map_err(io(&tmp))?;
    std::fs::rename(&tmp, &ready).map_err(io(&ready))?;
    say(format!(
        "loaded {n} keys into {} in {:.1} s ({} MB on disk)",
        engine.name,
        t0.elapsed().as_secs_f64(),
        du(&data) / 1_000_000
    ));
    Ok((store, Opened::Loaded))
}

/// Bytes of the files under `dir`.
pub fn du(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => du(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}
