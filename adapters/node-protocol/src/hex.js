// Strict 0x-prefixed lower/upper-case hex <-> Uint8Array, as the protocol
// encodes byte strings. Parsing happens at prepare time only.

const HEX_RE = /^0x(?:[0-9a-fA-F]{2})*$/;

/** Decode `0x…` into a plain Uint8Array (not a Buffer, so every input has
 * the same hidden class). Throws on anything that is not whole-byte hex. */
export function fromHex(value, field = 'value') {
  if (typeof value !== 'string' || !HEX_RE.test(value)) {
    throw new TypeError(`${field}: expected 0x-prefixed hex bytes`);
  }
  const buf = Buffer.from(value.slice(2), 'hex');
  const out = new Uint8Array(buf.length);
  out.set(buf);
  return out;
}

/** Encode bytes as lower-case `0x…`. */
export function toHex(bytes) {
  return '0x' + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** Decode a hex field and check its length. */
export function fromHexLen(value, len, field) {
  const b = fromHex(value, field);
  if (b.length !== len) {
    throw new TypeError(`${field}: expected ${len} bytes, got ${b.length}`);
  }
  return b;
}

/** Unsigned big-endian bytes -> bigint. */
export function bytesToBigInt(b) {
  return b.length === 0 ? 0n : BigInt('0x' + Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex'));
}
