//! The operation table (`specs/operations.toml`): every operation dyno
//! knows, once, with the levels it runs at (the opcode suite's loop, the
//! library and bytecode ids beside it, the series of blocks `dyno gas
//! --blocks` isolates it in) and where its price comes from. Building the
//! programs is `dyno_evm`'s; this module only reads and checks the file,
//! every error naming file, line and key.
//!
//! The opcode suite builds its benchmarks from the table dyno was built
//! with ([`builtin`]); `dyno gas --blocks` reads the specs folder's copy
//! ([`crate::reprice::load`]), so a series can be tried without a rebuild.

use std::path::Path;
use std::sync::OnceLock;

use serde::Deserialize;
use toml::Spanned;

use crate::reprice::{ACCESSES, Layout, Op, Price, Reprice, Vary};
use crate::{SpecError, line_of};

/// The table, under the specs folder.
pub const FILE: &str = "operations.toml";

/// The table as dyno was built with it.
const BUILTIN: &str = include_str!("../../../specs/operations.toml");

/// The kinds of operation there are: how its programs are made.
pub const KINDS: [&str; 10] = [
    "arith",
    "keccak",
    "memory",
    "storage",
    "call",
    "create",
    "log",
    "loop",
    "precompile",
    "state",
];

/// The kinds that run in the opcode suite's loop (`loop = [...]`).
pub const LOOP_KINDS: [&str; 8] = [
    "arith", "keccak", "memory", "storage", "call", "create", "log", "loop",
];

/// One operation of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    /// `div`, `keccak256`, `ecrecover`, `sload`, ...
    pub op: String,
    /// One of [`KINDS`].
    pub kind: String,
    /// revm's name for the opcode (every kind but `precompile` and
    /// `loop`); its byte and arity are revm's.
    pub opcode: Option<String>,
    /// The precompile's name in `specs/gas/<fork>.toml` (`precompile`).
    pub precompile: Option<String>,
    /// The opcode suite's inputs for it: `opcode/<op>/<input>`.
    pub loop_inputs: Vec<String>,
    /// What prices one of it, for an operation with series.
    pub price: Option<Price>,
    /// The line of its `op` key.
    pub line: usize,
}

/// A size input of the table (`32B`, `1KiB`) in bytes.
pub fn size_of(input: &str) -> Option<usize> {
    if let Some(k) = input.strip_suffix("KiB") {
        return k.parse::<usize>().ok().map(|k| k * 1024);
    }
    input.strip_suffix('B')?.parse().ok()
}

impl Operations {
    /// The operation named `name`.
    pub fn get(&self, name: &str) -> Option<&Operation> {
        self.operations.iter().find(|o| o.op == name)
    }
}

impl Operation {
    /// The op part of its opcode-suite ids: `arith-<op>` for an `arith`
    /// opcode (the suite's ids name the family), else `<op>`.
    pub fn loop_op(&self) -> String {
        if self.kind == "arith" {
            format!("arith-{}", self.op)
        } else {
            self.op.clone()
        }
    }
}

/// The whole table: its operations, and the series of blocks they run in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operations {
    pub operations: Vec<Operation>,
    /// Every series of every operation, in the table's order.
    pub reprice: Reprice,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    series: Layout,
    operation: Vec<RawOperation>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOperation {
    op: Spanned<String>,
    kind: String,
    opcode: Option<String>,
    precompile: Option<String>,
    #[serde(default, rename = "loop")]
    loop_inputs: Vec<String>,
    vary: Option<String>,
    price: Option<toml::Value>,
    #[serde(default)]
    series: Vec<RawSeries>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSeries {
    param: Spanned<String>,
    input: Option<String>,
    access: Option<String>,
    units: Option<u64>,
    library: Option<String>,
    bytecode: Option<String>,
}

/// The table dyno was built with; the opcode suite's benchmarks.
pub fn builtin() -> &'static Operations {
    static TABLE: OnceLock<Operations> = OnceLock::new();
    TABLE.get_or_init(|| {
        parse(BUILTIN, Path::new(concat!("specs/", "operations.toml")))
            .unwrap_or_else(|e| panic!("the operation table dyno was built with: {e}"))
    })
}

/// `<specs_dir>/operations.toml`.
pub fn load(specs_dir: &Path) -> Result<Operations, SpecError> {
    let path = specs_dir.join(FILE);
    let text = crate::read(&path)?;
    parse(&text, &path)
}

/// Parse the table; `path` names it in errors.
pub fn parse(text: &str, path: &Path) -> Result<Operations, SpecError> {
    let file: File = toml::from_str(text).map_err(|e| crate::error::from_toml(&e, text, path))?;
    let invalid = |line: usize, key: &str, reason: String| SpecError::Invalid {
        path: path.to_path_buf(),
        line,
        key: key.into(),
        reason,
    };
    check_layout(&file.series, text, path)?;
    let mut operations: Vec<Operation> = Vec::new();
    let mut ops: Vec<Op> = Vec::new();
    for raw in file.operation {
        let line = line_of(text, raw.op.span().start);
        let name = raw.op.get_ref().clone();
        let key = |k: &str| format!("operation[op={name}].{k}");
        if !KINDS.contains(&raw.kind.as_str()) {
            return Err(SpecError::Unknown {
                path: path.to_path_buf(),
                line,
                what: "kind",
                name: raw.kind.clone(),
                suggestion: crate::error::nearest(&raw.kind, &KINDS.map(String::from)),
                valid: KINDS.map(String::from).to_vec(),
            });
        }
        if operations.iter().any(|o| o.op == name) {
            return Err(invalid(
                line,
                "operation.op",
                format!("{name:?} is listed twice"),
            ));
        }
        if name == "control" {
            return Err(invalid(
                line,
                "operation.op",
                "`control` names the control series dyno adds itself; choose another name".into(),
            ));
        }
        let precompile = raw.kind == "precompile";
        let needs_opcode = !precompile && raw.kind != "loop";
        if needs_opcode != raw.opcode.is_some() {
            return Err(invalid(
                line,
                &key("opcode"),
                "an opcode names revm's name for it (`opcode = \"DIV\"`); a `precompile` or the `loop` names none".into(),
            ));
        }
        if precompile != raw.precompile.is_some() {
            return Err(invalid(
                line,
                &key("precompile"),
                "a `precompile`, and only one, names its entry in specs/gas/<fork>.toml".into(),
            ));
        }
        if !raw.loop_inputs.is_empty() && !LOOP_KINDS.contains(&raw.kind.as_str()) {
            return Err(invalid(
                line,
                &key("loop"),
                format!(
                    "a {} operation has no loop in the opcode suite (kinds that do: {})",
                    raw.kind,
                    LOOP_KINDS.join(", ")
                ),
            ));
        }
        let vary = match (&raw.vary, precompile && !raw.series.is_empty()) {
            (None, false) => Vec::new(),
            (Some(v), true) => parse_vary(v).map_err(|r| invalid(line, &key("vary"), r))?,
            (None, true) => {
                return Err(invalid(
                    line,
                    &key("vary"),
                    "a precompile's series say how each call's input differs: `word@N`, `chain@N` or `calldata`"
                        .into(),
                ));
            }
            (Some(_), false) => {
                return Err(invalid(
                    line,
                    &key("vary"),
                    "only a precompile with series takes `vary`; an opcode's operands differ by construction".into(),
                ));
            }
        };
        let price = match (&raw.price, raw.series.is_empty()) {
            (None, true) => None,
            (Some(p), false) => {
                let units = raw.series.iter().all(|s| s.units.is_some());
                Some(parse_price(p, units).map_err(|r| invalid(line, &key("price"), r))?)
            }
            (None, false) => {
                return Err(invalid(
                    line,
                    &key("price"),
                    "an operation with series says what prices it: gas parameters, \"fork\" or \"state\"".into(),
                ));
            }
            (Some(_), true) => {
                return Err(invalid(
                    line,
                    &key("price"),
                    "only an operation with series is priced here (add its [[operation.series]])"
                        .into(),
                ));
            }
        };
        for s in raw.series {
            let sline = line_of(text, s.param.span().start);
            let param = s.param.get_ref().clone();
            let skey = |k: &str| format!("operation[op={name}].series[param={param}].{k}");
            let kind = if precompile {
                "precompile"
            } else if s.access.is_some() {
                "state"
            } else if matches!(raw.kind.as_str(), "arith" | "keccak") {
                raw.kind.as_str()
            } else {
                return Err(invalid(
                    sline,
                    &skey("access"),
                    format!(
                        "a series of a {} operation is a state access: name its `access`, one of {}",
                        raw.kind,
                        ACCESSES.join(", ")
                    ),
                ));
            };
            if precompile != s.input.is_some() {
                return Err(invalid(
                    sline,
                    &skey("input"),
                    "a precompile's series, and only one, names the `input` its calls start from"
                        .into(),
                ));
            }
            if let Some(a) = &s.access {
                if precompile || matches!(raw.kind.as_str(), "arith" | "keccak") {
                    return Err(invalid(
                        sline,
                        &skey("access"),
                        format!("a {} operation's series is no state access", raw.kind),
                    ));
                }
                if !ACCESSES.contains(&a.as_str()) {
                    return Err(SpecError::Unknown {
                        path: path.to_path_buf(),
                        line: sline,
                        what: "access",
                        name: a.clone(),
                        suggestion: crate::error::nearest(a, &ACCESSES.map(String::from)),
                        valid: ACCESSES.map(String::from).to_vec(),
                    });
                }
            }
            if kind == "keccak" && s.units.is_none() {
                return Err(invalid(
                    sline,
                    &skey("units"),
                    "a keccak series hashes `units` 32-byte words: give it".into(),
                ));
            }
            let Some(price) = price.clone() else {
                unreachable!("an operation with series has a price")
            };
            if (kind == "state") != (price == Price::State) {
                return Err(invalid(
                    line,
                    &key("price"),
                    "a state access, and only one, is priced \"state\" (by specs/gas/state/schedules.toml)".into(),
                ));
            }
            let op = Op {
                op: name.clone(),
                param: param.clone(),
                kind: kind.to_string(),
                opcode: raw.opcode.clone(),
                input: s.input,
                access: s.access,
                vary: vary.clone(),
                units: s.units,
                price,
                library: s.library,
                bytecode: s.bytecode,
                line: sline,
            };
            if ops.iter().any(|o| o.id() == op.id()) {
                return Err(invalid(
                    sline,
                    &skey("param"),
                    format!("{} is listed twice", op.id()),
                ));
            }
            ops.push(op);
        }
        operations.push(Operation {
            op: name,
            kind: raw.kind,
            opcode: raw.opcode,
            precompile: raw.precompile,
            loop_inputs: raw.loop_inputs,
            price,
            line,
        });
    }
    if ops.is_empty() {
        return Err(invalid(
            1,
            "operation.series",
            "no operation has a series: `dyno gas --blocks` needs at least one".into(),
        ));
    }
    Ok(Operations {
        operations,
        reprice: Reprice {
            layout: file.series,
            ops,
            path: path.to_path_buf(),
        },
    })
}

fn check_layout(l: &Layout, text: &str, path: &Path) -> Result<(), SpecError> {
    let line = text.find("[series]").map_or(1, |at| line_of(text, at));
    let invalid = |key: &str, reason: String| SpecError::Invalid {
        path: path.to_path_buf(),
        line,
        key: key.into(),
        reason,
    };
    if l.budgets_m.is_empty() || l.quick_budgets_m.is_empty() {
        return Err(invalid(
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
            "series.budgets_m",
            format!(
                "a budget of {b}M gas: each must be above 0 and at most the genesis gas limit, gas_limit_m = {}",
                l.gas_limit_m
            ),
        ));
    }
    if l.levels < 2 || l.repeats == 0 || l.quick_repeats == 0 {
        return Err(invalid(
            "series.levels",
            "a fit needs at least 2 levels and 1 repeat".into(),
        ));
    }
    for (key, round_levels, budgets) in [
        (
            "series.round_levels",
            l.round_levels,
            l.budgets_m.len() as u64,
        ),
        (
            "series.quick_round_levels",
            l.quick_round_levels,
            l.quick_budgets_m.len() as u64,
        ),
    ] {
        if round_levels == 0 || !l.levels.is_multiple_of(round_levels) {
            return Err(invalid(
                key,
                format!(
                    "{round_levels}: a round holds a whole share of the {} levels (a divisor of it)",
                    l.levels
                ),
            ));
        }
        if round_levels * budgets < 2 {
            return Err(invalid(
                key,
                "a round's slope needs at least 2 counts of each series: more levels a round, or more budgets".into(),
            ));
        }
    }
    if l.rounds == 0 || l.quick_rounds == 0 {
        return Err(invalid(
            "series.rounds",
            "at least 1 round (and 1 quick round)".into(),
        ));
    }
    Ok(())
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

/// `has_units`: every series of the operation gives `units`.
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
                Some(_) if !has_units => {
                    Err(format!("{t:?}: `*units` needs every series' `units`"))
                }
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

#[cfg(test)]
mod tests;
