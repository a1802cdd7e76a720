//! Where a store lives: a SQLite file or a PostgreSQL URL.

use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;

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
    /// A `postgres://` or `postgresql://` URL is PostgreSQL; anything else
    /// is a SQLite file path.
    pub fn parse(s: &str) -> Location {
        let lower = s.get(..13).unwrap_or(s).to_ascii_lowercase();
        if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
            Location::Postgres(s.to_string())
        } else {
            Location::Sqlite(PathBuf::from(s))
        }
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

/// `url` with the password (in the user part, or a `password=` query
/// parameter) replaced by `***`.
pub(crate) fn mask_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    // The user part ends at the last '@': a password may hold '/', '?' or
    // '@' unencoded. (An '@' further on, in the query, masks more than the
    // password: never less.)
    let (user, rest) = match rest.rfind('@') {
        Some(at) => match rest[..at].split_once(':') {
            Some((name, _password)) => (format!("{name}:***@"), &rest[at + 1..]),
            None => (rest[..=at].to_string(), &rest[at + 1..]),
        },
        None => (String::new(), rest),
    };
    let mut out = format!("{scheme}://{user}");
    match rest.split_once('?') {
        Some((main, query)) => {
            out.push_str(main);
            out.push('?');
            let masked: Vec<String> = query
                .split('&')
                .map(|kv| match kv.split_once('=') {
                    Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
                    _ => kv.to_string(),
                })
                .collect();
            out.push_str(&masked.join("&"));
        }
        None => out.push_str(rest),
    }
    out
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
            Location::parse("postgres://u@h/db"),
            Location::Postgres("postgres://u@h/db".into())
        );
        assert_eq!(
            Location::parse("PostgreSQL://u@h/db"),
            Location::Postgres("PostgreSQL://u@h/db".into())
        );
        assert_eq!(
            Location::parse("runs/history.sqlite"),
            Location::Sqlite("runs/history.sqlite".into())
        );
        assert_eq!(Location::parse(""), Location::Sqlite("".into()));
        assert_eq!(Location::parse("pg"), Location::Sqlite("pg".into()));
        assert_eq!(
            Location::parse("postgres:/x"),
            Location::Sqlite("postgres:/x".into())
        );
    }

    #[test]
    fn passwords_are_masked() {
        let loc =
            Location::parse("postgres://dyno:s3cr%40t@127.0.0.1:5432/dyno_test?sslmode=disable");
        let shown = loc.to_string();
        assert_eq!(
            shown,
            "postgres://dyno:***@127.0.0.1:5432/dyno_test?sslmode=disable"
        );
        assert!(!format!("{loc:?}").contains("s3cr"));
        assert_eq!(
            mask_url("postgresql://a:b:c@h/d?user=x&password=y&x=1"),
            "postgresql://a:***@h/d?user=x&password=***&x=1"
        );
        assert_eq!(mask_url("postgres://h/d"), "postgres://h/d");
        assert_eq!(mask_url("postgres://u@h"), "postgres://u@h");
        assert_eq!(mask_url("postgres://u:p@h"), "postgres://u:***@h");
        // An '@' in the password (unencoded) still hides all of it.
        assert_eq!(mask_url("postgres://u:p@ss@h/d"), "postgres://u:***@h/d");
        assert_eq!(mask_url("postgres://u:p/w?x@h/d"), "postgres://u:***@h/d");
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
