//! Where a generated state is kept, how it is written once and checked
//! before every use: a folder per shape version, size and engine, a ready
//! marker written last, and the state root recomputed from what the store
//! holds and compared with the independent root of `vectors/state.json`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use alloy_primitives::{B256, keccak256};
use alloy_trie::{HashBuilder, Nibbles};

use dyno_db::store::DbError;

use crate::layout::{self, EMPTY_ROOT, KECCAK_EMPTY, StoredAccount};
use crate::shape::{self, VERSION};

/// What went wrong with a state's store.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The engine reported an error, or a file or folder could not be read
    /// or written (the db suite's errors, shared).
    #[error(transparent)]
    Db(#[from] DbError),
    /// Too little free disk for the state asked for; nothing was written.
    #[error(
        "the state of {accounts} accounts needs about {} MB at {}, and {} MB are free there \
         (free some space, choose a smaller size, or set DYNO_STATE_DIR to a roomier disk)",
        need / 1_000_000, dir.display(), free / 1_000_000
    )]
    NoSpace {
        /// Accounts asked for.
        accounts: u64,
        /// The folder it would be written to.
        dir: PathBuf,
        /// Bytes needed (an estimate with a margin).
        need: u64,
        /// Bytes free.
        free: u64,
    },
    /// The store does not hold the state it should.
    #[error("{}: {reason} (delete the folder and dyno writes the state again)", dir.display())]
    Damaged {
        /// The state's folder.
        dir: PathBuf,
        /// What does not hold.
        reason: String,
    },
}

/// Reads of one key at a time: what the EVM's database asks of a store.
pub trait Reader {
    /// Read `key` into `out` (cleared first); false if it is absent.
    fn read(&self, key: &[u8], out: &mut Vec<u8>) -> Result<bool, StateError>;
}

/// A store that holds a state.
pub trait StateStore: std::fmt::Debug {
    /// Write `pairs`, committed, in one transaction or batch.
    fn write(&self, pairs: &[(Vec<u8>, Vec<u8>)]) -> Result<(), StateError>;
    /// After the load: make every write durable.
    fn settle(&self) -> Result<(), StateError>;
    /// Visit every pair in key order while `visit` returns true.
    fn scan(&self, visit: &mut dyn FnMut(&[u8], &[u8]) -> bool) -> Result<(), StateError>;
    /// Call `f` with a reader over one read transaction.
    fn read_with(&self, f: &mut dyn FnMut(&dyn Reader)) -> Result<(), StateError>;
}

/// Opens (creating if needed) an engine's store in a folder.
pub type Open = fn(&Path) -> Result<Box<dyn StateStore>, StateError>;

/// A state held in memory: the tests' store (a store that answers wrong is
/// one entry changed with [`Memory::set`]).
#[derive(Debug, Default)]
pub struct Memory {
    map: Mutex<std::collections::BTreeMap<Vec<u8>, Vec<u8>>>,
}

impl Reader for std::collections::BTreeMap<Vec<u8>, Vec<u8>> {
    fn read(&self, key: &[u8], out: &mut Vec<u8>) -> Result<bool, StateError> {
        out.clear();
        Ok(match self.get(key) {
            Some(v) => {
                out.extend_from_slice(v);
                true
            }
            None => false,
        })
    }
}

impl Memory {
    /// The pairs held, to read (a [`Reader`]).
    pub fn snapshot(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::BTreeMap<Vec<u8>, Vec<u8>>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Change one stored value (tests: a store that answers wrong).
    pub fn set(&self, key: &[u8], value: Vec<u8>) {
        self.snapshot().insert(key.to_vec(), value);
    }
}

impl StateStore for Memory {
    fn write(&self, pairs: &[(Vec<u8>, Vec<u8>)]) -> Result<(), StateError> {
        let mut map = self.snapshot();
        for (k, v) in pairs {
            map.insert(k.clone(), v.clone());
        }
        Ok(())
    }

    fn settle(&self) -> Result<(), StateError> {
        Ok(())
    }

    fn scan(&self, visit: &mut dyn FnMut(&[u8], &[u8]) -> bool) -> Result<(), StateError> {
        for (k, v) in self.snapshot().iter() {
            if !visit(k, v) {
                break;
            }
        }
        Ok(())
    }

    fn read_with(&self, f: &mut dyn FnMut(&dyn Reader)) -> Result<(), StateError> {
        f(&*self.snapshot());
        Ok(())
    }
}

/// Pairs written per transaction while loading.
const BATCH: usize = 100_000;

/// Key-value pairs as a store takes them.
pub type Pairs = Vec<(Vec<u8>, Vec<u8>)>;

/// Storage root of contract `i` in a state of `n` accounts, and its slots'
/// pairs in the layout.
fn storage(i: u64, n: u64, hashed: &B256) -> (B256, Pairs) {
    let mut slots: Vec<(B256, Vec<u8>)> = (0..shape::slot_count(i, n))
        .map(|j| {
            let (key, value) = shape::slot(i, j);
            (layout::hash_slot(&key), layout::encode_value(&value))
        })
        .collect();
    slots.sort_unstable_by_key(|s| s.0);
    let mut hb = HashBuilder::default();
    for (k, v) in &slots {
        hb.add_leaf(Nibbles::unpack(k), v);
    }
    let root = if slots.is_empty() {
        EMPTY_ROOT
    } else {
        hb.root()
    };
    let pairs = slots
        .into_iter()
        .map(|(k, v)| (layout::storage_key(hashed, &k).to_vec(), v))
        .collect();
    (root, pairs)
}

/// Every pair of account `i` of a state of `n` accounts: the account, its
/// code and its storage.
pub fn account_pairs(i: u64, n: u64) -> Pairs {
    let a = shape::account(i);
    let hashed = keccak256(a.address);
    let mut out = Vec::new();
    let (storage_root, code_hash) = if shape::is_contract(i) {
        let code = shape::code(i);
        let code_hash = keccak256(&code);
        let (root, slots) = storage(i, n, &hashed);
        out.push((layout::code_key(&code_hash).to_vec(), code));
        out.extend(slots);
        (root, code_hash)
    } else {
        (EMPTY_ROOT, KECCAK_EMPTY)
    };
    let account = StoredAccount {
        nonce: a.nonce,
        balance: a.balance,
        storage_root,
        code_hash,
    };
    out.push((layout::account_key(&hashed).to_vec(), account.encode()));
    out
}

/// Write the state of `n` accounts into `store`; `say` hears progress.
pub fn generate(
    store: &dyn StateStore,
    n: u64,
    say: &mut dyn FnMut(String),
) -> Result<(), StateError> {
    let mut batch = Vec::with_capacity(BATCH + 2_000);
    let mut reported = 0;
    for i in 0..n {
        batch.extend(account_pairs(i, n));
        if batch.len() >= BATCH {
            store.write(&batch)?;
            batch.clear();
        }
        let pct = (i + 1) * 100 / n;
        if pct >= reported + 25 && pct < 100 {
            reported = pct - pct % 25;
            say(format!("  {reported}% ({} accounts)", i + 1));
        }
    }
    store.write(&batch)?;
    store.settle()
}

/// The state root of what `store` holds, after checking that every
/// account's storage root and code are there as its leaf says; `dir`
/// names the store in errors.
pub fn state_root(store: &dyn StateStore, dir: &Path) -> Result<B256, StateError> {
    let damaged = |reason: String| StateError::Damaged {
        dir: dir.to_path_buf(),
        reason,
    };
    let mut accounts: Vec<(B256, Vec<u8>)> = Vec::new();
    let mut codes: HashSet<B256> = HashSet::new();
    let mut roots: HashMap<B256, B256> = HashMap::new();
    let mut current: Option<(B256, HashBuilder)> = None;
    let mut problem: Option<String> = None;
    let finish = |cur: Option<(B256, HashBuilder)>, roots: &mut HashMap<B256, B256>| {
        if let Some((addr, mut hb)) = cur {
            roots.insert(addr, hb.root());
        }
    };
    store.scan(&mut |k, v| {
        match (k.first(), k.len()) {
            (Some(&layout::ACCOUNT), 33) => {
                accounts.push((B256::from_slice(&k[1..]), v.to_vec()));
            }
            (Some(&layout::CODE), 33) => {
                if keccak256(v).as_slice() != &k[1..] {
                    problem = Some(format!("code under {} does not hash to its key", hex(k)));
                    return false;
                }
                codes.insert(B256::from_slice(&k[1..]));
            }
            (Some(&layout::STORAGE), 65) => {
                let addr = B256::from_slice(&k[1..33]);
                if current.as_ref().is_none_or(|(a, _)| *a != addr) {
                    finish(current.take(), &mut roots);
                    current = Some((addr, HashBuilder::default()));
                }
                let (_, hb) = current.as_mut().expect("set above");
                hb.add_leaf(Nibbles::unpack(&k[33..]), v);
            }
            _ => {
                problem = Some(format!("a key outside the layout: {}", hex(k)));
                return false;
            }
        }
        true
    })?;
    if let Some(p) = problem {
        return Err(damaged(p));
    }
    finish(current.take(), &mut roots);
    let mut hb = HashBuilder::default();
    for (hashed, value) in &accounts {
        let a =
            StoredAccount::decode(value).map_err(|e| damaged(format!("account {hashed}: {e}")))?;
        let storage = roots.remove(hashed).unwrap_or(EMPTY_ROOT);
        if a.storage_root != storage {
            return Err(damaged(format!(
                "account {hashed}: its storage hashes to {storage}, its leaf says {}",
                a.storage_root
            )));
        }
        if a.code_hash != KECCAK_EMPTY && !codes.contains(&a.code_hash) {
            return Err(damaged(format!(
                "account {hashed}: no code under its code hash {}",
                a.code_hash
            )));
        }
        hb.add_leaf(Nibbles::unpack(hashed), value);
    }
    if let Some(addr) = roots.keys().next() {
        return Err(damaged(format!(
            "storage of {addr}, an account it does not hold"
        )));
    }
    Ok(if accounts.is_empty() {
        EMPTY_ROOT
    } else {
        hb.root()
    })
}

fn hex(b: &[u8]) -> String {
    dyno_workload::hex(b)
}

/// Where states live: `$DYNO_STATE_DIR`, else `<cache>/state`.
pub fn root_dir() -> PathBuf {
    std::env::var_os("DYNO_STATE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| dyno_workload::cache_dir().join("state"))
}

/// The folder of the state of `n` accounts in `engine` (`mdbx-0.9.0`).
pub fn state_dir(root: &Path, n: u64, engine: &str) -> PathBuf {
    root.join(format!("v{VERSION}-{n}")).join(engine)
}

/// The ready marker's file name, written once the load is complete and
/// its root checked.
pub const READY: &str = "DYNO_READY";

/// The marker's content.
pub fn marker(n: u64, engine: &str, root: &B256) -> String {
    format!("dyno-state v{VERSION} accounts={n} engine={engine} root={root}")
}

/// Bytes the state of `n` accounts takes on disk, with a margin: MDBX held
/// 536 MB for 10⁶ accounts (docs/state.md, "Disk"), its map growing in
/// 256 MiB steps.
pub fn disk_need(n: u64) -> u64 {
    n * 700 + (512 << 20)
}

/// Free bytes on the file system holding `dir` (or its nearest existing
/// parent).
pub fn free_bytes(dir: &Path) -> Result<u64, StateError> {
    let mut at = dir;
    while !at.exists() {
        at = at.parent().unwrap_or(Path::new("/"));
    }
    let s = rustix::fs::statvfs(at).map_err(|e| DbError::Io {
        path: at.to_path_buf(),
        source: e.into(),
    })?;
    Ok(s.f_bavail.saturating_mul(s.f_frsize))
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StateError + '_ {
    move |source| {
        DbError::Io {
            path: path.to_path_buf(),
            source,
        }
        .into()
    }
}

/// Folders whose root this process has checked already.
static CHECKED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Open the state of `n` accounts in the engine `engine` (its name and
/// version) under `root`, writing it first unless a complete, checked one
/// is there. The root of what the store holds must equal `expected` (from
/// `vectors/state.json`) before it is used: at the load, and once per
/// process on reuse. `say` hears what takes long.
pub fn open_state(
    engine: &str,
    open: Open,
    root: &Path,
    n: u64,
    expected: &B256,
    say: &mut dyn FnMut(String),
) -> Result<(Box<dyn StateStore>, PathBuf), StateError> {
    let dir = state_dir(root, n, engine);
    let data = dir.join("db");
    let ready = dir.join(READY);
    let want = marker(n, engine, expected);
    if std::fs::read_to_string(&ready).is_ok_and(|m| m == want) {
        let store = open(&data)?;
        let mut checked = CHECKED.lock().unwrap_or_else(|e| e.into_inner());
        if !checked.contains(&dir) {
            let t0 = Instant::now();
            let got = state_root(store.as_ref(), &dir)?;
            if got != *expected {
                return Err(StateError::Damaged {
                    dir,
                    reason: format!("its state root is {got}, vectors/state.json says {expected}"),
                });
            }
            say(format!(
                "state of {n} accounts in {engine}: root checked in {:.1} s",
                t0.elapsed().as_secs_f64()
            ));
            checked.push(dir.clone());
        }
        return Ok((store, dir));
    }
    // No complete state: a half-written one (interrupted) is removed and
    // written again from the start.
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(io(&dir))?;
    }
    let need = disk_need(n);
    let free = free_bytes(&dir)?;
    if need > free {
        return Err(StateError::NoSpace {
            accounts: n,
            dir,
            need,
            free,
        });
    }
    std::fs::create_dir_all(&data).map_err(io(&data))?;
    say(format!(
        "writing the state of {n} accounts into {engine} at {} (once: later runs reuse it)",
        dir.display()
    ));
    let t0 = Instant::now();
    let store = open(&data)?;
    generate(store.as_ref(), n, say)?;
    let written = t0.elapsed().as_secs_f64();
    let got = state_root(store.as_ref(), &dir)?;
    if got != *expected {
        return Err(StateError::Damaged {
            dir,
            reason: format!(
                "the state just written has root {got}, vectors/state.json says {expected}: \
                 dyno's generator and the vectors' differ"
            ),
        });
    }
    dyno_format::destination::write_new(&ready, |w| std::io::Write::write_all(w, want.as_bytes()))
        .map_err(io(&ready))?;
    CHECKED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(dir.clone());
    say(format!(
        "wrote the state of {n} accounts in {written:.1} s, root checked in {:.1} s ({} MB on disk)",
        t0.elapsed().as_secs_f64() - written,
        dyno_db::store::du(&data) / 1_000_000
    ));
    Ok((store, dir))
}

/// Forget that this process checked `dir`'s root.
#[cfg(test)]
pub(crate) fn forget_checked(dir: &Path) {
    CHECKED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|d| d != dir);
}
