// dyno's adapter protocol for Node.js (docs/adapter-protocol.md, protocol 1).
//
// An adapter is an object { name, version, prefix, registry, libraries }:
// its registry finds the "kind" (parse, call, loop, encode) behind each
// (id, implementation) and lists what it offers; serve() answers hello,
// prepare and run, checks every output against `expected`, times the loop
// with process.hrtime.bigint, offers harness/noop/empty and
// harness/sleep/1ms under `${prefix}-noop` and `${prefix}-sleep`, and keeps
// stdout for protocol lines only. The major version is the protocol's.

export { PROTOCOL, Worker, attributeGc, covers, same } from './worker.js';
export { serve } from './serve.js';
export { NOOP_ID, SLEEP_ID, harnessKinds } from './harness.js';
export { bytesToBigInt, fromHex, fromHexLen, toHex } from './hex.js';
