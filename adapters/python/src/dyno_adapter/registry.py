"""Every (id pattern, implementation) the adapter offers (the protocol library
adds the harness ids)."""

from __future__ import annotations

import importlib.util
from functools import cache

from dyno_protocol import BenchError, Family

from dyno_adapter import (
    bytecode,
    hashes,
    jsonrpc,
    nist,
    opcode,
    precompiles,
    rlp_generic,
    secp256k1,
)

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
        + opcode.families()
        + jsonrpc.families()
        + rlp_generic.families()
    )
    return tuple(f for f in all_ if _available(f))
