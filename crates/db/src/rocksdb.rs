//! RocksDB through the `rocksdb` crate (RocksDB's C++ built from source).
//!
//! Writes go through the WAL without an fsync (`set_sync(false)`), as
//! go-ethereum and Besu write; the load ends with a full compaction, a
//! memtable flush and a synced WAL.

use std::path::Path;

use rocksdb::{BlockBasedOptions, Cache, DB, DBCompressionType, Options, WriteBatch, WriteOptions};

use crate::store::{DbError, Engine, Store};

/// The `rocksdb` crate version dyno links (checked against `Cargo.lock`).
pub const VERSION: &str = "0.25.0";

/// The engine.
pub const ENGINE: Engine = Engine {
    name: "rocksdb",
    version: VERSION,
    library: "librocksdb-sys 0.19.0+11.8.1 (RocksDB 11.8.1)",
    durability: "WAL on, WriteOptions::set_sync(false) (no fsync per commit)",
    settings: "block cache 256 MiB (LRU), bloom filter 10 bits/key, compression none, max_background_jobs 2, otherwise defaults",
    open: Some(open),
};

fn err(what: &'static str) -> impl FnOnce(rocksdb::Error) -> DbError {
    crate::store::engine_error("rocksdb", what)
}

/// An open RocksDB database.
pub struct Rocks {
    db: DB,
    write: WriteOptions,
}

impl std::fmt::Debug for Rocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rocks")
            .field("path", &self.db.path())
            .finish()
    }
}

/// Open or create the database in `dir`.
pub fn open(dir: &Path) -> Result<Box<dyn Store>, DbError> {
    let mut table = BlockBasedOptions::default();
    table.set_block_cache(&Cache::new_lru_cache(256 << 20));
    table.set_bloom_filter(10.0, false);
    let mut opts = Options::default();
    opts.create_if_missing(true);
    opts.set_compression_type(DBCompressionType::None);
    opts.set_max_background_jobs(2);
    opts.set_block_based_table_factory(&table);
    // Named, so that `cf_handle` finds it for the batched MultiGet.
    let db = DB::open_cf(&opts, dir, [rocksdb::DEFAULT_COLUMN_FAMILY_NAME]).map_err(err("open"))?;
    let mut write = WriteOptions::default();
    write.set_sync(false);
    Ok(Box::new(Rocks { db, write }))
}

impl Store for Rocks {
    fn get(&self, key: &[u8], out: &mut Vec<u8>) -> Result<bool, DbError> {
        out.clear();
        Ok(match self.db.get_pinned(key).map_err(err("get"))? {
            Some(v) => {
                out.extend_from_slice(&v);
                true
            }
            None => false,
        })
    }

    fn put(&self, key: &[u8], value: &[u8]) -> Result<(), DbError> {
        self.db.put_opt(key, value, &self.write).map_err(err("put"))
    }

    fn get_many(&self, keys: &[[u8; 32]], out: &mut Vec<u8>) -> Result<usize, DbError> {
        out.clear();
        let cf = self
            .db
            .cf_handle(rocksdb::DEFAULT_COLUMN_FAMILY_NAME)
            .ok_or_else(|| DbError::Engine {
                engine: "rocksdb",
                what: "get_many",
                reason: "no default column family".into(),
            })?;
        let mut found = 0;
        for v in self.db.batched_multi_get_cf(cf, keys, false) {
            if let Some(v) = v.map_err(err("get_many"))? {
                out.extend_from_slice(&v);
                found += 1;
            }
        }
        Ok(found)
    }

    fn put_many(&self, keys: &[[u8; 32]], values: &[Vec<u8>]) -> Result<(), DbError> {
        let mut batch = WriteBatch::default();
        for (k, v) in keys.iter().zip(values) {
            batch.put(k, v);
        }
        self.db
            .write_opt(batch, &self.write)
            .map_err(err("put_many"))
    }

    fn scan(
        &self,
        from: &[u8],
        limit: usize,
        visit: &mut dyn FnMut(&[u8], &[u8]),
    ) -> Result<usize, DbError> {
        let mut it = self.db.raw_iterator();
        it.seek(from);
        let mut n = 0;
        while n < limit && it.valid() {
            if let (Some(k), Some(v)) = (it.key(), it.value()) {
                visit(k, v);
            }
            n += 1;
            it.next();
        }
        it.status().map_err(err("scan"))?;
        Ok(n)
    }

    fn settle(&self) -> Result<(), DbError> {
        self.db.flush().map_err(err("flush"))?;
        self.db.compact_range(None::<&[u8]>, None::<&[u8]>);
        self.db.flush_wal(true).map_err(err("flush_wal"))
    }
}
