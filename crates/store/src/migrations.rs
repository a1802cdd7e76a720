//! The store's schema, as an ordered list of migrations.
//!
//! Both backends run the same SQL text. It is written in the subset both
//! accept: `TEXT`, `BIGINT`, `DOUBLE PRECISION`, `INTEGER` 0/1 for booleans,
//! `$1`-style parameters and `COLLATE "C"` for byte-order text (SQLite's
//! backend rewrites the last two to `?1` and `COLLATE BINARY`, its spelling
//! of the same thing). Ids and timestamps compare in byte order on both, so
//! "newest first" means the same everywhere: RFC 3339 UTC timestamps of one
//! format sort by time.
//!
//! Each migration runs in its own transaction together with its row in
//! `schema_migrations`, so a store is always at exactly one version. A store
//! at a version newer than [`MIGRATIONS`] knows is refused, never written.
//!
//! To change the schema, append a migration; never edit one that has shipped.

/// One step of the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Migration {
    /// 1, 2, 3... with no gaps.
    pub version: u32,
    /// What it does, stored in `schema_migrations`.
    pub description: &'static str,
    /// The statements, separated by `;`.
    pub sql: &'static str,
}

/// The table that records the applied migrations; created before the first.
pub(crate) const MIGRATIONS_TABLE: &str = "CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    description TEXT NOT NULL,
    applied_at TEXT NOT NULL
)";

/// Every migration, oldest first.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        description: "runs, results, baselines and baseline versions",
        sql: r#"
CREATE TABLE runs (
    id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    started_at TEXT COLLATE "C" NOT NULL,
    finished_at TEXT,
    complete INTEGER NOT NULL,
    git_commit TEXT,
    dyno_version TEXT NOT NULL,
    cpu_model TEXT NOT NULL,
    cores BIGINT NOT NULL,
    machine TEXT NOT NULL,
    command TEXT NOT NULL,
    json TEXT NOT NULL
);
CREATE TABLE results (
    run_id TEXT COLLATE "C" NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    bench_id TEXT COLLATE "C" NOT NULL,
    implementation TEXT COLLATE "C" NOT NULL,
    runtime TEXT COLLATE "C" NOT NULL,
    verification TEXT NOT NULL,
    n BIGINT NOT NULL,
    p50_ns DOUBLE PRECISION,
    p95_ns DOUBLE PRECISION,
    p99_ns DOUBLE PRECISION,
    max_ns DOUBLE PRECISION,
    ci_low_ns DOUBLE PRECISION,
    ci_high_ns DOUBLE PRECISION,
    PRIMARY KEY (run_id, bench_id, implementation, runtime)
);
CREATE INDEX results_bench ON results (bench_id, implementation);
CREATE TABLE baselines (
    name TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    created_at TEXT NOT NULL
);
CREATE TABLE baseline_versions (
    name TEXT COLLATE "C" NOT NULL REFERENCES baselines(name) ON DELETE CASCADE,
    version BIGINT NOT NULL,
    created_at TEXT NOT NULL,
    reason TEXT NOT NULL,
    changes TEXT NOT NULL,
    run_json TEXT NOT NULL,
    PRIMARY KEY (name, version)
);
"#,
    },
    Migration {
        version: 2,
        description: "listing without reading run JSON: result and load counts, \
                      baseline run ids, runs indexed by start time",
        // Rows written before this migration keep NULL load counts and run
        // ids; readers fall back to the stored JSON for those.
        sql: r#"
ALTER TABLE runs ADD COLUMN result_count BIGINT;
ALTER TABLE runs ADD COLUMN load_count BIGINT;
UPDATE runs SET result_count = (SELECT COUNT(*) FROM results WHERE results.run_id = runs.id);
ALTER TABLE baseline_versions ADD COLUMN run_id TEXT;
CREATE INDEX runs_started ON runs (started_at, id);
"#,
    },
];

/// The newest schema version in `migrations` (0 for none).
pub(crate) fn latest(migrations: &[Migration]) -> u32 {
    migrations.iter().map(|m| m.version).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_count_up_from_one() {
        for (i, m) in MIGRATIONS.iter().enumerate() {
            assert_eq!(m.version as usize, i + 1, "{}", m.description);
            assert!(!m.sql.contains('?'), "write parameters as $1");
        }
        assert_eq!(latest(MIGRATIONS), MIGRATIONS.len() as u32);
    }
}
