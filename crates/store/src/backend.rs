//! What the store needs from a database: statements with positional
//! parameters, rows of plain values, and write transactions. One
//! implementation per backend ([`crate::sqlite`], [`crate::pg`]); every query
//! is written once, in the dialect described in [`crate::migrations`].

use std::fmt;

/// A statement parameter.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Param<'a> {
    /// SQL NULL.
    Null,
    /// An integer (INTEGER or BIGINT column).
    Int(i64),
    /// A DOUBLE PRECISION value.
    Real(f64),
    /// TEXT.
    Text(&'a str),
}

impl<'a> From<&'a str> for Param<'a> {
    fn from(s: &'a str) -> Self {
        Param::Text(s)
    }
}

impl<'a> From<Option<&'a str>> for Param<'a> {
    fn from(s: Option<&'a str>) -> Self {
        s.map_or(Param::Null, Param::Text)
    }
}

impl From<i64> for Param<'_> {
    fn from(v: i64) -> Self {
        Param::Int(v)
    }
}

impl From<Option<f64>> for Param<'_> {
    fn from(v: Option<f64>) -> Self {
        v.map_or(Param::Null, Param::Real)
    }
}

/// A value read from a row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Cell {
    /// SQL NULL.
    Null,
    /// Any integer column.
    Int(i64),
    /// Any floating-point column.
    Real(f64),
    /// TEXT.
    Text(String),
}

impl Cell {
    fn kind(&self) -> &'static str {
        match self {
            Cell::Null => "NULL",
            Cell::Int(_) => "an integer",
            Cell::Real(_) => "a number",
            Cell::Text(_) => "text",
        }
    }
}

/// One result row, read by column index. A cell of the wrong type is a
/// [`Mismatch`], which the store reports as a damaged database.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row(pub(crate) Vec<Cell>);

/// A cell of another type than the query expects.
#[derive(Debug, Clone)]
pub(crate) struct Mismatch(pub(crate) String);

impl Row {
    fn cell(&self, i: usize) -> Result<&Cell, Mismatch> {
        self.0
            .get(i)
            .ok_or_else(|| Mismatch(format!("column {i} is missing")))
    }

    fn wrong(&self, i: usize, want: &str) -> Mismatch {
        let got = self.0.get(i).map_or("nothing", Cell::kind);
        Mismatch(format!("column {i} holds {got}, expected {want}"))
    }

    /// A TEXT column that must not be NULL.
    pub(crate) fn text(&self, i: usize) -> Result<String, Mismatch> {
        match self.cell(i)? {
            Cell::Text(s) => Ok(s.clone()),
            _ => Err(self.wrong(i, "text")),
        }
    }

    /// A nullable TEXT column.
    pub(crate) fn opt_text(&self, i: usize) -> Result<Option<String>, Mismatch> {
        match self.cell(i)? {
            Cell::Text(s) => Ok(Some(s.clone())),
            Cell::Null => Ok(None),
            _ => Err(self.wrong(i, "text or NULL")),
        }
    }

    /// An integer column that must not be NULL.
    pub(crate) fn int(&self, i: usize) -> Result<i64, Mismatch> {
        match self.cell(i)? {
            Cell::Int(v) => Ok(*v),
            _ => Err(self.wrong(i, "an integer")),
        }
    }

    /// A nullable integer column.
    pub(crate) fn opt_int(&self, i: usize) -> Result<Option<i64>, Mismatch> {
        match self.cell(i)? {
            Cell::Int(v) => Ok(Some(*v)),
            Cell::Null => Ok(None),
            _ => Err(self.wrong(i, "an integer or NULL")),
        }
    }

    /// A number column that must not be NULL (an integer is accepted: SQLite
    /// may hand back a whole REAL as one).
    pub(crate) fn real(&self, i: usize) -> Result<f64, Mismatch> {
        match self.cell(i)? {
            Cell::Real(v) => Ok(*v),
            Cell::Int(v) => Ok(*v as f64),
            _ => Err(self.wrong(i, "a number")),
        }
    }

    /// An unsigned count: a non-negative integer that fits `usize`.
    pub(crate) fn count(&self, i: usize) -> Result<usize, Mismatch> {
        let v = self.int(i)?;
        usize::try_from(v).map_err(|_| Mismatch(format!("column {i} holds {v}, expected a count")))
    }
}

/// What kind of failure a backend reported, to pick a hint for the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The file is not a database, or is damaged.
    Corrupt,
    /// The file or server could not be reached or opened.
    CannotOpen,
    /// Permission denied or read-only storage.
    ReadOnly,
    /// Another process held the lock past the busy timeout.
    Busy,
    /// Wrong user or password.
    Auth,
    /// The database named in the URL does not exist.
    NoDatabase,
    /// No schema to create the tables in (PostgreSQL's search_path names none that exists).
    NoSchema,
    /// The PostgreSQL URL does not parse.
    BadUrl,
    /// The server or URL demands TLS, which the store does not speak yet.
    Tls,
    /// Anything else.
    Other,
}

/// A backend failure: its kind and the driver's own words.
#[derive(Debug, Clone)]
pub(crate) struct DbError {
    pub(crate) kind: Kind,
    pub(crate) reason: String,
}

impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

/// One database connection.
pub(crate) trait Conn: Send {
    /// Run one statement; rows changed.
    fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, DbError>;
    /// Run one query; all its rows.
    fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, DbError>;
    /// Run several statements without parameters (a migration).
    fn batch(&mut self, sql: &str) -> Result<(), DbError>;
    /// Start a transaction that holds the store's write lock until it ends,
    /// so writers (and migrations) run one at a time.
    fn begin_write(&mut self) -> Result<(), DbError>;
    /// Commit the open transaction.
    fn commit(&mut self) -> Result<(), DbError>;
    /// Roll back the open transaction.
    fn rollback(&mut self) -> Result<(), DbError>;
}

/// An error and its causes, joined by `: `.
pub(crate) fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let text = c.to_string();
        if !s.contains(&text) {
            s.push_str(": ");
            s.push_str(&text);
        }
        cause = c.source();
    }
    s
}
