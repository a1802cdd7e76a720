"""hash/<alg>/<size>: pycryptodome, eth-hash (pycryptodome backend), hashlib."""

from __future__ import annotations

import hashlib
import os

from dyno_protocol import Bench, BenchError, Family, hexfield, tohex

SIZES = ("1B", "32B", "1KiB", "100KiB")


def _encode(result: bytes, _inp: dict) -> dict:
    return {"digest": tohex(result)}


def _parse(inp: dict) -> bytes:
    return hexfield(inp, "data")


def _bench(op) -> Bench:
    return Bench(parse=_parse, op=op, encode=_encode)


def _family(alg: str, implementation: str, library: str, op_factory) -> Family:
    def make(_id: str) -> Bench:
        return _bench(op_factory())

    return Family(
        pattern=f"hash/{alg}/*",
        implementation=implementation,
        library=library,
        make=make,
        explicit=tuple(f"hash/{alg}/{s}" for s in SIZES),
    )


# --- pycryptodome -----------------------------------------------------------


def _pycryptodome_keccak():
    from Crypto.Hash import keccak

    new = keccak.new

    def op(data: bytes) -> bytes:
        return new(data=data, digest_bits=256).digest()

    return op


def _pycryptodome_ripemd160():
    from Crypto.Hash import RIPEMD160

    new = RIPEMD160.new

    def op(data: bytes) -> bytes:
        return new(data).digest()

    return op


# --- eth-hash ---------------------------------------------------------------


def eth_hash_keccak():
    """eth_hash.auto.keccak, forced onto the pycryptodome backend."""
    os.environ.setdefault("ETH_HASH_BACKEND", "pycryptodome")
    from eth_hash.auto import keccak

    keccak(b"")  # resolve the backend now, not in the first timed call
    return keccak


def eth_hash_backend() -> str:
    """The backend module eth_hash.auto resolved to."""
    keccak = eth_hash_keccak()
    return keccak.hasher.__module__.rsplit(".", 1)[-1]


def _eth_hash_op():
    if eth_hash_backend() != "pycryptodome":
        raise BenchError("eth-hash did not select its pycryptodome backend")
    return eth_hash_keccak()


# --- hashlib ----------------------------------------------------------------


def _hashlib_op(name: str):
    def factory():
        if name == "blake2b512":
            ctor = hashlib.blake2b

            def op(data: bytes) -> bytes:
                return ctor(data, digest_size=64).digest()

        elif name == "blake2s256":
            ctor = hashlib.blake2s

            def op(data: bytes) -> bytes:
                return ctor(data, digest_size=32).digest()

        elif name == "ripemd160":
            new = hashlib.new

            def op(data: bytes) -> bytes:
                return new("ripemd160", data).digest()

        else:
            ctor = getattr(hashlib, name)

            def op(data: bytes) -> bytes:
                return ctor(data).digest()

        return op

    return factory


def hashlib_has_ripemd160() -> bool:
    try:
        hashlib.new("ripemd160", b"")
    except ValueError:
        return False
    return True


def families() -> list[Family]:
    fams = [
        _family("keccak256", "pycryptodome", "pycryptodome", _pycryptodome_keccak),
        _family("ripemd160", "pycryptodome", "pycryptodome", _pycryptodome_ripemd160),
        _family("keccak256", "eth-hash", "eth-hash", _eth_hash_op),
    ]
    algs = ["sha256", "sha384", "sha512", "blake2b512", "blake2s256"]
    if hashlib_has_ripemd160():
        algs.append("ripemd160")
    fams += [_family(a, "hashlib", "hashlib", _hashlib_op(a)) for a in algs]
    return fams
