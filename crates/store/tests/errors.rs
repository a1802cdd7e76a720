//! Bad locations and damaged files give errors that name the store and say
//! what to do, never panics, and never show a password.

use std::net::TcpListener;

use dyno_store::{Location, Store, StoreError};

fn open_err(loc: &Location) -> StoreError {
    match Store::open(loc) {
        Ok(s) => panic!("{loc} opened: {s:?}"),
        Err(e) => e,
    }
}

#[test]
fn a_file_that_is_not_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(
        &path,
        "these are not the pages you are looking for\n".repeat(200),
    )
    .unwrap();
    // SQLite alone would take a file shorter than its header for an
    // empty database and overwrite it.
    let short = dir.path().join("short.txt");
    std::fs::write(&short, "x").unwrap();
    let e = open_err(&Location::Sqlite(short.clone()));
    assert!(e.to_string().contains("not a SQLite database"), "{e}");
    assert_eq!(std::fs::read_to_string(&short).unwrap(), "x");
    let e = open_err(&Location::Sqlite(path.clone()));
    assert!(matches!(e, StoreError::Open { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(msg.starts_with(&path.display().to_string()), "{msg}");
    assert!(msg.contains("not a SQLite database"), "{msg}");
    assert!(msg.contains("move it aside"), "{msg}");
    // Left as it was.
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .starts_with("these are")
    );
}

#[test]
fn a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let e = open_err(&Location::Sqlite(dir.path().to_path_buf()));
    let msg = e.to_string();
    assert!(msg.contains("it is a folder"), "{msg}");
    assert!(msg.contains("history.sqlite"), "{msg}");
}

#[test]
fn a_path_below_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, "x").unwrap();
    let e = open_err(&Location::Sqlite(file.join("sub/history.sqlite")));
    assert!(matches!(e, StoreError::CreateDir { .. }), "{e:?}");
    assert!(e.to_string().contains("cannot create the folder"), "{e}");
}

#[test]
fn an_empty_path() {
    let e = open_err(&Location::parse("").unwrap());
    assert!(e.to_string().contains("the path is empty"), "{e}");
}

#[test]
fn a_malformed_url() {
    let loc = Location::parse("postgres://dyno:hunter2@127.0.0.1:notaport/db").unwrap();
    let e = open_err(&loc);
    let msg = e.to_string();
    assert!(msg.contains("not a valid PostgreSQL URL"), "{msg}");
    assert!(
        msg.contains("postgres://dyno:***@127.0.0.1:notaport/db"),
        "{msg}"
    );
    assert!(!msg.contains("hunter2"), "{msg}");
    assert!(!format!("{e:?}").contains("hunter2"));
}

#[test]
fn no_server_listening() {
    // A port that was free a moment ago: connection refused.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let loc = Location::parse(&format!("postgresql://dyno:hunter2@127.0.0.1:{port}/db")).unwrap();
    let e = open_err(&loc);
    assert!(matches!(e, StoreError::Open { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains(&format!("127.0.0.1:{port}")), "{msg}");
    assert!(msg.contains("scripts/postgres.sh"), "{msg}");
    assert!(msg.contains("TLS is not supported"), "{msg}");
    assert!(!msg.contains("hunter2"), "{msg}");
}

#[test]
fn a_wrong_password() {
    let Ok(url) = std::env::var("DYNO_TEST_POSTGRES") else {
        return; // suite.rs says loudly that PostgreSQL tests are skipped
    };
    let Ok(Location::Postgres(_)) = Location::parse(&url) else {
        panic!("DYNO_TEST_POSTGRES is not a postgres:// URL: {url}");
    };
    // Swap the password for a wrong one.
    let Some((user, host)) = url
        .split_once("://")
        .and_then(|(_, rest)| rest.rsplit_once('@'))
    else {
        return;
    };
    let name = user.split(':').next().unwrap_or(user);
    let loc = Location::parse(&format!("postgres://{name}:wrong-hunter2@{host}")).unwrap();
    let msg = open_err(&loc).to_string();
    assert!(msg.contains("check the user name and password"), "{msg}");
    assert!(!msg.contains("wrong-hunter2"), "{msg}");
}

#[test]
fn tls_demanded() {
    let Ok(url) = std::env::var("DYNO_TEST_POSTGRES") else {
        return; // suite.rs says loudly that PostgreSQL tests are skipped
    };
    let sep = if url.contains('?') { '&' } else { '?' };
    let e = open_err(&Location::parse(&format!("{url}{sep}sslmode=require")).unwrap());
    let msg = e.to_string();
    assert!(msg.contains("TLS (not supported yet)"), "{msg}");
    assert!(msg.contains("sslmode=require"), "{msg}");
}
