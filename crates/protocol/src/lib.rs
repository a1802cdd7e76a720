//! The adapter protocol, version 1 (`docs/adapter-protocol.md`): the JSON
//! Lines messages dyno exchanges with a worker that measures benchmarks in
//! another runtime.
//!
//! The orchestrator sends a [`Request`] and reads one [`Reply`]. Fields the
//! spec calls optional are `Option`s here, and unknown fields are ignored on
//! both sides, so minor additions need no new version.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The protocol version this crate speaks.
pub const VERSION: u32 = 1;

/// The longest line either side may send, in bytes (64 MiB): a reply of a
/// million samples is some 12 MB. A worker that sends a longer one (or
/// never ends a line) has failed, and is stopped.
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// The most samples one `run` asks for: dyno asks for one at a time, and a
/// worker may refuse more with an error (a reply of this many is some
/// 1.2 MB, well inside [`MAX_LINE_BYTES`]).
pub const MAX_RUN_SAMPLES: u32 = 100_000;

/// The most iterations one sample may take (2^40: over 18 minutes of an
/// operation of a nanosecond); dyno's plans stay far below it.
pub const MAX_RUN_ITERATIONS: u64 = 1 << 40;

/// Why a `run` request is out of the protocol's bounds, if it is.
pub fn run_out_of_bounds(iterations: u64, samples: u32) -> Option<String> {
    if samples == 0 || samples > MAX_RUN_SAMPLES {
        return Some(format!(
            "a run of {samples} samples: ask for 1 to {MAX_RUN_SAMPLES} per request"
        ));
    }
    if iterations == 0 || iterations > MAX_RUN_ITERATIONS {
        return Some(format!(
            "a run of {iterations} iterations a sample: ask for 1 to {MAX_RUN_ITERATIONS} (2^40)"
        ));
    }
    None
}

/// The id every adapter offers: the identity operation, for measuring the
/// adapter's own loop and clock cost.
pub const NOOP_ID: &str = "harness/noop/empty";
/// Every worker's clock check: each operation sleeps 1 ms with the
/// runtime's own sleep and returns its input (the cases of [`NOOP_ID`]).
/// `dyno adapter check` times it from outside to see that the worker's
/// nanoseconds are nanoseconds.
pub const SLEEP_ID: &str = "harness/sleep/1ms";

/// One input of a benchmark and the output it must give. Field names are
/// fixed per family (see the case schemas in the protocol document); byte
/// strings are `0x` hex.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Case {
    /// Named input fields.
    pub input: Map<String, Value>,
    /// Named expected output fields.
    pub expected: Map<String, Value>,
}

impl Case {
    /// A case from `(name, value)` pairs.
    pub fn new<I, E>(input: I, expected: E) -> Self
    where
        I: IntoIterator<Item = (&'static str, Value)>,
        E: IntoIterator<Item = (&'static str, Value)>,
    {
        let map = |it: &mut dyn Iterator<Item = (&'static str, Value)>| {
            it.map(|(k, v)| (k.to_string(), v)).collect::<Map<_, _>>()
        };
        Self {
            input: map(&mut input.into_iter()),
            expected: map(&mut expected.into_iter()),
        }
    }
}

/// A request from the orchestrator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Request {
    /// Ask for the worker's description.
    Hello {
        /// Always [`VERSION`].
        protocol: u32,
    },
    /// Make `id` the current benchmark, verifying every case.
    Prepare {
        /// `group/op/input`.
        id: String,
        /// Which of the worker's implementations of `id`.
        implementation: String,
        /// Inputs and expected outputs.
        cases: Vec<Case>,
    },
    /// Time the current benchmark.
    Run {
        /// Operations per sample.
        iterations: u64,
        /// Samples to take.
        samples: u32,
    },
}

/// A runtime's or adapter's name and version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Named {
    /// Name (`go`, `java`, `dyno-adapter-go`).
    pub name: String,
    /// Version as the runtime reports it.
    pub version: String,
    /// Settings that affect timing (JVM flags, `GOGC`...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
}

/// The worker's clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockInfo {
    /// What it reads (`System.nanoTime`).
    pub source: String,
    /// Its resolution as the worker measured it.
    #[serde(default)]
    pub resolution_ns: Option<f64>,
}

/// One benchmark a worker offers.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Offer {
    /// `group/op/input`, or a pattern in which `*` matches one segment.
    pub id: String,
    /// The implementation's name, unique across runtimes.
    pub implementation: String,
    /// The library (package, module, artifact) it calls.
    #[serde(default)]
    pub library: Option<String>,
}

impl Offer {
    /// True if this offer (its id possibly a pattern) covers `id`.
    pub fn covers(&self, id: &str) -> bool {
        let mut want = id.split('/');
        let mut have = self.id.split('/');
        loop {
            match (have.next(), want.next()) {
                (None, None) => return true,
                (Some(h), Some(w)) if h == "*" || h == w => {}
                _ => return false,
            }
        }
    }
}

/// The offers among `offers` (exact pairs, then patterns) that cover `id`,
/// one per implementation, the first of each kept.
pub fn implementations_of<'a>(
    offers: impl IntoIterator<Item = &'a Offer>,
    id: &str,
) -> Vec<&'a Offer> {
    let mut out: Vec<&Offer> = Vec::new();
    for o in offers {
        if o.covers(id) && !out.iter().any(|x| x.implementation == o.implementation) {
            out.push(o);
        }
    }
    out
}

/// The `hello` reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hello {
    /// The worker's protocol version.
    pub protocol: u32,
    /// The runtime it runs on.
    pub runtime: Named,
    /// The adapter itself.
    pub adapter: Named,
    /// Library name → version.
    #[serde(default)]
    pub libraries: BTreeMap<String, String>,
    /// Its clock.
    pub clock: ClockInfo,
    /// True for runtimes that compile hot code as they run.
    #[serde(default)]
    pub jit: bool,
    /// Exact `(id, implementation)` pairs.
    #[serde(default)]
    pub benchmarks: Vec<Offer>,
    /// Families offered by pattern.
    #[serde(default)]
    pub patterns: Vec<Offer>,
}

/// Why `name` (a `kind` of name in a hello) cannot be shown or stored
/// safely, if it cannot: a name is 1 to 100 characters of ASCII letters,
/// digits, `.`, `_`, `-` and `+` (and `/`, `*` in an id), starting with a
/// letter or digit. So no terminal escape reaches the screen, no `|` or
/// newline forges a Markdown row, and no leading `=`, `+`, `-` or `@`
/// becomes a spreadsheet formula.
pub fn check_name(kind: &str, name: &str) -> Result<(), String> {
    let id = kind == "benchmark id";
    let ok_char = |c: char| {
        c.is_ascii_alphanumeric()
            || matches!(c, '.' | '_' | '-' | '+')
            || (id && matches!(c, '/' | '*'))
    };
    let ok = !name.is_empty()
        && name.len() <= 100
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        && name.chars().all(ok_char);
    if ok {
        return Ok(());
    }
    Err(format!(
        "its hello names a {kind} {name:?}: a name is 1 to 100 ASCII letters, digits, '.', '_', \
         '-' or '+'{}, starting with a letter or digit (docs/adapter-protocol.md)",
        if id { " (and '/', '*')" } else { "" }
    ))
}

/// Why `text` (a version, a flag, a clock's name) cannot be shown safely,
/// if it cannot: free text, but at most 200 characters, with no control
/// character (a terminal escape, a newline) and no `|`.
pub fn check_text(kind: &str, text: &str) -> Result<(), String> {
    if text.len() <= 200 && !text.chars().any(|c| c.is_control() || c == '|') {
        return Ok(());
    }
    Err(format!(
        "its hello gives a {kind} {:?}: text there is at most 200 characters, with no control \
         characters and no '|' (docs/adapter-protocol.md)",
        text.chars().take(60).collect::<String>()
    ))
}

impl Hello {
    /// Every name and text of the hello checked ([`check_name`],
    /// [`check_text`]): the first that is not safe to show or store.
    pub fn check(&self) -> Result<(), String> {
        for named in [&self.runtime, &self.adapter] {
            check_name("name", &named.name)?;
            check_text("version", &named.version)?;
            for f in &named.flags {
                check_text("flag", f)?;
            }
        }
        for (lib, version) in &self.libraries {
            check_text("library", lib)?;
            check_text("version", version)?;
        }
        check_text("clock source", &self.clock.source)?;
        for o in self.benchmarks.iter().chain(&self.patterns) {
            check_name("benchmark id", &o.id)?;
            check_name("implementation", &o.implementation)?;
        }
        Ok(())
    }

    /// The implementations this worker offers for `id`.
    pub fn implementations_of(&self, id: &str) -> Vec<&Offer> {
        implementations_of(self.benchmarks.iter().chain(&self.patterns), id)
    }
}

/// GC activity during a `run`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Gc {
    /// Collections.
    #[serde(default)]
    pub count: Option<u64>,
    /// Time spent collecting (pause or total, as the runtime reports it).
    #[serde(default)]
    pub time_ns: Option<u64>,
    /// The most heap in use at any point during the samples, where the
    /// runtime tracks it (the JVM's heap memory pools' peak usage).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heap_peak_bytes: Option<u64>,
}

/// Allocation during a `run`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Alloc {
    /// Bytes allocated.
    #[serde(default)]
    pub bytes: Option<u64>,
    /// Objects allocated.
    #[serde(default)]
    pub count: Option<u64>,
}

/// A reply from the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Reply {
    /// The worker's description.
    Hello(Hello),
    /// Every case verified.
    Prepared {
        /// The id prepared.
        id: String,
        /// Cases held.
        cases: usize,
        /// The output of every case, encoded like `expected`.
        #[serde(default)]
        outputs: Vec<Map<String, Value>>,
    },
    /// An output differed from its expected value.
    Mismatch {
        /// Index of the case.
        case: usize,
        /// The field that differed.
        #[serde(default)]
        field: Option<String>,
        /// Expected value.
        expected: Value,
        /// Value the implementation gave.
        actual: Value,
    },
    /// Raw samples.
    Samples {
        /// One clock difference per sample, in ns.
        ns: Vec<u64>,
        /// GC during the samples, where exposed.
        #[serde(default)]
        gc: Option<Gc>,
        /// Allocation during the samples, where exposed.
        #[serde(default)]
        alloc: Option<Alloc>,
    },
    /// The request could not be carried out.
    Error {
        /// Why.
        message: String,
        /// The worker exits after this reply.
        #[serde(default)]
        fatal: bool,
    },
}

/// The cases of [`NOOP_ID`]: four values the identity operation returns.
pub fn noop_cases() -> Vec<Case> {
    ["0x00", "0x01", "0xfe", "0xff"]
        .into_iter()
        .map(|v| Case::new([("value", Value::from(v))], [("value", Value::from(v))]))
        .collect()
}

/// Encode a message as one line (with the trailing newline).
pub fn encode<T: Serialize>(msg: &T) -> String {
    let mut s = serde_json::to_string(msg).expect("protocol messages always serialize");
    s.push('\n');
    s
}

/// Decode one line.
pub fn decode<T: for<'de> Deserialize<'de>>(line: &str) -> Result<T, serde_json::Error> {
    serde_json::from_str(line.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn requests_have_the_documented_shape() {
        let r = Request::Run {
            iterations: 4096,
            samples: 3,
        };
        assert_eq!(
            encode(&r),
            "{\"type\":\"run\",\"iterations\":4096,\"samples\":3}\n"
        );
        let p = Request::Prepare {
            id: "hash/keccak256/32B".into(),
            implementation: "geth".into(),
            cases: vec![Case::new(
                [("data", json!("0x00"))],
                [("digest", json!("0xbc"))],
            )],
        };
        let v: Value = serde_json::from_str(&encode(&p)).unwrap();
        assert_eq!(v["type"], "prepare");
        assert_eq!(v["cases"][0]["input"]["data"], "0x00");
        assert_eq!(v["cases"][0]["expected"]["digest"], "0xbc");
    }

    #[test]
    fn replies_decode_from_the_documented_examples() {
        let hello: Reply = decode(
            r#"{"type":"hello","protocol":1,
            "runtime":{"name":"go","version":"go1.26.8","flags":["GOGC=100"]},
            "adapter":{"name":"dyno-adapter-go","version":"0.1.0"},
            "libraries":{"github.com/ethereum/go-ethereum":"v1.17.8"},
            "clock":{"source":"time.Now (monotonic)","resolution_ns":1},
            "jit":false, "future_field": 7,
            "benchmarks":[{"id":"hash/keccak256/32B","implementation":"geth","library":"x"}],
            "patterns":[{"id":"precompile/*/*","implementation":"geth-precompile"}]}"#
                .replace('\n', " ")
                .as_str(),
        )
        .unwrap();
        let Reply::Hello(h) = hello else {
            panic!("not a hello")
        };
        assert_eq!(h.runtime.flags, ["GOGC=100"]);
        assert_eq!(h.implementations_of("hash/keccak256/32B").len(), 1);
        assert_eq!(
            h.implementations_of("precompile/bn254-add/x")[0].implementation,
            "geth-precompile"
        );
        assert!(h.implementations_of("hash/sha256/32B").is_empty());

        let s: Reply =
            decode(r#"{"type":"samples","ns":[1,2,3],"gc":{"count":2,"time_ns":180000}}"#).unwrap();
        assert_eq!(
            s,
            Reply::Samples {
                ns: vec![1, 2, 3],
                gc: Some(Gc {
                    count: Some(2),
                    time_ns: Some(180_000),
                    heap_peak_bytes: None,
                }),
                alloc: None
            }
        );
        let m: Reply = decode(
            r#"{"type":"mismatch","case":3,"field":"digest","expected":"0x01","actual":"0x02"}"#,
        )
        .unwrap();
        assert!(matches!(m, Reply::Mismatch { case: 3, .. }));
        let e: Reply = decode(r#"{"type":"error","message":"unknown id"}"#).unwrap();
        assert_eq!(
            e,
            Reply::Error {
                message: "unknown id".into(),
                fatal: false
            }
        );
    }

    #[test]
    fn patterns_match_one_segment_per_star() {
        let o = Offer {
            id: "precompile/*/*".into(),
            implementation: "x".into(),
            library: None,
        };
        assert!(o.covers("precompile/a/b"));
        assert!(!o.covers("precompile/a"));
        assert!(!o.covers("precompile/a/b/c"));
        assert!(!o.covers("hash/a/b"));
    }
}
