//! MDBX through the `libmdbx` crate (libmdbx's C built from source), the
//! engine reth and Erigon keep their state in.
//!
//! Commits are `SyncMode::SafeNoSync` (no fsync per commit; the last
//! steady commit survives a crash), and the load ends with a forced sync.

use std::borrow::Cow;
use std::path::Path;

use libmdbx::{
    Database, DatabaseOptions, Mode, NoWriteMap, ReadWriteOptions, SyncMode, WriteFlags,
};

use crate::store::{DbError, Engine, Store};

/// The `libmdbx` crate version dyno links (checked against `Cargo.lock`).
pub const VERSION: &str = "0.9.0";

/// The engine.
pub const ENGINE: Engine = Engine {
    name: "mdbx",
    version: VERSION,
    library: "libmdbx 0.9.0 over mdbx-sys 14.4.0 (libmdbx C 0.14)",
    durability: "SyncMode::SafeNoSync (no fsync per commit); a forced sync after the load",
    settings: "no write map, map grows in 256 MiB steps up to 64 GiB, otherwise defaults (the OS page cache is its cache)",
    open: Some(open),
};

fn err(what: &'static str) -> impl FnOnce(libmdbx::Error) -> DbError {
    crate::store::engine_error("mdbx", what)
}

/// An open MDBX environment.
#[derive(Debug)]
pub struct Mdbx {
    db: Database<NoWriteMap>,
}

/// Open or create the environment in `dir`.
pub fn open(dir: &Path) -> Result<Box<dyn Store>, DbError> {
    let options = DatabaseOptions {
        mode: Mode::ReadWrite(ReadWriteOptions {
            sync_mode: SyncMode::SafeNoSync,
            min_size: None,
            max_size: Some(64 << 30),
            growth_step: Some(256 << 20),
            shrink_threshold: None,
        }),
        ..Default::default()
    };
    let db = Database::open_with_options(dir, options).map_err(err("open"))?;
    Ok(Box::new(Mdbx { db }))
}

impl Mdbx {
    fn write(&self, pairs: &mut dyn Iterator<Item = (&[u8], &[u8])>) -> Result<(), libmdbx::Error> {
        let txn = self.db.begin_rw_txn()?;
        let table = txn.create_table(None, Default::default())?;
        for (k, v) in pairs {
            txn.put(&table, k, v, WriteFlags::UPSERT)?;
        }
        txn.commit()?;
        Ok(())
    }
}

impl Store for Mdbx {
    fn get(&self, key: &[u8], out: &mut Vec<u8>) -> Result<bool, DbError> {
        let mut read = || -> Result<bool, libmdbx::Error> {
            let txn = self.db.begin_ro_txn()?;
            let table = txn.open_table(None)?;
            out.clear();
            Ok(match txn.get::<Cow<'_, [u8]>>(&table, key)? {
                Some(v) => {
                    out.extend_from_slice(&v);
                    true
                }
                None => false,
            })
        };
        read().map_err(err("get"))
    }

    fn put(&self, key: &[u8], value: &[u8]) -> Result<(), DbError> {
        self.write(&mut std::iter::once((key, value)))
            .map_err(err("put"))
    }

    fn get_many(&self, keys: &[[u8; 32]], out: &mut Vec<u8>) -> Result<usize, DbError> {
        let mut read = || -> Result<usize, libmdbx::Error> {
            let txn = self.db.begin_ro_txn()?;
            let table = txn.open_table(None)?;
            out.clear();
            let mut found = 0;
            for k in keys {
                if let Some(v) = txn.get::<Cow<'_, [u8]>>(&table, k)? {
                    out.extend_from_slice(&v);
                    found += 1;
                }
            }
            Ok(found)
        };
        read().map_err(err("get_many"))
    }

    fn put_many(&self, keys: &[[u8; 32]], values: &[Vec<u8>]) -> Result<(), DbError> {
        let mut pairs = keys
            .iter()
            .zip(values)
            .map(|(k, v)| (k.as_slice(), v.as_slice()));
        self.write(&mut pairs).map_err(err("put_many"))
    }

    fn scan(
        &self,
        from: &[u8],
        limit: usize,
        visit: &mut dyn FnMut(&[u8], &[u8]),
    ) -> Result<usize, DbError> {
        let mut read = || -> Result<usize, libmdbx::Error> {
            let txn = self.db.begin_ro_txn()?;
            let table = txn.open_table(None)?;
            let mut cursor = txn.cursor(&table)?;
            let mut n = 0;
            let mut pair = cursor.set_range::<Cow<'_, [u8]>, Cow<'_, [u8]>>(from)?;
            while let Some((k, v)) = pair {
                if n == limit {
                    break;
                }
                visit(&k, &v);
                n += 1;
                pair = cursor.next()?;
            }
            Ok(n)
        };
        read().map_err(err("scan"))
    }

    fn settle(&self) -> Result<(), DbError> {
        self.db.sync(true).map(|_| ()).map_err(err("sync"))
    }
}
