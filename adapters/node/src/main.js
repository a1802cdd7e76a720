// dyno adapter worker for Node.js: its benchmarks (registry.js) served by
// dyno's Node protocol library (adapters/node-protocol), which keeps stdout
// for protocol lines only (docs/adapter-protocol.md).

import { serve } from 'dyno-protocol';

await serve(async () => (await import('./adapter.js')).adapter);
