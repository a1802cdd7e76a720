//! The operations `dyno gas --blocks` isolates in blocks
//! (`specs/reprice/ops.toml`) and the compute gas schedules it prices them
//! against (`specs/gas/compute/schedules.toml`): what each series repeats,
//! how its inputs differ call to call, and which gas parameters price one
//! operation. Building the programs is `dyno_evm::reprice`'s; this module
//! only reads and checks the files, every error naming file, line and key.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::{SpecError, line_of};

/// The operation list, under the specs folder.
pub const FILE: &str = "reprice/ops.toml";
/// The compute schedules, under the specs folder.
pub const SCHEDULES: &str = "gas/compute/schedules.toml";

/// The program kinds there are.
pub const KINDS: [&str; 4] = ["arith", "keccak", "precompile", "state"];

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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    series: Layout,
    op: Vec<RawOp>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOp {
    op: Spanned<String>,
    param: String,
    kind: String,
    opcode: Option<String>,
    input: Option<String>,
    access: Option<String>,
    vary: Option<String>,
    units: Option<u64>,
    price: toml::Value,
    library: Option<String>,
    bytecode: Option<String>,
}

fn read(path: &Path) -> Result<String, SpecError> {
    std::fs::read_to_string(path).map_err(|e| SpecError::Io {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

/// `<specs_dir>/reprice/ops.toml`.
pub fn load(specs_dir: &Path) -> Result<Reprice, SpecError> {
    let path = specs_dir.join(FILE);
    parse(&read(&path)?, &path)
}

/// Parse the operation list; `path` names it in errors.
pub fn parse(text: &str, path: &Path) -> Result<Reprice, SpecError> {
    let file: File = toml::from_str(text).map_err(|e| crate::error::from_toml(&e, text, path))?;
    let invalid = |line: usize, key: &str, reason: String| SpecError::Invalid {
        path: path.to_path_buf(),
        line,
        key: key.into(),
        reason,
    };
    let l = &file.series;
    let series_line = text.find("[series]").map_or(1, |at| line_of(text, at));
    if l.budgets_m.is_empty() || l.quick_budgets_m.is_empty() {
        return Err(invalid(
            series_line,
            "series.budgets_m",
            "give at least one budget (and one quick budget), in millions of gas".into(),
        ));
    }
    if let Some(b) = l
        .budgets_m
        .iter()
        .chain(&l.quick_budgets_m)
        .find(|&&b| b == 0 || b > l.gas_limit_m)
    {
        return Err(invalid(
            series_line,
            "series.budgets_m",
            format!(
                "a budget of {b}M gas: each must be above 0 and at most the genesis gas limit, gas_limit_m = {}",
                l.gas_limit_m
            ),
        ));
    }
    if l.levels < 2 || l.repeats == 0 || l.quick_repeats == 0 {
        return Err(invalid(
            series_line,
            "series.levels",
            "a fit needs at least 2 levels and 1 repeat".into(),
        ));
    }
    let mut ops: Vec<Op> = Vec::new();
    for raw in file.op {
        let line = line_of(text, raw.op.span().start);
        let key = |k: &str| format!("op[op={}].{k}", raw.op.get_ref());
        if !KINDS.contains(&raw.kind.as_str()) {
            return Err(SpecError::Unknown {
                path: path.to_path_buf(),
                line,
                what: "kind",
                name: raw.kind.clone(),
                suggestion: None,
                valid: KINDS.map(String::from).to_vec(),
            });
        }
        let precompile = raw.kind == "precompile";
        if precompile != raw.input.is_some() || precompile == raw.opcode.is_some() {
            return Err(invalid(
                line,
                &key("kind"),
                "an `arith`, `keccak` or `state` series names its `opcode`, a `precompile` series its `input` (and no opcode)".into(),
            ));
        }
        let state = raw.kind == "state";
        if state != raw.access.is_some() {
            return Err(invalid(
                line,
                &key("access"),
                format!(
                    "a `state` series, and only one, names its `access`: one of {}",
                    ACCESSES.join(", ")
                ),
            ));
        }
        if let Some(a) = &raw.access
            && !ACCESSES.contains(&a.as_str())
        {
            return Err(SpecError::Unknown {
                path: path.to_path_buf(),
                line,
                what: "access",
                name: a.clone(),
                suggestion: crate::error::nearest(a, &ACCESSES.map(String::from)),
                valid: ACCESSES.map(String::from).to_vec(),
            });
        }
        if raw.kind == "keccak" && raw.units.is_none() {
            return Err(invalid(
                line,
                &key("units"),
                "a keccak series hashes `units` 32-byte words: give it".into(),
            ));
        }
        let vary = match (&raw.vary, precompile) {
            (None, false) => Vec::new(),
            (Some(v), true) => parse_vary(v).map_err(|r| invalid(line, &key("vary"), r))?,
            (None, true) => {
                return Err(invalid(
                    line,
                    &key("vary"),
                    "a precompile series says how each call's input differs: `word@N` or `chain@N`"
                        .into(),
                ));
            }
            (Some(_), false) => {
                return Err(invalid(
                    line,
                    &key("vary"),
                    "only precompile series take `vary`; an opcode's operands differ by construction".into(),
                ));
            }
        };
        let price = parse_price(&raw.price, raw.units.is_some())
            .map_err(|r| invalid(line, &key("price"), r))?;
        if state != (price == Price::State) {
            return Err(invalid(
                line,
                &key("price"),
                "a `state` series, and only one, is priced \"state\" (by specs/gas/state/schedules.toml)".into(),
            ));
        }
        let op = Op {
            op: raw.op.into_inner(),
            param: raw.param,
            kind: raw.kind,
            opcode: raw.opcode,
            input: raw.input,
            access: raw.access,
            vary,
            units: raw.units,
            price,
            library: raw.library,
            bytecode: raw.bytecode,
            line,
        };
        if ops.iter().any(|o| o.id() == op.id()) {
            return Err(invalid(line, "op", format!("{} is listed twice", op.id())));
        }
        if op.op == "control" {
            return Err(invalid(
                line,
                "op",
                "`control` names the control series dyno adds itself; choose another name".into(),
            ));
        }
        ops.push(op);
    }
    if ops.is_empty() {
        return Err(invalid(1, "op", "no [[op]]: list at least one".into()));
    }
    Ok(Reprice {
        layout: file.series,
        ops,
        path: path.to_path_buf(),
    })
}

fn parse_vary(text: &str) -> Result<Vec<Vary>, String> {
    let vary: Vec<Vary> = text
        .split_whitespace()
        .map(|part| {
            if part == "calldata" {
                return Ok(Vary::Calldata);
            }
            let (kind, at) = part
                .split_once('@')
                .ok_or_else(|| format!("{part:?}: write `word@N`, `chain@N` or `calldata`"))?;
            let at: usize = at
                .parse()
                .map_err(|_| format!("{part:?}: the offset must be a byte count"))?;
            match kind {
                "word" => Ok(Vary::Word(at)),
                "chain" => Ok(Vary::Chain(at)),
                _ => Err(format!("{part:?}: write `word@N` or `chain@N`")),
            }
        })
        .collect::<Result<_, _>>()?;
    if vary.is_empty() {
        return Err("empty: write `word@N` or `chain@N`".into());
    }
    Ok(vary)
}

fn parse_price(value: &toml::Value, has_units: bool) -> Result<Price, String> {
    match value.as_str() {
        Some("fork") => return Ok(Price::Fork),
        Some("state") => return Ok(Price::State),
        _ => {}
    }
    let terms = value
        .as_array()
        .ok_or("give a list of gas parameters (`KEY` or `KEY*units`), \"fork\" or \"state\"")?;
    let terms: Vec<(String, bool)> = terms
        .iter()
        .map(|t| {
            let t = t.as_str().ok_or("each term is a string")?;
            match t.split_once('*') {
                Some((key, "units")) if has_units => Ok((key.trim().to_string(), true)),
                Some(_) if !has_units => Err(format!("{t:?}: `*units` needs the series' `units`")),
                Some(_) => Err(format!("{t:?}: the only factor is `*units`")),
                None => Ok((t.trim().to_string(), false)),
            }
        })
        .collect::<Result<_, String>>()?;
    if terms.is_empty() {
        return Err("an empty price: give at least one gas parameter".into());
    }
    Ok(Price::Terms(terms))
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
    parse_schedules(&read(&path)?, &path)
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
        let Price::Terms(terms) = &op.price else {
            return None;
        };
        let mut gas = 0u64;
        for (key, per_unit) in terms {
            let g = self.gas.get(key).or_else(|| fallback.gas.get(key))?;
            gas += if *per_unit {
                g * op.units.unwrap_or(1)
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

    #[test]
    fn a_bad_entry_names_its_line_and_key() {
        let path = Path::new("specs/reprice/ops.toml");
        let head = "[series]\nbudgets_m=[30]\nlevels=5\nrepeats=1\nquick_budgets_m=[3]\nquick_repeats=1\ngas_limit_m=100\n";
        let bad = format!(
            "{head}[[op]]\nop='div'\nparam='x'\nkind='precompile'\nopcode='DIV'\nprice=['OPCODE_DIV']\n"
        );
        let e = parse(&bad, path).unwrap_err().to_string();
        assert!(
            e.contains("ops.toml:9") && e.contains("op[op=div].kind"),
            "{e}"
        );
        let bad = format!(
            "{head}[[op]]\nop='e'\nparam='x'\nkind='precompile'\ninput='precompile/ecrecover/ValidKey'\nvary='word0'\nprice=['A']\n"
        );
        let e = parse(&bad, path).unwrap_err().to_string();
        assert!(e.contains("word@N"), "{e}");
        let bad = format!(
            "{head}[[op]]\nop='e'\nparam='x'\nkind='arith'\nopcode='DIV'\nprice=['A*units']\n"
        );
        let e = parse(&bad, path).unwrap_err().to_string();
        assert!(e.contains("needs the series' `units`"), "{e}");
        let r = parse(
            &format!("{head}[[op]]\nop='div'\nparam='x'\nkind='arith'\nopcode='DIV'\nprice=['OPCODE_DVI']\n"),
            path,
        )
        .unwrap();
        let e = r
            .check_prices(&schedules(&specs()).unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains("OPCODE_DVI") && e.contains("OPCODE_DIV"), "{e}");
        let over = head.replace("budgets_m=[30]", "budgets_m=[300]");
        let e = parse(
            &format!("{over}[[op]]\nop='d'\nparam='x'\nkind='arith'\nopcode='DIV'\nprice=['A']\n"),
            path,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("300M"), "{e}");
    }
}
