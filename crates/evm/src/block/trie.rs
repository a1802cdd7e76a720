//! A persistent Merkle-Patricia trie with cached node hashes: how the
//! block validator computes state and storage roots incrementally.
//!
//! Every node is immutable and shared through an [`Arc`]; an update copies
//! only the nodes on the path from the root to the changed leaf and shares
//! every other subtree with the trie it came from (path copying). Each node
//! caches its RLP reference (the node itself when shorter than 32 bytes,
//! else its keccak-256) once computed, so [`Trie::root`] after a few
//! updates hashes only the copied nodes: O(changes × depth) hashes, not
//! O(size). A clone of a [`Trie`] is one reference count, which is what lets
//! validation compute a post-state root without touching the pre-state.
//!
//! Keys are 32-byte hashes (64 nibbles, as in Ethereum's secure tries), so
//! no key is a prefix of another and branch nodes never carry a value.
//! Node encoding is alloy-trie's ([`LeafNodeRef`], [`ExtensionNodeRef`],
//! [`BranchNodeRef`]); roots are checked against alloy-trie's `HashBuilder`
//! in the tests.

use std::sync::{Arc, OnceLock};

use alloy_consensus::EMPTY_ROOT_HASH;
use alloy_primitives::{B256, keccak256};
use alloy_trie::nodes::{BranchNodeRef, ExtensionNodeRef, LeafNodeRef, RlpNode};
use alloy_trie::{Nibbles, TrieMask};

/// A Merkle-Patricia trie over 32-byte keys; cloning shares every node.
#[derive(Clone, Default)]
pub struct Trie {
    root: Option<Arc<Node>>,
}

impl std::fmt::Debug for Trie {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trie")
            .field("root", &self.root())
            .finish_non_exhaustive()
    }
}

#[derive(Clone)]
struct Node {
    kind: Kind,
    /// `rlp(node)` if shorter than 32 bytes, else `rlp(keccak(rlp(node)))`.
    rlp: OnceLock<RlpNode>,
}

#[derive(Clone)]
enum Kind {
    /// The rest of the key, and the RLP-encoded value.
    Leaf { key: Nibbles, value: Vec<u8> },
    /// A shared key segment leading to a branch.
    Extension { key: Nibbles, child: Arc<Node> },
    /// One child per nibble; at least two are present.
    Branch { children: [Option<Arc<Node>>; 16] },
}

impl Node {
    fn new(kind: Kind) -> Arc<Self> {
        Arc::new(Self {
            kind,
            rlp: OnceLock::new(),
        })
    }

    fn leaf(key: Nibbles, value: Vec<u8>) -> Arc<Self> {
        Self::new(Kind::Leaf { key, value })
    }

    /// `child` below the key segment `key`: the child itself if `key` is
    /// empty, else an extension.
    fn under(key: Nibbles, child: Arc<Self>) -> Arc<Self> {
        if key.is_empty() {
            child
        } else {
            Self::new(Kind::Extension { key, child })
        }
    }

    /// `prefix` joined onto `child`'s own key: the node that replaces an
    /// extension or a one-child branch after a removal.
    fn joined(prefix: Nibbles, child: Arc<Self>) -> Arc<Self> {
        match &child.kind {
            Kind::Leaf { key, value } => Self::leaf(prefix.join(key), value.clone()),
            Kind::Extension { key, child } => Self::new(Kind::Extension {
                key: prefix.join(key),
                child: child.clone(),
            }),
            Kind::Branch { .. } => Self::under(prefix, child),
        }
    }

    /// The node's RLP reference, computed once (children first).
    fn rlp(&self, buf: &mut Vec<u8>) -> &RlpNode {
        if let Some(r) = self.rlp.get() {
            return r;
        }
        let r = match &self.kind {
            Kind::Leaf { key, value } => {
                buf.clear();
                LeafNodeRef::new(key, value).rlp(buf)
            }
            Kind::Extension { key, child } => {
                let child = child.rlp(buf).clone();
                buf.clear();
                ExtensionNodeRef::new(key, &child).rlp(buf)
            }
            Kind::Branch { children } => {
                let mut stack = Vec::with_capacity(16);
                let mut mask = TrieMask::default();
                for (i, child) in children.iter().enumerate() {
                    if let Some(child) = child {
                        stack.push(child.rlp(buf).clone());
                        mask.set_bit(i as u8);
                    }
                }
                buf.clear();
                BranchNodeRef::new(&stack, mask).rlp(buf)
            }
        };
        self.rlp.get_or_init(|| r)
    }
}

/// `value` at `path` below `node` (which may be absent): the new node.
fn insert(node: Option<Arc<Node>>, path: Nibbles, value: Vec<u8>) -> Arc<Node> {
    let Some(node) = node else {
        return Node::leaf(path, value);
    };
    // Reuse the node if this trie owns it alone, else copy it.
    let node = Arc::unwrap_or_clone(node);
    match node.kind {
        Kind::Leaf { key, value: old } => {
            if key == path {
                return Node::leaf(key, value);
            }
            // Same length, different keys: they diverge before the end.
            let p = key.common_prefix_length(&path);
            let mut children: [Option<Arc<Node>>; 16] = Default::default();
            children[usize::from(key.get_unchecked(p))] = Some(Node::leaf(key.slice(p + 1..), old));
            children[usize::from(path.get_unchecked(p))] =
                Some(Node::leaf(path.slice(p + 1..), value));
            Node::under(path.slice(..p), Node::new(Kind::Branch { children }))
        }
        Kind::Extension { key, child } => {
            let p = key.common_prefix_length(&path);
            if p == key.len() {
                let child = insert(Some(child), path.slice(p..), value);
                return Node::new(Kind::Extension { key, child });
            }
            let mut children: [Option<Arc<Node>>; 16] = Default::default();
            children[usize::from(key.get_unchecked(p))] =
                Some(Node::under(key.slice(p + 1..), child));
            children[usize::from(path.get_unchecked(p))] =
                Some(Node::leaf(path.slice(p + 1..), value));
            Node::under(path.slice(..p), Node::new(Kind::Branch { children }))
        }
        Kind::Branch { mut children } => {
            let i = usize::from(path.get_unchecked(0));
            children[i] = Some(insert(children[i].take(), path.slice(1..), value));
            Node::new(Kind::Branch { children })
        }
    }
}

/// `node` without the key `path`: `None` if nothing is left, the same `Arc`
/// if the key was absent.
fn remove(node: Arc<Node>, path: Nibbles) -> Option<Arc<Node>> {
    match &node.kind {
        Kind::Leaf { key, .. } => (*key != path).then_some(node),
        Kind::Extension { key, child } => {
            if !path.starts_with(key) {
                return Some(node);
            }
            match remove(child.clone(), path.slice(key.len()..)) {
                Some(c) if Arc::ptr_eq(&c, child) => Some(node),
                Some(c) => Some(Node::joined(*key, c)),
                None => None,
            }
        }
        Kind::Branch { children } => {
            let i = usize::from(path.get_unchecked(0));
            let Some(child) = &children[i] else {
                return Some(node);
            };
            let new = remove(child.clone(), path.slice(1..));
            if new.as_ref().is_some_and(|c| Arc::ptr_eq(c, child)) {
                return Some(node);
            }
            let mut children = children.clone();
            children[i] = new;
            let mut present = children.iter().enumerate().filter(|(_, c)| c.is_some());
            match (present.next(), present.next()) {
                (Some(_), Some(_)) => Some(Node::new(Kind::Branch { children })),
                (Some((j, _)), None) => {
                    let only = children[j].take()?;
                    Some(Node::joined(
                        Nibbles::from_nibbles_unchecked([j as u8]),
                        only,
                    ))
                }
                _ => None,
            }
        }
    }
}

impl Trie {
    /// The empty trie.
    pub fn new() -> Self {
        Self::default()
    }

    /// True if the trie holds no key.
    pub fn is_empty(&self) -> bool {
        self.root.is_none()
    }

    /// Set `key` to `value` (already RLP-encoded, as the leaf stores it).
    pub fn insert(&mut self, key: B256, value: Vec<u8>) {
        self.root = Some(insert(
            self.root.take(),
            Nibbles::unpack_array(&key.0),
            value,
        ));
    }

    /// Remove `key`; nothing happens if it is absent.
    pub fn remove(&mut self, key: B256) {
        if let Some(root) = self.root.take() {
            self.root = remove(root, Nibbles::unpack_array(&key.0));
        }
    }

    /// The root hash: keccak-256 of the root node's RLP (the empty-trie hash
    /// if empty). Hashes only the nodes not hashed before.
    pub fn root(&self) -> B256 {
        let Some(root) = &self.root else {
            return EMPTY_ROOT_HASH;
        };
        let r = root.rlp(&mut Vec::with_capacity(600));
        r.as_hash().unwrap_or_else(|| keccak256(r.as_slice()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_trie::HashBuilder;
    use std::collections::BTreeMap;

    fn key(i: u64) -> B256 {
        keccak256(i.to_be_bytes())
    }

    fn value(i: u64) -> Vec<u8> {
        alloy_rlp::encode(alloy_primitives::U256::from(i * 1_000_003 + 1))
    }

    /// The reference: alloy-trie's HashBuilder over the sorted entries.
    fn reference(entries: &BTreeMap<B256, Vec<u8>>) -> B256 {
        let mut hb = HashBuilder::default();
        for (k, v) in entries {
            hb.add_leaf(Nibbles::unpack(k), v);
        }
        hb.root()
    }

    #[test]
    fn trie_roots_equal_alloy_trie_through_inserts_updates_and_removals() {
        let mut trie = Trie::new();
        let mut entries = BTreeMap::new();
        assert_eq!(trie.root(), EMPTY_ROOT_HASH);
        for i in 0..300u64 {
            trie.insert(key(i), value(i));
            entries.insert(key(i), value(i));
            if i % 37 == 0 || i < 5 {
                assert_eq!(trie.root(), reference(&entries), "after inserting {i}");
            }
        }
        assert_eq!(trie.root(), reference(&entries));
        // Update every third value, remove every fifth key.
        for i in (0..300u64).step_by(3) {
            trie.insert(key(i), value(i + 7));
            entries.insert(key(i), value(i + 7));
        }
        assert_eq!(trie.root(), reference(&entries));
        for i in (0..300u64).step_by(5) {
            trie.remove(key(i));
            entries.remove(&key(i));
        }
        assert_eq!(trie.root(), reference(&entries));
        // Removing an absent key changes nothing.
        trie.remove(key(10_000));
        assert_eq!(trie.root(), reference(&entries));
        // Down to one key, then none.
        for i in 0..299u64 {
            trie.remove(key(i));
            entries.remove(&key(i));
            if i % 50 == 0 || i > 295 {
                assert_eq!(trie.root(), reference(&entries), "after removing {i}");
            }
        }
        assert_eq!(entries.len(), 1);
        assert_eq!(trie.root(), reference(&entries));
        trie.remove(key(299));
        assert!(trie.is_empty());
        assert_eq!(trie.root(), EMPTY_ROOT_HASH);
    }

    #[test]
    fn trie_keys_sharing_long_prefixes_split_and_merge_extensions() {
        // Keys that share 31 bytes force extensions of 62 nibbles.
        let k = |last: u8, mid: u8| {
            let mut b = [0xabu8; 32];
            b[20] = mid;
            b[31] = last;
            B256::from(b)
        };
        let keys = [k(1, 0), k(2, 0), k(0x21, 0), k(1, 7), k(0xf1, 7)];
        let mut trie = Trie::new();
        let mut entries = BTreeMap::new();
        for (i, key) in keys.iter().enumerate() {
            trie.insert(*key, value(i as u64));
            entries.insert(*key, value(i as u64));
            assert_eq!(trie.root(), reference(&entries), "insert {i}");
        }
        for (i, key) in keys.iter().enumerate().rev() {
            trie.remove(*key);
            entries.remove(key);
            assert_eq!(trie.root(), reference(&entries), "remove {i}");
        }
    }

    #[test]
    fn trie_a_clone_is_unaffected_by_updates_to_the_original() {
        let mut a = Trie::new();
        for i in 0..100u64 {
            a.insert(key(i), value(i));
        }
        let before = a.root();
        let mut b = a.clone();
        b.insert(key(5), value(99));
        b.remove(key(6));
        b.insert(key(1000), value(1));
        assert_ne!(b.root(), before);
        assert_eq!(a.root(), before);
        // The same changes on a fresh copy give the same root.
        let mut c = a.clone();
        c.insert(key(1000), value(1));
        c.remove(key(6));
        c.insert(key(5), value(99));
        assert_eq!(c.root(), b.root());
    }
}
