// The "ethereumjs" generic RLP ids (@ethereumjs/rlp): the EIP-155 example
// transaction, deterministic generated trees checked against a reference
// encoder written here, the re-encode check, and malformed inputs.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { RLP_INPUTS, rlpKinds } from '../src/rlp.js';
import { Worker } from 'dyno-protocol';
import { adapter } from '../src/adapter.js';
import { seq } from './helpers.js';

const worker = new Worker(adapter);
after(() => worker.close());

const hex = (b) => '0x' + Buffer.from(b).toString('hex');
const DECODE = 'rlp/decode-generic/small-legacy-tx';
const ENCODE = 'rlp/encode-generic/small-legacy-tx';

// EIP-155's example signed transaction: nonce 9, gas price 20 gwei, gas
// 21000, to 0x3535…35, value 1 ether, no data, v 37, r, s.
const EIP155_TX =
  '0xf86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83';
const EIP155_TREE = [
  '0x09',
  '0x04a817c800',
  '0x5208',
  '0x3535353535353535353535353535353535353535',
  '0x0de0b6b3a7640000',
  '0x',
  '0x25',
  '0x28ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276',
  '0x67cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83',
];

/** Reference RLP of a JSON tree (hex strings and arrays), independent of
 * the library. */
function refEncode(node) {
  const header = (len, offset) => {
    if (len < 56) return Buffer.from([offset + len]);
    let h = len.toString(16);
    if (h.length % 2) h = '0' + h;
    const lenBytes = Buffer.from(h, 'hex');
    return Buffer.concat([Buffer.from([offset + 55 + lenBytes.length]), lenBytes]);
  };
  if (Array.isArray(node)) {
    const body = Buffer.concat(node.map(refEncode));
    return Buffer.concat([header(body.length, 0xc0), body]);
  }
  const b = Buffer.from(node.slice(2), 'hex');
  if (b.length === 1 && b[0] < 0x80) return b;
  return Buffer.concat([header(b.length, 0x80), b]);
}

// The EIP-155 transaction's tree digest, from the case schema written out
// in Python (pycryptodome's keccak).
const EIP155_DIGEST = '0xe270da40a7e020e3a20660060bf3abc52f1d3c9af84ce52cb467f0cf440df373';

/** The tree digest of the case schema over a JSON tree, written out here:
 * keccak-256 of the whole pre-order walk at once. */
function refDigest(node) {
  const walk = (n) => {
    const head = (tag, len) => Buffer.from([tag, len >>> 24, (len >>> 16) & 255, (len >>> 8) & 255, len & 255]);
    if (Array.isArray(n)) return Buffer.concat([head(0xc0, n.length), ...n.map(walk)]);
    const b = Buffer.from(n.slice(2), 'hex');
    return Buffer.concat([head(0x80, b.length), b]);
  };
  return hex(keccak_256(walk(node)));
}

/** What decode-generic reports for a JSON tree. */
const refOutput = (t) => ({ ...refCount(t), digest: refDigest(t) });

function refCount(node, acc = { lists: 0, strings: 0, bytes: 0 }) {
  if (Array.isArray(node)) {
    acc.lists++;
    for (const c of node) refCount(c, acc);
  } else {
    acc.strings++;
    acc.bytes += (node.length - 2) / 2;
  }
  return acc;
}

/** A deterministic tree from SplitMix64 bytes: lists up to depth 3, byte
 * strings of 0, 1 (both sides of 0x80), short and long (> 55) lengths. */
function genTree(seed) {
  const r = seq(seed, 4096);
  let pos = 0;
  const next = () => r[pos++ % r.length];
  const str = () => {
    const kind = next() % 5;
    const len = [0, 1, 1 + (next() % 55), 56 + next() * 2, 32][kind];
    const b = seq(seed * 31 + pos, len);
    return hex(b);
  };
  const list = (depth) => {
    const n = next() % (depth === 0 ? 12 : 6);
    const out = [];
    for (let i = 0; i < n; i++) out.push(depth < 3 && next() % 4 === 0 ? list(depth + 1) : str());
    return out;
  };
  return list(0);
}

const prepare = (id, cases) => worker.handle({ type: 'prepare', id, implementation: 'ethereumjs', cases });

test('hello offers the 18 rlp ids as ethereumjs (@ethereumjs/rlp), by exact id', () => {
  const hello = worker.hello();
  const ids = hello.benchmarks.filter((b) => b.id.startsWith('rlp/'));
  assert.equal(ids.length, 18);
  for (const op of ['decode-generic', 'encode-generic']) {
    for (const input of RLP_INPUTS) {
      const id = `rlp/${op}/${input}`;
      assert.deepEqual(
        hello.benchmarks.filter((b) => b.id === id),
        [{ id, implementation: 'ethereumjs', library: '@ethereumjs/rlp' }],
      );
    }
  }
  assert.ok(!hello.patterns.some((p) => p.id.startsWith('rlp/')));
  assert.equal(hello.libraries['@ethereumjs/rlp'], '10.1.3');
  assert.equal(rlpKinds().length, 18);
});

test('decode: the EIP-155 transaction is 1 list of 9 strings, 101 payload bytes', async () => {
  const expected = { lists: 1, strings: 9, bytes: 1 + 5 + 2 + 20 + 8 + 0 + 1 + 32 + 32, digest: EIP155_DIGEST };
  assert.equal(refDigest(EIP155_TREE), EIP155_DIGEST);
  const reply = await prepare(DECODE, [{ input: { encoded: EIP155_TX }, expected }]);
  assert.deepEqual(reply, { type: 'prepared', id: DECODE, cases: 1, outputs: [expected] });
  const run = await worker.handle({ type: 'run', iterations: 10, samples: 3 });
  assert.equal(run.type, 'samples');
  assert.equal(run.ns.length, 3);
  assert.ok(run.ns.every((x) => x > 0));
});

test('encode: the EIP-155 tree gives the transaction bytes', async () => {
  assert.equal(hex(refEncode(EIP155_TREE)), EIP155_TX);
  const reply = await prepare(ENCODE, [{ input: { tree: EIP155_TREE }, expected: { encoded: EIP155_TX } }]);
  assert.deepEqual(reply, { type: 'prepared', id: ENCODE, cases: 1, outputs: [{ encoded: EIP155_TX }] });
  const run = await worker.handle({ type: 'run', iterations: 10, samples: 2 });
  assert.equal(run.type, 'samples');
});

test('generated trees: encode equals the reference, decode counts equal the tree', async () => {
  const trees = [[], '0x', '0x00', '0x7f', '0x80', [[]], [[], [[]]], ...Array.from({ length: 40 }, (_, i) => genTree(0x7e50000 + i))];
  const encoded = trees.map((t) => hex(refEncode(t)));
  // At least one long list and one long string among them.
  assert.ok(encoded.some((e) => parseInt(e.slice(2, 4), 16) > 0xf7));
  assert.ok(trees.some((t) => JSON.stringify(t).match(/"0x[0-9a-f]{112,}"/)));

  const enc = await prepare(ENCODE, trees.map((tree, i) => ({ input: { tree }, expected: { encoded: encoded[i] } })));
  assert.equal(enc.type, 'prepared', JSON.stringify(enc).slice(0, 300));
  const dec = await prepare(DECODE, encoded.map((e, i) => ({ input: { encoded: e }, expected: refOutput(trees[i]) })));
  assert.equal(dec.type, 'prepared', JSON.stringify(dec).slice(0, 300));
  assert.deepEqual(dec.outputs, trees.map(refOutput));
  const run = await worker.handle({ type: 'run', iterations: trees.length + 3, samples: 2 });
  assert.equal(run.type, 'samples');
});

test('a wrong expected value is a mismatch on that field', async () => {
  const good = { lists: 1, strings: 9, bytes: 101 };
  for (const field of ['lists', 'strings', 'bytes']) {
    const reply = await prepare(DECODE, [{ input: { encoded: EIP155_TX }, expected: { ...good, [field]: good[field] + 1 } }]);
    assert.deepEqual(reply, { type: 'mismatch', case: 0, field, expected: good[field] + 1, actual: good[field] });
  }
  // Another nonce: the same counts, another tree; only the digest sees it.
  const other = refDigest(['0x0a', ...EIP155_TREE.slice(1)]);
  const wrong = await prepare(DECODE, [{ input: { encoded: EIP155_TX }, expected: { ...good, digest: other } }]);
  assert.deepEqual(wrong, { type: 'mismatch', case: 0, field: 'digest', expected: other, actual: EIP155_DIGEST });
  const bad = EIP155_TX.slice(0, -1) + '2';
  const reply = await prepare(ENCODE, [{ input: { tree: EIP155_TREE }, expected: { encoded: bad } }]);
  assert.deepEqual(reply, { type: 'mismatch', case: 0, field: 'encoded', expected: bad, actual: EIP155_TX });
});

test('decode verifies that the tree re-encodes to the input', () => {
  const kind = rlpKinds()[0][1];
  const c = kind.parse({ encoded: EIP155_TX });
  assert.equal(kind.verify(kind.call(c), c), null);
  // A tree that does not re-encode to the input is reported on `encoded`.
  const other = kind.call(kind.parse({ encoded: '0xc3010203' }));
  assert.deepEqual(kind.verify(other, c), { field: 'encoded', expected: EIP155_TX, actual: '0xc3010203' });
});

test('malformed rlp inputs are errors', async () => {
  for (const encoded of ['0x', '0xzz', '0x8100', '0xc2', '0xb800', '0xf800', '0x0102', '0x820102ff', '0xc58201']) {
    const reply = await prepare(DECODE, [{ input: { encoded }, expected: {} }]);
    assert.equal(reply.type, 'error', `${encoded}: ${JSON.stringify(reply)}`);
  }
  for (const tree of [undefined, 5, ['0x0'], ['0x00', [null]], { a: '0x' }, 'zz']) {
    const reply = await prepare(ENCODE, [{ input: { tree }, expected: {} }]);
    assert.equal(reply.type, 'error', `${JSON.stringify(tree)}: ${JSON.stringify(reply)}`);
    assert.match(reply.message, /^case 0: cannot parse input/);
  }
});
