//! The connection a store holds, SQLite or PostgreSQL, and the queries and checks every store operation shares.

use super::*;

/// The connection and the store's name for messages.
pub(crate) struct Db {
    pub(crate) conn: Box<dyn Conn>,
    pub(crate) label: String,
}

impl Db {
    pub(crate) fn db_error(&self, action: &str, e: DbError) -> StoreError {
        let hint = match e.kind {
            Kind::Busy => "; another process is writing to the store: try again when it is done",
            Kind::ReadOnly => "; check that the store is writable by this user",
            Kind::Corrupt => {
                "; the database is damaged: restore it from a backup, or move it aside to \
                 start a new store"
            }
            Kind::CannotOpen => "; the connection to the store was lost: check that it is up",
            Kind::NoSchema => {
                "; the schema named by search_path does not exist: create it \
                 (CREATE SCHEMA name), or fix the URL's options=-c search_path=..."
            }
            Kind::Auth | Kind::NoDatabase | Kind::BadUrl | Kind::Tls | Kind::Other => "",
        };
        StoreError::Database {
            location: self.label.clone(),
            action: action.to_string(),
            reason: e.reason,
            hint: hint.to_string(),
        }
    }

    pub(crate) fn corrupt(&self, what: impl Into<String>, reason: impl fmt::Display) -> StoreError {
        StoreError::Corrupt {
            location: self.label.clone(),
            what: what.into(),
            reason: reason.to_string(),
        }
    }

    pub(crate) fn exec(
        &mut self,
        action: &str,
        sql: &str,
        params: &[Param<'_>],
    ) -> Result<u64, StoreError> {
        self.conn
            .execute(sql, params)
            .map_err(|e| self.db_error(action, e))
    }

    pub(crate) fn query(
        &mut self,
        action: &str,
        sql: &str,
        params: &[Param<'_>],
    ) -> Result<Vec<Row>, StoreError> {
        self.conn
            .query(sql, params)
            .map_err(|e| self.db_error(action, e))
    }

    /// Run `f` in a write transaction: committed if it returns `Ok`, rolled
    /// back otherwise (and if the commit fails).
    pub(crate) fn write<T>(
        &mut self,
        action: &str,
        f: impl FnOnce(&mut Db) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        if let Err(e) = self.conn.begin_write() {
            let _ = self.conn.rollback();
            return Err(self.db_error(action, e));
        }
        let result = f(self).and_then(|v| {
            self.conn
                .commit()
                .map(|()| v)
                .map_err(|e| self.db_error(action, e))
        });
        if result.is_err() {
            let _ = self.conn.rollback();
        }
        result
    }

    pub(crate) fn schema_version(&mut self) -> Result<u32, StoreError> {
        let rows = self.query(
            "reading the schema version",
            "SELECT COALESCE(MAX(version), 0) FROM schema_migrations",
            &[],
        )?;
        let v = one(&rows)
            .and_then(|r| r.int(0))
            .map_err(|e| self.corrupt("schema_migrations", e.0))?;
        u32::try_from(v).map_err(|_| self.corrupt("schema_migrations", format!("version {v}")))
    }

    pub(crate) fn newer(&mut self, found: u32, known: u32) -> StoreError {
        // Best effort: the dyno that wrote the newest run is likely the one
        // that upgraded the schema.
        let writer = self
            .query(
                "reading the newest run's dyno version",
                "SELECT dyno_version FROM runs ORDER BY started_at DESC, id DESC LIMIT 1",
                &[],
            )
            .ok()
            .and_then(|rows| rows.first().and_then(|r| r.text(0).ok()));
        let hint = match writer {
            Some(v) => format!(
                "use a dyno that knows schema {found} (the newest run stored was written by \
                 dyno {v}; this is dyno {}), or choose another store",
                env!("CARGO_PKG_VERSION")
            ),
            None => format!(
                "use a dyno that knows schema {found} (this is dyno {}), or choose another store",
                env!("CARGO_PKG_VERSION")
            ),
        };
        StoreError::Newer {
            location: self.label.clone(),
            found,
            known,
            hint,
        }
    }

    /// Apply the migrations the store has not had, each in its own write
    /// transaction with its `schema_migrations` row.
    pub(crate) fn migrate(&mut self, migrations: &[Migration]) -> Result<(), StoreError> {
        let known = migrations::latest(migrations);
        // An up-to-date store is opened without writing to it.
        let current = match self.schema_version() {
            Ok(v) => v,
            Err(_) => {
                self.write("creating the schema_migrations table", |db| {
                    db.conn
                        .batch(MIGRATIONS_TABLE)
                        .map_err(|e| db.db_error("creating the schema_migrations table", e))
                })?;
                self.schema_version()?
            }
        };
        if current > known {
            return Err(self.newer(current, known));
        }
        let mut pending: Vec<&Migration> =
            migrations.iter().filter(|m| m.version > current).collect();
        pending.sort_by_key(|m| m.version);
        for m in pending {
            let action = format!("upgrading the store to schema {}", m.version);
            let newer = self.write(&action, |db| {
                // Another process may have migrated since we looked.
                let now = db.schema_version()?;
                if now > known {
                    return Ok(Some(now));
                }
                if now >= m.version {
                    return Ok(None);
                }
                db.conn.batch(m.sql).map_err(|e| StoreError::Migration {
                    location: db.label.clone(),
                    version: m.version,
                    description: m.description.to_string(),
                    reason: e.reason,
                })?;
                db.exec(
                    &action,
                    "INSERT INTO schema_migrations (version, description, applied_at) \
                     VALUES ($1, $2, $3)",
                    &[
                        Param::Int(m.version.into()),
                        m.description.into(),
                        dyno_format::time::now_rfc3339().as_str().into(),
                    ],
                )?;
                Ok(None)
            })?;
            if let Some(found) = newer {
                return Err(self.newer(found, known));
            }
        }
        Ok(())
    }

    pub(crate) fn parse_run(&self, what: &str, json: &str) -> Result<Run, StoreError> {
        Run::parse(json, Path::new(what)).map_err(|e| self.corrupt(what, e))
    }
}

/// The only row of a one-row query.
pub(crate) fn one(rows: &[Row]) -> Result<&Row, Mismatch> {
    match rows {
        [r] => Ok(r),
        _ => Err(Mismatch(format!(
            "{} rows where one was expected",
            rows.len()
        ))),
    }
}

pub(crate) fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

pub(crate) fn verification(s: VerificationStatus) -> &'static str {
    match s {
        VerificationStatus::Passed => "passed",
        VerificationStatus::Failed => "failed",
        VerificationStatus::NotRun => "not-run",
    }
}

/// A run as stored: compact JSON.
pub(crate) fn run_json(run: &Run, what: &str) -> Result<String, StoreError> {
    serde_json::to_string(run).map_err(|e| StoreError::Invalid {
        what: what.to_string(),
        reason: format!("cannot be written as JSON: {e}"),
    })
}

/// Load-lab result count and run id from a run's JSON, for rows written
/// before schema 2 recorded them.
pub(crate) fn json_facts(json: &str) -> Result<(usize, usize, String), String> {
    let v: serde_json::Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let len = |k: &str| v.get(k).and_then(|a| a.as_array()).map_or(0, Vec::len);
    let id = v
        .pointer("/run/id")
        .and_then(|s| s.as_str())
        .ok_or("no run.id")?
        .to_string();
    Ok((len("results"), len("load"), id))
}

/// Up to `n` bytes from the start of a file, if it exists and can be read.
pub(crate) fn first_bytes(path: &std::path::Path, n: u64) -> Option<Vec<u8>> {
    use std::io::Read as _;
    let mut head = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(n)
        .read_to_end(&mut head)
        .ok()?;
    Some(head)
}
