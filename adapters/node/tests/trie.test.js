// The "ethereumjs" trie roots (@ethereumjs/mpt) on inputs generated here the
// way crates/micro/src/trie.rs makes them, against vectors/trie.json (py-trie
// roots), plus the value encoding and input checks.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { RLP } from '@ethereumjs/rlp';
import { Account, bigIntToUnpaddedBytes } from '@ethereumjs/util';
import { Worker } from 'dyno-protocol';
import { adapter } from '../src/adapter.js';
import { REPO, seq } from './helpers.js';

const worker = new Worker(adapter);
after(() => worker.close());

const vectors = JSON.parse(readFileSync(join(REPO, 'vectors/trie.json'), 'utf8'));
const hex = (b) => '0x' + Buffer.from(b).toString('hex');
const EMPTY_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';
const KECCAK_EMPTY = '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470';

/** Accounts 0..n-1 as the state-root input columns. */
function stateInput(n) {
  const input = { addresses: [], nonces: [], balances: [], storage_roots: [], code_hashes: [] };
  for (let i = 0; i < n; i++) {
    const r = seq(0xacc00000 + i, 34);
    input.addresses.push(hex(r.subarray(0, 20)));
    input.nonces.push(r[20] | (r[21] << 8));
    input.balances.push('0x' + BigInt(hex(r.subarray(22, 34))).toString(16));
    input.storage_roots.push(i % 8 === 0 ? hex(seq(0x57000000 + i, 32)) : EMPTY_ROOT);
    input.code_hashes.push(i % 8 === 0 ? hex(seq(0xc0de0000 + i, 32)) : KECCAK_EMPTY);
  }
  return input;
}

function storageInput(n) {
  const input = { keys: [], values: [] };
  for (let j = 0; j < n; j++) {
    const key = new Uint8Array(32);
    new DataView(key.buffer).setBigUint64(24, BigInt(j));
    input.keys.push(hex(key));
    input.values.push(hex(seq(0x51070000 + j, 32)));
  }
  return input;
}

const prepare = (id, input, expected) =>
  worker.handle({ type: 'prepare', id, implementation: 'ethereumjs', cases: [{ input, expected }] });

test('hello offers the trie ids as ethereumjs (@ethereumjs/mpt)', () => {
  const hello = worker.hello();
  for (const id of ['trie/state-root/100', 'trie/state-root/1000', 'trie/state-root/10000', 'trie/state-root/100000', 'trie/storage-root/1000-slots']) {
    const b = hello.benchmarks.filter((x) => x.id === id);
    assert.deepEqual(b, [{ id, implementation: 'ethereumjs', library: '@ethereumjs/mpt' }]);
  }
  assert.equal(hello.libraries['@ethereumjs/mpt'], '10.1.3');
  assert.equal(hello.libraries['@ethereumjs/rlp'], '10.1.3');
});

// 10000 and 100000 accounts take too long for the test suite on a shared
// machine; they run the same code on more accounts.
for (const n of [100, 1000]) {
  test(`trie/state-root/${n}: generated accounts give the py-trie root`, async () => {
    const { root } = vectors.accounts.find((a) => a.count === n);
    const reply = await prepare(`trie/state-root/${n}`, stateInput(n), { root });
    assert.deepEqual(reply, { type: 'prepared', id: `trie/state-root/${n}`, cases: 1, outputs: [{ root }] });
  });
}

test('trie/storage-root/1000-slots: generated slots give the py-trie root, and run', async () => {
  const { root } = vectors.storage.find((s) => s.slots === 1000);
  const reply = await prepare('trie/storage-root/1000-slots', storageInput(1000), { root });
  assert.deepEqual(reply.outputs, [{ root }]);
  const run = await worker.handle({ type: 'run', iterations: 1, samples: 2 });
  assert.equal(run.type, 'samples');
  assert.equal(run.ns.length, 2);
});

test('the account value is what Account.serialize() produces', () => {
  const input = stateInput(16);
  for (let i = 0; i < 16; i++) {
    const nonce = BigInt(input.nonces[i]);
    const balance = BigInt(input.balances[i]);
    const storageRoot = Buffer.from(input.storage_roots[i].slice(2), 'hex');
    const codeHash = Buffer.from(input.code_hashes[i].slice(2), 'hex');
    const ours = RLP.encode([bigIntToUnpaddedBytes(nonce), bigIntToUnpaddedBytes(balance), storageRoot, codeHash]);
    const theirs = new Account(nonce, balance, storageRoot, codeHash).serialize();
    assert.deepEqual(ours, theirs, `account ${i}`);
  }
  // Zero integers encode as the empty string in both.
  const empty = new Account();
  const zero = RLP.encode([bigIntToUnpaddedBytes(0n), bigIntToUnpaddedBytes(0n), empty.storageRoot, empty.codeHash]);
  assert.deepEqual(zero, empty.serialize());
});

test('a state-root run repeats the build and keeps the case position', async () => {
  const reply = await prepare('trie/state-root/100', stateInput(100), {});
  assert.equal(reply.type, 'prepared');
  const run = await worker.handle({ type: 'run', iterations: 3, samples: 2 });
  assert.equal(run.type, 'samples');
  assert.ok(run.ns.every((x) => x > 0));
});

test('malformed trie inputs are rejected at prepare', async () => {
  const good = stateInput(3);
  const bad = [
    { ...good, nonces: good.nonces.slice(1) },
    { ...good, addresses: ['0x00', ...good.addresses.slice(1)] },
    { ...good, nonces: [-1, ...good.nonces.slice(1)] },
    { ...good, nonces: ['1', ...good.nonces.slice(1)] },
    { ...good, balances: ['12', ...good.balances.slice(1)] },
    { ...good, balances: ['0x', ...good.balances.slice(1)] },
    { ...good, storage_roots: ['0x00', ...good.storage_roots.slice(1)] },
    { ...good, code_hashes: undefined },
  ];
  for (const input of bad) {
    const reply = await prepare('trie/state-root/100', input, {});
    assert.equal(reply.type, 'error', JSON.stringify(reply).slice(0, 200));
    assert.match(reply.message, /^case 0: cannot parse input/);
  }
  const s = storageInput(2);
  for (const input of [{ ...s, values: s.values.slice(1) }, { ...s, keys: ['0x01', s.keys[1]] }]) {
    const reply = await prepare('trie/storage-root/1000-slots', input, {});
    assert.equal(reply.type, 'error');
  }
});
