//! State-access gas schedules (`specs/gas/state/schedules.toml`): today's
//! prices and the proposed repricing, each with its provenance, in
//! EIP-8038's parameter names, and what one access of each kind costs
//! under a schedule (the file's `[[access]]` table: a sum of the
//! schedule's parameters), which `dyno_price::state` applies.

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

impl StateSchedule {
    /// Every parameter an access price may name, in the file's names.
    pub const PARAMETERS: [&'static str; 10] = [
        "cold_account_access",
        "cold_storage_access",
        "warm_access",
        "storage_write",
        "storage_set",
        "storage_clear_refund",
        "call_value",
        "account_write",
        "create",
        "create_access",
    ];

    /// Parameter `name`'s value (one of [`Self::PARAMETERS`]); `None`
    /// where this schedule does not give it.
    pub fn parameter(&self, name: &str) -> Option<u64> {
        match name {
            "cold_account_access" => Some(self.cold_account_access),
            "cold_storage_access" => Some(self.cold_storage_access),
            "warm_access" => Some(self.warm_access),
            "storage_write" => Some(self.storage_write),
            "storage_set" => self.storage_set,
            "storage_clear_refund" => Some(self.storage_clear_refund),
            "call_value" => Some(self.call_value),
            "account_write" => self.account_write,
            "create" => self.create,
            "create_access" => self.create_access,
            _ => None,
        }
    }

    /// What this schedule charges for one access of kind `price`: the sum
    /// of its terms; `None` when a term names only parameters it does not
    /// give.
    pub fn charge(&self, price: &AccessPrice) -> Option<u64> {
        let mut sum: i128 = 0;
        for term in &price.terms {
            sum += term.0.iter().find_map(|v| match v {
                Value::Parameter(p) => self.parameter(p).map(i128::from),
                Value::Gas(g) => Some(i128::from(*g)),
            })?;
        }
        u64::try_from(sum.max(0)).ok()
    }
}

/// One access kind's price: what a schedule charges for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessPrice {
    /// The state suite's name for it (`sload-cold`).
    pub name: String,
    /// Summed; each term the first of its values a schedule gives.
    pub terms: Vec<Term>,
}

/// One term of a price: `storage_set|storage_write`, `-2300`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term(pub Vec<Value>);

/// A schedule's parameter, or a fixed number of gas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Parameter(String),
    Gas(i64),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAccess {
    name: String,
    price: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    schedule: Vec<StateSchedule>,
    #[serde(default)]
    access: Vec<RawAccess>,
}

/// Every access kind's price in `<specs_dir>/gas/state/schedules.toml`,
/// in file order (the order tables show them).
pub fn load_accesses(specs_dir: &Path) -> Result<Vec<AccessPrice>, SpecError> {
    let path = specs_dir.join(FILE);
    let text = crate::read(&path)?;
    parse_accesses(&text, &path)
}

/// The `[[access]]` table of the file's text; `path` names it in errors,
/// with the line of the entry at fault.
pub fn parse_accesses(text: &str, path: &Path) -> Result<Vec<AccessPrice>, SpecError> {
    parse(text, path)?;
    let file: File = toml::from_str(text).map_err(|e| crate::error::from_toml(&e, text, path))?;
    let line_of = |name: &str| {
        let want = format!("name = \"{name}\"");
        text.lines()
            .position(|l| l.trim() == want)
            .map_or(1, |k| k + 1)
    };
    let mut out: Vec<AccessPrice> = Vec::new();
    for raw in file.access {
        let invalid = |reason: String| SpecError::Invalid {
            path: PathBuf::from(path),
            line: line_of(&raw.name),
            key: "access".into(),
            reason,
        };
        if out.iter().any(|o| o.name == raw.name) {
            return Err(invalid(format!("{:?} is priced twice", raw.name)));
        }
        if raw.price.is_empty() {
            return Err(invalid(format!("{:?} has an empty price", raw.name)));
        }
        let mut terms = Vec::new();
        for t in &raw.price {
            let values = t
                .split('|')
                .map(|v| {
                    let v = v.trim();
                    if let Ok(g) = v.parse::<i64>() {
                        Ok(Value::Gas(g))
                    } else if StateSchedule::PARAMETERS.contains(&v) {
                        Ok(Value::Parameter(v.to_string()))
                    } else {
                        Err(invalid(format!(
                            "{:?}'s price names {v:?}, which is neither a number nor a \
                             parameter ({})",
                            raw.name,
                            StateSchedule::PARAMETERS.join(", ")
                        )))
                    }
                })
                .collect::<Result<Vec<_>, _>>()?;
            terms.push(Term(values));
        }
        out.push(AccessPrice {
            name: raw.name,
            terms,
        });
    }
    Ok(out)
}

/// Every schedule in `<specs_dir>/gas/state/schedules.toml`, in file
/// order; the first is the one in force.
pub fn load(specs_dir: &Path) -> Result<Vec<StateSchedule>, SpecError> {
    let path = specs_dir.join(FILE);
    let text = crate::read(&path)?;
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
    fn an_access_price_is_the_sum_of_its_terms_each_the_first_the_schedule_gives() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs");
        let s = load(&dir).unwrap();
        let prices = load_accesses(&dir).unwrap();
        let of = |schedule: &str, access: &str| {
            let p = prices.iter().find(|p| p.name == access).unwrap();
            s.iter().find(|s| s.name == schedule).unwrap().charge(p)
        };
        // Osaka: a cold CALL with value is 2 600 + 9 000 - the 2 300
        // stipend; a fresh slot 2 100 + 20 000; CREATE 32 000.
        assert_eq!(of("osaka", "call-value-cold"), Some(9300));
        assert_eq!(of("osaka", "sstore-fresh"), Some(22_100));
        assert_eq!(of("osaka", "create"), Some(32_000));
        // EIP-8038 sets no storage_set and no create: the next of each term.
        assert_eq!(of("eip-8038", "sstore-fresh"), Some(12_100));
        assert_eq!(of("eip-8038", "create2"), Some(12_000));
        assert_eq!(of("eip-8038", "sload-warm"), Some(100));
        // A term none of whose parameters a schedule gives prices nothing.
        let only_set = AccessPrice {
            name: "x".into(),
            terms: vec![Term(vec![Value::Parameter("storage_set".into())])],
        };
        let proposal = s.iter().find(|s| s.name == "eip-8038").unwrap();
        assert_eq!(proposal.charge(&only_set), None);
    }

    #[test]
    fn a_bad_access_price_names_its_line() {
        let path = Path::new("specs/gas/state/schedules.toml");
        let one = "[[schedule]]\nname='a'\nstatus=''\nsource=''\ncold_account_access=1\n\
                   cold_storage_access=1\nwarm_access=1\nstorage_write=1\nstorage_clear_refund=1\n\
                   call_value=1\ncreate=1\n";
        let bad = format!("{one}\n[[access]]\nname = \"sload-cold\"\nprice = [\"cold_slot\"]\n");
        let e = parse_accesses(&bad, path).unwrap_err().to_string();
        assert!(
            e.contains("schedules.toml:14") && e.contains("cold_slot"),
            "{e}"
        );
        let twice = format!(
            "{one}[[access]]\nname = \"a\"\nprice = [\"1\"]\n[[access]]\nname = \"b\"\nprice = [\"1\"]\n\
             [[access]]\nname = \"b\"\nprice = [\"2\"]\n"
        );
        let e = parse_accesses(&twice, path).unwrap_err().to_string();
        assert!(e.contains("priced twice"), "{e}");
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
