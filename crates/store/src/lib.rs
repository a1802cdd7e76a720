//! dyno's run history and baselines, in a database.
//!
//! A [`Store`] keeps every saved [`Run`] (its full JSON, plus one row per
//! result with the percentiles, so history queries need not read the JSON)
//! and every version of every named [`Baseline`]. It lives in a SQLite file
//! ([`Location::Sqlite`], the default: see [`Location::default_location`])
//! or a PostgreSQL database ([`Location::Postgres`]), with the same schema,
//! versioned by the [`migrations`] applied when the store is opened.
//!
//! SQLite stores run in write-ahead-log mode with full sync: a crash or
//! `kill -9` in the middle of a save leaves the store readable, with every
//! earlier save intact and the interrupted one either whole or absent.
//! PostgreSQL connections are unencrypted (TLS is not supported yet): use a
//! server on this machine, or reach one through a tunnel.
//!
//! ```no_run
//! # fn main() -> Result<(), dyno_store::StoreError> {
//! use dyno_store::{Location, Store};
//! let mut store = Store::open(&Location::default_location()?)?;
//! for row in store.runs(10)? {
//!     println!("{} {} {}", row.started_at, row.id, row.command);
//! }
//! # Ok(())
//! # }
//! ```

use std::collections::HashSet;
use std::fmt;
use std::path::Path;

use dyno_format::baseline::{BASELINE_FORMAT, Baseline, BaselineVersion};
use dyno_format::{Run, VerificationStatus};

mod backend;
mod db;
mod error;
mod history;
mod location;
pub mod migrations;
mod pg;
mod sqlite;

use backend::{Conn, DbError, Kind, Mismatch, Param, Row};
use db::*;
pub use error::StoreError;
pub use location::Location;
use migrations::{MIGRATIONS, MIGRATIONS_TABLE, Migration};

pub use dyno_format::history::{BaselineRow, HistoryPoint, RunRow};

/// An open store: a SQLite file or a PostgreSQL connection, migrated to the
/// schema this dyno knows.
pub struct Store {
    location: Location,
    db: Db,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

impl Store {
    /// Open the store at `loc`, creating it (and a SQLite file's folder) if
    /// needed, and apply the migrations it has not had. A store whose
    /// schema is newer than this dyno knows is refused.
    pub fn open(loc: &Location) -> Result<Store, StoreError> {
        Self::open_with_migrations(loc, MIGRATIONS)
    }

    /// [`Store::open`] for a command that only reads: a SQLite file that
    /// does not exist is [`StoreError::Missing`], not created.
    pub fn open_existing(loc: &Location) -> Result<Store, StoreError> {
        if let Location::Sqlite(path) = loc
            && !path.as_os_str().is_empty()
            && !path.exists()
        {
            return Err(StoreError::Missing { path: path.clone() });
        }
        Self::open(loc)
    }

    /// [`Store::open`] with another migration list than
    /// [`migrations::MIGRATIONS`]: a prefix of it, to make a store at an
    /// older schema, or a test's own. The store's queries expect the full
    /// list, so use this only to test migrations.
    pub fn open_with_migrations(
        loc: &Location,
        migrations: &[Migration],
    ) -> Result<Store, StoreError> {
        let label = loc.to_string();
        let open_error = |e: DbError| {
            let hint = open_hint(loc, e.kind);
            StoreError::Open {
                location: label.clone(),
                reason: e.reason,
                hint,
            }
        };
        let conn: Box<dyn Conn> = match loc {
            Location::Sqlite(path) => {
                if path.as_os_str().is_empty() {
                    return Err(StoreError::Open {
                        location: label,
                        reason: "the path is empty".into(),
                        hint: "name a SQLite file, or a postgres:// URL".into(),
                    });
                }
                if path.is_dir() {
                    return Err(StoreError::Open {
                        location: label,
                        reason: "it is a folder".into(),
                        hint: format!(
                            "name a file, e.g. {}",
                            path.join("history.sqlite").display()
                        ),
                    });
                }
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
                        path: dir.to_path_buf(),
                        source,
                    })?;
                }
                // SQLite takes a short file of anything for an empty
                // database and overwrites it; a file that is not one is
                // refused instead, whatever its size.
                if let Some(head) = first_bytes(path, 16)
                    && !head.is_empty()
                    && head != b"SQLite format 3\0"
                {
                    return Err(StoreError::Open {
                        location: label,
                        reason: "the file is not a SQLite database".into(),
                        hint: "it is left as it is: move it aside or choose another location \
                               (a new file, or an existing dyno history)"
                            .into(),
                    });
                }
                Box::new(sqlite::Sqlite::open(path).map_err(open_error)?)
            }
            Location::Postgres(url) => Box::new(pg::Postgres::connect(url).map_err(open_error)?),
        };
        let mut db = Db { conn, label };
        db.migrate(migrations)?;
        Ok(Store {
            location: loc.clone(),
            db,
        })
    }

    /// Where the store is.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// The store's schema version: the newest migration applied.
    pub fn schema_version(&mut self) -> Result<u32, StoreError> {
        self.db.schema_version()
    }

    /// Save `run`, replacing a stored run with the same id: the run's row
    /// (with its full JSON) and one row per result, in one transaction, so
    /// the store never holds half a run. A run with two results for the same
    /// (benchmark id, implementation, runtime) is refused.
    pub fn save_run(&mut self, run: &Run) -> Result<(), StoreError> {
        let info = &run.run;
        let what = format!("run {}", info.id);
        let mut seen = HashSet::new();
        for r in &run.results {
            let key = (&r.id, &r.implementation.name, &r.implementation.runtime);
            if !seen.insert(key) {
                return Err(StoreError::Invalid {
                    what,
                    reason: format!(
                        "it has two results for {} on {} ({}); a run measures each \
                         benchmark once per implementation",
                        r.id, r.implementation.name, r.implementation.runtime
                    ),
                });
            }
        }
        let json = run_json(run, &what)?;
        let env = &run.environment;
        let machine = format!("{}|{}|{}|{}", env.cpu_model, env.cores, env.arch, env.os);
        let command = dyno_format::redact::command_line(&info.command_line).join(" ");
        let action = format!("saving {what}");
        self.db.write(&action, |db| {
            let id = Param::Text(&info.id);
            db.exec(&action, "DELETE FROM results WHERE run_id = $1", &[id])?;
            db.exec(&action, "DELETE FROM runs WHERE id = $1", &[id])?;
            db.exec(
                &action,
                "INSERT INTO runs (id, started_at, finished_at, complete, git_commit, \
                 dyno_version, cpu_model, cores, machine, command, json, result_count, \
                 load_count) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
                &[
                    id,
                    info.started_at.as_str().into(),
                    info.finished_at.as_deref().into(),
                    Param::Int(info.complete.into()),
                    info.git_commit.as_deref().into(),
                    info.dyno_version.as_str().into(),
                    env.cpu_model.as_str().into(),
                    Param::Int(count(env.cores)),
                    machine.as_str().into(),
                    command.as_str().into(),
                    json.as_str().into(),
                    Param::Int(count(run.results.len())),
                    Param::Int(count(run.load.len())),
                ],
            )?;
            for r in &run.results {
                let s = r.stats.as_ref();
                let n = s.map_or(r.samples.len(), |s| s.n);
                db.exec(
                    &action,
                    "INSERT INTO results (run_id, bench_id, implementation, runtime, \
                     verification, n, p50_ns, p95_ns, p99_ns, max_ns, ci_low_ns, ci_high_ns) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
                    &[
                        id,
                        r.id.as_str().into(),
                        r.implementation.name.as_str().into(),
                        r.implementation.runtime.as_str().into(),
                        verification(r.verification.status).into(),
                        Param::Int(count(n)),
                        s.map(|s| s.p50).into(),
                        s.map(|s| s.p95).into(),
                        s.map(|s| s.p99).into(),
                        s.map(|s| s.max).into(),
                        s.map(|s| s.median_ci.lower).into(),
                        s.map(|s| s.median_ci.upper).into(),
                    ],
                )?;
            }
            Ok(())
        })
    }

    /// The stored run with this id.
    pub fn run(&mut self, id: &str) -> Result<Option<Run>, StoreError> {
        let what = format!("run {id}");
        let rows = self.db.query(
            &format!("reading {what}"),
            "SELECT json FROM runs WHERE id = $1",
            &[id.into()],
        )?;
        self.first_run(&rows, &what)
    }

    /// The newest stored run: latest `started_at`, ties broken by the
    /// greater id.
    pub fn latest_run(&mut self) -> Result<Option<Run>, StoreError> {
        let rows = self.db.query(
            "reading the latest run",
            "SELECT json, id FROM runs ORDER BY started_at DESC, id DESC LIMIT 1",
            &[],
        )?;
        let what = match rows.first().map(|r| r.text(1)) {
            Some(Ok(id)) => format!("run {id}"),
            _ => "the latest run".to_string(),
        };
        self.first_run(&rows, &what)
    }

    fn first_run(&self, rows: &[Row], what: &str) -> Result<Option<Run>, StoreError> {
        let Some(row) = rows.first() else {
            return Ok(None);
        };
        let json = row.text(0).map_err(|e| self.db.corrupt(what, e.0))?;
        self.db.parse_run(what, &json).map(Some)
    }

    /// Up to `limit` stored runs, newest first.
    pub fn runs(&mut self, limit: usize) -> Result<Vec<RunRow>, StoreError> {
        let rows = self.db.query(
            "listing runs",
            "SELECT id, started_at, complete, git_commit, cpu_model, command, result_count, \
             load_count, CASE WHEN result_count IS NULL OR load_count IS NULL THEN json END \
             FROM runs ORDER BY started_at DESC, id DESC LIMIT $1",
            &[Param::Int(count(limit))],
        )?;
        rows.iter()
            .map(|r| {
                let id = r
                    .text(0)
                    .map_err(|e| self.db.corrupt("the runs list", e.0))?;
                let what = format!("run {id}");
                let bad = |e: Mismatch| self.db.corrupt(&what, e.0);
                let (results, load) = match (r.opt_int(6).map_err(bad)?, r.opt_int(7).map_err(bad)?)
                {
                    (Some(_), Some(_)) => (r.count(6).map_err(bad)?, r.count(7).map_err(bad)?),
                    _ => {
                        // Saved before schema 2 counted them.
                        let json = r.text(8).map_err(bad)?;
                        let (results, load, _) =
                            json_facts(&json).map_err(|e| self.db.corrupt(&what, e))?;
                        (results, load)
                    }
                };
                Ok(RunRow {
                    id: id.clone(),
                    started_at: r.text(1).map_err(bad)?,
                    complete: r.int(2).map_err(bad)? != 0,
                    git_commit: r.opt_text(3).map_err(bad)?,
                    cpu_model: r.text(4).map_err(bad)?,
                    command: r.text(5).map_err(bad)?,
                    results,
                    load,
                })
            })
            .collect()
    }
}

fn insert_version(
    db: &mut Db,
    action: &str,
    name: &str,
    version: u32,
    v: &BaselineVersion,
) -> Result<(), StoreError> {
    let what = format!("baseline {name} version {version}");
    let changes = serde_json::to_string(&v.changes).map_err(|e| StoreError::Invalid {
        what: what.clone(),
        reason: format!("changes cannot be written as JSON: {e}"),
    })?;
    let json = run_json(&v.run, &what)?;
    db.exec(
        action,
        "INSERT INTO baseline_versions (name, version, created_at, reason, changes, run_json, \
         run_id) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        &[
            name.into(),
            Param::Int(version.into()),
            v.created_at.as_str().into(),
            v.reason.as_str().into(),
            changes.as_str().into(),
            json.as_str().into(),
            v.run.run.id.as_str().into(),
        ],
    )?;
    Ok(())
}

/// What to do about a store that would not open.
fn open_hint(loc: &Location, kind: Kind) -> String {
    match (loc, kind) {
        (Location::Sqlite(_), Kind::Corrupt) => "it is not a SQLite database, or it is damaged: \
             move it aside (dyno then starts a new store there) or choose another location"
            .into(),
        (Location::Sqlite(_), Kind::ReadOnly) => "check the permissions of the file and its \
             folder (SQLite writes -wal and -shm files beside it)"
            .into(),
        (Location::Sqlite(_), Kind::Busy) => {
            "another process holds it locked: try again when it is done".into()
        }
        (Location::Sqlite(_), _) => {
            "check that the path names a file in a folder this user can write to".into()
        }
        (Location::Postgres(_), Kind::Auth) => {
            "check the user name and password in the URL (postgres://USER:PASSWORD@HOST/...)".into()
        }
        (Location::Postgres(_), Kind::BadUrl) => "the form is \
             postgres://USER:PASSWORD@HOST:PORT/DATABASE, optionally with \
             ?connect_timeout=SECONDS or ?options=-c%20search_path%3DSCHEMA"
            .into(),
        (Location::Postgres(_), Kind::Tls) => "dyno connects without TLS (not supported yet): \
             drop sslmode=require from the URL, and use a server on this machine or reach \
             one through a tunnel"
            .into(),
        (Location::Postgres(_), Kind::NoDatabase) => {
            "create the database first (createdb NAME), or name another in the URL".into()
        }
        (Location::Postgres(_), Kind::ReadOnly) => {
            "the user needs the right to create tables in the database (or in the schema \
             on its search_path)"
                .into()
        }
        (Location::Postgres(_), _) => "check that the server is running and accepts connections \
             at that host and port (for a local test server: scripts/postgres.sh start DIR); \
             connections are unencrypted (TLS is not supported yet), so the server must \
             accept them without TLS"
            .into(),
    }
}

#[cfg(test)]
mod tests;
