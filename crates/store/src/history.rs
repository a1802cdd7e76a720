//! What the store answers about the past: a benchmark's history, and the baselines, versioned.

use super::*;

impl Store {
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
