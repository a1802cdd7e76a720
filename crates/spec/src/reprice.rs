//! The series `dyno gas --blocks` isolates operations in (read from the
//! operation table, [`crate::operations`]) and the compute gas schedules it
//! prices them against (`specs/gas/compute/schedules.toml`): what each
//! series repeats, how its inputs differ call to call, and which gas
//! parameters price one operation. Building the programs is
//! `dyno_evm::reprice`'s; this module only reads and checks the files,
//! every error naming file, line and key.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::SpecError;

/// The compute schedules, under the specs folder.
pub const SCHEDULES: &str = "gas/compute/schedules.toml";

/// The state accesses a `state` series may repeat: the state suite's
/// access kinds (`dyno list state`) that touch one new key a call.
pub const ACCESSES: [&str; 9] = [
    "sload-cold",
    "sload-missing",
    "balance-cold",
    "extcodesize-cold",
    "sstore-fresh",
    "sstore-modify",
    "sstore-clear",
    "call-value-cold",
    "create",
];

/// How the blocks of every series are laid out.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Layout {
    /// The gas budgets, in millions: the most gas a block's operation
    /// transactions use.
    pub budgets_m: Vec<u64>,
    /// Count levels per budget: `k / levels` of it for k = 1..=levels.
    pub levels: u64,
    /// Blocks at each (budget, level).
    pub repeats: u64,
    /// `--quick`'s budgets and repeats.
    pub quick_budgets_m: Vec<u64>,
    pub quick_repeats: u64,
    /// The levels of each budget one round holds (`dyno gas --blocks`
    /// measures every client round by round, each series beside its
    /// anchor in every round): round k holds levels `(k - 1) ×
    /// round_levels + 1 ..` of every budget, cycling, so `levels /
    /// round_levels` rounds hold every (budget, level) once.
    pub round_levels: u64,
    /// The most rounds a run makes (`--rounds` says otherwise); it stops
    /// sooner once every anchor ratio's interval is within its target.
    pub rounds: u64,
    /// `--quick`'s.
    pub quick_round_levels: u64,
    pub quick_rounds: u64,
    /// The genesis gas limit, in millions.
    pub gas_limit_m: u64,
}

/// How one call's input differs from every other call's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vary {
    /// A new 256-bit word at this byte offset each call.
    Word(usize),
    /// Each call's output written over the input at this byte offset.
    Chain(usize),
    /// Each call's whole input made by dyno and carried in the
    /// transaction's calldata (pairings, POINT_EVALUATION).
    Calldata,
}

/// What prices one operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Price {
    /// A sum of schedule parameters, each times 1 or times the series'
    /// `units`.
    Terms(Vec<(String, bool)>),
    /// The precompile's price in `specs/gas/<fork>.toml`, on the input.
    Fork,
    /// The access's price under each schedule of
    /// `specs/gas/state/schedules.toml` (`dyno_price::state::nominal`).
    State,
}

/// One series: an operation at one parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Op {
    /// `div`, `ecrecover`, `bn254-add`, ...
    pub op: String,
    /// `256-by-128`, `valid`, `12-rounds`, ...
    pub param: String,
    /// `arith`, `keccak`, `precompile` or `state`.
    pub kind: String,
    /// The opcode counted (`arith`, `keccak`), by name.
    pub opcode: Option<String>,
    /// The precompile suite's vector id the input starts from, or `modexp`.
    pub input: Option<String>,
    /// The state suite's access kind a `state` series repeats
    /// (`sload-cold`, ...): which keys exist before it, and its price.
    pub access: Option<String>,
    /// How calls differ (`precompile`).
    pub vary: Vec<Vary>,
    /// The parameter as a number.
    pub units: Option<u64>,
    pub price: Price,
    /// The ids that time the same operation outside a client, set beside
    /// it in the attribution (`--with`): the library called directly
    /// (`precompile/...`) and the EVM's bytecode loop
    /// (`precompile-bytecode/...`, `opcode/...`).
    pub library: Option<String>,
    pub bytecode: Option<String>,
    /// The line of its `op` key.
    pub line: usize,
}

impl Op {
    /// `reprice/<op>/<param>`.
    pub fn id(&self) -> String {
        format!("reprice/{}/{}", self.op, self.param)
    }
}

/// The whole file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reprice {
    pub layout: Layout,
    pub ops: Vec<Op>,
    /// The file, for errors found later (an unknown vector).
    pub path: PathBuf,
}

/// Every series of `<specs_dir>/operations.toml`.
pub fn load(specs_dir: &Path) -> Result<Reprice, SpecError> {
    crate::operations::load(specs_dir).map(|t| t.reprice)
}

/// One compute schedule: today's or a proposal's parameters.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComputeSchedule {
    pub name: String,
    pub status: String,
    pub source: String,
    /// The EIP's parameter names and their gas.
    pub gas: BTreeMap<String, u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SchedulesFile {
    schedule: Vec<ComputeSchedule>,
}

/// Every schedule in `<specs_dir>/gas/compute/schedules.toml`; the first
/// is in force and names every parameter.
pub fn schedules(specs_dir: &Path) -> Result<Vec<ComputeSchedule>, SpecError> {
    let path = specs_dir.join(SCHEDULES);
    parse_schedules(&crate::read(&path)?, &path)
}

/// Parse the schedules; `path` names the file in errors.
pub fn parse_schedules(text: &str, path: &Path) -> Result<Vec<ComputeSchedule>, SpecError> {
    let file: SchedulesFile =
        toml::from_str(text).map_err(|e| crate::error::from_toml(&e, text, path))?;
    let invalid = |reason: String| SpecError::Invalid {
        path: path.to_path_buf(),
        line: 1,
        key: "schedule".into(),
        reason,
    };
    let Some(first) = file.schedule.first() else {
        return Err(invalid("no [[schedule]]: give the one in force".into()));
    };
    for (k, s) in file.schedule.iter().enumerate() {
        if file.schedule[..k].iter().any(|o| o.name == s.name) {
            return Err(invalid(format!("{:?} is named twice", s.name)));
        }
        if let Some(extra) = s.gas.keys().find(|key| !first.gas.contains_key(*key)) {
            return Err(invalid(format!(
                "{:?} prices {extra}, which the schedule in force ({}) does not name: a typo?",
                s.name, first.name
            )));
        }
    }
    Ok(file.schedule)
}

impl Reprice {
    /// Check every price names parameters the schedule in force has.
    pub fn check_prices(&self, schedules: &[ComputeSchedule]) -> Result<(), SpecError> {
        let Some(first) = schedules.first() else {
            return Ok(());
        };
        for op in &self.ops {
            if let Price::Terms(terms) = &op.price
                && let Some((key, _)) = terms.iter().find(|(k, _)| !first.gas.contains_key(k))
            {
                return Err(SpecError::Unknown {
                    path: self.path.clone(),
                    line: op.line,
                    what: "gas parameter",
                    name: key.clone(),
                    suggestion: crate::error::nearest(
                        key,
                        &first.gas.keys().cloned().collect::<Vec<_>>(),
                    ),
                    valid: first.gas.keys().cloned().collect(),
                });
            }
        }
        Ok(())
    }
}

impl ComputeSchedule {
    /// One operation's gas under this schedule, `None` for a `fork` price;
    /// a parameter this schedule leaves out takes `fallback`'s (today's).
    pub fn price(&self, op: &Op, fallback: &ComputeSchedule) -> Option<u64> {
        self.charge(&op.price, op.units, fallback)
    }

    /// What `price` charges under this schedule for one operation of
    /// `units` (1 when `None`); `None` for a `fork` or `state` price.
    pub fn charge(
        &self,
        price: &Price,
        units: Option<u64>,
        fallback: &ComputeSchedule,
    ) -> Option<u64> {
        let Price::Terms(terms) = price else {
            return None;
        };
        let mut gas = 0u64;
        for (key, per_unit) in terms {
            let g = self.gas.get(key).or_else(|| fallback.gas.get(key))?;
            gas += if *per_unit {
                g * units.unwrap_or(1)
            } else {
                *g
            };
        }
        Some(gas)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../specs")
    }

    #[test]
    fn the_shipped_list_and_schedules_load_and_agree() {
        let r = load(&specs()).unwrap();
        let s = schedules(&specs()).unwrap();
        r.check_prices(&s).unwrap();
        assert_eq!(s[0].name, "osaka");
        let keccak = r
            .ops
            .iter()
            .find(|o| o.id() == "reprice/keccak256/256")
            .unwrap();
        // 30 + 6 per word today, 12 + 3 proposed, over 8 words.
        assert_eq!(s[0].price(keccak, &s[0]), Some(78));
        assert_eq!(s[1].price(keccak, &s[0]), Some(36));
        let msm = r.ops.iter().find(|o| o.op == "bls12-g1msm").unwrap();
        assert_eq!(s[1].price(msm, &s[0]), None);
        assert_eq!(msm.vary, vec![Vary::Word(128)]);
        let mul = r.ops.iter().find(|o| o.op == "bn254-mul").unwrap();
        assert_eq!(mul.vary, vec![Vary::Chain(0), Vary::Word(64)]);
    }

    /// The proposal's numbers are checked against a copy of the EIP's
    /// table kept with its provenance (vectors/eip-7904.json), not against
    /// themselves; and today's against the table's "current" column.
    #[test]
    fn the_proposal_matches_the_eips_table() {
        let s = schedules(&specs()).unwrap();
        let path = specs().join("../vectors/eip-7904.json");
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let params = v["parameters"].as_array().unwrap();
        let proposal = s.iter().find(|s| s.name == "eip-7904").unwrap();
        assert_eq!(proposal.gas.len(), params.len());
        for p in params {
            let name = p["name"].as_str().unwrap();
            assert_eq!(
                proposal.gas.get(name).copied(),
                p["proposed"].as_u64(),
                "{name}"
            );
            assert_eq!(s[0].gas.get(name).copied(), p["current"].as_u64(), "{name}");
        }
    }
}
