// "ethereumjs": @ethereumjs/util's ecrecover and @ethereumjs/evm's precompile
// functions called directly (as revm's and geth's precompile tables are),
// with a Common at the Osaka hardfork. Loaded lazily: only a worker that
// prepares one of these ids pays for importing the EVM.

import { fromHex, fromHexLen, toHex } from 'dyno-protocol';

export let sink;

/** The precompiles offered, by dyno op name. Each case gives the address
 * (`address`, a number), which dyno reads from the fork's gas file
 * (specs/gas/osaka.toml): no table of addresses is kept here. KZG point
 * evaluation is left out: ethereumjs needs a KZG library with a trusted
 * setup injected through Common's customCrypto. */
export const PRECOMPILES = [
  'ecrecover',
  'sha256',
  'ripemd160',
  'identity',
  'modexp',
  'bn254-add',
  'bn254-mul',
  'bn254-pairing',
  'blake2f',
  'bls12-g1add',
  'bls12-g1msm',
  'bls12-g2add',
  'bls12-g2msm',
  'bls12-pairing',
  'bls12-map-fp-to-g1',
  'bls12-map-fp2-to-g2',
  'p256verify',
];

/** The precompile address every case of an id gives, as 40 hex digits
 * (no 0x). */
export function precompileAddress(cases) {
  const address = cases[0]?.input?.address;
  if (!Number.isSafeInteger(address) || address <= 0) {
    throw new TypeError("case 0: input has no precompile address (`address`, a positive integer)");
  }
  cases.forEach((c, i) => {
    if (c?.input?.address !== address) {
      throw new TypeError(`case ${i}: address differs from case 0's: one id calls one precompile`);
    }
  });
  return address.toString(16).padStart(40, '0');
}

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

function precompileKind() {
  let fn = null;
  let state = null;
  const kind = {
    implementation: 'ethereumjs',
    library: '@ethereumjs/evm',
    async: false,
    init: async (cases) => {
      const address = precompileAddress(cases);
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
  return PRECOMPILES.map((op) => [`precompile/${op}/*`, precompileKind()]);
}
