//! Where a store lives: a SQLite file or a PostgreSQL URL.

use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;

use dyno_format::redact::url as mask_url;

use crate::StoreError;

/// A store's location: a SQLite file, or a PostgreSQL database by URL.
///
/// Displaying a location masks a password in the URL, so it is safe in
/// messages and logs; `Debug` masks it too.
#[derive(Clone, PartialEq, Eq)]
pub enum Location {
    /// A SQLite database file (created with its folder if missing).
    Sqlite(PathBuf),
    /// A `postgres://USER:PASSWORD@HOST:PORT/DATABASE` URL. The query may
    /// carry client settings such as `connect_timeout=SECONDS` or
    /// `options=-c%20search_path%3DSCHEMA` (to keep dyno's tables in their
    /// own schema). Connections are unencrypted: TLS is not supported yet.
    Postgres(String),
}

impl Location {
    /// A `postgres://` or `postgresql://` URL is PostgreSQL; another
    /// `SCHEME://` is refused (it is no file name anyone means); anything
    /// else is a SQLite file path.
    pub fn parse(s: &str) -> Result<Location, StoreError> {
        let lower = s.get(..13).unwrap_or(s).to_ascii_lowercase();
        if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
            return Ok(Location::Postgres(s.to_string()));
        }
        if let Some((scheme, _)) = s.split_once("://")
            && !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        {
            return Err(StoreError::UnknownScheme {
                location: mask_url(s),
                scheme: scheme.to_string(),
            });
        }
        Ok(Location::Sqlite(PathBuf::from(s)))
    }

    /// The default store, a SQLite file: `$DYNO_DATA/history.sqlite`, else
    /// `$XDG_DATA_HOME/dyno/history.sqlite`, else
    /// `~/.local/share/dyno/history.sqlite`. Empty variables count as unset.
    pub fn default_location() -> Result<Location, StoreError> {
        default_from(|name| std::env::var_os(name))
    }
}

/// [`Location::default_location`] with the environment given.
pub(crate) fn default_from(var: impl Fn(&str) -> Option<OsString>) -> Result<Location, StoreError> {
    let var = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let dir = if let Some(d) = var("DYNO_DATA") {
        d
    } else if let Some(d) = var("XDG_DATA_HOME") {
        d.join("dyno")
    } else if let Some(home) = var("HOME") {
        home.join(".local/share/dyno")
    } else {
        return Err(StoreError::NoHome);
    };
    Ok(Location::Sqlite(dir.join("history.sqlite")))
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Sqlite(path) => write!(f, "{}", path.display()),
            Location::Postgres(url) => f.write_str(&mask_url(url)),
        }
    }
}

impl fmt::Debug for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Sqlite(path) => f.debug_tuple("Sqlite").field(path).finish(),
            Location::Postgres(url) => f.debug_tuple("Postgres").field(&mask_url(url)).finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_tells_urls_from_paths() {
        assert_eq!(
            Location::parse("postgres://u@h/db").unwrap(),
            Location::Postgres("postgres://u@h/db".into())
        );
        assert_eq!(
            Location::parse("PostgreSQL://u@h/db").unwrap(),
            Location::Postgres("PostgreSQL://u@h/db".into())
        );
        assert_eq!(
            Location::parse("runs/history.sqlite").unwrap(),
            Location::Sqlite("runs/history.sqlite".into())
        );
        assert_eq!(Location::parse("").unwrap(), Location::Sqlite("".into()));
        assert_eq!(
            Location::parse("pg").unwrap(),
            Location::Sqlite("pg".into())
        );
        let e = Location::parse("mysql://user:SECRET@host/db")
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"mysql\""), "{e}");
        assert!(e.contains("postgres://"), "{e}");
        assert!(!e.contains("SECRET"), "{e}");
        assert_eq!(
            Location::parse("postgres:/x").unwrap(),
            Location::Sqlite("postgres:/x".into())
        );
    }

    #[test]
    fn passwords_are_masked() {
        let loc =
            Location::parse("postgres://dyno:s3cr%40t@127.0.0.1:5432/dyno_test?sslmode=disable")
                .unwrap();
        let shown = loc.to_string();
        assert_eq!(
            shown,
            "postgres://dyno:***@127.0.0.1:5432/dyno_test?sslmode=disable"
        );
        assert!(!format!("{loc:?}").contains("s3cr"));
    }

    #[test]
    fn default_location_order() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        let sqlite = |p: &str| Location::Sqlite(PathBuf::from(p));
        let all: &'static [_] = &[("DYNO_DATA", "/d"), ("XDG_DATA_HOME", "/x"), ("HOME", "/h")];
        assert_eq!(default_from(env(all)).unwrap(), sqlite("/d/history.sqlite"));
        let no_dyno: &'static [_] = &[("DYNO_DATA", ""), ("XDG_DATA_HOME", "/x"), ("HOME", "/h")];
        assert_eq!(
            default_from(env(no_dyno)).unwrap(),
            sqlite("/x/dyno/history.sqlite")
        );
        assert_eq!(
            default_from(env(&[("HOME", "/h")])).unwrap(),
            sqlite("/h/.local/share/dyno/history.sqlite")
        );
        assert!(matches!(default_from(env(&[])), Err(StoreError::NoHome)));
    }
}
