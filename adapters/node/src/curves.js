// crypto/*: ECDSA over secp256k1, P-256 and P-384.
//
// "noble" is @noble/curves (deterministic RFC 6979 nonces); "node-crypto" is
// node:crypto on OpenSSL (P-256/P-384 verify, and sign with OpenSSL's random
// nonces, checked by verifying instead of comparing). One timed loop
// function per kind; cases are parsed into Uint8Arrays / KeyObjects /
// Signature objects at prepare.

import { createPrivateKey, createPublicKey, sign as nodeSign, verify as nodeVerify } from 'node:crypto';
import { p256, p384 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { fromHex, fromHexLen, bytesToBigInt, toHex } from 'dyno-protocol';

export let sink;

// secp256k1 signs the 32-byte hash as is; low-s (the default) as Ethereum.
const K1_SIGN = Object.freeze({ prehash: false, format: 'recovered' });
const K1_VERIFY = Object.freeze({ prehash: false });
// NIST curves: the message is hashed inside the op (prehash, the default,
// with the curve's hash: SHA-256 for P-256, SHA-384 for P-384). noble
// normalises s to the low half by default for every curve; the reference
// vectors (OpenSSL, python-ecdsa) are plain RFC 6979 and the verify vectors
// may be high-s, so low-s is switched off both ways.
const NIST = Object.freeze({ lowS: false });

function concat(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

// ---- noble secp256k1 --------------------------------------------------------

function loopK1Sign(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    const c = cs[p];
    sink = secp256k1.sign(c.hash, c.key, K1_SIGN);
    if (++p === len) p = 0;
  }
  return p;
}
function loopK1Verify(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    const c = cs[p];
    sink = secp256k1.verify(c.sig, c.hash, c.pub, K1_VERIFY);
    if (++p === len) p = 0;
  }
  return p;
}
function loopK1Recover(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    const c = cs[p];
    sink = c.sig.recoverPublicKey(c.hash).toBytes(false);
    if (++p === len) p = 0;
  }
  return p;
}
function loopK1Keygen(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    sink = secp256k1.getPublicKey(cs[p], false);
    if (++p === len) p = 0;
  }
  return p;
}

const k1Sign = {
  implementation: 'noble',
  library: '@noble/curves',
  parse: (i) => ({ hash: fromHexLen(i.message_hash, 32, 'message_hash'), key: fromHexLen(i.private_key, 32, 'private_key') }),
  call: (c) => secp256k1.sign(c.hash, c.key, K1_SIGN),
  loop: loopK1Sign,
  // 'recovered' format: recovery byte (from the nonce point R) || r || s
  encode: (sig) => ({ r: toHex(sig.subarray(1, 33)), s: toHex(sig.subarray(33, 65)), v: sig[0] }),
};

const k1Verify = {
  implementation: 'noble',
  library: '@noble/curves',
  parse: (i) => ({
    sig: concat(fromHexLen(i.r, 32, 'r'), fromHexLen(i.s, 32, 's')),
    hash: fromHexLen(i.message_hash, 32, 'message_hash'),
    pub: fromHexLen(i.public_key, 65, 'public_key'),
  }),
  call: (c) => secp256k1.verify(c.sig, c.hash, c.pub, K1_VERIFY),
  loop: loopK1Verify,
  encode: (ok) => ({ valid: ok }),
};

const k1Recover = {
  implementation: 'noble',
  library: '@noble/curves',
  parse: (i) => {
    const v = i.v;
    if (v !== 0 && v !== 1) throw new TypeError('v: expected 0 or 1');
    const r = bytesToBigInt(fromHexLen(i.r, 32, 'r'));
    const s = bytesToBigInt(fromHexLen(i.s, 32, 's'));
    return { sig: new secp256k1.Signature(r, s, v), hash: fromHexLen(i.message_hash, 32, 'message_hash') };
  },
  call: (c) => c.sig.recoverPublicKey(c.hash).toBytes(false),
  loop: loopK1Recover,
  encode: (pub) => ({ public_key: toHex(pub) }),
};

const k1Keygen = {
  implementation: 'noble',
  library: '@noble/curves',
  parse: (i) => fromHexLen(i.private_key, 32, 'private_key'),
  call: (key) => secp256k1.getPublicKey(key, false),
  loop: loopK1Keygen,
  encode: (pub) => ({ public_key: toHex(pub) }),
};

// ---- noble P-256 / P-384 ----------------------------------------------------

function loopP256Sign(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    const c = cs[p];
    sink = p256.sign(c.msg, c.key, NIST);
    if (++p === len) p = 0;
  }
  return p;
}
function loopP384Sign(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    const c = cs[p];
    sink = p384.sign(c.msg, c.key, NIST);
    if (++p === len) p = 0;
  }
  return p;
}
function loopP256Verify(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    const c = cs[p];
    sink = p256.verify(c.sig, c.msg, c.pub, NIST);
    if (++p === len) p = 0;
  }
  return p;
}
function loopP384Verify(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    const c = cs[p];
    sink = p384.verify(c.sig, c.msg, c.pub, NIST);
    if (++p === len) p = 0;
  }
  return p;
}

const splitRS = (sig) => {
  const h = sig.length >> 1;
  return { r: toHex(sig.subarray(0, h)), s: toHex(sig.subarray(h)) };
};

function nobleNistSign(curve, size, loop) {
  return {
    implementation: 'noble',
    library: '@noble/curves',
    parse: (i) => ({ msg: fromHex(i.message, 'message'), key: fromHexLen(i.private_key, size, 'private_key') }),
    call: (c) => curve.sign(c.msg, c.key, NIST),
    loop,
    encode: splitRS,
  };
}

function nobleNistVerify(curve, size, loop) {
  return {
    implementation: 'noble',
    library: '@noble/curves',
    parse: (i) => ({
      sig: concat(fromHexLen(i.r, size, 'r'), fromHexLen(i.s, size, 's')),
      msg: fromHex(i.message, 'message'),
      pub: fromHexLen(i.public_key, 2 * size + 1, 'public_key'),
    }),
    call: (c) => curve.verify(c.sig, c.msg, c.pub, NIST),
    loop,
    encode: (ok) => ({ valid: ok }),
  };
}

// ---- node:crypto P-256 / P-384 ---------------------------------------------

const b64u = (b) => Buffer.from(b).toString('base64url');

function jwk(crv, size, pubHex, privHex) {
  const pub = fromHexLen(pubHex, 2 * size + 1, 'public_key');
  if (pub[0] !== 4) throw new TypeError('public_key: expected uncompressed SEC1 (0x04…)');
  const key = { kty: 'EC', crv, x: b64u(pub.subarray(1, 1 + size)), y: b64u(pub.subarray(1 + size)) };
  if (privHex !== undefined) key.d = b64u(fromHexLen(privHex, size, 'private_key'));
  return key;
}

// `ieee-p1363`: signatures are r || s, fixed width, as the vectors are.
function nodeVerifyCase(crv, size, i) {
  return {
    msg: fromHex(i.message, 'message'),
    key: { key: createPublicKey({ key: jwk(crv, size, i.public_key), format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
    sig: concat(fromHexLen(i.r, size, 'r'), fromHexLen(i.s, size, 's')),
  };
}

function loopNodeP256Verify(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    const c = cs[p];
    sink = nodeVerify('sha256', c.msg, c.key, c.sig);
    if (++p === len) p = 0;
  }
  return p;
}
function loopNodeP384Verify(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    const c = cs[p];
    sink = nodeVerify('sha384', c.msg, c.key, c.sig);
    if (++p === len) p = 0;
  }
  return p;
}
function loopNodeP256Sign(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    const c = cs[p];
    sink = nodeSign('sha256', c.msg, c.key);
    if (++p === len) p = 0;
  }
  return p;
}
function loopNodeP384Sign(cs, p, n) {
  const len = cs.length;
  for (let k = 0; k < n; k++) {
    const c = cs[p];
    sink = nodeSign('sha384', c.msg, c.key);
    if (++p === len) p = 0;
  }
  return p;
}

function nodeNistVerify(crv, hash, size, loop) {
  return {
    implementation: 'node-crypto',
    library: 'node:crypto',
    parse: (i) => nodeVerifyCase(crv, size, i),
    call: (c) => nodeVerify(hash, c.msg, c.key, c.sig),
    loop,
    encode: (ok) => ({ valid: ok }),
  };
}

function nodeNistSign(crv, hash, size, loop) {
  return {
    implementation: 'node-crypto',
    library: 'node:crypto',
    parse: (i) => {
      const key = createPrivateKey({ key: jwk(crv, size, i.public_key, i.private_key), format: 'jwk' });
      const pub = createPublicKey({ key: jwk(crv, size, i.public_key), format: 'jwk' });
      return {
        msg: fromHex(i.message, 'message'),
        key: { key, dsaEncoding: 'ieee-p1363' },
        pub: { key: pub, dsaEncoding: 'ieee-p1363' },
      };
    },
    call: (c) => nodeSign(hash, c.msg, c.key),
    loop,
    encode: splitRS,
    // OpenSSL signs with a random nonce: its r, s cannot equal the expected
    // ones, so the signature is checked by verifying it against public_key.
    randomNonce: true,
    check: (sig, c) => nodeVerify(hash, c.msg, c.pub, sig),
  };
}

/** [id, kind] for every crypto benchmark. */
export function curveKinds() {
  return [
    ['crypto/secp256k1-sign/recid-direct', k1Sign],
    ['crypto/secp256k1-verify/valid', k1Verify],
    ['crypto/secp256k1-recover/valid', k1Recover],
    ['crypto/secp256k1-keygen/pubkey', k1Keygen],
    ['crypto/p256-sign/32B', nobleNistSign(p256, 32, loopP256Sign)],
    ['crypto/p384-sign/32B', nobleNistSign(p384, 48, loopP384Sign)],
    ['crypto/p256-verify/32B', nobleNistVerify(p256, 32, loopP256Verify)],
    ['crypto/p384-verify/32B', nobleNistVerify(p384, 48, loopP384Verify)],
    ['crypto/p256-verify/32B', nodeNistVerify('P-256', 'sha256', 32, loopNodeP256Verify)],
    ['crypto/p384-verify/32B', nodeNistVerify('P-384', 'sha384', 48, loopNodeP384Verify)],
    ['crypto/p256-sign/32B', nodeNistSign('P-256', 'sha256', 32, loopNodeP256Sign)],
    ['crypto/p384-sign/32B', nodeNistSign('P-384', 'sha384', 48, loopNodeP384Sign)],
  ];
}
