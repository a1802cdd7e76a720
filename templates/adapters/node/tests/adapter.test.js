// The example benchmark through the protocol loop, in-process.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'dyno-protocol';
import { adapter } from '../src/adapter.js';

// SHA-256 of 32 zero bytes, from outside this code (FIPS 180-4; coreutils:
// `head -c 32 /dev/zero | sha256sum`).
const ZEROS = '0x' + '00'.repeat(32);
const DIGEST = '0x66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925';

const worker = new Worker(adapter);
test.after(() => worker.close());
const prepare = (digest) =>
  worker.handle({
    type: 'prepare',
    id: 'hash/sha256/32B',
    implementation: '{{name}}-sha256',
    cases: [{ input: { data: ZEROS }, expected: { digest } }],
  });

test('sha256 is checked, then timed', async () => {
  assert.equal((await prepare(DIGEST)).type, 'prepared');
  const run = await worker.handle({ type: 'run', iterations: 100, samples: 2 });
  assert.equal(run.ns.length, 2);
});

test('a wrong digest is a mismatch', async () => {
  const r = await prepare(ZEROS);
  assert.equal(r.type, 'mismatch');
  assert.equal(r.field, 'digest');
});
