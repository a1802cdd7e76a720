//! The suite's benchmarks: one access kind at one state size under one
//! page-cache state, in revm over the state's store.
//!
//! A run of N iterations is one transaction whose program makes N accesses
//! (at most [`POOL`]); the engine fits time against N, so the slope is one
//! access with its share of the loop and the intercept the transaction
//! around it. Every timed transaction's result is checked too.

use std::cell::Cell;
use std::path::{Path, PathBuf};

use alloy_primitives::{B256, Bytes, U256};
use dyno_workload::{BenchDef, BuildError, Ctx, Mismatch, Param, Workload, hex};
use revm::context::result::{ExecutionResult, Output, ResultAndState};
use revm::state::Bytecode;

use crate::access::{self, ACCESSES, Access, Op, POOL};
use crate::cache::{self, Cache};
use crate::database::{self, target};
use crate::store::{self, Open, Reader, StateStore};
use crate::vectors;

/// The group of every id here.
pub use dyno_format::state::GROUP;
/// The state sizes of the default run.
pub const SIZES: [u64; 3] = [10_000, 100_000, 1_000_000];
/// The size behind `--state-accounts` (docs/state.md): ten million.
pub const LARGE: u64 = 10_000_000;

/// How a benchmark's store is opened.
#[derive(Debug, Clone, Copy)]
pub struct Engine {
    /// Its name in results: `mdbx`.
    pub name: &'static str,
    /// Its crate's version (part of the state's folder).
    pub version: &'static str,
    /// What it is, recorded with every result.
    pub library: &'static str,
    /// Open it; `None` when this dyno was built without it.
    pub open: Option<Open>,
}

impl Engine {
    fn folder(&self) -> String {
        format!("{}-{}", self.name, self.version)
    }
}

/// The engine the suite runs revm on.
#[cfg(feature = "engines")]
pub const ENGINE: Engine = Engine {
    name: crate::mdbx::NAME,
    version: "0.9.0",
    library: crate::mdbx::LIBRARY,
    open: Some(crate::mdbx::open),
};

/// The engine the suite runs revm on (not built in).
#[cfg(not(feature = "engines"))]
pub const ENGINE: Engine = Engine {
    name: "mdbx",
    version: "0.9.0",
    library: "libmdbx 0.9.0, not built in",
    open: None,
};

/// One access benchmark over an open state.
pub struct StateWorkload {
    store: Option<Box<dyn StateStore>>,
    open: Open,
    data: PathBuf,
    access: &'static Access,
    cache: Cache,
    program: Bytecode,
    keys: Vec<(B256, U256)>,
    gas_per_op: Option<u64>,
    reads_per_op: Option<f64>,
    refund_per_op: Option<u64>,
    faults: (u64, u64),
}

impl std::fmt::Debug for StateWorkload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateWorkload")
            .field("access", &self.access.name)
            .field("cache", &self.cache)
            .finish_non_exhaustive()
    }
}

/// What one transaction of a benchmark did.
struct Run {
    result: Result<ResultAndState, String>,
    ns: u64,
    reads: u64,
}

fn run_on(reader: &dyn Reader, program: &Bytecode, calldata: Bytes) -> Run {
    let reads = Cell::new(0);
    let (result, ns) = database::execute(reader, program, calldata, &reads);
    Run {
        result,
        ns,
        reads: reads.get(),
    }
}

impl StateWorkload {
    /// Access `access` on `store`, a state of `n` accounts kept in `data`
    /// (reopened with `open` around a page-cache drop).
    pub fn new(
        store: Box<dyn StateStore>,
        open: Open,
        data: PathBuf,
        access: &'static Access,
        cache: Cache,
        n: u64,
    ) -> Self {
        Self {
            store: Some(store),
            open,
            data,
            access,
            cache,
            program: Bytecode::new_raw(access::program(access).into()),
            keys: access::keys(access, n),
            gas_per_op: None,
            reads_per_op: None,
            refund_per_op: None,
            faults: (0, 0),
        }
    }

    fn store(&mut self) -> Result<&dyn StateStore, String> {
        if self.store.is_none() {
            self.store = Some((self.open)(&self.data).map_err(|e| e.to_string())?);
        }
        Ok(self.store.as_deref().expect("opened above"))
    }

    /// One transaction of `count` iterations.
    fn transact(&mut self, count: usize) -> Result<Run, String> {
        let calldata = Bytes::from(access::calldata(&self.keys, count));
        let program = self.program.clone();
        let store = self.store()?;
        let mut run = None;
        store
            .read_with(&mut |reader| run = Some(run_on(reader, &program, calldata.clone())))
            .map_err(|e| e.to_string())?;
        Ok(run.expect("read_with calls back"))
    }

    /// Check one transaction's output (and, for writes and creations, its
    /// post-state) against the state's definition.
    fn check(&self, count: usize, run: &Run) -> Result<(u64, u64), Mismatch> {
        let want = access::expected(self.access, &self.keys, count);
        let mismatch = |expected: String, actual: String| Mismatch {
            case: format!("{count} accesses"),
            expected,
            actual,
        };
        let r = match &run.result {
            Ok(r) => r,
            Err(e) => {
                return Err(mismatch(
                    hex(want.to_be_bytes::<32>()),
                    format!("error: {e}"),
                ));
            }
        };
        let (gas, refund) = match &r.result {
            ExecutionResult::Success {
                gas,
                output: Output::Call(out),
                ..
            } => {
                if out[..] != want.to_be_bytes::<32>() {
                    return Err(mismatch(hex(want.to_be_bytes::<32>()), hex(out)));
                }
                (gas.total_gas_spent(), gas.inner_refunded())
            }
            other => {
                return Err(mismatch(
                    hex(want.to_be_bytes::<32>()),
                    format!("the transaction did not succeed: {other:?}"),
                ));
            }
        };
        self.check_post_state(count, r)
            .map_err(|(e, a)| mismatch(e, a))?;
        Ok((gas, refund))
    }

    /// SSTOREs: every key written holds its new value, and its original
    /// value is the state's; CREATEs: `count` new 32-byte contracts.
    fn check_post_state(&self, count: usize, r: &ResultAndState) -> Result<(), (String, String)> {
        match self.access.op {
            Op::Sstore | Op::SstoreClear => {
                let account = r.state.get(&target()).ok_or((
                    "the target's storage changed".to_string(),
                    "no change".into(),
                ))?;
                let writes = access::writes(self.access, &self.keys[..count]).unwrap_or_default();
                for ((key, _), &(original, new)) in self.keys[..count].iter().zip(&writes) {
                    let slot = U256::from_be_bytes(key.0);
                    let got = account
                        .storage
                        .get(&slot)
                        .map(|s| (s.original_value, s.present_value));
                    if got != Some((original, new)) {
                        return Err((
                            format!("slot {key}: {original:#x} before, {new:#x} after"),
                            match got {
                                Some((o, p)) => format!("{o:#x} before, {p:#x} after"),
                                None => "not written".into(),
                            },
                        ));
                    }
                }
            }
            Op::Create | Op::Create2 => {
                let created = r
                    .state
                    .values()
                    .filter(|a| {
                        a.is_created()
                            && a.info.code.as_ref().map(|c| c.original_byte_slice().len())
                                == Some(access::CREATED_SIZE as usize)
                    })
                    .count();
                if created != count {
                    return Err((
                        format!("{count} contracts created"),
                        format!("{created} created"),
                    ));
                }
            }
            _ => {}
        }
        Ok(())
    }
}

impl Workload for StateWorkload {
    /// Two transactions (2 accesses and the whole pool), each output and
    /// post-state checked; their gas and store reads give the per-access
    /// figures recorded with the result.
    fn verify(&mut self) -> Result<(), Mismatch> {
        let len = self.keys.len();
        let (c1, c2) = (2.min(len), len);
        let mut seen = Vec::new();
        for count in [c1, c2] {
            let run = self.transact(count).map_err(|e| Mismatch {
                case: format!("{count} accesses"),
                expected: "a transaction".into(),
                actual: format!("error: {e}"),
            })?;
            let (gas, refund) = self.check(count, &run)?;
            seen.push((gas, refund, run.reads));
        }
        if c2 > c1 {
            let d = (c2 - c1) as u64;
            self.gas_per_op = Some((seen[1].0 - seen[0].0) / d);
            self.reads_per_op = Some((seen[1].2 - seen[0].2) as f64 / d as f64);
            let refund = seen[1].1.saturating_sub(seen[0].1) / d;
            self.refund_per_op = (refund > 0).then_some(refund);
        }
        Ok(())
    }

    fn run(&mut self, iters: u64) {
        let mut left = iters as usize;
        while left > 0 {
            let count = left.min(self.keys.len());
            let _ = std::hint::black_box(self.transact(count));
            left -= count;
        }
    }

    fn cases(&self) -> usize {
        self.keys.len()
    }

    fn fitted(&self) -> bool {
        true
    }

    fn max_iters(&self) -> Option<u64> {
        Some(self.keys.len() as u64)
    }

    /// With the state evicted, a sample's fixed cost (reopening the
    /// store, its first pages) is large and varies: samples of at least a
    /// fifth of the pool keep the fit's slope on the accesses.
    fn min_iters(&self) -> Option<u64> {
        (self.cache == Cache::Dropped).then_some(self.keys.len() as u64 / 5)
    }

    /// One transaction of `iters` accesses (after a page-cache drop, for
    /// the dropped ids), its output checked; the clock runs around the
    /// transaction alone.
    fn time(&mut self, iters: u64) -> Option<Result<u64, String>> {
        let count = iters as usize;
        if count > self.keys.len() {
            return Some(Err(format!(
                "{count} accesses asked of a pool of {}",
                self.keys.len()
            )));
        }
        if self.cache == Cache::Dropped {
            self.store = None;
            if let Err(e) = cache::evict(&self.data) {
                return Some(Err(e));
            }
        }
        if let Err(e) = self.store() {
            return Some(Err(e));
        }
        let before = cache::major_faults();
        let run = match self.transact(count) {
            Ok(run) => run,
            Err(e) => return Some(Err(e)),
        };
        if let (Some(b), Some(a)) = (before, cache::major_faults()) {
            self.faults.0 += a - b;
            self.faults.1 += iters;
        }
        Some(match self.check(count, &run) {
            Ok(_) => Ok(run.ns),
            Err(m) => Err(format!(
                "a timed transaction returned {} where {} was expected",
                m.actual, m.expected
            )),
        })
    }

    fn facts(&self) -> Vec<(&'static str, Param)> {
        let mut f = Vec::new();
        if let Some(g) = self.gas_per_op {
            f.push(("gas_per_op", Param::Int(g)));
        }
        if let Some(r) = self.reads_per_op {
            f.push(("store_reads_per_op", Param::Float(r)));
        }
        if let Some(r) = self.refund_per_op {
            f.push(("refund_per_op", Param::Int(r)));
        }
        if self.faults.1 > 0 {
            f.push((
                "major_faults_per_op",
                Param::Float(self.faults.0 as f64 / self.faults.1 as f64),
            ));
        }
        f
    }
}

/// The id input of a state of `n` accounts under `cache`.
pub fn input(n: u64, cache: Cache) -> String {
    format!("{n}{}", cache.suffix())
}

/// The size and cache state an id's input names.
pub fn parse_input(input: &str) -> Option<(u64, Cache)> {
    let (n, evicted) = dyno_format::state::input_parts(input)?;
    Some((n, if evicted { Cache::Dropped } else { Cache::Warm }))
}

/// Every benchmark of the suite: each access at each size (the default
/// three and [`LARGE`]) under both cache states, in revm over `engine`.
pub fn defs_for(engine: Engine) -> Vec<BenchDef> {
    let mut out = Vec::new();
    for a in ACCESSES {
        for n in SIZES.into_iter().chain([LARGE]) {
            for cache in [Cache::Warm, Cache::Dropped] {
                out.push(BenchDef {
                    group: GROUP,
                    op: a.name,
                    input: input(n, cache),
                    implementation: "revm",
                    version: dyno_evm::vm::REVM_VERSION,
                    params: vec![
                        ("accounts", Param::Int(n)),
                        ("state", Param::Text(format!("v{}", crate::shape::VERSION))),
                        ("access", Param::Text(a.about.into())),
                        ("page_cache", Param::Text(cache.about().into())),
                        ("engine", Param::Text(engine.library.into())),
                        ("keys_per_transaction", Param::Int(POOL as u64)),
                    ],
                    build: Box::new(move |ctx| {
                        build(ctx, &engine, a, n, cache, &store::root_dir())
                    }),
                    cases: Some(crate::cases::cases),
                });
            }
        }
    }
    out
}

/// The suite's benchmarks on the engine this dyno was built with.
pub fn defs() -> Vec<BenchDef> {
    defs_for(ENGINE)
}

/// Open (writing and checking first if needed) the state of `n` accounts
/// under `root` and make the workload.
pub fn build(
    ctx: &Ctx,
    engine: &Engine,
    access: &'static Access,
    n: u64,
    cache: Cache,
    root: &Path,
) -> Result<Box<dyn Workload>, BuildError> {
    let Some(open) = engine.open else {
        return Err(BuildError::NotCompiled {
            how: format!(
                "the state suite keeps its state in {} and needs dyno built with `--features db-engines`: \
                 cargo build --release -p dyno --features db-engines",
                engine.name
            ),
        });
    };
    let expected = vectors::root(ctx, n)?;
    let (store, dir) = store::open_state(&engine.folder(), open, root, n, &expected, &mut |line| {
        eprintln!("dyno: {line}");
    })
    .map_err(|e| BuildError::Setup {
        what: format!("the state of {n} accounts in {}", engine.name),
        reason: e.to_string(),
    })?;
    Ok(Box::new(StateWorkload::new(
        store,
        open,
        dir.join("db"),
        access,
        cache,
        n,
    )))
}
