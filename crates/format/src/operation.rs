//! The operation a result measured, recorded with it at measure time
//! (the parameter [`KEY`]): its name in the operation table
//! (`specs/operations.toml`), its kind, the units one operation covers
//! and its nominal gas under every schedule dyno has, so a report, a
//! price or a comparison reads a saved result without a suite's help.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::BenchResult;

/// The parameter holding a result's [`Facts`].
pub const KEY: &str = "operation";

/// What a result measured.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Facts {
    /// Its name in the operation table: `div`, `keccak256`, `ecrecover`,
    /// `point-evaluation`, `sload`.
    pub name: String,
    /// Its kind there: `arith`, `keccak`, `memory`, `storage`, `call`,
    /// `create`, `log`, `loop`, `precompile` or `state`.
    pub kind: String,
    /// The units one operation covers where its price counts them (the
    /// 32-byte words a KECCAK256 hashes, a series' rounds or points).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub units: Option<u64>,
    /// Its nominal gas for one operation, by schedule (`osaka`,
    /// `eip-7904`) or fork (`prague`), as the schedules said when it was
    /// measured; empty where no schedule prices it alone.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub nominal_gas: BTreeMap<String, u64>,
}

impl Facts {
    /// The facts `r` recorded, if it recorded them.
    pub fn of(r: &BenchResult) -> Option<Self> {
        serde_json::from_value(r.parameters.get(KEY)?.clone()).ok()
    }

    /// As a parameter value.
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}
