// {{name}}: a dyno adapter (docs/adapter-protocol.md), served by dyno's Node
// protocol library. Add a benchmark: a kind (parse, call, loop, encode) for
// the ids it offers (`dyno list` shows them; dyno's
// adapters/testdata/prepare.jsonl has their cases).

import { createHash } from 'node:crypto';
import { fromHex, toHex } from 'dyno-protocol';

export let sink;

// The example: SHA-256 from node:crypto on dyno's hash/sha256 ids.
const SHA256_IDS = ['hash/sha256/1B', 'hash/sha256/32B', 'hash/sha256/1KiB', 'hash/sha256/100KiB'];
const sha256 = {
  implementation: '{{name}}-sha256',
  library: 'node:crypto',
  parse: (input) => fromHex(input.data, 'data'),
  call: (data) => createHash('sha256').update(data).digest(),
  loop: (cases, p, n) => {
    for (let k = 0; k < n; k++) {
      sink = createHash('sha256').update(cases[p]).digest();
      if (++p === cases.length) p = 0;
    }
    return p;
  },
  encode: (digest) => ({ digest: toHex(digest) }),
};

export const adapter = {
  name: '{{name}}',
  version: '0.1.0',
  prefix: '{{name}}',
  registry: {
    find: (id, implementation) =>
      SHA256_IDS.includes(id) && implementation === sha256.implementation ? sha256 : undefined,
    benchmarks: () => SHA256_IDS.map((id) => ({ id, implementation: sha256.implementation, library: sha256.library })),
    patternOffers: () => [],
  },
  libraries: () => ({ 'node:crypto': `OpenSSL ${process.versions.openssl}` }),
};
