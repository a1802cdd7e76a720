// Bytecode mode (ethereumjs-evm): the STATICCALL loop of
// crates/evm/src/bytecode.rs run in @ethereumjs/evm.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { calldata, expectedReturn } from '../src/bytecode.js';
import { PRECOMPILES } from '../src/ethereumjs.js';
import { Worker } from 'dyno-protocol';
import { adapter } from '../src/adapter.js';
import { addressOf, loopCode } from './helpers.js';

const worker = new Worker(adapter);
after(() => worker.close());
const hello = worker.hello();

const hex = (b) => '0x' + Buffer.from(b).toString('hex');
const NOOP_CODE = loopCode('noop');
const NOOP_AT = addressOf('noop');
const NOOP = { type: 'prepare', id: 'precompile-bytecode/noop/identity-empty', implementation: 'ethereumjs-evm', cases: [{ input: { input: '0x', gas: 15, address: NOOP_AT, code: NOOP_CODE }, expected: { output: '0x' } }] };
const codeOf = (id) => {
  const op = id.split('/')[1];
  return op === 'kzg-point-evaluation' ? NOOP_CODE : loopCode(op);
};
const prepare = (id, input, output, gas = 1_000_000) =>
  worker.handle({ type: 'prepare', id, implementation: 'ethereumjs-evm', cases: [{ input: { input, gas, address: addressOf(id.split('/')[1]), code: codeOf(id) }, expected: { output } }] });

/** Gas of one more loop iteration of the prepared case, from ethereumjs's
 * own accounting. */
async function gasSlope() {
  const c = worker.current.cases[0];
  const used = async (n) => (await c.call(calldata(c.input, n))).execResult.executionGasUsed;
  return (await used(3)) - (await used(2));
}

test('hello offers bytecode mode for every direct-mode precompile, not kzg', () => {
  const pats = hello.patterns.filter((p) => p.implementation === 'ethereumjs-evm' && p.id.startsWith('precompile-bytecode/')).map((p) => p.id).sort();
  assert.deepEqual(pats, PRECOMPILES.map((op) => `precompile-bytecode/${op}/*`).sort());
  assert.ok(!pats.some((p) => p.includes('kzg')));
  assert.ok(hello.benchmarks.some((b) => b.id === NOOP.id && b.implementation === 'ethereumjs-evm' && b.library === '@ethereumjs/evm'));
  assert.equal(hello.libraries['@ethereumjs/evm'], '10.1.3');
});

test('the loop program comes with the cases, the same in every case', async () => {
  // It is bytecode.rs's: STATICCALL of IDENTITY (PUSH1 0x04 GAS STATICCALL), RETURN at the end.
  assert.ok(NOOP_CODE.includes('60045afa'), NOOP_CODE);
  assert.ok(NOOP_CODE.endsWith('f3'), NOOP_CODE);
  assert.equal(expectedReturn(new Uint8Array()).length, 64);
  assert.equal(hex(expectedReturn(new Uint8Array()).subarray(32)), hex(keccak_256(new Uint8Array())));
  const none = await worker.handle({ ...NOOP, cases: [{ input: { input: '0x', gas: 15, address: NOOP_AT }, expected: { output: '0x' } }] });
  assert.equal(none.type, 'error');
  assert.match(none.message, /code/);
  // The precompile is the case's address: none, or one that differs, is an error.
  const nowhere = await worker.handle({ ...NOOP, cases: [{ input: { input: '0x', gas: 15, code: NOOP_CODE }, expected: { output: '0x' } }] });
  assert.equal(nowhere.type, 'error');
  assert.match(nowhere.message, /address/);
  const elsewhere = await worker.handle({ ...NOOP, cases: [NOOP.cases[0], { input: { input: '0x', gas: 15, address: 2, code: NOOP_CODE }, expected: { output: '0x' } }] });
  assert.equal(elsewhere.type, 'error');
  assert.match(elsewhere.message, /case 1: address differs/);
  const two = [NOOP.cases[0], { input: { input: '0x', gas: 15, address: NOOP_AT, code: '0x00' }, expected: { output: '0x' } }];
  const differs = await worker.handle({ ...NOOP, cases: two });
  assert.equal(differs.type, 'error');
  assert.match(differs.message, /case 1: code differs/);
});

test('the no-op control prepares, runs, and its corrupted copy mismatches', async () => {
  const reply = await worker.handle(NOOP);
  assert.deepEqual(reply, { type: 'prepared', id: NOOP.id, cases: 1, outputs: [{ output: '0x' }] });
  const run = await worker.handle({ type: 'run', iterations: 10, samples: 3 });
  assert.equal(run.type, 'samples');
  assert.equal(run.ns.length, 3);
  assert.ok(run.ns.every((t) => t > 0));
  const bad = await worker.handle({ ...NOOP, cases: [{ input: { input: '0x', gas: 15, address: NOOP_AT, code: NOOP_CODE }, expected: { output: '0x00' } }] });
  assert.equal(bad.type, 'mismatch');
  assert.equal(bad.field, 'output');
  assert.match(bad.actual, /^success=0x0{63}1 keccak256\(returndata\)=0xc5d2/);
});

test('the loop makes N calls: its gas slope is the noop slope plus the price difference', async () => {
  assert.equal((await worker.handle(NOOP)).type, 'prepared');
  const noop = await gasSlope();
  const data = hex(Uint8Array.from({ length: 64 }, (_, i) => i));
  assert.equal((await prepare('precompile-bytecode/identity/64B', data, data)).type, 'prepared');
  assert.equal(await gasSlope(), noop - 15n + (15n + 2n * 3n));
  const out = '0x' + Buffer.from(await crypto.subtle.digest('SHA-256', Buffer.from(data.slice(2), 'hex'))).toString('hex');
  assert.equal((await prepare('precompile-bytecode/sha256/64B', data, out)).type, 'prepared');
  assert.equal(await gasSlope(), noop - 15n + (60n + 2n * 12n));
});

test('a precompile call that fails is a mismatch, not a timing', async () => {
  // An invalid G1 point (not on the curve): G1ADD fails, STATICCALL pushes 0.
  const reply = await prepare('precompile-bytecode/bls12-g1add/bad', '0x' + '00'.repeat(63) + '01' + '00'.repeat(192), '0x' + '00'.repeat(128));
  assert.equal(reply.type, 'mismatch', JSON.stringify(reply));
  assert.match(reply.actual, /^success=0x0{64} /);
  assert.equal(worker.current, null);
  const run = await worker.handle({ type: 'run', iterations: 1, samples: 1 });
  assert.equal(run.type, 'error');
});

test('bytecode mode needs an expected output, and unknown ops are errors', async () => {
  const none = await worker.handle({ ...NOOP, cases: [{ input: { input: '0x', gas: 15, address: NOOP_AT, code: NOOP_CODE } }] });
  assert.equal(none.type, 'error');
  const kzg = await prepare('precompile-bytecode/kzg-point-evaluation/x', '0x', '0x');
  assert.equal(kzg.type, 'error');
  const bad = await prepare('precompile-bytecode/identity/x', '0xabc', '0x');
  assert.equal(bad.type, 'error');
});

test('one sample is one call; the case advances per sample', async () => {
  const code = loopCode('identity');
  const cases = ['0x01', '0x0203', '0x040506'].map((d) => ({ input: { input: d, gas: 100, address: addressOf('identity'), code }, expected: { output: d } }));
  const reply = await worker.handle({ type: 'prepare', id: 'precompile-bytecode/identity/small', implementation: 'ethereumjs-evm', cases });
  assert.equal(reply.type, 'prepared', JSON.stringify(reply));
  assert.deepEqual(reply.outputs.map((o) => o.output), ['0x01', '0x0203', '0x040506']);
  const run = await worker.handle({ type: 'run', iterations: 7, samples: 2 });
  assert.equal(run.ns.length, 2);
  assert.equal(worker.current.pos, 2);
  assert.equal(worker.current.kind.async, true);
});
