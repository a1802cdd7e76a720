"""The Python adapter's worker: its benchmarks served by the protocol library
(dyno_protocol, adapters/python-protocol)."""

from __future__ import annotations

import contextlib
import importlib.metadata
import ssl

from dyno_protocol import Adapter, serve

from dyno_adapter import __version__, bytecode, hashes, registry

DISTRIBUTIONS = (
    "pycryptodome",
    "eth-hash",
    "coincurve",
    "eth-keys",
    "cryptography",
    "py-ecc",
    "ckzg",
    "py-evm",
    "rlp",
)


def runtime_flags() -> list[str]:
    flags = []
    if any(f.implementation == "py-evm" for f in registry.families()):
        flags.append(f"py-evm bytecode mode VM={bytecode.VM_NAME} (py-evm has no Osaka)")
    if any(f.library == "eth-hash" for f in registry.families()):
        flags.append(f"eth_hash.auto backend={hashes.eth_hash_backend()}")
    return flags


def libraries() -> dict[str, str]:
    libs = {}
    for dist in (*DISTRIBUTIONS, "dyno-protocol"):
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            libs[dist] = importlib.metadata.version(dist)
    libs["openssl (hashlib)"] = ssl.OPENSSL_VERSION
    if "cryptography" in libs:
        from cryptography.hazmat.backends.openssl import backend

        libs["openssl (cryptography)"] = backend.openssl_version_text()
    return libs


ADAPTER = Adapter(
    name="dyno-adapter-python",
    version=__version__,
    prefix="python",
    families=registry.families,
    libraries=libraries,
    flags=runtime_flags,
)


def main() -> int:
    return serve(ADAPTER)
