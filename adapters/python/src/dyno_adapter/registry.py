"""Every (id pattern, implementation) the worker offers."""

from __future__ import annotations

import importlib.util
from functools import cache

from dyno_adapter import (
    bytecode,
    hashes,
    jsonrpc,
    nist,
    noop,
    precompiles,
    rlp_generic,
    secp256k1,
)
from dyno_adapter.spec import BenchError, Family

# library (distribution) name -> import name, to leave out what is not installed
MODULES = {
    "pycryptodome": "Crypto",
    "eth-hash": "eth_hash",
    "coincurve": "coincurve",
    "eth-keys": "eth_keys",
    "cryptography": "cryptography",
    "py-ecc": "py_ecc",
    "ckzg": "ckzg",
    "py-evm": "eth",
    "rlp": "rlp",
}


def matches(pattern: str, id_: str) -> bool:
    """`*` matches exactly one whole path segment."""
    p, i = pattern.split("/"), id_.split("/")
    return len(p) == len(i) and all(a == "*" or a == b for a, b in zip(p, i, strict=True))


def _available(f: Family) -> bool:
    module = MODULES.get(f.library)
    if module is not None and importlib.util.find_spec(module) is None:
        return False
    if f.pattern.startswith("precompile/kzg-point-evaluation/"):
        try:
            return precompiles.trusted_setup_path().is_file()
        except BenchError:
            return False
    return True


@cache
def families() -> tuple[Family, ...]:
    all_ = (
        hashes.families()
        + secp256k1.families()
        + nist.families()
        + precompiles.families()
        + bytecode.families()
        + jsonrpc.families()
        + rlp_generic.families()
        + noop.families()
    )
    return tuple(f for f in all_ if _available(f))


def find(id_: str, implementation: str | None) -> Family:
    for f in families():
        if matches(f.pattern, id_) and (
            implementation is None or f.implementation == implementation
        ):
            return f
    if implementation is None:
        raise BenchError(f"unknown id {id_}")
    raise BenchError(f"unknown id {id_} for implementation {implementation}")
