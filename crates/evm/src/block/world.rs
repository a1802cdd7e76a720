//! The world state a block executes on: accounts, storage and code in hash
//! maps (what revm reads), plus the state trie and one storage trie per
//! account, kept beside them so a post-state root costs only the changed
//! accounts.
//!
//! Validation never mutates a [`World`]: revm runs over an overlay
//! (`CacheDB<&World>`), the block's effects come back as a list of
//! [`AccountChange`]s, and [`World::post_state`] applies them to *clones*
//! of the tries (a clone shares every node, see [`Trie`]) to give the
//! post-state root. Importing a chain then [`World::commit`]s the changes
//! and the tries already computed.

use std::collections::HashMap;
use std::convert::Infallible;

use alloy_primitives::{Address, B256, Bytes, U256, keccak256};
use alloy_trie::TrieAccount;
use revm::DatabaseRef;
use revm::bytecode::Bytecode;
use revm::primitives::KECCAK_EMPTY;
use revm::state::AccountInfo;

use super::trie::Trie;

/// One account: what revm sees, and its storage trie.
#[derive(Clone, Debug)]
struct Account {
    /// Balance, nonce, code hash and (for contracts) the code itself.
    info: AccountInfo,
    /// Non-zero slots.
    storage: HashMap<U256, U256>,
    /// The same slots keyed by keccak-256(slot).
    storage_trie: Trie,
}

impl Account {
    fn trie_account(&self) -> TrieAccount {
        TrieAccount::new(
            self.info.nonce,
            self.info.balance,
            self.storage_trie.root(),
            self.info.code_hash,
        )
    }
}

/// One account as a genesis file lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allocated {
    pub address: Address,
    pub balance: U256,
    pub nonce: u64,
    /// The code; empty for none.
    pub code: Bytes,
    /// Non-zero slots, sorted.
    pub storage: Vec<(U256, U256)>,
}

/// Accounts, storage, code, the block hashes BLOCKHASH may ask for, and
/// the tries over them.
#[derive(Clone, Debug, Default)]
pub struct World {
    accounts: HashMap<Address, Account>,
    codes: HashMap<B256, Bytecode>,
    block_hashes: HashMap<u64, B256>,
    /// keccak-256(address) → rlp(nonce, balance, storage root, code hash).
    trie: Trie,
    /// The rules its blocks run under (Osaka unless a genesis says so).
    fork: super::fork::Fork,
}

/// What a block did to one account.
#[derive(Clone, Debug)]
pub struct AccountChange {
    /// The account.
    pub address: Address,
    /// Its state after the block; `None` if it no longer exists (touched
    /// and empty, EIP-161; or self-destructed).
    pub info: Option<AccountInfo>,
    /// Its storage was wiped (created or self-destructed in the block)
    /// before `storage` applies.
    pub wiped: bool,
    /// Slots written in the block, with their final values (zero deletes).
    pub storage: Vec<(U256, U256)>,
}

/// The tries after a block's changes, computed from the pre-state's.
#[derive(Clone, Debug)]
pub struct PostState {
    /// The post-state root.
    pub root: B256,
    trie: Trie,
    storage_tries: Vec<Trie>,
}

/// RLP of a storage value, as its trie leaf stores it.
fn storage_leaf(value: &U256) -> Vec<u8> {
    alloy_rlp::encode(value)
}

fn slot_key(slot: &U256) -> B256 {
    keccak256(slot.to_be_bytes::<32>())
}

fn is_empty(info: &AccountInfo) -> bool {
    info.nonce == 0 && info.balance.is_zero() && info.code_hash == KECCAK_EMPTY
}

impl World {
    /// An empty world.
    pub fn new() -> Self {
        Self::default()
    }

    /// The fork its blocks run under.
    pub fn fork(&self) -> super::fork::Fork {
        self.fork
    }

    /// Run its blocks under `fork` from now on (a genesis's choice).
    pub fn set_fork(&mut self, fork: super::fork::Fork) {
        self.fork = fork;
    }

    /// Add (or replace) an account, as a genesis allocation does: `code`
    /// for a contract, and its non-zero storage.
    pub fn insert_account(
        &mut self,
        address: Address,
        balance: U256,
        nonce: u64,
        code: Option<Bytecode>,
        storage: impl IntoIterator<Item = (U256, U256)>,
    ) {
        let mut info = AccountInfo {
            balance,
            nonce,
            ..AccountInfo::default()
        };
        if let Some(code) = code {
            info.code_hash = code.hash_slow();
            self.codes.insert(info.code_hash, code.clone());
            info.code = Some(code);
        }
        let mut account = Account {
            info,
            storage: HashMap::new(),
            storage_trie: Trie::new(),
        };
        for (slot, value) in storage {
            if !value.is_zero() {
                account.storage.insert(slot, value);
                account
                    .storage_trie
                    .insert(slot_key(&slot), storage_leaf(&value));
            }
        }
        self.trie.insert(
            keccak256(address),
            alloy_rlp::encode(account.trie_account()),
        );
        self.accounts.insert(address, account);
    }

    /// Record the hash of block `number` (for BLOCKHASH).
    pub fn set_block_hash(&mut self, number: u64, hash: B256) {
        self.block_hashes.insert(number, hash);
    }

    /// An account's balance, nonce and code hash, if it exists.
    pub fn account(&self, address: &Address) -> Option<&AccountInfo> {
        self.accounts.get(address).map(|a| &a.info)
    }

    /// A storage slot's value (zero if unset).
    pub fn storage(&self, address: &Address, slot: &U256) -> U256 {
        self.accounts
            .get(address)
            .and_then(|a| a.storage.get(slot))
            .copied()
            .unwrap_or_default()
    }

    /// Every account, sorted by address: its balance, nonce, code (empty
    /// for none) and non-zero storage slots (sorted), as a genesis file
    /// lists them.
    pub fn alloc(&self) -> Vec<Allocated> {
        let mut out: Vec<_> = self
            .accounts
            .iter()
            .map(|(address, a)| {
                let code = a
                    .info
                    .code
                    .as_ref()
                    .map(|c| c.original_bytes())
                    .unwrap_or_default();
                let mut storage: Vec<(U256, U256)> =
                    a.storage.iter().map(|(k, v)| (*k, *v)).collect();
                storage.sort_unstable();
                Allocated {
                    address: *address,
                    balance: a.info.balance,
                    nonce: a.info.nonce,
                    code,
                    storage,
                }
            })
            .collect();
        out.sort_unstable_by_key(|a| a.address);
        out
    }

    /// How many accounts exist.
    pub fn len(&self) -> usize {
        self.accounts.len()
    }

    /// True if no account exists.
    pub fn is_empty(&self) -> bool {
        self.accounts.is_empty()
    }

    /// The state root, from the cached trie.
    pub fn state_root(&self) -> B256 {
        self.trie.root()
    }

    /// The state root computed from scratch by alloy-trie's `HashBuilder`
    /// over every account and slot: an independent check of
    /// [`World::state_root`], far slower.
    pub fn reference_state_root(&self) -> B256 {
        alloy_trie::root::state_root_unhashed(self.accounts.iter().map(|(address, a)| {
            let storage_root = alloy_trie::root::storage_root_unhashed(
                a.storage.iter().map(|(k, v)| (B256::from(*k), *v)),
            );
            (
                *address,
                TrieAccount::new(a.info.nonce, a.info.balance, storage_root, a.info.code_hash),
            )
        }))
    }

    /// The tries after `changes`, from clones of this world's: only the
    /// changed accounts' storage roots and the paths to their leaves are
    /// rehashed. `self` is untouched.
    pub fn post_state(&self, changes: &[AccountChange]) -> PostState {
        let mut trie = self.trie.clone();
        let mut storage_tries = Vec::with_capacity(changes.len());
        for change in changes {
            let key = keccak256(change.address);
            let existing = self.accounts.get(&change.address);
            let mut storage = match existing {
                Some(a) if !change.wiped => a.storage_trie.clone(),
                _ => Trie::new(),
            };
            for (slot, value) in &change.storage {
                if value.is_zero() {
                    storage.remove(slot_key(slot));
                } else {
                    storage.insert(slot_key(slot), storage_leaf(value));
                }
            }
            match &change.info {
                Some(info) if !is_empty(info) => {
                    let account =
                        TrieAccount::new(info.nonce, info.balance, storage.root(), info.code_hash);
                    trie.insert(key, alloy_rlp::encode(account));
                }
                _ => trie.remove(key),
            }
            storage_tries.push(storage);
        }
        PostState {
            root: trie.root(),
            trie,
            storage_tries,
        }
    }

    /// Apply a block's `changes`, with the tries `post` computed for them
    /// by [`World::post_state`], and record its hash.
    pub fn commit(
        &mut self,
        changes: Vec<AccountChange>,
        post: PostState,
        number: u64,
        hash: B256,
    ) {
        for (change, storage_trie) in changes.into_iter().zip(post.storage_tries) {
            match change.info {
                Some(info) if !is_empty(&info) => {
                    if let Some(code) = &info.code
                        && info.code_hash != KECCAK_EMPTY
                    {
                        self.codes
                            .entry(info.code_hash)
                            .or_insert_with(|| code.clone());
                    }
                    let account = self
                        .accounts
                        .entry(change.address)
                        .or_insert_with(|| Account {
                            info: AccountInfo::default(),
                            storage: HashMap::new(),
                            storage_trie: Trie::new(),
                        });
                    account.info = info;
                    if change.wiped {
                        account.storage.clear();
                    }
                    for (slot, value) in change.storage {
                        if value.is_zero() {
                            account.storage.remove(&slot);
                        } else {
                            account.storage.insert(slot, value);
                        }
                    }
                    account.storage_trie = storage_trie;
                }
                _ => {
                    self.accounts.remove(&change.address);
                }
            }
        }
        self.trie = post.trie;
        self.block_hashes.insert(number, hash);
    }
}

impl DatabaseRef for World {
    type Error = Infallible;

    fn basic_ref(&self, address: Address) -> Result<Option<AccountInfo>, Infallible> {
        Ok(self.accounts.get(&address).map(|a| a.info.clone()))
    }

    fn code_by_hash_ref(&self, code_hash: B256) -> Result<Bytecode, Infallible> {
        Ok(self.codes.get(&code_hash).cloned().unwrap_or_default())
    }

    fn storage_ref(&self, address: Address, index: U256) -> Result<U256, Infallible> {
        Ok(self.storage(&address, &index))
    }

    fn block_hash_ref(&self, number: u64) -> Result<B256, Infallible> {
        Ok(self.block_hashes.get(&number).copied().unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::address;

    const A: Address = address!("0x00000000000000000000000000000000000000aa");
    const B: Address = address!("0x00000000000000000000000000000000000000bb");

    fn world() -> World {
        let mut w = World::new();
        w.insert_account(A, U256::from(100), 1, None, []);
        let code = Bytecode::new_raw(vec![0x60, 0x00, 0x00].into());
        w.insert_account(
            B,
            U256::ZERO,
            1,
            Some(code),
            (1..20u64).map(|i| (U256::from(i), U256::from(i * 3))),
        );
        w
    }

    #[test]
    fn world_the_cached_root_equals_a_from_scratch_root() {
        let w = world();
        assert_eq!(w.state_root(), w.reference_state_root());
        assert_eq!(World::new().state_root(), alloy_consensus::EMPTY_ROOT_HASH);
    }

    #[test]
    fn world_post_state_leaves_the_world_alone_and_commit_applies_it() {
        let mut w = world();
        let before = w.state_root();
        let mut b = w.account(&B).unwrap().clone();
        b.balance = U256::from(5);
        let changes = vec![
            // A emptied: EIP-161 deletes it.
            AccountChange {
                address: A,
                info: Some(AccountInfo::default()),
                wiped: false,
                storage: vec![],
            },
            AccountChange {
                address: B,
                info: Some(b),
                wiped: false,
                storage: vec![(U256::from(1), U256::ZERO), (U256::from(99), U256::from(7))],
            },
        ];
        let post = w.post_state(&changes);
        assert_eq!(w.state_root(), before);
        assert_ne!(post.root, before);
        w.commit(changes, post.clone(), 1, B256::repeat_byte(1));
        assert_eq!(w.state_root(), post.root);
        assert_eq!(w.reference_state_root(), post.root);
        assert!(w.account(&A).is_none());
        assert_eq!(w.storage(&B, &U256::from(1)), U256::ZERO);
        assert_eq!(w.storage(&B, &U256::from(99)), U256::from(7));
        assert_eq!(w.block_hash_ref(1), Ok(B256::repeat_byte(1)));
    }
}
