//! The opcode suite's benchmarks, read from the operation table: each
//! operation's loop made by its kind, its opcode's byte and arity from
//! revm's opcode table.

use super::*;

/// How one benchmark's program is made.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Make {
    /// An arithmetic opcode of `vectors/opcode.json`, by its case name.
    Arith(&'static str, op::OpCode),
    /// KECCAK256 of this many bytes of `vectors/hash.json`.
    Keccak(usize),
    /// MLOAD, MSTORE or MCOPY of this many bytes.
    Memory(&'static str, usize),
    /// SLOAD or SSTORE, cold or warm.
    Storage(&'static str, bool),
    /// A CALL-family opcode.
    Call(&'static str),
    /// CREATE (false) or CREATE2 (true).
    Create(bool),
    /// LOG with this many topics.
    Log(u8),
    /// The loop alone.
    Empty,
}

impl Make {
    pub(crate) fn bench(self, ctx: &Ctx, what: &str) -> Result<Bench, BuildError> {
        Ok(match self {
            Self::Arith(name, code) => arith(ctx, name, code, what)?,
            Self::Keccak(len) => keccak(ctx, len, what)?,
            Self::Memory(kind, len) => memory(kind, len),
            Self::Storage(kind, cold) => storage(kind, cold),
            Self::Call(kind) => call(kind),
            Self::Create(two) => create(two),
            Self::Log(topics) => log(topics),
            Self::Empty => empty(),
        })
    }

    /// True when another EVM can run the program from the cases alone: no
    /// pre-state, no callee, no state carried from one call to the next,
    /// one word returned for any count of at least 1.
    pub(crate) fn portable(self) -> bool {
        matches!(
            self,
            Self::Arith(..) | Self::Keccak(_) | Self::Memory(..) | Self::Empty
        )
    }
}

/// One benchmark: `opcode/<op>/<input>`, the sequence as a person reads
/// it, and how its program is made.
#[derive(Debug)]
pub(crate) struct Entry {
    pub(crate) op: String,
    pub(crate) input: String,
    pub(crate) sequence: String,
    pub(crate) make: Make,
}

impl Entry {
    pub(crate) fn id(&self) -> String {
        format!("{GROUP}/{}/{}", self.op, self.input)
    }
}

/// Every opcode benchmark, in the order of the operation table dyno was
/// built with (`specs/operations.toml`).
pub(crate) fn entries() -> &'static [Entry] {
    static ENTRIES: std::sync::OnceLock<Vec<Entry>> = std::sync::OnceLock::new();
    ENTRIES.get_or_init(|| {
        entries_of(dyno_spec::operations::builtin())
            .unwrap_or_else(|e| panic!("specs/operations.toml, as dyno was built with it: {e}"))
    })
}

/// The benchmarks of `table`'s loop level: each operation's program made
/// by its kind, its opcode's byte and arity from revm.
pub(crate) fn entries_of(
    table: &'static dyno_spec::operations::Operations,
) -> Result<Vec<Entry>, String> {
    let mut out = Vec::new();
    for o in &table.operations {
        if o.loop_inputs.is_empty() {
            continue;
        }
        let at = format!("line {}, operation {}", o.line, o.op);
        let name = o.opcode.as_deref().unwrap_or_default();
        let code = match o.opcode.as_deref() {
            Some(n) => Some(
                crate::asm::opcode_named(n)
                    .ok_or_else(|| format!("{at}: revm has no opcode named {n:?}"))?,
            ),
            None => None,
        };
        for input in &o.loop_inputs {
            let bad = |what: &str| format!("{at}: a {} loop runs on {what}, not {input:?}", o.kind);
            let size = || {
                dyno_spec::operations::size_of(input).ok_or_else(|| bad("a size (`32B`, `1KiB`)"))
            };
            let (make, sequence) = match (o.kind.as_str(), code) {
                ("arith", Some(code)) => {
                    if input != "a256-b128-c200" {
                        return Err(bad("vectors/opcode.json's operands, `a256-b128-c200`"));
                    }
                    if !(2..=3).contains(&code.inputs()) || code.outputs() != 1 {
                        return Err(format!(
                            "{at}: {name} takes {} operands and returns {}: an arith loop needs 2 or 3 and 1",
                            code.inputs(),
                            code.outputs()
                        ));
                    }
                    let sequence = if code.inputs() == 3 {
                        format!("DUP4 DUP4 DUP4 {name} POP")
                    } else {
                        format!("DUP3 DUP3 {name} POP")
                    };
                    (Make::Arith(o.op.as_str(), code), sequence)
                }
                ("keccak", _) => {
                    let len = size()?;
                    (
                        Make::Keccak(len),
                        format!("PUSH2 {len} PUSH2 0x100 KECCAK256 POP"),
                    )
                }
                ("memory", _) => match name {
                    "MLOAD" if input == "word" => {
                        (Make::Memory("mload", 32), "PUSH2 0x100 MLOAD POP".into())
                    }
                    "MSTORE" if input == "word" => {
                        (Make::Memory("mstore", 32), "DUP1 PUSH2 0x100 MSTORE".into())
                    }
                    "MCOPY" => {
                        let len = size()?;
                        (
                            Make::Memory("mcopy", len),
                            format!("PUSH {len} PUSH 0x100 PUSH {} MCOPY", 0x100 + len),
                        )
                    }
                    "MLOAD" | "MSTORE" => return Err(bad("a `word`")),
                    _ => return Err(format!("{at}: a memory loop is MLOAD, MSTORE or MCOPY")),
                },
                ("storage", _) => {
                    let cold = match input.as_str() {
                        "cold" => true,
                        "warm" => false,
                        _ => return Err(bad("`cold` or `warm`")),
                    };
                    let (kind, core) = match name {
                        "SLOAD" => ("sload", "PUSH0 MLOAD DUP1 SLOAD POP"),
                        "SSTORE" => ("sstore", "PUSH0 MLOAD DUP2 DUP2 SSTORE"),
                        _ => return Err(format!("{at}: a storage loop is SLOAD or SSTORE")),
                    };
                    (
                        Make::Storage(kind, cold),
                        format!(
                            "{core} PUSH1 {} ADD PUSH2 0xffff AND PUSH0 MSTORE",
                            u8::from(cold)
                        ),
                    )
                }
                ("call", _) => {
                    let kind = match name {
                        "CALL" => "call",
                        "CALLCODE" => "callcode",
                        "DELEGATECALL" => "delegatecall",
                        "STATICCALL" => "staticcall",
                        _ => return Err(format!("{at}: a call loop is one of the CALL family")),
                    };
                    if input != "returns-word" {
                        return Err(bad("a callee that `returns-word`"));
                    }
                    (Make::Call(kind), format!("(7 or 6 pushes) GAS {name} POP"))
                }
                ("create", _) => {
                    if input != "1-byte-code" {
                        return Err(bad("`1-byte-code`"));
                    }
                    match name {
                        "CREATE" => (
                            Make::Create(false),
                            "PUSH1 9 PUSH2 0x100 PUSH0 CREATE POP".into(),
                        ),
                        "CREATE2" => (
                            Make::Create(true),
                            "GAS PUSH1 9 PUSH2 0x100 PUSH0 CREATE2 POP".into(),
                        ),
                        _ => return Err(format!("{at}: a create loop is CREATE or CREATE2")),
                    }
                }
                ("log", Some(code)) if name.starts_with("LOG") => {
                    if input != "32B" {
                        return Err(bad("`32B` of data"));
                    }
                    // LOGn takes an offset, a size and n topics.
                    let n = code.inputs() - 2;
                    (
                        Make::Log(n),
                        format!("{n} topic pushes, PUSH1 32 PUSH2 0x100 LOG{n}"),
                    )
                }
                ("loop", None) => {
                    if input != "empty" {
                        return Err(bad("`empty`"));
                    }
                    (Make::Empty, "(nothing: one turn of the loop)".into())
                }
                _ => return Err(format!("{at}: a {} operation has no loop here", o.kind)),
            };
            out.push(Entry {
                op: o.loop_op(),
                input: input.clone(),
                sequence,
                make,
            });
        }
    }
    Ok(out)
}
