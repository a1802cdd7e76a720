// Which (id, implementation) pairs this worker offers, and the kind (parse,
// call, timed loop, encode) behind each.

import { blockKinds } from './block.js';
import { bytecodeKinds, bytecodePatterns } from './bytecode.js';
import { curveKinds } from './curves.js';
import { ethereumjsKinds, ethereumjsPatterns } from './ethereumjs.js';
import { hashKinds } from './hashes.js';
import { rlpKinds } from './rlp.js';
import { trieKinds } from './trie.js';
import { fromHex, toHex } from './hex.js';

export const NOOP_ID = 'harness/noop/empty';

export let sink;

// The identity operation: the adapter's own per-iteration loop cost.
function loopNoop(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    sink = cs[p];
    if (++p === len) p = 0;
  }
  return p;
}

const noopKind = {
  implementation: 'node-noop',
  library: '-',
  parse: (i) => fromHex(i.value, 'value'),
  call: (v) => v,
  loop: loopNoop,
  encode: (v) => ({ value: toHex(v) }),
};

/** True if `pattern` (where `*` is one whole segment) covers `id`. */
export function covers(pattern, id) {
  const have = pattern.split('/');
  const want = id.split('/');
  return have.length === want.length && have.every((h, i) => h === '*' || h === want[i]);
}

export class Registry {
  constructor() {
    /** @type {Map<string, Map<string, object>>} */
    this.exact = new Map();
    /** @type {Array<[string, object]>} */
    this.patterns = [...ethereumjsPatterns(), ...bytecodePatterns()];
    for (const [id, kind] of [...hashKinds(), ...curveKinds(), ...ethereumjsKinds(), ...trieKinds(), ...rlpKinds(), ...bytecodeKinds(), ...blockKinds(), [NOOP_ID, noopKind]]) {
      if (!this.exact.has(id)) this.exact.set(id, new Map());
      this.exact.get(id).set(kind.implementation, kind);
    }
  }

  /** The kind for (id, implementation), or undefined. */
  find(id, implementation) {
    const k = this.exact.get(id)?.get(implementation);
    if (k) return k;
    for (const [pattern, kind] of this.patterns) {
      if (kind.implementation === implementation && covers(pattern, id)) return kind;
    }
    return undefined;
  }

  /** Every implementation offered for `id`, by exact id or pattern. */
  implementationsOf(id) {
    const out = [...(this.exact.get(id)?.keys() ?? [])];
    for (const [pattern, kind] of this.patterns) {
      if (covers(pattern, id) && !out.includes(kind.implementation)) out.push(kind.implementation);
    }
    return out;
  }

  /** hello's `benchmarks` list. */
  benchmarks() {
    const out = [];
    for (const [id, impls] of this.exact) {
      for (const kind of impls.values()) {
        out.push({ id, implementation: kind.implementation, library: kind.library });
      }
    }
    return out;
  }

  /** hello's `patterns` list. */
  patternOffers() {
    return this.patterns.map(([id, kind]) => ({ id, implementation: kind.implementation, library: kind.library }));
  }

  /** Library name -> version, for every package a kind calls. */
  libraryNames() {
    const names = new Set();
    for (const b of [...this.benchmarks(), ...this.patternOffers()]) names.add(b.library);
    names.delete('-');
    // The precompiles run with an @ethereumjs/common Common (Osaka); bytecode
    // mode hashes with @noble/hashes' keccak_256 at prepare only.
    if (names.has('@ethereumjs/evm')) names.add('@ethereumjs/common');
    // The trie values are encoded with @ethereumjs/rlp (integers through
    // @ethereumjs/util's bigIntToUnpaddedBytes / unpadBytes).
    if (names.has('@ethereumjs/mpt')) {
      names.add('@ethereumjs/rlp');
      names.add('@ethereumjs/util');
    }
    return [...names].sort();
  }
}
