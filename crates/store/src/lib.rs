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
mod error;
mod location;
pub mod migrations;
mod pg;
mod sqlite;

use backend::{Conn, DbError, Kind, Mismatch, Param, Row};
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

/// The connection and the store's name for messages.
struct Db {
    conn: Box<dyn Conn>,
    label: String,
}

impl Db {
    fn db_error(&self, action: &str, e: DbError) -> StoreError {
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

    fn corrupt(&self, what: impl Into<String>, reason: impl fmt::Display) -> StoreError {
        StoreError::Corrupt {
            location: self.label.clone(),
            what: what.into(),
            reason: reason.to_string(),
        }
    }

    fn exec(&mut self, action: &str, sql: &str, params: &[Param<'_>]) -> Result<u64, StoreError> {
        self.conn
            .execute(sql, params)
            .map_err(|e| self.db_error(action, e))
    }

    fn query(
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
    fn write<T>(
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

    fn schema_version(&mut self) -> Result<u32, StoreError> {
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

    fn newer(&mut self, found: u32, known: u32) -> StoreError {
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
    fn migrate(&mut self, migrations: &[Migration]) -> Result<(), StoreError> {
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

    fn parse_run(&self, what: &str, json: &str) -> Result<Run, StoreError> {
        Run::parse(json, Path::new(what)).map_err(|e| self.corrupt(what, e))
    }
}

/// The only row of a one-row query.
fn one(rows: &[Row]) -> Result<&Row, Mismatch> {
    match rows {
        [r] => Ok(r),
        _ => Err(Mismatch(format!(
            "{} rows where one was expected",
            rows.len()
        ))),
    }
}

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn verification(s: VerificationStatus) -> &'static str {
    match s {
        VerificationStatus::Passed => "passed",
        VerificationStatus::Failed => "failed",
        VerificationStatus::NotRun => "not-run",
    }
}

/// A run as stored: compact JSON.
fn run_json(run: &Run, what: &str) -> Result<String, StoreError> {
    serde_json::to_string(run).map_err(|e| StoreError::Invalid {
        what: what.to_string(),
        reason: format!("cannot be written as JSON: {e}"),
    })
}

/// Load-lab result count and run id from a run's JSON, for rows written
/// before schema 2 recorded them.
fn json_facts(json: &str) -> Result<(usize, usize, String), String> {
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
fn first_bytes(path: &std::path::Path, n: u64) -> Option<Vec<u8>> {
    use std::io::Read as _;
    let mut head = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(n)
        .read_to_end(&mut head)
        .ok()?;
    Some(head)
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

    /// The measurements of `bench_id` (only those of the implementation
    /// named, if one is), from the `limit` newest stored runs that measured
    /// it, oldest first. A run that measured several implementations of the
    /// id gives one point for each (ordered by implementation, then
    /// runtime). Results without statistics (failed verification, nothing
    /// timed) are left out.
    pub fn history(
        &mut self,
        bench_id: &str,
        implementation: Option<&str>,
        limit: usize,
    ) -> Result<Vec<HistoryPoint>, StoreError> {
        let (filter, inner_filter) = match implementation {
            Some(_) => (" AND r.implementation = $3", " AND i.implementation = $3"),
            None => ("", ""),
        };
        let sql = format!(
            "SELECT r.run_id, u.started_at, u.git_commit, r.implementation, r.runtime, \
             r.p50_ns, r.p95_ns, r.p99_ns, r.ci_low_ns, r.ci_high_ns, r.n \
             FROM results r JOIN runs u ON u.id = r.run_id \
             WHERE r.bench_id = $1 AND r.p50_ns IS NOT NULL{filter} \
             AND r.run_id IN (SELECT v.id FROM runs v WHERE EXISTS (SELECT 1 FROM results i \
             WHERE i.run_id = v.id AND i.bench_id = $1 AND i.p50_ns IS NOT NULL{inner_filter}) \
             ORDER BY v.started_at DESC, v.id DESC LIMIT $2) \
             ORDER BY u.started_at, u.id, r.implementation, r.runtime"
        );
        let mut params = vec![Param::Text(bench_id), Param::Int(count(limit))];
        if let Some(name) = implementation {
            params.push(Param::Text(name));
        }
        let what = format!("the history of {bench_id}");
        let rows = self.db.query(&format!("reading {what}"), &sql, &params)?;
        let bad = |e: Mismatch| self.db.corrupt(&what, e.0);
        rows.iter()
            .map(|r| {
                Ok(HistoryPoint {
                    run_id: r.text(0).map_err(bad)?,
                    started_at: r.text(1).map_err(bad)?,
                    git_commit: r.opt_text(2).map_err(bad)?,
                    implementation: r.text(3).map_err(bad)?,
                    runtime: r.text(4).map_err(bad)?,
                    p50_ns: r.real(5).map_err(bad)?,
                    p95_ns: r.real(6).map_err(bad)?,
                    p99_ns: r.real(7).map_err(bad)?,
                    ci_low_ns: r.real(8).map_err(bad)?,
                    ci_high_ns: r.real(9).map_err(bad)?,
                    n: r.count(10).map_err(bad)?,
                })
            })
            .collect()
    }

    /// Append `v` to the baseline `name`, creating the baseline if needed.
    /// The store numbers the version (one more than the newest stored, 1
    /// for a new baseline), whatever `v.version` says, and returns that
    /// number.
    pub fn save_baseline_version(
        &mut self,
        name: &str,
        v: &BaselineVersion,
    ) -> Result<u32, StoreError> {
        let what = format!("baseline {name}");
        if name.is_empty() {
            return Err(StoreError::Invalid {
                what,
                reason: "a baseline needs a name".into(),
            });
        }
        let action = format!("saving a version of {what}");
        self.db.write(&action, |db| {
            db.exec(
                &action,
                "INSERT INTO baselines (name, created_at) VALUES ($1, $2) \
                 ON CONFLICT (name) DO NOTHING",
                &[name.into(), v.created_at.as_str().into()],
            )?;
            let rows = db.query(
                &action,
                "SELECT COALESCE(MAX(version), 0) FROM baseline_versions WHERE name = $1",
                &[name.into()],
            )?;
            let newest = one(&rows)
                .and_then(|r| r.int(0))
                .map_err(|e| db.corrupt(&what, e.0))?;
            let version = u32::try_from(newest + 1).map_err(|_| StoreError::Invalid {
                what: what.clone(),
                reason: format!("version {newest} is the last this store can number"),
            })?;
            insert_version(db, &action, name, version, v)?;
            Ok(version)
        })
    }

    /// Store `b` whole, replacing any baseline of the same name: every
    /// version as given, numbers included (for `dyno baseline import`).
    pub fn import_baseline(&mut self, b: &Baseline) -> Result<(), StoreError> {
        let what = format!("baseline {}", b.name);
        let invalid = |reason: String| StoreError::Invalid {
            what: what.clone(),
            reason,
        };
        if b.name.is_empty() {
            return Err(invalid("a baseline needs a name".into()));
        }
        let Some(first) = b.versions.iter().min_by_key(|v| v.version) else {
            return Err(invalid(
                "it has no versions; a baseline file holds at least one".into(),
            ));
        };
        let mut seen = HashSet::new();
        for v in &b.versions {
            if v.version == 0 {
                return Err(invalid("version 0: versions are numbered from 1".into()));
            }
            if !seen.insert(v.version) {
                return Err(invalid(format!(
                    "version {} appears twice; fix the file's version numbers",
                    v.version
                )));
            }
        }
        let action = format!("importing {what}");
        self.db.write(&action, |db| {
            let name = Param::Text(&b.name);
            db.exec(
                &action,
                "DELETE FROM baseline_versions WHERE name = $1",
                &[name],
            )?;
            db.exec(&action, "DELETE FROM baselines WHERE name = $1", &[name])?;
            db.exec(
                &action,
                "INSERT INTO baselines (name, created_at) VALUES ($1, $2)",
                &[name, first.created_at.as_str().into()],
            )?;
            for v in &b.versions {
                insert_version(db, &action, &b.name, v.version, v)?;
            }
            Ok(())
        })
    }

    /// The baseline `name` with all its versions, oldest first.
    pub fn baseline(&mut self, name: &str) -> Result<Option<Baseline>, StoreError> {
        let what = format!("baseline {name}");
        let action = format!("reading {what}");
        let exists = self.db.query(
            &action,
            "SELECT name FROM baselines WHERE name = $1",
            &[name.into()],
        )?;
        if exists.is_empty() {
            return Ok(None);
        }
        let rows = self.db.query(
            &action,
            "SELECT version, created_at, reason, changes, run_json FROM baseline_versions \
             WHERE name = $1 ORDER BY version",
            &[name.into()],
        )?;
        let versions = rows
            .iter()
            .map(|r| {
                let bad = |e: Mismatch| self.db.corrupt(&what, e.0);
                let version = r.int(0).map_err(bad)?;
                let what = format!("{what} version {version}");
                let version = u32::try_from(version)
                    .map_err(|_| self.db.corrupt(&what, "the version number is out of range"))?;
                let changes = r.text(3).map_err(bad)?;
                let changes: Vec<String> = serde_json::from_str(&changes)
                    .map_err(|e| self.db.corrupt(&what, format!("changes: {e}")))?;
                Ok(BaselineVersion {
                    version,
                    created_at: r.text(1).map_err(bad)?,
                    reason: r.text(2).map_err(bad)?,
                    changes,
                    run: self.db.parse_run(&what, &r.text(4).map_err(bad)?)?,
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok(Some(Baseline {
            dyno_baseline: BASELINE_FORMAT,
            name: name.to_string(),
            versions,
        }))
    }

    /// Every stored baseline, by name.
    pub fn baselines(&mut self) -> Result<Vec<BaselineRow>, StoreError> {
        let rows = self.db.query(
            "listing baselines",
            "SELECT b.name, b.created_at, \
             (SELECT COUNT(*) FROM baseline_versions c WHERE c.name = b.name), \
             v.created_at, v.reason, v.run_id, CASE WHEN v.run_id IS NULL THEN v.run_json END \
             FROM baselines b LEFT JOIN baseline_versions v ON v.name = b.name \
             AND v.version = (SELECT MAX(m.version) FROM baseline_versions m WHERE m.name = b.name) \
             ORDER BY b.name",
            &[],
        )?;
        rows.iter()
            .map(|r| {
                let name = r
                    .text(0)
                    .map_err(|e| self.db.corrupt("the baselines list", e.0))?;
                let what = format!("baseline {name}");
                let bad = |e: Mismatch| self.db.corrupt(&what, e.0);
                let versions = r.int(2).map_err(bad)?;
                let run_id = match (r.opt_text(5).map_err(bad)?, r.opt_text(6).map_err(bad)?) {
                    (Some(id), _) => id,
                    // Saved before schema 2 recorded it.
                    (None, Some(json)) => {
                        json_facts(&json).map_err(|e| self.db.corrupt(&what, e))?.2
                    }
                    (None, None) => String::new(),
                };
                Ok(BaselineRow {
                    versions: u32::try_from(versions).unwrap_or(u32::MAX),
                    updated_at: match r.opt_text(3).map_err(bad)? {
                        Some(t) => t,
                        None => r.text(1).map_err(bad)?,
                    },
                    latest_reason: r.opt_text(4).map_err(bad)?.unwrap_or_default(),
                    run_id,
                    name,
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
