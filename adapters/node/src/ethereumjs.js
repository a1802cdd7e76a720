// "ethereumjs": @ethereumjs/util's ecrecover and @ethereumjs/evm's precompile
// functions called directly (as revm's and geth's precompile tables are),
// with a Common at the Osaka hardfork. Loaded lazily: only a worker that
// prepares one of these ids pays for importing the EVM.

import { fromHex, fromHexLen, toHex } from 'dyno-protocol';

export let sink;

/** Precompiles checked against the fixture, by dyno op name -> address. KZG
 * point evaluation is left out: ethereumjs needs a KZG library with a
 * trusted setup injected through Common's customCrypto. */
export const PRECOMPILES = {
  ecrecover: '0000000000000000000000000000000000000001',
  sha256: '0000000000000000000000000000000000000002',
  ripemd160: '0000000000000000000000000000000000000003',
  identity: '0000000000000000000000000000000000000004',
  modexp: '0000000000000000000000000000000000000005',
  'bn254-add': '0000000000000000000000000000000000000006',
  'bn254-mul': '0000000000000000000000000000000000000007',
  'bn254-pairing': '0000000000000000000000000000000000000008',
  blake2f: '0000000000000000000000000000000000000009',
  'bls12-g1add': '000000000000000000000000000000000000000b',
  'bls12-g1msm': '000000000000000000000000000000000000000c',
  'bls12-g2add': '000000000000000000000000000000000000000d',
  'bls12-g2msm': '000000000000000000000000000000000000000e',
  'bls12-pairing': '000000000000000000000000000000000000000f',
  'bls12-map-fp-to-g1': '0000000000000000000000000000000000000010',
  'bls12-map-fp2-to-g2': '0000000000000000000000000000000000000011',
  p256verify: '0000000000000000000000000000000000000100',
};

let util = null;
let evmState = null;

async function loadUtil() {
  util ??= await import('@ethereumjs/util');
  return util;
}

async function loadEvm() {
  if (evmState === null) {
    const [{ Common, Hardfork, Mainnet }, { createEVM }] = await Promise.all([
      import('@ethereumjs/common'),
      import('@ethereumjs/evm'),
    ]);
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Osaka });
    const evm = await createEVM({ common });
    evmState = { common, evm };
  }
  return evmState;
}

// ---- ecrecover (secp256k1-recover/valid) -----------------------------------

let ecrecover = null;

function loopEcrecover(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    const c = cs[p];
    sink = ecrecover(c.hash, c.v, c.r, c.s);
    if (++p === len) p = 0;
  }
  return p;
}

const ecrecoverKind = {
  implementation: 'ethereumjs',
  library: '@ethereumjs/util',
  init: async () => {
    ecrecover = (await loadUtil()).ecrecover;
  },
  parse: (i) => {
    if (i.v !== 0 && i.v !== 1) throw new TypeError('v: expected 0 or 1');
    return {
      hash: fromHexLen(i.message_hash, 32, 'message_hash'),
      v: BigInt(i.v) + 27n,
      r: fromHexLen(i.r, 32, 'r'),
      s: fromHexLen(i.s, 32, 's'),
    };
  },
  call: (c) => ecrecover(c.hash, c.v, c.r, c.s),
  loop: loopEcrecover,
  // ecrecover returns the 64-byte x || y; the schema wants SEC1 uncompressed.
  encode: (xy) => {
    const pub = new Uint8Array(65);
    pub[0] = 4;
    pub.set(xy, 1);
    return { public_key: toHex(pub) };
  },
};

// ---- precompiles -------------------------------------------------------------

// The precompile function is the same for every case of a prepared id (and
// the orchestrator gives each precompile family a fresh worker), so this one
// loop stays monomorphic in practice.
function loopPrecompile(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    const c = cs[p];
    sink = c.fn(c.opts);
    if (++p === len) p = 0;
  }
  return p;
}

// ethereumjs declares the BLS12-381 precompiles `async` (they do no
// asynchronous work: the returned promise is already settled). Their loop
// awaits each call, which adds one promise and one microtask turn per
// operation (well under a microsecond, against tens of microseconds and up
// for these operations).
async function loopPrecompileAsync(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    const c = cs[p];
    sink = await c.fn(c.opts);
    if (++p === len) p = 0;
  }
  return p;
}

function precompileKind(op) {
  const address = PRECOMPILES[op];
  let fn = null;
  let state = null;
  const kind = {
    implementation: 'ethereumjs',
    library: '@ethereumjs/evm',
    async: false,
    init: async () => {
      state = await loadEvm();
      fn = state.evm.getPrecompile('0x' + address);
      if (typeof fn !== 'function') throw new Error(`@ethereumjs/evm has no active precompile at 0x${address}`);
      kind.async = fn.constructor.name === 'AsyncFunction';
      kind.loop = kind.async ? loopPrecompileAsync : loopPrecompile;
    },
    parse: (i) => {
      if (!Number.isSafeInteger(i.gas) || i.gas < 0) throw new TypeError('gas: expected a non-negative integer');
      return {
        fn,
        opts: { data: fromHex(i.input, 'input'), gasLimit: BigInt(i.gas), common: state.common, _EVM: state.evm },
      };
    },
    call: (c) => c.fn(c.opts),
    loop: loopPrecompile,
    encode: (res) => {
      if (res.exceptionError !== undefined) {
        return { output: `halt: ${res.exceptionError.error ?? res.exceptionError}` };
      }
      return { output: toHex(res.returnValue) };
    },
  };
  return kind;
}

/** [id, kind] pairs offered by exact id. */
export function ethereumjsKinds() {
  return [['crypto/secp256k1-recover/valid', ecrecoverKind]];
}

/** [pattern, kind] pairs: `precompile/<op>/*`. */
export function ethereumjsPatterns() {
  return Object.keys(PRECOMPILES).map((op) => [`precompile/${op}/*`, precompileKind(op)]);
}
