// The ids every worker offers (docs/adapter-protocol.md, "The harness ids"):
// harness/noop/empty, the identity, measures the adapter's own loop;
// harness/sleep/1ms sleeps 1 ms per operation, so that `dyno adapter check`
// can hold the worker's clock against its own.

import { fromHex, toHex } from './hex.js';

export const NOOP_ID = 'harness/noop/empty';
export const SLEEP_ID = 'harness/sleep/1ms';

export let sink;

function loopNoop(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    sink = cs[p];
    if (++p === len) p = 0;
  }
  return p;
}

// A synchronous 1 ms sleep (the loop is timed synchronously).
const cell = new Int32Array(new SharedArrayBuffer(4));
function nap() {
  Atomics.wait(cell, 0, 0, 1);
}

function loopSleep(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    nap();
    sink = cs[p];
    if (++p === len) p = 0;
  }
  return p;
}

/** [id, kind] of the two harness ids, named after `prefix`. */
export function harnessKinds(prefix) {
  const value = {
    library: '-',
    parse: (i) => fromHex(i.value, 'value'),
    encode: (v) => ({ value: toHex(v) }),
  };
  return [
    [NOOP_ID, { ...value, implementation: `${prefix}-noop`, call: (v) => v, loop: loopNoop }],
    [SLEEP_ID, { ...value, implementation: `${prefix}-sleep`, call: (v) => (nap(), v), loop: loopSleep }],
  ];
}
