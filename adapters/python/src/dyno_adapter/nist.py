"""crypto/p256-*, crypto/p384-*: pyca/cryptography (OpenSSL).

Signing uses `ECDSA(hash, deterministic_signing=True)`: the RFC 6979 nonce,
so outputs are compared exactly with `expected` like every other signer.
"""

from __future__ import annotations

from dyno_protocol import Bench, BenchError, Family, hexfield, tohex

CURVES = {"p256": 32, "p384": 48}


def _make(id_: str) -> Bench:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import (
        decode_dss_signature,
        encode_dss_signature,
    )

    parts = id_.split("/")
    if len(parts) != 3 or parts[0] != "crypto" or parts[2] != "32B":
        raise BenchError(f"unknown id {id_}")
    curve_name, _, kind = parts[1].partition("-")
    if curve_name not in CURVES or kind not in ("sign", "verify"):
        raise BenchError(f"unknown id {id_}")
    size = CURVES[curve_name]
    curve = ec.SECP256R1() if curve_name == "p256" else ec.SECP384R1()
    hash_alg = hashes.SHA256() if curve_name == "p256" else hashes.SHA384()

    def public_key(inp):
        try:
            return ec.EllipticCurvePublicKey.from_encoded_point(curve, hexfield(inp, "public_key"))
        except ValueError as e:
            raise BenchError(f"bad public_key: {e}") from None

    def scalar(inp, name):
        b = hexfield(inp, name)
        if len(b) != size:
            raise BenchError(f"field {name!r}: expected {size} bytes, got {len(b)}")
        return int.from_bytes(b, "big")

    if kind == "sign":
        algorithm = ec.ECDSA(hash_alg, deterministic_signing=True)

        def parse(inp):
            key = ec.derive_private_key(scalar(inp, "private_key"), curve)
            return key.sign, hexfield(inp, "message")

        def op(a):
            return a[0](a[1], algorithm)

        def encode(der, _inp):
            r, s = decode_dss_signature(der)
            return {"r": tohex(r.to_bytes(size, "big")), "s": tohex(s.to_bytes(size, "big"))}

        def check(out, inp):
            # self-check with the library's verify against the given public key
            r = int(out["r"], 16)
            s = int(out["s"], 16)
            try:
                public_key(inp).verify(
                    encode_dss_signature(r, s), hexfield(inp, "message"), ec.ECDSA(hash_alg)
                )
            except InvalidSignature:
                return False
            return True

        return Bench(parse, op, encode, self_check=check)

    algorithm = ec.ECDSA(hash_alg)

    def parse_v(inp):
        der = encode_dss_signature(scalar(inp, "r"), scalar(inp, "s"))
        return public_key(inp).verify, der, hexfield(inp, "message")

    def op_v(a):
        try:
            a[0](a[1], a[2], algorithm)
        except InvalidSignature:
            return False
        return True

    return Bench(parse_v, op_v, lambda ok, _inp: {"valid": ok})


def families() -> list[Family]:
    return [
        Family(
            f"crypto/{c}-{k}/32B", "cryptography", "cryptography", _make, (f"crypto/{c}-{k}/32B",)
        )
        for c in CURVES
        for k in ("sign", "verify")
    ]
