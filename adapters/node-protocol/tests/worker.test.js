// The protocol loop with a toy adapter: in-process, then as a process.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { covers, fromHex, PROTOCOL, toHex, Worker } from '../src/index.js';

const reverse = {
  sink: null,
  implementation: 'toy-reverse',
  library: '-',
  parse: (i) => fromHex(i.data, 'data'),
  call: (b) => b.slice().reverse(),
  loop: (cs, p, n) => {
    for (let k = 0; k < n; k++) {
      reverse.sink = cs[p].slice().reverse();
      if (++p === cs.length) p = 0;
    }
    return p;
  },
  encode: (v) => ({ data: toHex(v) }),
};

const toy = {
  name: 'toy-adapter',
  version: '0.0.1',
  prefix: 'toy',
  registry: {
    find: (id, impl) => (id === 'toy/reverse/4B' && impl === 'toy-reverse' ? reverse : undefined),
    benchmarks: () => [{ id: 'toy/reverse/4B', implementation: 'toy-reverse', library: '-' }],
    patternOffers: () => [],
  },
  libraries: () => ({ toylib: '1.2.3' }),
};

const worker = new Worker(toy);
test.after(() => worker.close());

const prepare = (cases, id = 'toy/reverse/4B', implementation = 'toy-reverse') =>
  worker.handle({ type: 'prepare', id, implementation, cases });
const c = (data, want) => ({ input: { data }, expected: { data: want } });

test('hello lists the adapter and the harness ids', () => {
  const h = worker.hello();
  assert.equal(h.protocol, PROTOCOL);
  assert.deepEqual(h.adapter, { name: 'toy-adapter', version: '0.0.1' });
  assert.deepEqual(h.libraries, { toylib: '1.2.3' });
  assert.deepEqual(
    h.benchmarks.map((b) => `${b.id} ${b.implementation}`),
    ['toy/reverse/4B toy-reverse', 'harness/noop/empty toy-noop', 'harness/sleep/1ms toy-sleep'],
  );
});

test('prepare checks every output, then run times the loop', async () => {
  const ok = await prepare([c('0x01020304', '0x04030201'), c('0xaabbccdd', '0xDDCCBBAA')]);
  assert.deepEqual(ok, { type: 'prepared', id: 'toy/reverse/4B', cases: 2, outputs: [{ data: '0x04030201' }, { data: '0xddccbbaa' }] });
  const run = await worker.handle({ type: 'run', iterations: 5, samples: 3 });
  assert.equal(run.type, 'samples');
  assert.equal(run.ns.length, 3);
  const bad = await prepare([c('0x01020304', '0x00')]);
  assert.deepEqual(bad, { type: 'mismatch', case: 0, field: 'data', expected: '0x00', actual: '0x04030201' });
  // a failed prepare leaves nothing to run
  assert.equal((await worker.handle({ type: 'run', iterations: 1, samples: 1 })).type, 'error');
});

test('errors are replies that name what is wrong', async () => {
  const unknown = await prepare([c('0x00', '0x00')], 'toy/x/y');
  assert.equal(unknown.type, 'error');
  assert.equal(unknown.fatal, false);
  const noInput = await prepare([{ input: {}, expected: { data: '0x' } }]);
  assert.match(noInput.message, /data/);
  assert.equal((await worker.handle({ type: 'run', iterations: 0, samples: 1 })).type, 'error');
  assert.equal((await worker.handle({ type: 'nonsense' })).type, 'error');
});

test('the sleep takes a millisecond an operation', async () => {
  const v = [{ input: { value: '0x01' }, expected: { value: '0x01' } }];
  assert.equal((await prepare(v, 'harness/sleep/1ms', 'toy-sleep')).type, 'prepared');
  const t0 = process.hrtime.bigint();
  const { ns } = await worker.handle({ type: 'run', iterations: 5, samples: 1 });
  const outside = Number(process.hrtime.bigint() - t0);
  assert.ok(ns[0] >= 5e6 && ns[0] <= outside, `${ns[0]} ns of ${outside}`);
});

test('patterns cover one segment per star', () => {
  assert.ok(covers('precompile/ecrecover/*', 'precompile/ecrecover/ValidKey'));
  assert.ok(!covers('precompile/ecrecover/*', 'precompile/ecrecover'));
  assert.ok(!covers('precompile/ecrecover/*', 'precompile/ecrecover/a/b'));
});

const SERVED = `
import { serve } from ${JSON.stringify(fileURLToPath(new URL('../src/index.js', import.meta.url)))};
await serve(async () => {
  console.log('a chatty library');
  return { name: 't', version: '0', prefix: 't', registry: { find: () => undefined, benchmarks: () => [], patternOffers: () => [] } };
});
`;

test('serve keeps stdout for replies and exits on a line that is not JSON', () => {
  const p = spawnSync(process.execPath, ['--input-type=module', '-e', SERVED], {
    input: '{"type":"hello","protocol":1}\n{not json\n{"type":"hello","protocol":1}\n',
    encoding: 'utf8',
    timeout: 60_000,
  });
  const lines = p.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => l.type), ['hello', 'error']);
  assert.equal(lines[1].fatal, true);
  assert.equal(p.status, 1);
  assert.match(p.stderr, /a chatty library/);
});

test('serve exits 0 when stdin closes', () => {
  const p = spawnSync(process.execPath, ['--input-type=module', '-e', SERVED], { input: '', encoding: 'utf8', timeout: 60_000 });
  assert.equal(p.status, 0);
  assert.equal(p.stdout, '');
});
