//! State-access gas schedules (`specs/gas/state/schedules.toml`): today's
//! prices and the proposed repricing, each with its provenance, in
//! EIP-8038's parameter names. What one access kind costs under a schedule
//! is `dyno_state::pricing`'s; this module only reads the numbers.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::SpecError;

/// Where the file lives under the specs folder.
pub const FILE: &str = "gas/state/schedules.toml";

/// One schedule: a fork's or a proposal's state-access prices.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateSchedule {
    /// Its name in tables: `osaka`, `eip-8038`.
    pub name: String,
    /// In force, proposed, superseded.
    pub status: String,
    /// Where the numbers come from (EIPs, their versions).
    pub source: String,
    /// A cold account touch (BALANCE, EXT*, *CALL): EIP-2929's 2 600.
    pub cold_account_access: u64,
    /// A cold slot's access, the whole charge of a cold SLOAD: 2 100.
    pub cold_storage_access: u64,
    /// A warm account or slot: 100.
    pub warm_access: u64,
    /// Changing a slot's value for the first time in a transaction, beyond
    /// its access (Osaka: 5 000 − 2 100).
    pub storage_write: u64,
    /// Osaka: setting a zero slot (20 000 with the access in the write
    /// price, charged beside the cold access); absent where the proposal
    /// prices state growth elsewhere (EIP-8037).
    #[serde(default)]
    pub storage_set: Option<u64>,
    /// The refund for clearing a slot.
    pub storage_clear_refund: u64,
    /// A CALL that moves value (the 2 300 stipend included; returned when
    /// the callee does not use it).
    pub call_value: u64,
    /// EIP-8038's surcharge for changing an account leaf; absent in Osaka.
    #[serde(default)]
    pub account_write: Option<u64>,
    /// Osaka's CREATE (32 000).
    #[serde(default)]
    pub create: Option<u64>,
    /// EIP-8038's state-access part of a creation (account access and
    /// write).
    #[serde(default)]
    pub create_access: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    schedule: Vec<StateSchedule>,
}

/// Every schedule in `<specs_dir>/gas/state/schedules.toml`, in file
/// order; the first is the one in force.
pub fn load(specs_dir: &Path) -> Result<Vec<StateSchedule>, SpecError> {
    let path = specs_dir.join(FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| SpecError::Io {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    parse(&text, &path)
}

/// Parse the file's text; `path` names it in errors.
pub fn parse(text: &str, path: &Path) -> Result<Vec<StateSchedule>, SpecError> {
    let file: File = toml::from_str(text).map_err(|e| crate::error::from_toml(&e, text, path))?;
    let invalid = |reason: String| SpecError::Invalid {
        path: PathBuf::from(path),
        line: 1,
        key: "schedule".into(),
        reason,
    };
    if file.schedule.is_empty() {
        return Err(invalid(
            "no [[schedule]]: give at least the one in force".into(),
        ));
    }
    for (k, s) in file.schedule.iter().enumerate() {
        if file.schedule[..k].iter().any(|o| o.name == s.name) {
            return Err(invalid(format!("{:?} is named twice", s.name)));
        }
        if s.create.is_none() && s.create_access.is_none() {
            return Err(invalid(format!(
                "{:?} prices no creation: give `create` or `create_access`",
                s.name
            )));
        }
    }
    Ok(file.schedule)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_schedules_load() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs");
        let s = load(&dir).unwrap();
        assert_eq!(s[0].name, "osaka");
        assert_eq!(s[0].cold_account_access, 2600);
        let p = s.iter().find(|s| s.name == "eip-8038").unwrap();
        assert_eq!((p.cold_account_access, p.account_write), (3000, Some(9000)));
    }

    #[test]
    fn a_bad_file_names_its_line_and_key() {
        let path = Path::new("specs/gas/state/schedules.toml");
        let e = parse("[[schedule]]\nname = \"x\"\ncold_acount_access = 1\n", path).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("schedules.toml:3"), "{text}");
        let two = "[[schedule]]\nname='a'\nstatus=''\nsource=''\ncold_account_access=1\n\
                   cold_storage_access=1\nwarm_access=1\nstorage_write=1\nstorage_clear_refund=1\n\
                   call_value=1\ncreate=1\n";
        let e = parse(&format!("{two}{two}"), path).unwrap_err();
        assert!(e.to_string().contains("named twice"), "{e}");
    }
}
