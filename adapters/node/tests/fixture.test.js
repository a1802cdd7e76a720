// Replays adapters/testdata/prepare.jsonl (real prepare requests exported by
// dyno): every line this worker offers must prepare with outputs equal to
// `expected` (random-nonce signers: a signature that verifies), a corrupted
// expected value must be a mismatch, and unoffered ids must be errors.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { p256, p384 } from '@noble/curves/nist.js';
import { covers, Worker } from 'dyno-protocol';
import { adapter } from '../src/adapter.js';
import { corrupt, FIXTURE, fixtureRequests } from './helpers.js';

const lines = fixtureRequests();
const worker = new Worker(adapter);
after(() => worker.close());

const isRandomSigner = (id, impl) => impl === 'node-crypto' && /^crypto\/p(256|384)-sign\//.test(id);
const bytes = (h) => Buffer.from(h.slice(2), 'hex');

test(`fixture ${FIXTURE}`, () => {
  // The fixture is committed: a missing one is a broken checkout, and the
  // replay below would pass on nothing.
  assert.ok(
    lines !== null,
    `no fixture at ${FIXTURE}: it is committed (adapters/testdata/prepare.jsonl); restore it, or regenerate it with DYNO_BLESS=1 cargo test -p dyno-lab adapter_fixture`,
  );
  assert.ok(lines.length > 0);
  assert.ok(lines.every((l) => l.type === 'prepare'));
});

const offers = (() => {
  const h = worker.hello();
  return [...h.benchmarks, ...h.patterns];
})();
/** Every implementation the worker offers for `id`, by exact id or pattern. */
const implementationsOf = (id) => [...new Set(offers.filter((o) => covers(o.id, id)).map((o) => o.implementation))];

describe('fixture replay', () => {
  for (const [n, line] of (lines ?? []).entries()) {
    const impls = implementationsOf(line.id);
    if (impls.length === 0) {
      test(`line ${n + 1} ${line.id}: not offered, error`, async () => {
        for (const implementation of [line.implementation, 'noble', 'node-crypto', 'ethereumjs']) {
          const reply = await worker.handle({ ...line, implementation });
          assert.equal(reply.type, 'error', JSON.stringify(reply).slice(0, 300));
        }
      });
      continue;
    }
    for (const implementation of impls) {
      test(`line ${n + 1} ${line.id} ${implementation}`, async () => {
        const reply = await worker.handle({ ...line, implementation });
        assert.equal(reply.type, 'prepared', JSON.stringify(reply).slice(0, 500));
        assert.equal(reply.id, line.id);
        assert.equal(reply.cases, line.cases.length);
        line.cases.forEach((c, i) => {
          if (isRandomSigner(line.id, implementation)) {
            const curve = line.id.includes('p256') ? p256 : p384;
            const o = reply.outputs[i];
            const ok = curve.verify(Buffer.concat([bytes(o.r), bytes(o.s)]), bytes(c.input.message), bytes(c.input.public_key), { lowS: false });
            assert.ok(ok, `case ${i}: OpenSSL's signature verifies`);
          } else {
            for (const [k, v] of Object.entries(c.expected)) {
              assert.deepEqual(reply.outputs[i][k], typeof v === 'string' ? v.toLowerCase() : v, `case ${i} field ${k}`);
            }
          }
        });

        // The run path works on every prepared fixture id.
        const run = await worker.handle({ type: 'run', iterations: 1, samples: 1 });
        assert.equal(run.type, 'samples');
        assert.ok(run.ns[0] > 0);

        if (!isRandomSigner(line.id, implementation)) {
          const bad = corrupt(line);
          assert.ok(bad, 'the line has an expected value to corrupt');
          const mm = await worker.handle({ ...bad.req, implementation });
          assert.equal(mm.type, 'mismatch', JSON.stringify(mm).slice(0, 300));
          assert.equal(mm.case, 0);
          assert.equal(mm.field, bad.field);
        }
      });
    }
  }
});
