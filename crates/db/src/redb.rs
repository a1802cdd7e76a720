//! redb: a pure-Rust copy-on-write B-tree.
//!
//! Every commit uses `Durability::None` (no fsync; a later durable commit
//! persists them), and the database commits once with
//! `Durability::Immediate` after the load and when it is closed.

use std::path::Path;

use redb::{Database, Durability, ReadableDatabase, TableDefinition};

use crate::store::{DbError, Engine, Store};

/// The redb version dyno links (checked against `Cargo.lock`).
pub const VERSION: &str = "4.6.0";

/// The one table.
const TABLE: TableDefinition<'static, &[u8], &[u8]> = TableDefinition::new("kv");

/// The cache redb keeps (the same size as every other engine's).
const CACHE_BYTES: usize = 256 << 20;

/// The engine.
pub const ENGINE: Engine = Engine {
    name: "redb",
    version: VERSION,
    library: "redb 4.6.0 (pure Rust)",
    durability: "Durability::None per commit (no fsync); one Immediate commit after the load and on close",
    settings: "cache 256 MiB, one table, otherwise defaults",
    open: Some(open),
};

fn err(what: &'static str) -> impl FnOnce(redb::Error) -> DbError {
    crate::store::engine_error("redb", what)
}

/// An open redb database.
#[derive(Debug)]
pub struct Redb {
    db: Database,
}

/// Open or create the database file `dir/redb.db`.
pub fn open(dir: &Path) -> Result<Box<dyn Store>, DbError> {
    let db = Database::builder()
        .set_cache_size(CACHE_BYTES)
        .create(dir.join("redb.db"))
        .map_err(|e| err("open")(e.into()))?;
    let store = Redb { db };
    // The table exists from the first write on.
    store.commit(Durability::Immediate, |_| Ok(()))?;
    Ok(Box::new(store))
}

impl Redb {
    fn commit(
        &self,
        durability: Durability,
        write: impl FnOnce(
            &mut redb::Table<'_, &'static [u8], &'static [u8]>,
        ) -> Result<(), redb::Error>,
    ) -> Result<(), DbError> {
        let run = || -> Result<(), redb::Error> {
            let mut txn = self.db.begin_write()?;
            txn.set_durability(durability)?;
            {
                let mut table = txn.open_table(TABLE)?;
                write(&mut table)?;
            }
            txn.commit()?;
            Ok(())
        };
        run().map_err(err("write"))
    }
}

impl Store for Redb {
    fn get(&self, key: &[u8], out: &mut Vec<u8>) -> Result<bool, DbError> {
        let mut read = || -> Result<bool, redb::Error> {
            let txn = self.db.begin_read()?;
            let table = txn.open_table(TABLE)?;
            out.clear();
            Ok(match table.get(key)? {
                Some(v) => {
                    out.extend_from_slice(v.value());
                    true
                }
                None => false,
            })
        };
        read().map_err(err("get"))
    }

    fn put(&self, key: &[u8], value: &[u8]) -> Result<(), DbError> {
        self.commit(Durability::None, |t| {
            t.insert(key, value)?;
            Ok(())
        })
    }

    fn get_many(&self, keys: &[[u8; 32]], out: &mut Vec<u8>) -> Result<usize, DbError> {
        let mut read = || -> Result<usize, redb::Error> {
            let txn = self.db.begin_read()?;
            let table = txn.open_table(TABLE)?;
            out.clear();
            let mut found = 0;
            for k in keys {
                if let Some(v) = table.get(k.as_slice())? {
                    out.extend_from_slice(v.value());
                    found += 1;
                }
            }
            Ok(found)
        };
        read().map_err(err("get_many"))
    }

    fn put_many(&self, keys: &[[u8; 32]], values: &[Vec<u8>]) -> Result<(), DbError> {
        self.commit(Durability::None, |t| {
            for (k, v) in keys.iter().zip(values) {
                t.insert(k.as_slice(), v.as_slice())?;
            }
            Ok(())
        })
    }

    fn scan(
        &self,
        from: &[u8],
        limit: usize,
        visit: &mut dyn FnMut(&[u8], &[u8]),
    ) -> Result<usize, DbError> {
        let mut read = || -> Result<usize, redb::Error> {
            let txn = self.db.begin_read()?;
            let table = txn.open_table(TABLE)?;
            let mut n = 0;
            for pair in table.range(from..)?.take(limit) {
                let (k, v) = pair?;
                visit(k.value(), v.value());
                n += 1;
            }
            Ok(n)
        };
        read().map_err(err("scan"))
    }

    fn settle(&self) -> Result<(), DbError> {
        self.commit(Durability::Immediate, |_| Ok(()))
    }
}

impl Drop for Redb {
    fn drop(&mut self) {
        // Persist the benchmarks' non-durable commits, so the next open
        // needs no repair. (Their content equals what was there.)
        let _ = self.settle();
    }
}
