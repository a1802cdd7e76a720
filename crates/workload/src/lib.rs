//! The interface every dyno benchmark implements, and the pieces that make
//! writing one take a few lines.
//!
//! A [`Workload`] owns a pre-generated set of inputs. The runner first calls
//! [`Workload::verify`], which checks every output against its expected value;
//! only a workload that passes is ever timed. Then the runner calls
//! [`Workload::run`] with a batch size and times the call itself.
//!
//! [`Cases`] covers almost every benchmark: a list of inputs, the expected
//! output of each (or a check closure), and the operation.
//!
//! This crate knows nothing of timing, statistics or output formats, so that
//! suites depend only on it.

use std::fmt::{self, Debug};
use std::hint::black_box;
use std::path::{Path, PathBuf};

mod seq;
pub use seq::{seq, u64_le};

/// A benchmark body: verified once, then run in timed batches.
pub trait Workload {
    /// Run the operation on every input once and compare each output with its
    /// expected value. Called before any timing.
    fn verify(&mut self) -> Result<(), Mismatch>;

    /// Run the operation `iters` times, cycling through the input set.
    /// Inputs and outputs must pass through [`black_box`].
    fn run(&mut self, iters: u64);

    /// How many distinct inputs the set holds (reported in the result).
    fn cases(&self) -> usize;

    /// True if only a fit of time against `iters` means anything: each
    /// `run` carries a fixed cost (starting a transaction, say) that the
    /// intercept must absorb, however long one iteration takes. The engine
    /// then fits over several batch sizes whatever the operation costs.
    fn fitted(&self) -> bool {
        false
    }

    /// The most iterations one `run` (or `time`) may take: a loop that
    /// needs a fresh key per iteration has only so many. The engine keeps
    /// every warm-up batch and sample at or below it. `None`: no limit.
    fn max_iters(&self) -> Option<u64> {
        None
    }

    /// The fewest iterations a sample should take, where a sample's own
    /// fixed cost is large and noisy; [`Workload::max_iters`] wins over it.
    /// `None`: the engine sizes samples by time alone.
    fn min_iters(&self) -> Option<u64> {
        None
    }

    /// Facts the workload learned while verifying, recorded with the
    /// result's parameters: the gas one operation costs by the EVM's own
    /// accounting, say. Called after measuring.
    fn facts(&self) -> Vec<(&'static str, Param)> {
        Vec::new()
    }

    /// For a workload that times itself (another runtime's adapter, which
    /// reads its own clock around its own loop): run `iters` iterations
    /// and return the nanoseconds that clock measured, or why it could not
    /// (the worker died). `None`, the default, means the engine times
    /// [`Workload::run`] with its own clock.
    fn time(&mut self, iters: u64) -> Option<Result<u64, String>> {
        let _ = iters;
        None
    }

    /// The process the operation runs in when it is not dyno's own (another
    /// runtime's worker): the engine records that process's peak memory.
    fn pid(&self) -> Option<u32> {
        None
    }

    /// The least warm-up, in nanoseconds, this workload needs before its
    /// samples mean anything: a JIT runtime's, which compiles hot code
    /// while it runs. The engine warms up for at least this long.
    fn min_warmup_ns(&self) -> u64 {
        0
    }
}

/// An output that differs from the value it was expected to have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("case {case}: expected {expected}, got {actual}")]
pub struct Mismatch {
    /// Which input of the set (its index, or a name).
    pub case: String,
    /// The expected value, rendered for a person (hex for bytes, truncated).
    pub expected: String,
    /// The value the implementation returned.
    pub actual: String,
}

/// How a workload's output is checked before timing.
enum Check<I, O> {
    /// Compare with a known output per input.
    Equals {
        expected: Vec<O>,
        show: fn(&O) -> String,
    },
    /// A property that must hold (for randomized outputs such as ECDSA
    /// signatures with random nonces): `Err((expected, actual))` on failure.
    Holds(CheckFn<I, O>),
}

type CheckFn<I, O> = Box<dyn Fn(&I, &O) -> Result<(), (String, String)>>;

/// The common workload: an operation over a pre-generated input set.
pub struct Cases<I, O, F> {
    inputs: Vec<I>,
    op: F,
    check: Check<I, O>,
    next: usize,
    /// Each input's number in its vector file, for mismatch messages
    /// (default: its place in `inputs`).
    numbers: Option<Vec<usize>>,
    /// Inputs checked by `verify` and never timed, with their outputs
    /// (see [`Cases::controls`]).
    controls: Vec<(I, O)>,
}

impl<I, O, F> Debug for Cases<I, O, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cases")
            .field("cases", &self.inputs.len())
            .finish_non_exhaustive()
    }
}

impl<I, O, F> Cases<I, O, F>
where
    F: FnMut(&I) -> O,
    O: PartialEq + Debug,
{
    /// Each input paired with the output the operation must return for it.
    /// Mismatches are shown with `Debug`; use [`Cases::show`] for bytes.
    pub fn expect(pairs: Vec<(I, O)>, op: F) -> Self {
        assert!(!pairs.is_empty(), "a workload needs at least one input");
        let (inputs, expected) = pairs.into_iter().unzip();
        Self {
            inputs,
            op,
            check: Check::Equals {
                expected,
                show: |o| truncate(format!("{o:?}")),
            },
            next: 0,
            numbers: None,
            controls: Vec::new(),
        }
    }

    /// Controls: inputs `verify` also checks, never timed, such as a
    /// signature over another message that a verifier must reject. A
    /// benchmark of valid inputs alone would pass an operation that always
    /// says yes.
    pub fn controls(mut self, controls: Vec<(I, O)>) -> Self {
        self.controls = controls;
        self
    }

    /// Render outputs with `show` in mismatch messages (e.g. [`hex`]).
    pub fn show(mut self, show: fn(&O) -> String) -> Self {
        if let Check::Equals { show: s, .. } = &mut self.check {
            *s = show;
        }
        self
    }
}

impl<I, O, F> Cases<I, O, F>
where
    F: FnMut(&I) -> O,
{
    /// Inputs whose outputs are checked by a property rather than a fixed
    /// value: `check(input, output)` returns `Err((expected, actual))`.
    pub fn checked(
        inputs: Vec<I>,
        op: F,
        check: impl Fn(&I, &O) -> Result<(), (String, String)> + 'static,
    ) -> Self {
        assert!(!inputs.is_empty(), "a workload needs at least one input");
        Self {
            inputs,
            op,
            check: Check::Holds(Box::new(check)),
            next: 0,
            numbers: None,
            controls: Vec::new(),
        }
    }
}

impl<I, O, F> Cases<I, O, F> {
    /// Number each input as its vector file does (its index in the file's
    /// `cases`, from 0), so a wrong result names the same case a parse
    /// error of that file would.
    pub fn numbered(mut self, numbers: Vec<usize>) -> Self {
        assert_eq!(numbers.len(), self.inputs.len(), "one number per input");
        self.numbers = Some(numbers);
        self
    }
}

impl<I, O, F> Workload for Cases<I, O, F>
where
    F: FnMut(&I) -> O,
    O: PartialEq,
{
    fn verify(&mut self) -> Result<(), Mismatch> {
        for (k, input) in self.inputs.iter().enumerate() {
            let actual = (self.op)(input);
            let failed = match &self.check {
                Check::Equals { expected, show } => {
                    (actual != expected[k]).then(|| (show(&expected[k]), show(&actual)))
                }
                Check::Holds(check) => check(input, &actual).err(),
            };
            if let Some((expected, actual)) = failed {
                let case = self.numbers.as_ref().map_or(k, |n| n[k]);
                return Err(Mismatch {
                    case: case.to_string(),
                    expected,
                    actual,
                });
            }
        }
        for (k, (input, expected)) in self.controls.iter().enumerate() {
            let actual = (self.op)(input);
            if actual != *expected {
                let show = match &self.check {
                    Check::Equals { show, .. } => *show,
                    Check::Holds(_) => |_: &O| "(not shown)".to_string(),
                };
                return Err(Mismatch {
                    case: format!("control {k} (checked, never timed)"),
                    expected: show(expected),
                    actual: show(&actual),
                });
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn run(&mut self, iters: u64) {
        let n = self.inputs.len();
        let mut k = self.next;
        for _ in 0..iters {
            let input = black_box(&self.inputs[k]);
            black_box((self.op)(input));
            k += 1;
            if k == n {
                k = 0;
            }
        }
        self.next = k;
    }

    fn cases(&self) -> usize {
        self.inputs.len()
    }
}

/// Lower-case hex of a byte string, truncated past 64 bytes.
pub fn hex(bytes: impl AsRef<[u8]>) -> String {
    let b = bytes.as_ref();
    const SHOWN: usize = 64;
    let mut s = String::with_capacity(2 + 2 * b.len().min(SHOWN));
    s.push_str("0x");
    for byte in b.iter().take(SHOWN) {
        s.push_str(&format!("{byte:02x}"));
    }
    if b.len() > SHOWN {
        s.push_str(&format!("… ({} bytes)", b.len()));
    }
    s
}

/// Lower-case `0x` hex of all of `b` (never truncated): the adapter
/// protocol's byte strings.
pub fn full_hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(2 + 2 * b.len());
    s.push_str("0x");
    for byte in b {
        s.push(char::from_digit(u32::from(byte >> 4), 16).expect("nibble"));
        s.push(char::from_digit(u32::from(byte & 0xf), 16).expect("nibble"));
    }
    s
}

/// Decode hex (with or without `0x`), for vectors.
pub fn unhex(s: &str) -> Result<Vec<u8>, String> {
    let s = s.strip_prefix("0x").unwrap_or(s);
    if !s.len().is_multiple_of(2) {
        return Err(format!("odd number of hex digits ({})", s.len()));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&s[i..i + 2], 16)
                .map_err(|_| format!("not hex: {:?} at offset {i}", &s[i..i + 2]))
        })
        .collect()
}

fn truncate(mut s: String) -> String {
    const MAX: usize = 200;
    if s.len() > MAX {
        let mut cut = MAX;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push('…');
    }
    s
}

/// dyno's cache folder: `$DYNO_CACHE`, else `$XDG_CACHE_HOME/dyno`, else
/// `~/.cache/dyno` (`.dyno-cache` with no home). Adapters' workers, dev
/// nodes and the storage engines' data sets live under it.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("DYNO_CACHE") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("dyno");
    }
    std::env::var_os("HOME")
        .map(|h| PathBuf::from(h).join(".cache/dyno"))
        .unwrap_or_else(|| PathBuf::from(".dyno-cache"))
}

/// A workload constructor.
pub type Build = Box<dyn Fn(&Ctx) -> Result<Box<dyn Workload>, BuildError> + Send + Sync>;

/// The inputs and expected outputs other runtimes' adapters are given for
/// an id, in the adapter protocol's form (`docs/adapter-protocol.md`, "Case
/// schemas"), built from the same vectors as the Rust workload: `None` for
/// an id the function does not know.
pub type AdapterCases = fn(&Ctx, &str) -> Option<Result<Vec<dyno_protocol::Case>, BuildError>>;

/// One benchmark a suite can build: an id's parts, the implementation, a
/// constructor, and (when other runtimes can run it too) the adapters'
/// cases. Suites list these; specs select among them.
pub struct BenchDef {
    /// Suite group, the id's first part: `hash`.
    pub group: &'static str,
    /// Operation, the id's second part: `keccak256`.
    pub op: &'static str,
    /// Input, the id's third part: `32B`.
    pub input: String,
    /// Implementation name: `tiny-keccak`.
    pub implementation: &'static str,
    /// Implementation version (the crate's, from Cargo.lock).
    pub version: &'static str,
    /// Parameters worth recording with the result (`bytes = 32`).
    pub params: Vec<(&'static str, Param)>,
    /// Builds the workload: loads vectors, generates inputs. Not timed.
    pub build: Build,
    /// The id's cases for other runtimes' adapters; `None`: Rust only.
    pub cases: Option<AdapterCases>,
}

impl Debug for BenchDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BenchDef")
            .field("id", &self.id())
            .field("implementation", &self.implementation)
            .finish_non_exhaustive()
    }
}

impl BenchDef {
    /// The hierarchical id, `group/op/input`.
    pub fn id(&self) -> String {
        format!("{}/{}/{}", self.group, self.op, self.input)
    }
}

/// A recorded parameter value.
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    /// An integer such as a byte count.
    Int(u64),
    /// A word such as an object kind.
    Text(String),
    /// A measured quantity such as bytes allocated per operation.
    Float(f64),
    /// Raw timings `(iters, ns)` the workload took beside its samples (a
    /// control it ran in step with them), recorded as `[{iters, ns}]`.
    Samples(Vec<(u64, u64)>),
}

impl Param {
    /// As a JSON value, for the result's `parameters`.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Self::Int(i) => serde_json::Value::from(*i),
            Self::Text(s) => serde_json::Value::from(s.as_str()),
            Self::Float(x) => serde_json::Value::from(*x),
            Self::Samples(s) => s
                .iter()
                .map(|&(iters, ns)| serde_json::json!({ "iters": iters, "ns": ns }))
                .collect(),
        }
    }
}

/// What a workload constructor may read.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// The directory holding the vector files (`vectors/`).
    pub vectors: PathBuf,
}

impl Ctx {
    /// Read and parse one vector file, naming it on failure.
    pub fn vector_file(&self, name: &str) -> Result<String, BuildError> {
        let path = self.vectors.join(name);
        std::fs::read_to_string(&path).map_err(|e| BuildError::Vectors {
            path: path.clone(),
            reason: format!("{e} (pass --vectors DIR to point at the vectors folder)"),
        })
    }

    /// A vector file parsed as `T`. A file that is not JSON names its line
    /// and column; one that is JSON but not an object (`[]`) says so in
    /// dyno's words rather than serde's.
    pub fn vector_json<T: serde::de::DeserializeOwned>(&self, name: &str) -> Result<T, BuildError> {
        let path = self.path(name);
        let bad = |reason: String| BuildError::Vectors {
            path: path.clone(),
            reason,
        };
        let value: serde_json::Value = serde_json::from_str(&self.vector_file(name)?)
            .map_err(|e| bad(format!("not JSON: {e}")))?;
        if !value.is_object() {
            let kind = match value {
                serde_json::Value::Array(_) => "an array",
                serde_json::Value::String(_) => "a string",
                serde_json::Value::Number(_) => "a number",
                serde_json::Value::Bool(_) => "a boolean",
                _ => "null",
            };
            return Err(bad(format!(
                "the file holds {kind}; a vector file is a JSON object with a \"cases\" list \
                 and its \"provenance\" (restore it with `git checkout -- vectors/{name}`)"
            )));
        }
        serde_json::from_value(value).map_err(|e| bad(format!("malformed vector file: {e}")))
    }

    /// The path of a vector file, for error messages.
    pub fn path(&self, name: &str) -> PathBuf {
        self.vectors.join(name)
    }
}

/// Why a workload could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// A vector file is missing or malformed.
    #[error("{}: {reason}", path.display())]
    Vectors {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The vectors hold no case for this benchmark.
    #[error("{}: no vector for {what}", path.display())]
    NoVector {
        /// The file searched.
        path: PathBuf,
        /// The benchmark id and implementation.
        what: String,
    },
    /// An implementation declines this id (a worker that offers a family
    /// by pattern but cannot run this input). Not a failure: the run
    /// records no result for it and says so.
    #[error("{runtime} adapter does not run it: {reason}")]
    Unsupported {
        /// The runtime.
        runtime: String,
        /// Its reason, in one line.
        reason: String,
    },
    /// This dyno was built without the implementation (a Cargo feature is
    /// off). Not a failure: the run records no result for it and says how
    /// to build it in.
    #[error("not built into this dyno: {how}")]
    NotCompiled {
        /// How to build it in.
        how: String,
    },
    /// Something the benchmark runs against is not installed (the geth node
    /// the net suite dials). Not a failure: the run records no result for
    /// it and says how to install it.
    #[error("not installed: {how}")]
    NotInstalled {
        /// How to install it.
        how: String,
    },
    /// The cross-machine reference that every run measures beside what
    /// was asked (`dyno check --normalize`) could not be measured here.
    /// Not a failure of what was asked: said, not fatal.
    #[error(
        "the cross-machine reference could not be measured here ({reason}); what was asked is unaffected, but `dyno check --normalize` cannot use this run"
    )]
    Reference {
        /// Why, in one line.
        reason: String,
    },
    /// The benchmark's data could not be set up: a database could not be
    /// created, loaded or opened.
    #[error("{what}: {reason}")]
    Setup {
        /// What was being set up.
        what: String,
        /// Why it failed.
        reason: String,
    },
    /// Another runtime's worker could not take the benchmark: it is not
    /// installed, did not start, or died.
    #[error("{runtime} adapter: {reason}")]
    Adapter {
        /// The runtime (`go`, `java`...).
        runtime: String,
        /// What went wrong, in one line.
        reason: String,
    },
}

impl BuildError {
    /// True if the implementation declined or is not built in (or the
    /// implicit reference could not be measured): the run goes on without
    /// a result for it, and that is not a failure.
    pub fn is_skip(&self) -> bool {
        matches!(
            self,
            Self::Unsupported { .. }
                | Self::NotCompiled { .. }
                | Self::NotInstalled { .. }
                | Self::Reference { .. }
        )
    }

    /// A malformed-vector error for `path`.
    pub fn vectors(path: &Path, reason: impl fmt::Display) -> Self {
        Self::Vectors {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verify_reports_the_first_mismatch_with_both_values() {
        let mut w = Cases::expect(vec![(1u32, 2u32), (2, 4), (3, 7)], |x| x * 2);
        let err = w.verify().unwrap_err();
        assert_eq!(err.case, "2");
        assert_eq!(err.expected, "7");
        assert_eq!(err.actual, "6");
    }

    #[test]
    fn controls_catch_an_operation_that_always_says_yes() {
        // "Is it even?" on even inputs only: an always-true answer passes.
        let even = |x: &u32| x.is_multiple_of(2);
        let yes = |_: &u32| true;
        assert!(
            Cases::expect(vec![(2u32, true), (4, true)], yes)
                .verify()
                .is_ok()
        );
        let controls = vec![(3u32, false)];
        let mut w = Cases::expect(vec![(2u32, true), (4, true)], yes).controls(controls.clone());
        let m = w.verify().unwrap_err();
        assert_eq!(m.case, "control 0 (checked, never timed)");
        assert_eq!((m.expected.as_str(), m.actual.as_str()), ("false", "true"));
        let mut right = Cases::expect(vec![(2u32, true), (4, true)], even).controls(controls);
        assert!(right.verify().is_ok());
        assert_eq!(right.cases(), 2, "controls are not timed cases");
    }

    #[test]
    fn verify_passes_when_every_output_matches() {
        let mut w = Cases::expect(vec![(1u32, 2u32), (2, 4)], |x| x * 2);
        assert!(w.verify().is_ok());
        assert_eq!(w.cases(), 2);
    }

    #[test]
    fn run_cycles_through_every_input() {
        let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let s = seen.clone();
        let mut w = Cases::expect(vec![(0u8, ()), (1, ()), (2, ())], move |x| {
            s.borrow_mut().push(*x);
        });
        w.run(4);
        w.run(3);
        assert_eq!(*seen.borrow(), vec![0, 1, 2, 0, 1, 2, 0]);
    }

    #[test]
    fn checked_workloads_use_the_property() {
        let mut w = Cases::checked(
            vec![3u32, 4],
            |x| x + 1,
            |i, o| {
                if *o == i + 1 {
                    Ok(())
                } else {
                    Err((format!("{}", i + 1), o.to_string()))
                }
            },
        );
        assert!(w.verify().is_ok());
        let mut bad = Cases::checked(
            vec![3u32],
            |x| x + 2,
            |i, o| {
                if *o == i + 1 {
                    Ok(())
                } else {
                    Err((format!("{}", i + 1), o.to_string()))
                }
            },
        );
        assert_eq!(bad.verify().unwrap_err().actual, "5");
    }

    #[test]
    fn hex_truncates_long_values_and_says_how_long() {
        assert_eq!(hex([0xab, 0x01]), "0xab01");
        let long = hex(vec![0u8; 100]);
        assert!(long.ends_with("… (100 bytes)"), "{long}");
        assert_eq!(unhex("0xab01").unwrap(), vec![0xab, 0x01]);
        assert!(unhex("abc").is_err());
        assert!(unhex("zz").is_err());
    }

    #[test]
    fn show_renders_mismatches_as_hex() {
        let mut w = Cases::expect(vec![((), vec![1u8, 2])], |_| vec![1u8, 3]).show(|o| hex(o));
        let err = w.verify().unwrap_err();
        assert_eq!(err.expected, "0x0102");
        assert_eq!(err.actual, "0x0103");
    }
}
