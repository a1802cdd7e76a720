// Opcode mode (ethereumjs-evm): dyno's opcode programs
// (crates/evm/src/opcode.rs) run in @ethereumjs/evm.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, test } from 'node:test';
import { Worker } from 'dyno-protocol';
import { adapter } from '../src/adapter.js';
import { opcodeCalldata } from '../src/opcode.js';
import { FIXTURE } from './helpers.js';

const worker = new Worker(adapter);
after(() => worker.close());
const hello = worker.hello();

/** Every opcode-mode prepare request of the fixture: dyno's programs and
 * the words they must return (from dyno's vectors). */
const requests = readFileSync(FIXTURE, 'utf8')
  .split('\n')
  .filter((l) => l.includes('"id":"opcode/'))
  .map((l) => ({ ...JSON.parse(l), implementation: 'ethereumjs-evm' }));

test('hello offers opcode mode by pattern', () => {
  assert.ok(hello.patterns.some((p) => p.id === 'opcode/*/*' && p.implementation === 'ethereumjs-evm'));
  assert.ok(requests.length >= 12, `${requests.length} opcode requests in the fixture`);
});

test('every exported opcode program returns its expected word and runs', async () => {
  for (const req of requests) {
    const reply = await worker.handle(req);
    assert.equal(reply.type, 'prepared', `${req.id}: ${JSON.stringify(reply)}`);
    const run = await worker.handle({ type: 'run', iterations: 70, samples: 2 });
    assert.equal(run.type, 'samples', req.id);
  }
});

test('a wrong expected word mismatches; a halting program is a mismatch, not a timing', async () => {
  const div = requests.find((r) => r.id === 'opcode/arith-div/a256-b128-c200');
  const wrong = { ...div, cases: [{ ...div.cases[0], expected: { output: '0x' + 'ee'.repeat(32) } }] };
  const bad = await worker.handle(wrong);
  assert.equal(bad.type, 'mismatch');
  assert.equal(bad.actual, div.cases[0].expected.output);
  const halting = { ...div, cases: [{ input: { ...div.cases[0].input, code: '0xfe' }, expected: div.cases[0].expected }] };
  const halt = await worker.handle(halting);
  assert.equal(halt.type, 'mismatch');
  assert.match(halt.actual, /transaction failed/);
});

test('the calldata runs exactly N sequences: N / unroll, N % unroll, then data', () => {
  const d = opcodeCalldata(64n, Uint8Array.of(0xab), 130);
  assert.equal(d.length, 65);
  assert.equal(d[31], 2);
  assert.equal(d[63], 2);
  assert.equal(d[64], 0xab);
});
