// "ethereumjs" trie roots: @ethereumjs/mpt (the 10.x successor of
// @ethereumjs/trie, the Merkle-Patricia trie of ethereumjs's state manager)
// with values encoded by @ethereumjs/rlp. Each timed call commits a state
// from nothing the way ethereumjs does (its own genesisMPTStateRoot): a fresh
// in-memory trie with `useKeyHashing: true` (the trie keccak-256-hashes every
// key inside `put`), one awaited `put` per pair in input order, then `root()`.
// Loaded lazily: only a worker that prepares one of these ids imports them.

import { fromHexLen, toHex } from 'dyno-protocol';

export let sink;

export const STATE_IDS = ['trie/state-root/100', 'trie/state-root/1000', 'trie/state-root/10000', 'trie/state-root/100000'];
export const STORAGE_ID = 'trie/storage-root/1000-slots';

const QUANTITY_RE = /^0x[0-9a-fA-F]+$/;

let lib = null;

async function load() {
  if (lib === null) {
    const [{ MerklePatriciaTrie }, { RLP }, { bigIntToUnpaddedBytes, unpadBytes }] = await Promise.all([
      import('@ethereumjs/mpt'),
      import('@ethereumjs/rlp'),
      import('@ethereumjs/util'),
    ]);
    lib = { MerklePatriciaTrie, RLP, bigIntToUnpaddedBytes, unpadBytes };
  }
  return lib;
}

/** `input[field]` as an array of exactly `n` entries (n = -1: any length). */
function column(input, field, n) {
  const v = input[field];
  if (!Array.isArray(v)) throw new TypeError(`${field}: expected an array`);
  if (n >= 0 && v.length !== n) throw new TypeError(`${field}: expected ${n} entries, got ${v.length}`);
  return v;
}

function quantity(v, field) {
  if (typeof v !== 'string' || !QUANTITY_RE.test(v)) throw new TypeError(`${field}: expected a 0x hex quantity`);
  return BigInt(v);
}

// ---- state root --------------------------------------------------------------

/** The account value is `rlp([nonce, balance, storageRoot, codeHash])` with
 * minimal big-endian integers: @ethereumjs/util's `Account.raw()` fields, so
 * the bytes equal `Account.serialize()` (checked by the tests) without the
 * Account object. */
export async function stateRoot(c) {
  const { MerklePatriciaTrie, RLP, bigIntToUnpaddedBytes } = lib;
  const trie = new MerklePatriciaTrie({ useKeyHashing: true });
  const n = c.addresses.length;
  for (let i = 0; i < n; i++) {
    const value = RLP.encode([bigIntToUnpaddedBytes(c.nonces[i]), bigIntToUnpaddedBytes(c.balances[i]), c.storageRoots[i], c.codeHashes[i]]);
    await trie.put(c.addresses[i], value);
  }
  return trie.root();
}

async function loopStateRoot(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    sink = await stateRoot(cs[p]);
    if (++p === len) p = 0;
  }
  return p;
}

function parseState(input) {
  const addresses = column(input, 'addresses', -1);
  const n = addresses.length;
  const nonces = column(input, 'nonces', n);
  const balances = column(input, 'balances', n);
  const storageRoots = column(input, 'storage_roots', n);
  const codeHashes = column(input, 'code_hashes', n);
  return {
    addresses: addresses.map((a, i) => fromHexLen(a, 20, `addresses[${i}]`)),
    nonces: nonces.map((v, i) => {
      if (!Number.isSafeInteger(v) || v < 0) throw new TypeError(`nonces[${i}]: expected a non-negative integer`);
      return BigInt(v);
    }),
    balances: balances.map((v, i) => quantity(v, `balances[${i}]`)),
    storageRoots: storageRoots.map((v, i) => fromHexLen(v, 32, `storage_roots[${i}]`)),
    codeHashes: codeHashes.map((v, i) => fromHexLen(v, 32, `code_hashes[${i}]`)),
  };
}

// ---- storage root ------------------------------------------------------------

/** Slot value: the RLP of the word with leading zero bytes stripped (what
 * ethereumjs's state manager stores for a slot). */
export async function storageRoot(c) {
  const { MerklePatriciaTrie, RLP, unpadBytes } = lib;
  const trie = new MerklePatriciaTrie({ useKeyHashing: true });
  const n = c.keys.length;
  for (let i = 0; i < n; i++) {
    await trie.put(c.keys[i], RLP.encode(unpadBytes(c.values[i])));
  }
  return trie.root();
}

async function loopStorageRoot(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    sink = await storageRoot(cs[p]);
    if (++p === len) p = 0;
  }
  return p;
}

function parseStorage(input) {
  const keys = column(input, 'keys', -1);
  const values = column(input, 'values', keys.length);
  return {
    keys: keys.map((v, i) => fromHexLen(v, 32, `keys[${i}]`)),
    values: values.map((v, i) => fromHexLen(v, 32, `values[${i}]`)),
  };
}

// ---- kinds -------------------------------------------------------------------

const encode = (root) => ({ root: toHex(root) });

const stateKind = {
  implementation: 'ethereumjs',
  library: '@ethereumjs/mpt',
  // The trie's put is async: the loop awaits every put (one promise chain per
  // put, through the trie's lock and its in-memory DB), part of what
  // ethereumjs pays.
  async: true,
  init: load,
  parse: parseState,
  call: stateRoot,
  loop: loopStateRoot,
  encode,
};

const storageKind = {
  implementation: 'ethereumjs',
  library: '@ethereumjs/mpt',
  async: true,
  init: load,
  parse: parseStorage,
  call: storageRoot,
  loop: loopStorageRoot,
  encode,
};

/** [id, kind] pairs offered by exact id. */
export function trieKinds() {
  return [...STATE_IDS.map((id) => [id, stateKind]), [STORAGE_ID, storageKind]];
}
