//! The store's errors. Each names the store (a SQLite path, or a PostgreSQL
//! URL with its password masked) and says what to do about it.

use std::path::PathBuf;

/// Failure to open, read or write the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No default location: none of `DYNO_DATA`, `XDG_DATA_HOME`, `HOME` is set.
    #[error(
        "no place for the history store: none of DYNO_DATA, XDG_DATA_HOME or HOME is set; \
         set DYNO_DATA to a folder, or name the store (a SQLite file or a postgres:// URL)"
    )]
    NoHome,

    /// A URL whose scheme is neither PostgreSQL's nor a file path.
    #[error(
        "{location}: unknown store scheme {scheme:?}; the history is a SQLite file (give its \
         path) or a PostgreSQL database (postgres://USER:PASSWORD@HOST:PORT/DATABASE)"
    )]
    UnknownScheme {
        /// The location, password masked.
        location: String,
        /// The scheme given.
        scheme: String,
    },

    /// A command that only reads found no store where it was pointed.
    #[error(
        "{}: no run history there: nothing has been saved to it yet, and a command that \
         only reads does not create one; check --store (or DYNO_STORE), or save a run first \
         (`dyno run`)",
        path.display()
    )]
    Missing {
        /// The SQLite file that does not exist.
        path: PathBuf,
    },

    /// The folder for a SQLite file could not be created.
    #[error(
        "{}: cannot create the folder for the history store: {source}; \
         check its permissions, or choose another location",
        path.display()
    )]
    CreateDir {
        /// The folder.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },

    /// The store could not be opened or connected to.
    #[error("{location}: cannot open the history store: {reason}; {hint}")]
    Open {
        /// The store, as displayed by [`crate::Location`].
        location: String,
        /// What the database or driver said.
        reason: String,
        /// What to do about it.
        hint: String,
    },

    /// A statement failed on an open store.
    #[error("{location}: {action} failed: {reason}{hint}")]
    Database {
        /// The store.
        location: String,
        /// What the store was doing, e.g. `saving run 20261122T101500Z-1a2b3c`.
        action: String,
        /// What the database or driver said.
        reason: String,
        /// What to do about it, with a leading `; `, or empty.
        hint: String,
    },

    /// A schema migration failed; the store stays at the previous version.
    #[error(
        "{location}: cannot upgrade the store to schema {version} ({description}): {reason}; \
         the store was left at the version before it. If the database holds other tables \
         with the same names, give dyno a database (or PostgreSQL schema) of its own"
    )]
    Migration {
        /// The store.
        location: String,
        /// The migration that failed.
        version: u32,
        /// Its description.
        description: String,
        /// What the database said.
        reason: String,
    },

    /// The store was written by a newer dyno, with a schema this one does not know.
    #[error(
        "{location}: written by a newer dyno: schema {found}, this dyno knows up to {known}; \
         {hint}"
    )]
    Newer {
        /// The store.
        location: String,
        /// The store's schema version.
        found: u32,
        /// The newest version this dyno knows.
        known: u32,
        /// Which dyno to use instead, as far as the store tells.
        hint: String,
    },

    /// Something stored cannot be read back: the database was changed by
    /// another program, or is damaged.
    #[error(
        "{location}: {what} cannot be read: {reason}; the store may have been changed by \
         another program or damaged (restore it from a backup, or re-import the data)"
    )]
    Corrupt {
        /// The store.
        location: String,
        /// What, e.g. `run 20261122T101500Z-1a2b3c` or `the runs list`.
        what: String,
        /// What is wrong with it.
        reason: String,
    },

    /// The data given cannot be stored as it is.
    #[error("{what}: {reason}")]
    Invalid {
        /// What was being stored, e.g. `baseline main`.
        what: String,
        /// Why it cannot be, and what to change.
        reason: String,
    },
}
