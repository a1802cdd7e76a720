//! The PostgreSQL backend, over the synchronous `postgres` client.
//!
//! Connections are unencrypted (`NoTls`): TLS is not supported yet, so use a
//! server on this machine or one reached through a tunnel.

use std::collections::HashMap;
use std::time::Duration;

use postgres::types::{ToSql, Type};
use postgres::{Client, Config, NoTls, Statement};

use crate::backend::{Cell, Conn, DbError, Kind, Param, Row, chain};

/// How long to wait for the server to answer a connection attempt, unless
/// the URL says (`connect_timeout=SECONDS`).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A PostgreSQL connection, with the statements it has prepared.
pub(crate) struct Postgres {
    client: Client,
    statements: HashMap<String, Statement>,
}

impl Postgres {
    /// Parse the URL and connect.
    pub(crate) fn connect(url: &str) -> Result<Self, DbError> {
        let mut config: Config = url.parse().map_err(|e: postgres::Error| DbError {
            kind: Kind::BadUrl,
            reason: format!("not a valid PostgreSQL URL ({})", chain(&e)),
        })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let client = config.connect(NoTls).map_err(error)?;
        Ok(Self {
            client,
            statements: HashMap::new(),
        })
    }

    fn statement(&mut self, sql: &str) -> Result<Statement, DbError> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        let s = self.client.prepare(sql).map_err(error)?;
        self.statements.insert(sql.to_string(), s.clone());
        Ok(s)
    }
}

fn error(e: postgres::Error) -> DbError {
    if let Some(db) = e.as_db_error() {
        let code = db.code().code();
        let kind = match code {
            "28P01" | "28000" => Kind::Auth,
            "3D000" => Kind::NoDatabase,
            "3F000" => Kind::NoSchema,
            "42501" | "25006" => Kind::ReadOnly,
            "55P03" | "40P01" => Kind::Busy,
            _ => Kind::Other,
        };
        let mut reason = format!("{} {}: {}", db.severity(), code, db.message());
        if let Some(detail) = db.detail() {
            reason.push_str(&format!(" ({detail})"));
        }
        return DbError { kind, reason };
    }
    // Connection failures (refused, timeout, TLS demanded, no password
    // given) have no server error attached: tell them by their words.
    let reason = chain(&e);
    let kind = if reason.contains("TLS") {
        Kind::Tls
    } else if reason.contains("password missing") {
        Kind::Auth
    } else if e.is_closed() || reason.contains("connect") || reason.contains("timeout") {
        Kind::CannotOpen
    } else {
        Kind::Other
    };
    DbError { kind, reason }
}

fn mismatch(ty: &Type, what: &str) -> DbError {
    DbError {
        kind: Kind::Other,
        reason: format!("cannot pass {what} as a PostgreSQL {ty} parameter"),
    }
}

/// A parameter converted to the type the server inferred for it.
fn bind(p: &Param<'_>, ty: &Type) -> Result<Box<dyn ToSql + Sync>, DbError> {
    let int = |v: i64, max: &str| mismatch(ty, &format!("{v} (over {max})"));
    Ok(match (*p, ty) {
        (Param::Null, t) if *t == Type::INT2 => Box::new(None::<i16>),
        (Param::Null, t) if *t == Type::INT4 => Box::new(None::<i32>),
        (Param::Null, t) if *t == Type::INT8 => Box::new(None::<i64>),
        (Param::Null, t) if *t == Type::FLOAT4 => Box::new(None::<f32>),
        (Param::Null, t) if *t == Type::FLOAT8 => Box::new(None::<f64>),
        (Param::Null, _) => Box::new(None::<String>),
        (Param::Int(v), t) if *t == Type::INT2 => {
            Box::new(i16::try_from(v).map_err(|_| int(v, "smallint"))?)
        }
        (Param::Int(v), t) if *t == Type::INT4 => {
            Box::new(i32::try_from(v).map_err(|_| int(v, "integer"))?)
        }
        (Param::Int(v), t) if *t == Type::INT8 => Box::new(v),
        (Param::Int(v), t) if *t == Type::FLOAT8 => Box::new(v as f64),
        (Param::Real(v), t) if *t == Type::FLOAT8 => Box::new(v),
        (Param::Real(v), t) if *t == Type::FLOAT4 => Box::new(v as f32),
        (Param::Text(s), t) if *t == Type::TEXT || *t == Type::VARCHAR || *t == Type::BPCHAR => {
            Box::new(s.to_string())
        }
        (Param::Int(_), _) => return Err(mismatch(ty, "an integer")),
        (Param::Real(_), _) => return Err(mismatch(ty, "a number")),
        (Param::Text(_), _) => return Err(mismatch(ty, "text")),
    })
}

fn cell(row: &postgres::Row, i: usize) -> Result<Cell, DbError> {
    let ty = row.columns()[i].type_().clone();
    let get_err = |e: postgres::Error| DbError {
        kind: Kind::Other,
        reason: chain(&e),
    };
    macro_rules! get {
        ($t:ty, $wrap:expr) => {
            row.try_get::<_, Option<$t>>(i)
                .map_err(get_err)?
                .map_or(Cell::Null, $wrap)
        };
    }
    Ok(match ty {
        t if t == Type::INT2 => get!(i16, |v| Cell::Int(v.into())),
        t if t == Type::INT4 => get!(i32, |v| Cell::Int(v.into())),
        t if t == Type::INT8 => get!(i64, Cell::Int),
        t if t == Type::FLOAT4 => get!(f32, |v| Cell::Real(v.into())),
        t if t == Type::FLOAT8 => get!(f64, Cell::Real),
        t if t == Type::BOOL => get!(bool, |v| Cell::Int(v.into())),
        t if t == Type::TEXT || t == Type::VARCHAR || t == Type::BPCHAR || t == Type::NAME => {
            get!(String, Cell::Text)
        }
        t => {
            return Err(DbError {
                kind: Kind::Other,
                reason: format!(
                    "column {i} has PostgreSQL type {t}, which the store does not read"
                ),
            });
        }
    })
}

impl Postgres {
    fn bound(
        &mut self,
        sql: &str,
        params: &[Param<'_>],
    ) -> Result<(Statement, Vec<Box<dyn ToSql + Sync>>), DbError> {
        let stmt = self.statement(sql)?;
        let types = stmt.params();
        if types.len() != params.len() {
            return Err(DbError {
                kind: Kind::Other,
                reason: format!(
                    "statement takes {} parameters, {} given",
                    types.len(),
                    params.len()
                ),
            });
        }
        let values = params
            .iter()
            .zip(types)
            .map(|(p, t)| bind(p, t))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((stmt, values))
    }
}

fn refs(values: &[Box<dyn ToSql + Sync>]) -> Vec<&(dyn ToSql + Sync)> {
    values.iter().map(|b| &**b).collect()
}

impl Conn for Postgres {
    fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, DbError> {
        let (stmt, values) = self.bound(sql, params)?;
        self.client.execute(&stmt, &refs(&values)).map_err(error)
    }

    fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, DbError> {
        let (stmt, values) = self.bound(sql, params)?;
        let rows = self.client.query(&stmt, &refs(&values)).map_err(error)?;
        rows.iter()
            .map(|r| {
                (0..r.len())
                    .map(|i| cell(r, i))
                    .collect::<Result<_, _>>()
                    .map(Row)
            })
            .collect()
    }

    fn batch(&mut self, sql: &str) -> Result<(), DbError> {
        self.client.batch_execute(sql).map_err(error)
    }

    fn begin_write(&mut self) -> Result<(), DbError> {
        // A transaction-scoped advisory lock per schema serialises writers
        // and migrations, as SQLite's BEGIN IMMEDIATE does. 1685682799 is
        // "dyno" in ASCII, to keep clear of other programs' locks.
        self.client
            .batch_execute(
                "BEGIN; SELECT pg_advisory_xact_lock(1685682799, \
                 hashtext(COALESCE(current_schema(), '')))",
            )
            .map_err(error)
    }

    fn commit(&mut self) -> Result<(), DbError> {
        self.client.batch_execute("COMMIT").map_err(error)
    }

    fn rollback(&mut self) -> Result<(), DbError> {
        self.client.batch_execute("ROLLBACK").map_err(error)
    }
}
