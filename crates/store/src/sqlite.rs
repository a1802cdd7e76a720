//! The SQLite backend: one file, opened in WAL mode with full sync, so a
//! crash or `kill -9` loses at most the transaction in flight.

use std::borrow::Cow;
use std::path::Path;
use std::time::Duration;

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, ErrorCode, OpenFlags, ToSql};

use crate::backend::{Cell, Conn, DbError, Kind, Param, Row};

/// How long a writer waits for another process's write to finish.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// A SQLite connection.
pub(crate) struct Sqlite {
    conn: Connection,
}

impl Sqlite {
    /// Open (creating) the file and set WAL, full sync, foreign keys and
    /// the busy timeout. The parent folder must exist.
    pub(crate) fn open(path: &Path) -> Result<Self, DbError> {
        // No SQLITE_OPEN_URI: a path is a path, even one starting `file:`.
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(error)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(error)?;
        // The first statement reads the header: a file that is not a
        // database fails here.
        let mode: String = conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .map_err(error)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(DbError {
                kind: Kind::CannotOpen,
                reason: format!(
                    "SQLite could not switch to write-ahead logging (journal mode is {mode:?}); \
                     the file system may not support it (network file systems often do not)"
                ),
            });
        }
        conn.execute_batch("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")
            .map_err(error)?;
        Ok(Self { conn })
    }
}

/// The store's SQL in SQLite's dialect: `$N` parameters become `?N`, and the
/// byte-order collation `COLLATE "C"` becomes SQLite's `COLLATE BINARY`.
pub(crate) fn dialect(sql: &str) -> Cow<'_, str> {
    if !sql.contains('$') && !sql.contains("COLLATE \"C\"") {
        return Cow::Borrowed(sql);
    }
    let sql = sql.replace("COLLATE \"C\"", "COLLATE BINARY");
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$' && chars.peek().is_some_and(char::is_ascii_digit) {
            out.push('?');
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

impl ToSql for Param<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match *self {
            Param::Null => ValueRef::Null,
            Param::Int(v) => ValueRef::Integer(v),
            Param::Real(v) => ValueRef::Real(v),
            Param::Text(s) => ValueRef::Text(s.as_bytes()),
        }))
    }
}

fn error(e: rusqlite::Error) -> DbError {
    let kind = match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => Kind::Corrupt,
        Some(ErrorCode::CannotOpen) => Kind::CannotOpen,
        Some(ErrorCode::ReadOnly | ErrorCode::PermissionDenied) => Kind::ReadOnly,
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => Kind::Busy,
        _ => Kind::Other,
    };
    DbError {
        kind,
        // rusqlite's own message; its source repeats it with the code.
        reason: e.to_string(),
    }
}

fn cell(v: ValueRef<'_>) -> Result<Cell, DbError> {
    Ok(match v {
        ValueRef::Null => Cell::Null,
        ValueRef::Integer(i) => Cell::Int(i),
        ValueRef::Real(f) => Cell::Real(f),
        ValueRef::Text(t) => Cell::Text(String::from_utf8(t.to_vec()).map_err(|_| DbError {
            kind: Kind::Corrupt,
            reason: "a text value is not valid UTF-8".into(),
        })?),
        ValueRef::Blob(_) => {
            return Err(DbError {
                kind: Kind::Corrupt,
                reason: "a column holds a BLOB where the store writes text or numbers".into(),
            });
        }
    })
}

impl Conn for Sqlite {
    fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, DbError> {
        let mut stmt = self.conn.prepare_cached(&dialect(sql)).map_err(error)?;
        let n = stmt
            .execute(rusqlite::params_from_iter(params.iter()))
            .map_err(error)?;
        Ok(n as u64)
    }

    fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, DbError> {
        let mut stmt = self.conn.prepare_cached(&dialect(sql)).map_err(error)?;
        let columns = stmt.column_count();
        let mut rows = stmt
            .query(rusqlite::params_from_iter(params.iter()))
            .map_err(error)?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(error)? {
            let cells = (0..columns)
                .map(|i| row.get_ref(i).map_err(error).and_then(cell))
                .collect::<Result<Vec<_>, _>>()?;
            out.push(Row(cells));
        }
        Ok(out)
    }

    fn batch(&mut self, sql: &str) -> Result<(), DbError> {
        self.conn.execute_batch(&dialect(sql)).map_err(error)
    }

    fn begin_write(&mut self) -> Result<(), DbError> {
        // IMMEDIATE takes the write lock now (waiting up to the busy
        // timeout), so a read inside the transaction cannot go stale.
        self.conn.execute_batch("BEGIN IMMEDIATE").map_err(error)
    }

    fn commit(&mut self) -> Result<(), DbError> {
        self.conn.execute_batch("COMMIT").map_err(error)
    }

    fn rollback(&mut self) -> Result<(), DbError> {
        if self.conn.is_autocommit() {
            return Ok(());
        }
        self.conn.execute_batch("ROLLBACK").map_err(error)
    }
}

#[cfg(test)]
mod tests {
    use super::dialect;

    #[test]
    fn dialect_rewrites_parameters_and_collation() {
        assert_eq!(
            dialect("SELECT a FROM t WHERE b = $1 AND c = $12 ORDER BY a COLLATE \"C\""),
            "SELECT a FROM t WHERE b = ?1 AND c = ?12 ORDER BY a COLLATE BINARY"
        );
        assert_eq!(dialect("SELECT '$' || x"), "SELECT '$' || x");
    }
}
