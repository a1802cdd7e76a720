// "ethereumjs-evm": opcode mode, the counterpart of crates/evm/src/opcode.rs
// (and of the Go adapter's internal/bench/opcode.go). A short, stack-neutral
// sequence around one opcode runs N times in a loop inside one call of a
// contract in @ethereumjs/evm at Osaka. dyno builds the program and hands
// it over with the case (`code`), so every EVM runs the same bytes; the
// calldata that runs exactly N sequences is the word N / unroll, the word
// N % unroll, then `data`. `run` with `iterations` = N is one
// `evm.runCall` per sample: dyno's fitted slope is one sequence (and
// 1/unroll of a loop turn), the intercept the call around the loops. The
// program returns one word, the opcode run once more after the loops,
// which dyno compares with the case's expected output.

import { EVM_KIND, deployOnce } from './bytecode.js';
import { fromHex, toHex } from 'dyno-protocol';

export const GROUP = 'opcode';

export let sink;

/** Calldata for N = n sequences. */
export function opcodeCalldata(unroll, data, n) {
  const d = new Uint8Array(64 + data.length);
  const view = new DataView(d.buffer);
  view.setBigUint64(24, BigInt(n) / unroll);
  view.setBigUint64(56, BigInt(n) % unroll);
  d.set(data, 64);
  return d;
}

async function loopOpcode(cs, _p, n) {
  const c = cs[0];
  let data = c.calldata.get(n);
  if (data === undefined) {
    data = opcodeCalldata(c.unroll, c.data, n);
    c.calldata.set(n, data);
  }
  sink = await c.call(data);
  return 0;
}

function opcodeKind() {
  const deployed = deployOnce();
  let loop = null;
  return {
    ...EVM_KIND,
    init: async (cases) => {
      if (cases.length !== 1) throw new TypeError(`opcode mode runs one case (one program), got ${cases.length}`);
      const code = cases[0]?.input?.code;
      if (typeof code !== 'string') throw new TypeError('case 0: input has no program (`code`)');
      loop = await deployed(null, fromHex(code, 'code'));
    },
    parse: (i) => {
      if (!Number.isSafeInteger(i.unroll) || i.unroll < 1) throw new TypeError('unroll: expected a positive integer');
      return { data: fromHex(i.data, 'data'), unroll: BigInt(i.unroll), call: loop.call, calldata: new Map() };
    },
    // Prepare: a turn of each loop (unroll + 3 sequences).
    call: (c) => c.call(opcodeCalldata(c.unroll, c.data, c.unroll + 3n)),
    loop: loopOpcode,
    encode: (res) => {
      const { exceptionError, returnValue } = res.execResult;
      if (exceptionError !== undefined) return { output: `transaction failed: ${exceptionError.error ?? exceptionError}` };
      return { output: toHex(returnValue) };
    },
  };
}

/** [pattern, kind] pairs: every exported opcode id (dyno exports those
 * that need no pre-state). */
export function opcodePatterns() {
  return [[`${GROUP}/*/*`, opcodeKind()]];
}
