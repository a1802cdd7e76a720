"""crypto/secp256k1-*: coincurve (libsecp256k1) and eth-keys (native pure-Python backend)."""

from __future__ import annotations

from dyno_protocol import Bench, BenchError, Family, field, hexfield, tohex

SIGN = "crypto/secp256k1-sign/recid-direct"
VERIFY = "crypto/secp256k1-verify/valid"
RECOVER = "crypto/secp256k1-recover/valid"
KEYGEN = "crypto/secp256k1-keygen/pubkey"


def _b32(inp: dict, name: str) -> bytes:
    b = hexfield(inp, name)
    if len(b) != 32:
        raise BenchError(f"field {name!r}: expected 32 bytes, got {len(b)}")
    return b


def _pub65(inp: dict) -> bytes:
    b = hexfield(inp, "public_key")
    if len(b) != 65 or b[0] != 4:
        raise BenchError("field 'public_key': expected 65-byte uncompressed key")
    return b


def _v(inp: dict) -> int:
    v = field(inp, "v")
    if v not in (0, 1) or isinstance(v, bool):
        raise BenchError(f"field 'v': expected 0 or 1, got {v!r}")
    return v


def der_int(b: bytes) -> bytes:
    b = b.lstrip(b"\x00") or b"\x00"
    if b[0] & 0x80:
        b = b"\x00" + b
    return b"\x02" + bytes([len(b)]) + b


def der_signature(r: bytes, s: bytes) -> bytes:
    body = der_int(r) + der_int(s)
    return b"\x30" + bytes([len(body)]) + body


def _rsv_encode(sig: bytes, _inp: dict) -> dict:
    return {"r": tohex(sig[:32]), "s": tohex(sig[32:64]), "v": sig[64]}


def _valid_encode(ok: bool, _inp: dict) -> dict:
    return {"valid": bool(ok)}


def _pub_encode(pub: bytes, _inp: dict) -> dict:
    return {"public_key": tohex(pub)}


# --- coincurve --------------------------------------------------------------


def _coincurve(id_: str) -> Bench:
    from coincurve import PrivateKey, PublicKey

    if id_ == SIGN:

        def parse(inp):
            return PrivateKey(_b32(inp, "private_key")), _b32(inp, "message_hash")

        def op(a):
            return a[0].sign_recoverable(a[1], hasher=None)

        return Bench(parse, op, _rsv_encode)

    if id_ == VERIFY:

        def parse(inp):
            der = der_signature(_b32(inp, "r"), _b32(inp, "s"))
            return PublicKey(_pub65(inp)), der, _b32(inp, "message_hash")

        def op(a):
            return a[0].verify(a[1], a[2], hasher=None)

        return Bench(parse, op, _valid_encode)

    if id_ == RECOVER:
        from_sig = PublicKey.from_signature_and_message

        def parse(inp):
            sig = _b32(inp, "r") + _b32(inp, "s") + bytes([_v(inp)])
            return sig, _b32(inp, "message_hash")

        def op(a):
            return from_sig(a[0], a[1], hasher=None).format(compressed=False)

        return Bench(parse, op, _pub_encode)

    if id_ == KEYGEN:
        from_secret = PublicKey.from_secret

        def parse(inp):
            return _b32(inp, "private_key")

        def op(sk):
            return from_secret(sk).format(compressed=False)

        return Bench(parse, op, _pub_encode)

    raise BenchError(f"unknown id {id_}")


# --- eth-keys (native backend) ------------------------------------------------


def _eth_keys(id_: str) -> Bench:
    from eth_keys.backends import NativeECCBackend
    from eth_keys.datatypes import PrivateKey, PublicKey, Signature

    backend = NativeECCBackend()

    def sig_encode(sig, _inp):
        v, r, s = sig.vrs
        return {"r": tohex(r.to_bytes(32, "big")), "s": tohex(s.to_bytes(32, "big")), "v": v}

    def pubkey_encode(pub, _inp):
        return {"public_key": tohex(b"\x04" + pub.to_bytes())}

    def rs(inp):
        r = int.from_bytes(_b32(inp, "r"), "big")
        s = int.from_bytes(_b32(inp, "s"), "big")
        return r, s

    if id_ == SIGN:

        def parse(inp):
            sk = PrivateKey(_b32(inp, "private_key"), backend=backend)
            return sk, _b32(inp, "message_hash")

        def op(a):
            return a[0].sign_msg_hash(a[1])

        return Bench(parse, op, sig_encode)

    if id_ == VERIFY:

        def parse(inp):
            pub = PublicKey(_pub65(inp)[1:], backend=backend)
            r, s = rs(inp)
            # the verify schema has no v; eth-keys' verify uses only (r, s)
            sig = Signature(vrs=(0, r, s), backend=backend)
            return pub, _b32(inp, "message_hash"), sig

        def op(a):
            return a[0].verify_msg_hash(a[1], a[2])

        return Bench(parse, op, _valid_encode)

    if id_ == RECOVER:
        recover = backend.ecdsa_recover

        def parse(inp):
            r, s = rs(inp)
            return _b32(inp, "message_hash"), Signature(vrs=(_v(inp), r, s), backend=backend)

        def op(a):
            return recover(a[0], a[1])

        return Bench(parse, op, pubkey_encode)

    if id_ == KEYGEN:
        to_pub = backend.private_key_to_public_key

        def parse(inp):
            return PrivateKey(_b32(inp, "private_key"), backend=backend)

        return Bench(parse, to_pub, pubkey_encode)

    raise BenchError(f"unknown id {id_}")


def families() -> list[Family]:
    out = []
    for id_ in (SIGN, VERIFY, RECOVER, KEYGEN):
        out.append(Family(id_, "coincurve", "coincurve", _coincurve, (id_,)))
        out.append(Family(id_, "eth-keys", "eth-keys", _eth_keys, (id_,)))
    return out
