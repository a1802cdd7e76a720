// hash/<alg>/<size>: @noble/hashes ("noble") and node:crypto ("node-crypto").
//
// Every timed loop is its own function with the hash call written out, so
// each one stays monomorphic whatever else the worker has run. Inputs are
// plain Uint8Arrays parsed at prepare; each digest goes to a module-level
// sink.

import { createHash } from 'node:crypto';
import { blake2b, blake2s } from '@noble/hashes/blake2.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256, sha384, sha512 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { fromHex, toHex } from 'dyno-protocol';

export let sink;

export const HASH_ALGS = ['keccak256', 'sha256', 'sha384', 'sha512', 'ripemd160', 'blake2b512', 'blake2s256'];
export const HASH_SIZES = ['1B', '32B', '1KiB', '100KiB'];

// ---- noble ----------------------------------------------------------------

const blake2b512 = (d) => blake2b(d, { dkLen: 64 });

function loopNobleKeccak256(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    sink = keccak_256(cs[p]);
    if (++p === len) p = 0;
  }
  return p;
}
function loopNobleSha256(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    sink = sha256(cs[p]);
    if (++p === len) p = 0;
  }
  return p;
}
function loopNobleSha384(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    sink = sha384(cs[p]);
    if (++p === len) p = 0;
  }
  return p;
}
function loopNobleSha512(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    sink = sha512(cs[p]);
    if (++p === len) p = 0;
  }
  return p;
}
function loopNobleRipemd160(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    sink = ripemd160(cs[p]);
    if (++p === len) p = 0;
  }
  return p;
}
function loopNobleBlake2b512(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    sink = blake2b512(cs[p]);
    if (++p === len) p = 0;
  }
  return p;
}
function loopNobleBlake2s256(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    sink = blake2s(cs[p]);
    if (++p === len) p = 0;
  }
  return p;
}

const NOBLE = {
  keccak256: [keccak_256, loopNobleKeccak256],
  sha256: [sha256, loopNobleSha256],
  sha384: [sha384, loopNobleSha384],
  sha512: [sha512, loopNobleSha512],
  ripemd160: [ripemd160, loopNobleRipemd160],
  blake2b512: [blake2b512, loopNobleBlake2b512],
  blake2s256: [blake2s, loopNobleBlake2s256],
};

// ---- node:crypto (OpenSSL) --------------------------------------------------

function loopNodeSha256(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    sink = createHash('sha256').update(cs[p]).digest();
    if (++p === len) p = 0;
  }
  return p;
}
function loopNodeSha384(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    sink = createHash('sha384').update(cs[p]).digest();
    if (++p === len) p = 0;
  }
  return p;
}
function loopNodeSha512(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    sink = createHash('sha512').update(cs[p]).digest();
    if (++p === len) p = 0;
  }
  return p;
}
function loopNodeRipemd160(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    sink = createHash('ripemd160').update(cs[p]).digest();
    if (++p === len) p = 0;
  }
  return p;
}
function loopNodeBlake2b512(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    sink = createHash('blake2b512').update(cs[p]).digest();
    if (++p === len) p = 0;
  }
  return p;
}
function loopNodeBlake2s256(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    sink = createHash('blake2s256').update(cs[p]).digest();
    if (++p === len) p = 0;
  }
  return p;
}

const NODE = {
  sha256: loopNodeSha256,
  sha384: loopNodeSha384,
  sha512: loopNodeSha512,
  ripemd160: loopNodeRipemd160,
  blake2b512: loopNodeBlake2b512,
  blake2s256: loopNodeBlake2s256,
};

// ---- kinds ----------------------------------------------------------------

const parseData = (input) => fromHex(input.data, 'data');
const encodeDigest = (d) => ({ digest: toHex(d) });

function nobleKind(alg) {
  const [fn, loop] = NOBLE[alg];
  return { implementation: 'noble', library: '@noble/hashes', parse: parseData, call: fn, loop, encode: encodeDigest };
}

function nodeKind(alg) {
  const loop = NODE[alg];
  return {
    implementation: 'node-crypto',
    library: 'node:crypto',
    parse: parseData,
    call: (d) => createHash(alg).update(d).digest(),
    loop,
    encode: encodeDigest,
  };
}

/** OpenSSL builds can leave an algorithm out (ripemd160 lives in the legacy
 * provider of some OpenSSL 3 builds): offer only what really hashes. */
function nodeHas(alg) {
  try {
    createHash(alg).update(new Uint8Array(1)).digest();
    return true;
  } catch {
    return false;
  }
}

/** [id, kind] for every hash benchmark. */
export function hashKinds() {
  const out = [];
  for (const alg of HASH_ALGS) {
    const noble = nobleKind(alg);
    const node = alg in NODE && nodeHas(alg) ? nodeKind(alg) : null;
    for (const size of HASH_SIZES) {
      const id = `hash/${alg}/${size}`;
      out.push([id, noble]);
      if (node) out.push([id, node]);
    }
  }
  return out;
}
