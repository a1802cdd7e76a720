//! The state in MDBX (the `libmdbx` crate, libmdbx's C built from source),
//! the engine reth and Erigon keep their state in: one table, the flat
//! layout of [`crate::layout`], opened as the db suite opens MDBX
//! (`SafeNoSync`, no write map; the OS page cache is its only cache), with
//! readahead off as reth and Erigon open theirs.

use std::borrow::Cow;
use std::path::Path;

use libmdbx::{
    Database, DatabaseOptions, Mode, NoWriteMap, RO, ReadWriteOptions, SyncMode, Table,
    Transaction, WriteFlags,
};

use crate::store::{Reader, StateError, StateStore};

/// The engine's name in results.
pub const NAME: &str = "mdbx";
/// What it is, recorded with every result.
pub const LIBRARY: &str = "libmdbx 0.9.0 over mdbx-sys 14.4.0 (libmdbx C 0.14), one table, \
                           SafeNoSync, no write map, readahead off, the OS page cache its only cache";

fn err(what: &'static str) -> impl FnOnce(libmdbx::Error) -> StateError {
    move |e| dyno_db::store::engine_error(NAME, what)(e).into()
}

/// An open MDBX environment holding a state.
#[derive(Debug)]
pub struct Mdbx {
    db: Database<NoWriteMap>,
}

/// Open (creating if needed) the environment in `dir`.
pub fn open(dir: &Path) -> Result<Box<dyn StateStore>, StateError> {
    let options = DatabaseOptions {
        mode: Mode::ReadWrite(ReadWriteOptions {
            sync_mode: SyncMode::SafeNoSync,
            min_size: None,
            max_size: Some(256 << 30),
            growth_step: Some(256 << 20),
            shrink_threshold: None,
        }),
        // Hashed keys have no locality: readahead would fill memory with
        // pages no read wants (reth and Erigon turn it off too), and would
        // refill an evicted state at open.
        no_rdahead: true,
        ..Default::default()
    };
    let db = Database::open_with_options(dir, options).map_err(err("open"))?;
    Ok(Box::new(Mdbx { db }))
}

/// A read transaction: every read of one timed transaction goes through
/// one, as a client reads a block's state through one.
struct View<'t> {
    txn: &'t Transaction<'t, RO, NoWriteMap>,
    table: &'t Table<'t>,
}

impl Reader for View<'_> {
    fn read(&self, key: &[u8], out: &mut Vec<u8>) -> Result<bool, StateError> {
        out.clear();
        match self
            .txn
            .get::<Cow<'_, [u8]>>(self.table, key)
            .map_err(err("get"))?
        {
            Some(v) => {
                out.extend_from_slice(&v);
                Ok(true)
            }
            None => Ok(false),
        }
    }
}

impl StateStore for Mdbx {
    fn write(&self, pairs: &[(Vec<u8>, Vec<u8>)]) -> Result<(), StateError> {
        let txn = self.db.begin_rw_txn().map_err(err("begin write"))?;
        let table = txn
            .create_table(None, Default::default())
            .map_err(err("create table"))?;
        for (k, v) in pairs {
            txn.put(&table, k, v, WriteFlags::UPSERT)
                .map_err(err("put"))?;
        }
        txn.commit().map_err(err("commit"))?;
        Ok(())
    }

    fn settle(&self) -> Result<(), StateError> {
        self.db.sync(true).map(|_| ()).map_err(err("sync"))
    }

    fn scan(&self, visit: &mut dyn FnMut(&[u8], &[u8]) -> bool) -> Result<(), StateError> {
        let txn = self.db.begin_ro_txn().map_err(err("begin read"))?;
        let table = txn.open_table(None).map_err(err("open table"))?;
        let mut cursor = txn.cursor(&table).map_err(err("cursor"))?;
        for pair in cursor.iter_start::<Cow<'_, [u8]>, Cow<'_, [u8]>>() {
            let (k, v) = pair.map_err(err("scan"))?;
            if !visit(&k, &v) {
                break;
            }
        }
        Ok(())
    }

    fn read_with(&self, f: &mut dyn FnMut(&dyn Reader)) -> Result<(), StateError> {
        let txn = self.db.begin_ro_txn().map_err(err("begin read"))?;
        let table = txn.open_table(None).map_err(err("open table"))?;
        f(&View {
            txn: &txn,
            table: &table,
        });
        Ok(())
    }
}
