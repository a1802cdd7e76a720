//! The `db` suite's benchmarks: one workload per operation and engine.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

use dyno_workload::{BenchDef, BuildError, Mismatch, Param, Workload, hex};

use crate::dataset::{self, KEYS, VERSION};
use crate::store::{self, DbError, Engine, Store};

/// One operation of the suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Read one key.
    Get,
    /// Write one pair, committed.
    Put,
    /// Read K keys in one call or read transaction.
    BatchGet(usize),
    /// Write K pairs in one batch or transaction.
    BatchPut(usize),
    /// Read N pairs in key order from a key.
    Iterate(usize),
    /// Reads and writes, four to one.
    Mixed,
}

/// Every operation with its id's op and input parts and its case count.
pub const OPS: [(&str, &str, Op, usize); 8] = [
    ("get", "single", Op::Get, 4096),
    ("put", "single", Op::Put, 4096),
    ("batch-get", "10", Op::BatchGet(10), 1024),
    ("batch-get", "100", Op::BatchGet(100), 256),
    ("batch-put", "10", Op::BatchPut(10), 1024),
    ("batch-put", "100", Op::BatchPut(100), 256),
    ("iterate", "1000", Op::Iterate(1000), 256),
    ("mixed", "r80w20", Op::Mixed, 4096),
];

/// The operation of `op/input`, with its case count.
pub fn op(op: &str, input: &str) -> Option<(Op, usize)> {
    OPS.iter()
        .find(|(o, i, _, _)| *o == op && *i == input)
        .map(|&(_, _, op, cases)| (op, cases))
}

/// The data-set indices each case of `op` touches, for a set of `n` keys:
/// case `j` of a K-key batch takes accesses `jK .. jK+K-1`; every other
/// operation takes access `j`.
pub fn indices(op: Op, cases: usize, n: u64) -> Vec<Vec<u64>> {
    let per = match op {
        Op::BatchGet(k) | Op::BatchPut(k) => k as u64,
        _ => 1,
    };
    (0..cases as u64)
        .map(|j| (0..per).map(|m| dataset::access(j * per + m, n)).collect())
        .collect()
}

/// What one case returns, checked before timing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// The value read (or read back after a write).
    Value(Vec<u8>),
    /// keccak-256 of the values read, concatenated.
    Digest([u8; 32]),
    /// A scan: how many pairs, and keccak-256 of each key ‖ value.
    Scan {
        /// Pairs visited.
        count: usize,
        /// keccak-256 of every key ‖ value, in order.
        digest: [u8; 32],
    },
}

impl Output {
    /// For mismatch messages.
    pub fn show(&self) -> String {
        match self {
            Self::Value(v) => hex(v),
            Self::Digest(d) => format!("digest {}", hex(d)),
            Self::Scan { count, digest } => format!("{count} pairs, digest {}", hex(digest)),
        }
    }
}

/// The output case `j` (touching `idx`) must give, from the generator.
pub fn expected(op: Op, n: u64, idx: &[u64]) -> Output {
    match op {
        Op::Get | Op::Put | Op::Mixed => Output::Value(dataset::value(idx[0])),
        Op::BatchGet(_) | Op::BatchPut(_) => {
            let values: Vec<Vec<u8>> = idx.iter().map(|&i| dataset::value(i)).collect();
            Output::Digest(dataset::digest(values.iter().map(Vec::as_slice)))
        }
        Op::Iterate(len) => {
            let run = dataset::scan(n, idx[0], len);
            let pairs: Vec<Vec<u8>> = run
                .iter()
                .map(|&i| [dataset::key(i).as_slice(), &dataset::value(i)].concat())
                .collect();
            Output::Scan {
                count: run.len(),
                digest: dataset::digest(pairs.iter().map(Vec::as_slice)),
            }
        }
    }
}

/// One case's keys and values, generated before timing.
#[derive(Debug)]
struct Case {
    keys: Vec<[u8; 32]>,
    values: Vec<Vec<u8>>,
    write: bool,
}

/// A benchmark of one operation on one engine's open database.
pub struct DbWorkload {
    store: Box<dyn Store>,
    engine: &'static str,
    dir: PathBuf,
    op: Op,
    cases: Vec<Case>,
    expected: Vec<Output>,
    next: usize,
    buf: Vec<u8>,
    /// The first error the timed loop met (it cannot return one).
    error: Option<DbError>,
}

impl std::fmt::Debug for DbWorkload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DbWorkload")
            .field("engine", &self.engine)
            .field("op", &self.op)
            .field("cases", &self.cases.len())
            .finish_non_exhaustive()
    }
}

impl DbWorkload {
    /// `cases` cases of `op` over the data set of `n` keys in `store`.
    /// `dir` is the database's folder, for messages.
    pub fn new(
        store: Box<dyn Store>,
        engine: &'static str,
        dir: PathBuf,
        op: Op,
        cases: usize,
        n: u64,
    ) -> Self {
        let idx = indices(op, cases, n);
        let expected = idx.iter().map(|i| expected(op, n, i)).collect();
        let cases = idx
            .iter()
            .enumerate()
            .map(|(j, i)| Case {
                keys: i.iter().map(|&i| dataset::key(i)).collect(),
                values: match op {
                    Op::Iterate(_) | Op::Get | Op::BatchGet(_) => Vec::new(),
                    _ => i.iter().map(|&i| dataset::value(i)).collect(),
                },
                write: match op {
                    Op::Put | Op::BatchPut(_) => true,
                    Op::Mixed => dataset::writes(j as u64),
                    _ => false,
                },
            })
            .collect();
        Self {
            store,
            engine,
            dir,
            op,
            cases,
            expected,
            next: 0,
            buf: Vec::with_capacity(64 << 10),
            error: None,
        }
    }

    /// Run case `k` once, as the timed loop does.
    fn once(&mut self, k: usize) -> Result<(), DbError> {
        let c = &self.cases[k];
        match self.op {
            Op::Get => {
                self.store.get(&c.keys[0], &mut self.buf)?;
            }
            Op::Put => self.store.put(&c.keys[0], &c.values[0])?,
            Op::BatchGet(_) => {
                self.store.get_many(&c.keys, &mut self.buf)?;
            }
            Op::BatchPut(_) => self.store.put_many(&c.keys, &c.values)?,
            Op::Iterate(len) => {
                let mut bytes = 0usize;
                self.store.scan(&c.keys[0], len, &mut |k, v| {
                    bytes += black_box(k).len() + black_box(v).len();
                })?;
                black_box(bytes);
            }
            Op::Mixed if c.write => self.store.put(&c.keys[0], &c.values[0])?,
            Op::Mixed => {
                self.store.get(&c.keys[0], &mut self.buf)?;
            }
        }
        black_box(&self.buf);
        Ok(())
    }

    /// Before a write case is checked, its keys are overwritten with a
    /// marker (each byte of the value inverted) and read back: the data set
    /// already holds the value the case writes, so without it a write that
    /// never lands would read back right. `Err(actual)` when a marker
    /// does not read back.
    fn mark(&mut self, k: usize) -> Result<(), String> {
        let c = &self.cases[k];
        for (key, value) in c.keys.iter().zip(&c.values) {
            let marker: Vec<u8> = value.iter().map(|b| !b).collect();
            self.store
                .put(key, &marker)
                .map_err(|e| format!("error: {e}"))?;
            match self.store.get(key, &mut self.buf) {
                Ok(true) if self.buf == marker => {}
                Ok(true) => return Err(hex(&self.buf)),
                Ok(false) => return Err("nothing".into()),
                Err(e) => return Err(format!("error: {e}")),
            }
        }
        Ok(())
    }

    /// Case `k`'s output, read from the database after running it once.
    fn output(&mut self, k: usize) -> Result<Output, DbError> {
        self.once(k)?;
        let c = &self.cases[k];
        let missing = || DbError::Missing {
            engine: self.engine,
            key: hex(c.keys[0]),
            dir: self.dir.clone(),
        };
        Ok(match self.op {
            Op::Get | Op::Put | Op::Mixed => {
                if !self.store.get(&c.keys[0], &mut self.buf)? {
                    return Err(missing());
                }
                Output::Value(self.buf.clone())
            }
            Op::BatchGet(_) | Op::BatchPut(_) => {
                let found = self.store.get_many(&c.keys, &mut self.buf)?;
                if found != c.keys.len() {
                    return Err(missing());
                }
                Output::Digest(dataset::keccak(&self.buf))
            }
            Op::Iterate(len) => {
                let mut h = <sha3::Keccak256 as sha3::Digest>::new();
                let count = self.store.scan(&c.keys[0], len, &mut |k, v| {
                    sha3::Digest::update(&mut h, k);
                    sha3::Digest::update(&mut h, v);
                })?;
                Output::Scan {
                    count,
                    digest: sha3::Digest::finalize(h).into(),
                }
            }
        })
    }
}

impl Workload for DbWorkload {
    fn verify(&mut self) -> Result<(), Mismatch> {
        for k in 0..self.cases.len() {
            if self.cases[k].write
                && let Err(actual) = self.mark(k)
            {
                return Err(Mismatch {
                    case: format!("{k} (a marker written before the case)"),
                    expected: "the marker read back".into(),
                    actual,
                });
            }
            let got = self.output(k);
            let want = &self.expected[k];
            let actual = match &got {
                Ok(o) if o == want => continue,
                Ok(o) => o.show(),
                Err(e) => format!("error: {e}"),
            };
            return Err(Mismatch {
                case: k.to_string(),
                expected: want.show(),
                actual,
            });
        }
        Ok(())
    }

    fn run(&mut self, iters: u64) {
        let n = self.cases.len();
        for _ in 0..iters {
            let k = self.next;
            if let Err(e) = self.once(k) {
                self.error.get_or_insert(e);
            }
            self.next = if k + 1 == n { 0 } else { k + 1 };
        }
    }

    fn cases(&self) -> usize {
        self.cases.len()
    }

    /// Timed here so that an engine error ends the measurement with its
    /// message (the engine records it as incomplete) instead of timing a
    /// failing call.
    fn time(&mut self, iters: u64) -> Option<Result<u64, String>> {
        let t0 = Instant::now();
        self.run(iters);
        let ns = t0.elapsed().as_nanos() as u64;
        Some(match self.error.take() {
            Some(e) => Err(e.to_string()),
            None => Ok(ns),
        })
    }
}

/// The benchmark definitions of one engine: every operation on the data
/// set of [`KEYS`] keys.
pub fn defs(engine: Engine) -> Vec<BenchDef> {
    OPS.iter()
        .map(|&(op, input, o, cases)| BenchDef {
            group: "db",
            op,
            input: input.to_string(),
            implementation: engine.name,
            version: engine.version,
            params: vec![
                ("keys", Param::Int(KEYS)),
                ("dataset", Param::Text(format!("v{VERSION}"))),
                ("durability", Param::Text(engine.durability.into())),
                ("engine_settings", Param::Text(engine.settings.into())),
                ("library", Param::Text(engine.library.into())),
            ],
            build: Box::new(move |_ctx| build(&engine, o, cases, &store::root(), KEYS)),
            cases: Some(crate::cases::cases),
        })
        .collect()
}

/// Open (loading if needed) `engine`'s database under `root` and make the
/// workload.
pub fn build(
    engine: &Engine,
    op: Op,
    cases: usize,
    root: &Path,
    n: u64,
) -> Result<Box<dyn Workload>, BuildError> {
    let Some(open) = engine.open else {
        return Err(BuildError::NotCompiled {
            how: format!(
                "{} needs dyno built with `--features db-engines` (and Debian's libclang-dev): \
                 cargo build --release -p dyno --features db-engines",
                engine.name
            ),
        });
    };
    let (store, _) = store::open_loaded(engine, open, root, n, &mut |line| {
        eprintln!("dyno: {line}");
    })
    .map_err(|e| BuildError::Setup {
        what: format!("{} database", engine.name),
        reason: e.to_string(),
    })?;
    let dir = store::engine_dir(root, n, engine);
    Ok(Box::new(DbWorkload::new(
        store,
        engine.name,
        dir,
        op,
        cases,
        n,
    )))
}
