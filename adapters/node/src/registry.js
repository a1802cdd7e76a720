// Which (id, implementation) pairs this adapter offers, and the kind (parse,
// call, timed loop, encode) behind each (the protocol library adds the
// harness ids).

import { blockKinds } from './block.js';
import { bytecodeKinds, bytecodePatterns } from './bytecode.js';
import { curveKinds } from './curves.js';
import { ethereumjsKinds, ethereumjsPatterns } from './ethereumjs.js';
import { hashKinds } from './hashes.js';
import { opcodePatterns } from './opcode.js';
import { rlpKinds } from './rlp.js';
import { trieKinds } from './trie.js';
import { covers } from 'dyno-protocol';

export class Registry {
  constructor() {
    /** @type {Map<string, Map<string, object>>} */
    this.exact = new Map();
    /** @type {Array<[string, object]>} */
    this.patterns = [...ethereumjsPatterns(), ...bytecodePatterns(), ...opcodePatterns()];
    for (const [id, kind] of [...hashKinds(), ...curveKinds(), ...ethereumjsKinds(), ...trieKinds(), ...rlpKinds(), ...bytecodeKinds(), ...blockKinds()]) {
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
