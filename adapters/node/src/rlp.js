// "ethereumjs" generic RLP: @ethereumjs/rlp's `RLP.decode` into its generic
// tree (nested arrays of Uint8Array; byte strings are not decoded further)
// and `RLP.encode` of such a tree. Loaded lazily: only a worker that
// prepares one of these ids imports the library.

import { keccak_256 } from '@noble/hashes/sha3.js';
import { fromHex, toHex } from 'dyno-protocol';

export let sink;

export const RLP_INPUTS = [
  'tiny-account',
  'small-legacy-tx',
  'small-eip1559-tx',
  'small-header',
  'medium-receipts',
  'medium-body',
  'large-body',
  'large-receipts',
  'vlarge-body',
];

let RLP = null;

async function load() {
  RLP ??= (await import('@ethereumjs/rlp')).RLP;
}

/** Lists, byte strings and total byte-string payload length of a decoded
 * tree, the outermost item included. Not timed. */
export function countTree(tree) {
  const acc = { lists: 0, strings: 0, bytes: 0 };
  const walk = (node) => {
    if (Array.isArray(node)) {
      acc.lists++;
      for (const child of node) walk(child);
    } else if (node instanceof Uint8Array) {
      acc.strings++;
      acc.bytes += node.length;
    } else {
      throw new TypeError(`unexpected node in the decoded tree: ${typeof node}`);
    }
  };
  walk(tree);
  return acc;
}

/** The tree digest of the case schema: keccak-256 over a pre-order walk, a
 * byte string as 0x80 || u32 BE length || bytes, a list as 0xc0 || u32 BE
 * item count, then its items. Not timed. */
export function digestTree(tree) {
  const h = keccak_256.create();
  const head = (tag, n) => {
    const b = new Uint8Array(5);
    b[0] = tag;
    new DataView(b.buffer).setUint32(1, n);
    h.update(b);
  };
  const walk = (node) => {
    if (Array.isArray(node)) {
      head(0xc0, node.length);
      for (const child of node) walk(child);
    } else if (node instanceof Uint8Array) {
      head(0x80, node.length);
      h.update(node);
    } else {
      throw new TypeError(`unexpected node in the decoded tree: ${typeof node}`);
    }
  };
  walk(tree);
  return h.digest();
}

/** The protocol's JSON tree (hex string = byte string, array = list) as the
 * library's native tree of Uint8Arrays. Parsed at prepare only. */
export function treeFromJson(node, path = 'tree') {
  if (typeof node === 'string') return fromHex(node, path);
  if (Array.isArray(node)) return node.map((child, i) => treeFromJson(child, `${path}[${i}]`));
  throw new TypeError(`${path}: expected a 0x hex string or an array`);
}

// ---- decode ------------------------------------------------------------------

function loopDecode(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    sink = RLP.decode(cs[p].encoded);
    if (++p === len) p = 0;
  }
  return p;
}

/** Equality of two byte arrays. */
function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const decodeKind = {
  implementation: 'ethereumjs',
  library: '@ethereumjs/rlp',
  init: load,
  parse: (i) => {
    const encoded = fromHex(i.encoded, 'encoded');
    // The library decodes empty input to an empty string: not one RLP item.
    if (encoded.length === 0) throw new TypeError('encoded: empty, expected one RLP item');
    return { encoded };
  },
  call: (c) => RLP.decode(c.encoded),
  loop: loopDecode,
  // Outside the timed loop: the decoded tree, re-encoded, must give back the
  // input bytes (else the decode lost or invented something).
  verify: (tree, c) => {
    const again = RLP.encode(tree);
    if (sameBytes(again, c.encoded)) return null;
    return { field: 'encoded', expected: toHex(c.encoded), actual: toHex(again) };
  },
  encode: (tree) => ({ ...countTree(tree), digest: toHex(digestTree(tree)) }),
};

// ---- encode ------------------------------------------------------------------

function loopEncode(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    sink = RLP.encode(cs[p].tree);
    if (++p === len) p = 0;
  }
  return p;
}

const encodeKind = {
  implementation: 'ethereumjs',
  library: '@ethereumjs/rlp',
  init: load,
  parse: (i) => {
    if (!('tree' in i)) throw new TypeError('tree: missing');
    return { tree: treeFromJson(i.tree) };
  },
  call: (c) => RLP.encode(c.tree),
  loop: loopEncode,
  encode: (bytes) => ({ encoded: toHex(bytes) }),
};

/** [id, kind] pairs offered by exact id: the 9 inputs, decode and encode. */
export function rlpKinds() {
  return [
    ...RLP_INPUTS.map((input) => [`rlp/decode-generic/${input}`, decodeKind]),
    ...RLP_INPUTS.map((input) => [`rlp/encode-generic/${input}`, encodeKind]),
  ];
}
