// End to end: the real worker started from HOME/run (written by ./setup),
// spoken to over its stdin/stdout pipes.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { adapterHome, Client, corrupt, vectorRequests } from './helpers.js';

const run = join(adapterHome(), 'run');
const requests = vectorRequests();

test('HOME/run exists (run ./setup HOME first)', () => {
  assert.ok(existsSync(run), `${run} missing`);
});

test('a worker session over pipes: hello, prepare, run, errors, EOF', { skip: !existsSync(run) && 'no HOME/run' }, async () => {
  const w = new Client(run);
  try {
    const hello = await w.request({ type: 'hello', protocol: 1 });
    assert.equal(hello.type, 'hello');
    assert.equal(hello.protocol, 1);
    assert.equal(hello.jit, true);
    assert.deepEqual(hello.runtime.flags, ['--max-old-space-size=4096']);
    assert.ok(hello.benchmarks.some((b) => b.id === 'harness/noop/empty' && b.implementation === 'node-noop'));

    const good = { ...requests.get('hash/keccak256/32B'), implementation: 'noble' };
    const prepared = await w.request(good);
    assert.equal(prepared.type, 'prepared', JSON.stringify(prepared));
    assert.equal(prepared.cases, good.cases.length);
    assert.deepEqual(prepared.outputs, good.cases.map((c) => c.expected));

    const samples = await w.request({ type: 'run', iterations: 100, samples: 4 });
    assert.equal(samples.type, 'samples');
    assert.equal(samples.ns.length, 4);
    for (const ns of samples.ns) assert.ok(Number.isInteger(ns) && ns > 0);
    assert.equal(typeof samples.gc.count, 'number');

    const { req: bad } = corrupt(good);
    const mismatch = await w.request(bad);
    assert.equal(mismatch.type, 'mismatch');
    assert.equal(mismatch.case, 0);
    assert.equal(mismatch.field, 'digest');
    assert.equal(mismatch.actual, good.cases[0].expected.digest);

    const unknown = await w.request({ ...good, id: 'crypto/foo/bar' });
    assert.equal(unknown.type, 'error');
    assert.equal(unknown.fatal, false);
    assert.match(unknown.message, /crypto\/foo\/bar/);

    const noPrepared = await w.request({ type: 'run', iterations: 1, samples: 1 });
    assert.equal(noPrepared.type, 'error', 'a failed prepare leaves no current benchmark');

    const noop = await w.request({ type: 'prepare', id: 'harness/noop/empty', implementation: 'node-noop', cases: [{ input: { value: '0xab' }, expected: { value: '0xab' } }] });
    assert.deepEqual(noop, { type: 'prepared', id: 'harness/noop/empty', cases: 1, outputs: [{ value: '0xab' }] });
    const s2 = await w.request({ type: 'run', iterations: 1, samples: 3, some_future_field: true });
    assert.equal(s2.ns.length, 3);

    assert.deepEqual(await w.close(), { code: 0, signal: null });
    assert.doesNotMatch(w.stderr, /Error/);
  } finally {
    w.proc.kill();
  }
});

test('an unparseable request is a fatal error and the worker exits', { skip: !existsSync(run) && 'no HOME/run' }, async () => {
  const w = new Client(run);
  try {
    w.sendRaw('{not json\n');
    const reply = await w.next();
    assert.equal(reply.type, 'error');
    assert.equal(reply.fatal, true);
    const { code } = await w.exited;
    assert.notEqual(code, null);
  } finally {
    w.proc.kill();
  }
});

test('replies are flushed before exit when stdin closes mid-queue', { skip: !existsSync(run) && 'no HOME/run' }, async () => {
  const w = new Client(run);
  try {
    const lines = [];
    for (let i = 0; i < 50; i++) lines.push(JSON.stringify({ type: 'hello', protocol: 1 }));
    w.sendRaw(lines.join('\n') + '\n');
    const exit = w.close();
    for (let i = 0; i < 50; i++) assert.equal((await w.next()).type, 'hello');
    assert.equal((await exit).code, 0);
  } finally {
    w.proc.kill();
  }
});
