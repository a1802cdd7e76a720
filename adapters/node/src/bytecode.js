// "ethereumjs-evm": bytecode mode, the counterpart of crates/evm/src/bytecode.rs
// (and of the Go adapter's internal/bench/bytecode.go). A contract
// STATICCALLs one precompile N times with the same input, in @ethereumjs/evm
// at Osaka; it returns the last call's success flag and the keccak-256 of
// the last call's return data. `run` with `iterations` = N is one
// `evm.runCall` of the contract per sample, so dyno's fitted slope is one
// loop iteration (the STATICCALL and the loop around it) and the intercept
// the call around the loop.

import { keccak_256 } from '@noble/hashes/sha3.js';
import { PRECOMPILES } from './ethereumjs.js';
import { fromHex, toHex } from './hex.js';

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

// Opcodes used by the loop.
const OP = {
  SUB: 0x03, ISZERO: 0x15, KECCAK256: 0x20, CALLDATALOAD: 0x35, CALLDATASIZE: 0x36,
  CALLDATACOPY: 0x37, RETURNDATASIZE: 0x3d, RETURNDATACOPY: 0x3e, POP: 0x50, MSTORE: 0x52,
  JUMP: 0x56, JUMPI: 0x57, GAS: 0x5a, JUMPDEST: 0x5b, PUSH1: 0x60, PUSH2: 0x61,
  DUP1: 0x80, DUP4: 0x83, SWAP1: 0x90, STATICCALL: 0xfa, RETURN: 0xf3,
};

/** bytecode.rs's precompile_loop: calldata is N (one word) then the input;
 * STATICCALL `target` (20 bytes) N times with the input in memory, then
 * return (success, keccak256(returndata)) of the last call. */
export function loopProgram(target) {
  const code = [];
  const labels = new Map();
  const fixups = [];
  const ops = (...o) => code.push(...o);
  const push = (v) => code.push(OP.PUSH1, v);
  const mark = (l) => {
    labels.set(l, code.length);
    code.push(OP.JUMPDEST);
  };
  const jumpTo = (l, j) => {
    code.push(OP.PUSH2, 0, 0);
    fixups.push([code.length - 2, l]);
    code.push(j);
  };
  push(32); ops(OP.CALLDATASIZE, OP.SUB); // [L]
  ops(OP.DUP1); push(32); push(0); ops(OP.CALLDATACOPY); // memory[0..L] = calldata[32..]
  push(0); push(0); ops(OP.CALLDATALOAD); // [n, success, L]
  mark('top');
  ops(OP.DUP1, OP.ISZERO); jumpTo('end', OP.JUMPI);
  ops(OP.SWAP1, OP.POP); // [n, L]
  push(0); push(0); ops(OP.DUP4); push(0); // retSize, retOffset, argsSize, argsOffset
  code.push(OP.PUSH1 + target.length - 1, ...target); ops(OP.GAS, OP.STATICCALL); // [success, n, L]
  ops(OP.SWAP1); push(1); ops(OP.SWAP1, OP.SUB); jumpTo('top', OP.JUMP); // [n-1, success, L]
  mark('end'); ops(OP.POP); // [success, L]
  ops(OP.RETURNDATASIZE); push(0); push(0); ops(OP.RETURNDATACOPY);
  ops(OP.RETURNDATASIZE); push(0); ops(OP.KECCAK256); push(32); ops(OP.MSTORE);
  push(0); ops(OP.MSTORE); push(64); push(0); ops(OP.RETURN);
  for (const [at, l] of fixups) {
    const pc = labels.get(l);
    code[at] = pc >> 8;
    code[at + 1] = pc & 0xff;
  }
  return Uint8Array.from(code);
}

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

/** One loop contract deployed in its own EVM (Osaka, the default
 * SimpleStateManager), calling the precompile at `target` (hex, no 0x). */
async function deploy(target) {
  const [{ Common, Hardfork, Mainnet }, { createEVM }, { createAddressFromString }] = await Promise.all([
    import('@ethereumjs/common'),
    import('@ethereumjs/evm'),
    import('@ethereumjs/util'),
  ]);
  const common = new Common({ chain: Mainnet, hardfork: Hardfork.Osaka });
  const evm = await createEVM({ common });
  if (typeof evm.getPrecompile('0x' + target) !== 'function') {
    throw new Error(`@ethereumjs/evm has no active precompile at 0x${target}`);
  }
  const to = createAddressFromString(LOOP_CONTRACT);
  const caller = createAddressFromString(CALLER);
  await evm.stateManager.putCode(to, loopProgram(fromHex('0x' + target, 'target')));
  const warm = [target, to.toString().slice(2), caller.toString().slice(2)];
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

function bytecodeKind(target) {
  let loop = null;
  return {
    implementation: 'ethereumjs-evm',
    library: '@ethereumjs/evm',
    async: true,
    init: async () => {
      loop ??= await deploy(target);
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
  return [[NOOP_ID, bytecodeKind(PRECOMPILES.identity)]];
}

/** [pattern, kind] pairs: `precompile-bytecode/<op>/*` for every precompile
 * direct mode offers. */
export function bytecodePatterns() {
  return Object.entries(PRECOMPILES).map(([op, target]) => [`${GROUP}/${op}/*`, bytecodeKind(target)]);
}
