// Shared test helpers: the repo's vectors as prepare requests, and a client
// that talks to a real worker process over pipes.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export const REPO = new URL('../../../', import.meta.url).pathname;
export const FIXTURE = join(REPO, 'adapters/testdata/prepare.jsonl');

/** SplitMix64 bytes, as crates/workload/src/seq.rs makes them. */
export function seq(seed, len) {
  const out = new Uint8Array(Math.ceil(len / 8) * 8);
  const view = new DataView(out.buffer);
  const M = (1n << 64n) - 1n;
  let state = BigInt(seed);
  for (let off = 0; off < len; off += 8) {
    state = (state + 0x9e3779b97f4a7c15n) & M;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M;
    z ^= z >> 31n;
    view.setBigUint64(off, z, true);
  }
  return out.subarray(0, len);
}

/** `field` of the first case of the first request whose id starts with
 * `prefix` in the fixture: what dyno hands the worker. */
function fixtureInput(prefix, field) {
  for (const line of readFileSync(FIXTURE, 'utf8').split('\n')) {
    if (!line.includes(`"${prefix}`)) continue;
    const value = JSON.parse(line).cases[0]?.input?.[field];
    if (value !== undefined) return value;
  }
  throw new Error(`no ${prefix}* request with a ${field} in ${FIXTURE}`);
}

/** The loop program dyno hands the worker for bytecode-mode `op`, from a
 * real prepare request in the fixture (dyno builds it; no adapter does). */
export function loopCode(op) {
  const code = fixtureInput(`precompile-bytecode/${op}/`, 'code');
  if (typeof code !== 'string') throw new Error(`precompile-bytecode/${op}: code is no string`);
  return code;
}

/** The precompile address dyno gives `op`'s cases (it reads it from
 * specs/gas/osaka.toml; no adapter keeps a table of them). */
export function addressOf(op) {
  const address = fixtureInput(op === 'noop' ? 'precompile-bytecode/noop/' : `precompile/${op}/`, 'address');
  if (!Number.isSafeInteger(address)) throw new Error(`${op}: address is no integer`);
  return address;
}

const hex = (b) => '0x' + Buffer.from(b).toString('hex');
const vectors = (name) => JSON.parse(readFileSync(join(REPO, 'vectors', `${name}.json`), 'utf8'));

const SIZE = { 1: '1B', 32: '32B', 1024: '1KiB', 102400: '100KiB' };

/** prepare requests built from vectors/*.json, keyed by id. */
export function vectorRequests() {
  const reqs = new Map();
  const add = (id, input, expected) => {
    if (!reqs.has(id)) reqs.set(id, { type: 'prepare', id, implementation: '', cases: [] });
    reqs.get(id).cases.push({ input, expected });
  };
  for (const c of vectors('hash').cases) {
    add(`hash/${c.algorithm}/${SIZE[c.len]}`, { data: hex(seq(c.seed, c.len)) }, { digest: c.digest });
  }
  for (const c of vectors('secp256k1').cases) {
    add('crypto/secp256k1-sign/recid-direct', { private_key: c.private_key, message_hash: c.message_hash }, { r: c.r, s: c.s, v: c.v });
    add('crypto/secp256k1-verify/valid', { public_key: c.public_key, message_hash: c.message_hash, r: c.r, s: c.s }, { valid: true });
    add('crypto/secp256k1-recover/valid', { message_hash: c.message_hash, r: c.r, s: c.s, v: c.v }, { public_key: c.public_key });
    add('crypto/secp256k1-keygen/pubkey', { private_key: c.private_key }, { public_key: c.public_key });
  }
  for (const curve of ['p256', 'p384']) {
    for (const c of vectors(curve).cases) {
      add(`crypto/${curve}-sign/32B`, { private_key: c.private_key, public_key: c.public_key, message: c.message }, c.rfc6979);
      add(`crypto/${curve}-verify/32B`, { public_key: c.public_key, message: c.message, r: c.random.r, s: c.random.s }, { valid: true });
    }
  }
  return reqs;
}

/** The fixture's prepare requests, or null while it does not exist. */
export function fixtureRequests() {
  if (!existsSync(FIXTURE)) return null;
  return readFileSync(FIXTURE, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

/** A copy of `req` whose first hex (or boolean/number) expected value is
 * changed, or null if it has none. */
export function corrupt(req) {
  const copy = structuredClone(req);
  for (const c of copy.cases) {
    for (const [k, v] of Object.entries(c.expected ?? {})) {
      if (typeof v === 'string' && /^0x[0-9a-fA-F]*$/.test(v)) {
        // flip the last bit, or make an empty byte string one byte long
        c.expected[k] = v === '0x' ? '0x00' : v.slice(0, -1) + (parseInt(v.slice(-1), 16) ^ 1).toString(16);
        return { req: copy, field: k };
      }
      if (typeof v === 'boolean') {
        c.expected[k] = !v;
        return { req: copy, field: k };
      }
      if (typeof v === 'number') {
        c.expected[k] = v + 1;
        return { req: copy, field: k };
      }
    }
  }
  return null;
}

export function adapterHome() {
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return process.env.DYNO_ADAPTER_HOME || join(cache, 'dyno/adapters/node');
}

/** A worker started from HOME/run, with request/reply over its pipes. */
export class Client {
  constructor(runPath) {
    this.proc = spawn(runPath, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.stderr = '';
    this.proc.stderr.on('data', (d) => (this.stderr += d));
    this.lines = [];
    this.waiters = [];
    createInterface({ input: this.proc.stdout }).on('line', (l) => {
      const w = this.waiters.shift();
      if (w) w(l);
      else this.lines.push(l);
    });
    this.exited = new Promise((resolve) => this.proc.on('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Next stdout line, parsed; rejects if the worker exits first. */
  next() {
    if (this.lines.length) return Promise.resolve(JSON.parse(this.lines.shift()));
    return Promise.race([
      new Promise((resolve) => this.waiters.push((l) => resolve(JSON.parse(l)))),
      this.exited.then(({ code }) => {
        throw new Error(`worker exited (${code}) with no reply; stderr: ${this.stderr}`);
      }),
    ]);
  }

  request(obj) {
    this.proc.stdin.write(JSON.stringify(obj) + '\n');
    return this.next();
  }

  sendRaw(text) {
    this.proc.stdin.write(text);
  }

  async close() {
    this.proc.stdin.end();
    return this.exited;
  }
}
