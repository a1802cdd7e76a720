// In-process tests of the protocol state machine against the repo's vectors.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { p256, p384 } from '@noble/curves/nist.js';

import { attributeGc, covers, Worker } from 'dyno-protocol';
import { adapter } from '../src/adapter.js';
import { addressOf, corrupt, seq, vectorRequests } from './helpers.js';

const worker = new Worker(adapter);
after(() => worker.close());

const hello = worker.hello();
const offered = (id) => hello.benchmarks.filter((b) => b.id === id).map((b) => b.implementation);
const requests = vectorRequests();

test('seq matches the reference SplitMix64 words', () => {
  const b = Buffer.from(seq(0, 24));
  assert.equal(b.readBigUInt64LE(0), 0xe220a8397b1dcdafn);
  assert.equal(b.readBigUInt64LE(8), 0x6e789e6aa1b965f4n);
  assert.equal(b.readBigUInt64LE(16), 0x06c45d188009454fn);
});

test('hello describes the worker', () => {
  assert.equal(hello.type, 'hello');
  assert.equal(hello.protocol, 1);
  assert.equal(hello.runtime.name, 'node');
  assert.equal(hello.runtime.version, process.version);
  assert.equal(hello.jit, true);
  assert.ok(hello.clock.resolution_ns > 0);
  assert.equal(hello.libraries['@noble/curves'], '2.4.0');
  assert.equal(hello.libraries['@noble/hashes'], '2.4.0');
  assert.deepEqual(offered('harness/noop/empty'), ['node-noop']);
  assert.deepEqual(offered('crypto/secp256k1-sign/recid-direct'), ['noble']);
  assert.ok(hello.patterns.some((p) => p.id === 'precompile/ecrecover/*' && p.implementation === 'ethereumjs'));
  const pairs = hello.benchmarks.map((b) => `${b.id} ${b.implementation}`);
  assert.equal(new Set(pairs).size, pairs.length, 'no duplicate offers');
});

test('patterns cover one segment per star', () => {
  assert.ok(covers('precompile/ecrecover/*', 'precompile/ecrecover/ValidKey'));
  assert.ok(!covers('precompile/ecrecover/*', 'precompile/ecrecover'));
  assert.ok(!covers('precompile/ecrecover/*', 'precompile/ecrecover/a/b'));
  assert.ok(!covers('precompile/ecrecover/*', 'precompile/sha256/32B'));
});

describe('every offered vector id prepares with the expected outputs', () => {
  for (const [id, req] of requests) {
    for (const implementation of offered(id)) {
      test(`${id} ${implementation}`, async () => {
        const reply = await worker.handle({ ...req, implementation });
        assert.equal(reply.type, 'prepared', JSON.stringify(reply));
        assert.equal(reply.id, id);
        assert.equal(reply.cases, req.cases.length);
        const random = implementation === 'node-crypto' && id.includes('-sign/');
        req.cases.forEach((c, i) => {
          if (random) {
            // OpenSSL's random nonce: check with an independent verifier.
            const curve = id.includes('p256') ? p256 : p384;
            const sig = Buffer.from(reply.outputs[i].r.slice(2) + reply.outputs[i].s.slice(2), 'hex');
            const ok = curve.verify(sig, Buffer.from(c.input.message.slice(2), 'hex'), Buffer.from(c.input.public_key.slice(2), 'hex'), { lowS: false });
            assert.ok(ok, `case ${i} signature verifies`);
          } else {
            assert.deepEqual(reply.outputs[i], c.expected);
          }
        });
      });
    }
  }
});

describe('a corrupted expected value is a mismatch', () => {
  for (const [id, req] of requests) {
    for (const implementation of offered(id)) {
      if (implementation === 'node-crypto' && id.includes('-sign/')) continue; // compares nothing
      test(`${id} ${implementation}`, async () => {
        const { req: bad, field } = corrupt(req);
        const reply = await worker.handle({ ...bad, implementation });
        assert.equal(reply.type, 'mismatch', JSON.stringify(reply));
        assert.equal(reply.case, 0);
        assert.equal(reply.field, field);
        assert.deepEqual(reply.expected, bad.cases[0].expected[field]);
        assert.deepEqual(reply.actual, req.cases[0].expected[field]);
      });
    }
  }
});

test('a random-nonce signature that does not verify is a mismatch', async () => {
  const req = structuredClone(requests.get('crypto/p256-sign/32B'));
  // sign with one key, check against another case's public key
  req.cases[0].input.public_key = req.cases[1].input.public_key;
  const reply = await worker.handle({ ...req, implementation: 'node-crypto' });
  // OpenSSL refuses a JWK whose d and (x, y) disagree, or the check fails
  assert.ok(reply.type === 'mismatch' || reply.type === 'error', JSON.stringify(reply));
});

test('unknown ids, implementations and bad inputs are errors', async () => {
  const noop = { type: 'prepare', id: 'harness/noop/empty', implementation: 'node-noop', cases: [{ input: { value: '0x00' }, expected: { value: '0x00' } }] };
  for (const req of [
    { ...noop, id: 'crypto/foo/bar' },
    { ...noop, id: 'hash/keccak256/7B', implementation: 'noble' },
    { ...noop, implementation: 'noble' },
    { ...noop, id: 'jsonrpc/getlogs-raw/100', implementation: 'noble' },
    { ...noop, cases: [] },
    { ...noop, cases: [{ input: { value: '0xzz' }, expected: { value: '0x00' } }] },
    { ...noop, cases: [{ input: { value: '0x0' }, expected: { value: '0x00' } }] },
    { type: 'prepare', id: 'crypto/secp256k1-recover/valid', implementation: 'noble', cases: [{ input: { message_hash: '0x00', r: '0x00', s: '0x00', v: 0 }, expected: {} }] },
    { type: 'frobnicate' },
  ]) {
    const reply = await worker.handle(req);
    assert.equal(reply.type, 'error', JSON.stringify(req));
    assert.equal(reply.fatal, false);
    assert.equal(typeof reply.message, 'string');
  }
});

test('run needs a successful prepare and valid counts', async () => {
  const fresh = new Worker(adapter);
  try {
    assert.equal((await fresh.handle({ type: 'run', iterations: 1, samples: 1 })).type, 'error');
    const bad = corrupt(requests.get('hash/sha256/32B')).req;
    assert.equal((await fresh.handle({ ...bad, implementation: 'noble' })).type, 'mismatch');
    assert.equal((await fresh.handle({ type: 'run', iterations: 1, samples: 1 })).type, 'error', 'no current benchmark after a mismatch');
    assert.equal((await fresh.handle({ ...requests.get('hash/sha256/32B'), implementation: 'noble' })).type, 'prepared');
    for (const [iterations, samples] of [[0, 1], [1, 0], [1.5, 1], ['3', 1]]) {
      assert.equal((await fresh.handle({ type: 'run', iterations, samples })).type, 'error');
    }
  } finally {
    fresh.close();
  }
});

test('run returns one positive sample each, cycling cases across requests', async () => {
  const req = requests.get('hash/keccak256/32B');
  const n = req.cases.length;
  assert.equal((await worker.handle({ ...req, implementation: 'noble' })).type, 'prepared');
  const r1 = await worker.handle({ type: 'run', iterations: 3, samples: 5 });
  assert.equal(r1.type, 'samples');
  assert.equal(r1.ns.length, 5);
  for (const ns of r1.ns) assert.ok(Number.isInteger(ns) && ns > 0);
  assert.ok(Number.isInteger(r1.gc.count) && r1.gc.count >= 0);
  assert.ok(Number.isInteger(r1.gc.time_ns) && r1.gc.time_ns >= 0);
  assert.equal(r1.alloc, undefined, 'allocation is not measured');
  assert.equal(worker.current.pos, 15 % n);
  await worker.handle({ type: 'run', iterations: n - 1, samples: 2 });
  assert.equal(worker.current.pos, (15 + 2 * (n - 1)) % n);
});

test('gc attribution keeps only entries that start inside the window', () => {
  const entries = [
    { start: 9.9, duration: 1 },
    { start: 10, duration: 0.25 },
    { start: 15, duration: 0.5 },
    { start: 20, duration: 0.125 },
    { start: 20.1, duration: 4 },
  ];
  assert.deepEqual(attributeGc(entries, 10, 20), { count: 3, time_ns: 875000 });
  assert.deepEqual(attributeGc([], 10, 20), { count: 0, time_ns: 0 });
});

test('collections forced inside the timed loop are reported, earlier ones are not', async () => {
  setFlagsFromString('--expose-gc');
  const forceGc = runInNewContext('gc');
  const noop = { type: 'prepare', id: 'harness/noop/empty', implementation: 'node-noop', cases: [{ input: { value: '0x00' }, expected: { value: '0x00' } }] };
  assert.equal((await worker.handle(noop)).type, 'prepared');
  // Collections before the window: delivered later, but not attributed.
  forceGc();
  forceGc();
  const quiet = await worker.handle({ type: 'run', iterations: 1, samples: 1 });
  assert.deepEqual(quiet.gc, { count: 0, time_ns: 0 });
  // A loop that collects on every iteration.
  const kind = worker.current.kind;
  worker.current.kind = { ...kind, loop: (cs, p, n) => { for (let k = 0; k < n; k++) forceGc(); return p; } };
  try {
    const busy = await worker.handle({ type: 'run', iterations: 2, samples: 2 });
    assert.equal(busy.type, 'samples');
    assert.ok(busy.gc.count >= 4, JSON.stringify(busy.gc));
    assert.ok(busy.gc.time_ns > 0);
  } finally {
    worker.current.kind = kind;
  }
});

describe('ethereumjs precompiles on inputs built from the repo vectors', () => {
  const pad32 = (h) => '0x' + h.slice(2).padStart(64, '0');
  for (const [op, alg] of [['sha256', 'sha256'], ['ripemd160', 'ripemd160']]) {
    test(`precompile/${op}`, async () => {
      const src = requests.get(`hash/${alg}/1KiB`);
      const cases = src.cases.map((c) => ({ input: { input: c.input.data, gas: 1_000_000, address: addressOf(op) }, expected: { output: pad32(c.expected.digest) } }));
      const reply = await worker.handle({ type: 'prepare', id: `precompile/${op}/1KiB`, implementation: 'ethereumjs', cases });
      assert.equal(reply.type, 'prepared', JSON.stringify(reply));
    });
  }
  test('precompile/identity', async () => {
    const data = '0x' + Buffer.from(seq(0x1d, 100)).toString('hex');
    const cases = [{ input: { input: data, gas: 1_000_000, address: addressOf('identity') }, expected: { output: data } }];
    const reply = await worker.handle({ type: 'prepare', id: 'precompile/identity/100B', implementation: 'ethereumjs', cases });
    assert.equal(reply.type, 'prepared', JSON.stringify(reply));
  });
  test('precompile/ecrecover', async () => {
    const vs = JSON.parse(readFileSync(new URL('../../../vectors/secp256k1.json', import.meta.url), 'utf8'));
    const cases = vs.cases.map((c) => ({
      input: { input: c.message_hash + pad32('0x' + (27 + c.v).toString(16)).slice(2) + c.r.slice(2) + c.s.slice(2), gas: 3000, address: addressOf('ecrecover') },
      expected: { output: pad32(c.address) },
    }));
    const reply = await worker.handle({ type: 'prepare', id: 'precompile/ecrecover/ValidKey', implementation: 'ethereumjs', cases });
    assert.equal(reply.type, 'prepared', JSON.stringify(reply));
    const run = await worker.handle({ type: 'run', iterations: 3, samples: 2 });
    assert.equal(run.ns.length, 2);
  });
  test('too little gas halts, which is a mismatch', async () => {
    const cases = [{ input: { input: '0x616263', gas: 10, address: addressOf('sha256') }, expected: { output: '0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad' } }];
    const reply = await worker.handle({ type: 'prepare', id: 'precompile/sha256/x', implementation: 'ethereumjs', cases });
    assert.equal(reply.type, 'mismatch');
    assert.match(reply.actual, /^halt: /);
  });
  test('an async (BLS12-381) precompile runs', async () => {
    const cases = [{ input: { input: '0x' + '00'.repeat(256), gas: 1_000_000, address: addressOf('bls12-g1add') }, expected: { output: '0x' + '00'.repeat(128) } }];
    const reply = await worker.handle({ type: 'prepare', id: 'precompile/bls12-g1add/zero', implementation: 'ethereumjs', cases });
    assert.equal(reply.type, 'prepared', JSON.stringify(reply));
    const run = await worker.handle({ type: 'run', iterations: 5, samples: 3 });
    assert.equal(run.ns.length, 3);
    assert.equal(worker.current.pos, 0);
  });
  test('kzg point evaluation is not offered', async () => {
    const reply = await worker.handle({ type: 'prepare', id: 'precompile/kzg-point-evaluation/x', implementation: 'ethereumjs', cases: [{ input: { input: '0x', gas: 1 }, expected: { output: '0x' } }] });
    assert.equal(reply.type, 'error');
  });
});
