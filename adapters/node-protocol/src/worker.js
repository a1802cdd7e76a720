// The protocol state machine: one request object in, one reply object out.

import { PerformanceObserver, performance } from 'node:perf_hooks';
import { harnessKinds } from './harness.js';

export const PROTOCOL = 1;

/** True if `pattern` (where `*` is one whole segment) covers `id`. */
export function covers(pattern, id) {
  const have = pattern.split('/');
  const want = id.split('/');
  return have.length === want.length && have.every((h, i) => h === '*' || h === want[i]);
}

/** Smallest non-zero step between two reads of the clock, in ns. */
function clockResolution() {
  let best = Infinity;
  for (let i = 0; i < 2000; i++) {
    const a = process.hrtime.bigint();
    let b = process.hrtime.bigint();
    while (b === a) b = process.hrtime.bigint();
    const d = Number(b - a);
    if (d < best) best = d;
  }
  return best;
}

const immediate = () => new Promise((resolve) => setImmediate(resolve));

class ProtocolError extends Error {}

/** GC count and pause time (ns) of the entries that started inside
 * [w0, w1] (performance.now() milliseconds, the entries' own timeline). */
export function attributeGc(entries, w0, w1) {
  let count = 0;
  let ms = 0;
  for (const e of entries) {
    if (e.start >= w0 && e.start <= w1) {
      count++;
      ms += e.duration;
    }
  }
  return { count, time_ns: Math.round(ms * 1e6) };
}

/** Compare one encoded output value with the expected one. Hex strings are
 * compared without regard to case; everything else strictly. */
export function same(expected, actual) {
  if (typeof expected === 'string' && typeof actual === 'string') {
    return expected.toLowerCase() === actual.toLowerCase();
  }
  return expected === actual;
}

export class Worker {
  /** `adapter`: { name, version, prefix, registry, libraries } (see index.js);
   * its registry has find(id, implementation), benchmarks() and
   * patternOffers(); libraries() returns name -> version. */
  constructor(adapter) {
    this.adapter = adapter;
    this.harness = new Map(harnessKinds(adapter.prefix));
    this.current = null;
    this.gcEntries = [];
    this.observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) this.gcEntries.push({ start: e.startTime, duration: e.duration });
    });
    this.observer.observe({ entryTypes: ['gc'] });
  }

  close() {
    this.observer.disconnect();
  }

  /** The reply to one parsed request (may be a Promise). */
  async handle(req) {
    try {
      switch (req?.type) {
        case 'hello':
          return this.hello(req);
        case 'prepare':
          return await this.prepare(req);
        case 'run':
          return await this.run(req);
        default:
          return { type: 'error', message: `unknown request type ${JSON.stringify(req?.type)}`, fatal: false };
      }
    } catch (e) {
      return { type: 'error', message: e instanceof ProtocolError ? e.message : `${e?.message ?? e}`, fatal: false };
    }
  }

  hello() {
    const benchmarks = this.adapter.registry.benchmarks();
    for (const [id, kind] of this.harness) {
      benchmarks.push({ id, implementation: kind.implementation, library: kind.library });
    }
    return {
      type: 'hello',
      protocol: PROTOCOL,
      runtime: { name: 'node', version: process.version, v8: process.versions.v8, flags: [...process.execArgv] },
      adapter: { name: this.adapter.name, version: this.adapter.version },
      libraries: this.adapter.libraries ? this.adapter.libraries() : {},
      clock: { source: 'process.hrtime.bigint', resolution_ns: clockResolution() },
      jit: true,
      benchmarks,
      patterns: this.adapter.registry.patternOffers(),
    };
  }

  /** The kind for (id, implementation): the harness's, else the adapter's. */
  find(id, implementation) {
    const h = this.harness.get(id);
    if (h && h.implementation === implementation) return h;
    return this.adapter.registry.find(id, implementation);
  }

  async prepare(req) {
    this.current = null;
    const { id, implementation, cases } = req;
    if (typeof id !== 'string' || typeof implementation !== 'string') {
      throw new ProtocolError('prepare: id and implementation must be strings');
    }
    if (!Array.isArray(cases) || cases.length === 0) throw new ProtocolError('prepare: cases must be a non-empty array');
    const kind = this.find(id, implementation);
    if (kind === undefined) throw new ProtocolError(`unknown id ${id} for implementation ${implementation}`);
    // A kind's set-up before its cases are parsed; bytecode mode deploys
    // the loop program the cases carry.
    if (kind.init) await kind.init(cases);

    const parsed = [];
    for (let i = 0; i < cases.length; i++) {
      const input = cases[i]?.input;
      if (input === null || typeof input !== 'object') throw new ProtocolError(`case ${i}: missing input`);
      try {
        parsed.push(kind.parse(input));
      } catch (e) {
        throw new ProtocolError(`case ${i}: cannot parse input: ${e.message}`);
      }
    }

    const outputs = [];
    for (let i = 0; i < parsed.length; i++) {
      const expected = cases[i].expected ?? {};
      let raw;
      try {
        raw = await kind.call(parsed[i]);
      } catch (e) {
        throw new ProtocolError(`case ${i}: ${id} ${implementation} failed: ${e.message}`);
      }
      const out = kind.encode(raw, parsed[i], expected);
      // A kind may check its result against the input itself (rlp decode:
      // the re-encoded tree must equal the input) before the expected values.
      const bad = kind.verify ? kind.verify(raw, parsed[i]) : null;
      if (bad) return { type: 'mismatch', case: i, ...bad };
      if (kind.randomNonce) {
        // Random nonces: check the signature verifies instead of comparing.
        if (!kind.check(raw, parsed[i])) {
          return { type: 'mismatch', case: i, field: 'r', expected: expected.r ?? null, actual: out.r };
        }
      } else {
        for (const field of Object.keys(expected)) {
          const actual = field in out ? out[field] : null;
          if (!same(expected[field], actual)) {
            return { type: 'mismatch', case: i, field, expected: expected[field], actual };
          }
        }
      }
      outputs.push(out);
    }
    this.current = { id, kind, cases: parsed, pos: 0 };
    return { type: 'prepared', id, cases: parsed.length, outputs };
  }

  async run(req) {
    const { iterations, samples } = req;
    if (!Number.isSafeInteger(iterations) || iterations < 1) throw new ProtocolError('run: iterations must be an integer >= 1');
    if (!Number.isSafeInteger(samples) || samples < 1) throw new ProtocolError('run: samples must be an integer >= 1');
    const cur = this.current;
    if (cur === null) throw new ProtocolError('run before a successful prepare');

    const loop = cur.kind.loop;
    const cs = cur.cases;
    const ns = new Array(samples);
    let p = cur.pos;
    const w0 = performance.now();
    if (cur.kind.async) {
      for (let s = 0; s < samples; s++) {
        const a = process.hrtime.bigint();
        p = await loop(cs, p, iterations);
        const b = process.hrtime.bigint();
        ns[s] = Number(b - a);
      }
    } else {
      for (let s = 0; s < samples; s++) {
        const a = process.hrtime.bigint();
        p = loop(cs, p, iterations);
        const b = process.hrtime.bigint();
        ns[s] = Number(b - a);
      }
    }
    const w1 = performance.now();
    cur.pos = p;

    // GC entries reach the observer asynchronously (a native immediate, then
    // the observer's own queue): let both turn before reading them, then
    // attribute the collections that started inside the timed window.
    await immediate();
    await immediate();
    for (const e of this.observer.takeRecords?.() ?? []) this.gcEntries.push({ start: e.startTime, duration: e.duration });
    const gc = attributeGc(this.gcEntries, w0, w1);
    this.gcEntries = [];
    return { type: 'samples', ns, gc };
  }
}
