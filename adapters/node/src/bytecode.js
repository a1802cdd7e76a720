// "ethereumjs-evm": bytecode mode, the counterpart of crates/evm/src/bytecode.rs
// (and of the Go adapter's internal/bench/bytecode.go). A contract
// STATICCALLs one precompile N times with the same input, in @ethereumjs/evm
// at Osaka; it returns the last call's success flag and the keccak-256 of
// the last call's return data. The contract's code comes with the cases
// (`code`): dyno builds the loop program once for every adapter. `run` with `iterations` = N is one
// `evm.runCall` of the contract per sample, so dyno's fitted slope is one
// loop iteration (the STATICCALL and the loop around it) and the intercept
// the call around the loop.

import { keccak_256 } from '@noble/hashes/sha3.js';
import { PRECOMPILES, precompileAddress } from './ethereumjs.js';
import { fromHex, toHex } from 'dyno-protocol';

export const GROUP = 'precompile-bytecode';
export const NOOP_ID = `${GROUP}/noop/identity-empty`;

/** The contract's address: "loop", as in the Go adapter. */
const LOOP_CONTRACT = '0x00000000000000000000000000000000006c6f6f';
/** The caller of every run (an account that is never written). */
const CALLER = '0x00000000000000000000000000000000000ca11e';
/** Gas for the whole loop: no limit that any N could reach (geth's runtime
 * uses MaxUint64 the same way). */
const GAS_LIMIT = (1n << 64n) - 1n;

export let sink;

/** What the loop returns when the last call succeeded with `output`. */
export function expectedReturn(output) {
  const r = new Uint8Array(64);
  r[31] = 1;
  r.set(keccak_256(output), 32);
  return r;
}

/** The loop's 64-byte return, or its halt, for a person. */
function showReturn(res) {
  const { exceptionError, returnValue } = res.execResult;
  if (exceptionError !== undefined) return `transaction failed: ${exceptionError.error ?? exceptionError}`;
  if (returnValue.length !== 64) return `unexpected return ${toHex(returnValue)}`;
  return `success=${toHex(returnValue.subarray(0, 32))} keccak256(returndata)=${toHex(returnValue.subarray(32))}`;
}

/** Calldata for N = n: the word n, then the input. */
export function calldata(input, n) {
  const d = new Uint8Array(32 + input.length);
  new DataView(d.buffer).setBigUint64(24, BigInt(n));
  d.set(input, 32);
  return d;
}

/** The loop program the cases carry: the same `code` in every case. */
export function loopCode(cases) {
  const code = cases[0]?.input?.code;
  if (typeof code !== 'string') throw new TypeError('case 0: input has no loop program (`code`)');
  cases.forEach((c, i) => {
    if (c?.input?.code !== code) throw new TypeError(`case ${i}: code differs from case 0's: one id runs one loop program`);
  });
  return fromHex(code, 'code');
}

/** One loop contract (`code`) deployed in its own EVM (Osaka, the default
 * SimpleStateManager), calling the precompile at `target` (hex, no 0x), or
 * calling nothing when `target` is null (opcode mode). */
export async function deploy(target, code) {
  const [{ Common, Hardfork, Mainnet }, { createEVM }, { createAddressFromString }] = await Promise.all([
    import('@ethereumjs/common'),
    import('@ethereumjs/evm'),
    import('@ethereumjs/util'),
  ]);
  const common = new Common({ chain: Mainnet, hardfork: Hardfork.Osaka });
  const evm = await createEVM({ common });
  if (target !== null && typeof evm.getPrecompile('0x' + target) !== 'function') {
    throw new Error(`@ethereumjs/evm has no active precompile at 0x${target}`);
  }
  const to = createAddressFromString(LOOP_CONTRACT);
  const caller = createAddressFromString(CALLER);
  await evm.stateManager.putCode(to, code);
  const warm = [...(target === null ? [] : [target]), to.toString().slice(2), caller.toString().slice(2)];
  const journal = evm.journal;
  // One transaction's worth of EVM work, as the VM's runTx frames it: the
  // precompile, the contract and the caller warm from the start (EIP-2929),
  // the call, then the journal cleared so nothing accumulates across runs.
  // The caller's nonce is not bumped (no state is written at all).
  const call = async (data) => {
    for (const a of warm) journal.addAlwaysWarmAddress(a);
    const res = await evm.runCall({ caller, to, data, gasLimit: GAS_LIMIT, skipNonceIncrement: true });
    await journal.cleanup();
    return res;
  };
  return { call };
}

// One sample is one call of the contract with N = n; the case advances once
// per call (one transaction cannot cycle inputs). The calldata for each N is
// built once and kept (as the Go adapter does).
async function loopBytecode(cs, p, n) {
  const c = cs[p];
  let data = c.calldata.get(n);
  if (data === undefined) {
    data = calldata(c.input, n);
    c.calldata.set(n, data);
  }
  sink = await c.call(data);
  return p + 1 === cs.length ? 0 : p + 1;
}

/** What every kind running a program in @ethereumjs/evm says of itself. */
export const EVM_KIND = { implementation: 'ethereumjs-evm', library: '@ethereumjs/evm', async: true };

/** `deploy(target, code)` once per program and target: a later call with
 * the same ones returns the EVM already deployed. */
export function deployOnce() {
  const loops = new Map();
  return async (target, code) => {
    const key = `${target}:${toHex(code)}`;
    if (!loops.has(key)) loops.set(key, await deploy(target, code));
    return loops.get(key);
  };
}

function bytecodeKind() {
  // Deployed once per program (one per precompile), at the cases' address.
  const deployed = deployOnce();
  let loop = null;
  return {
    ...EVM_KIND,
    init: async (cases) => {
      loop = await deployed(precompileAddress(cases), loopCode(cases));
    },
    parse: (i) => {
      // `gas` is the precompile's own price; the loop forwards all its gas,
      // so it is checked for shape only.
      if (!Number.isSafeInteger(i.gas) || i.gas < 0) throw new TypeError('gas: expected a non-negative integer');
      return { input: fromHex(i.input, 'input'), call: loop.call, calldata: new Map() };
    },
    // Prepare: N = 2, as bytecode.rs checks.
    call: (c) => c.call(calldata(c.input, 2)),
    loop: loopBytecode,
    // The contract returns only the hash of the output. When it equals the
    // hash of the expected output (and the last call succeeded) the output
    // reported is the expected one; otherwise a description of what came
    // back, which mismatches.
    encode: (res, _c, expected) => {
      if (typeof expected?.output !== 'string') {
        throw new Error('bytecode mode checks the output by its keccak-256: expected.output is required');
      }
      const want = fromHex(expected.output, 'expected output');
      const got = res.execResult.returnValue;
      const ok = res.execResult.exceptionError === undefined && Buffer.compare(got, expectedReturn(want)) === 0;
      return { output: ok ? toHex(want) : showReturn(res) };
    },
  };
}

/** [id, kind] pairs offered by exact id: the no-op control, IDENTITY with
 * no input. */
export function bytecodeKinds() {
  return [[NOOP_ID, bytecodeKind()]];
}

/** [pattern, kind] pairs: `precompile-bytecode/<op>/*` for every precompile
 * direct mode offers. */
export function bytecodePatterns() {
  return PRECOMPILES.map((op) => [`${GROUP}/${op}/*`, bytecodeKind()]);
}
