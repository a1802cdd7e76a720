"""{{name}}: a dyno adapter (docs/adapter-protocol.md), served by dyno's
Python protocol library. Add a benchmark: a `Family` in `families()` below whose
`make` returns a `Bench` for the ids it offers (`dyno list` shows the ids, and
adapters/testdata/prepare.jsonl in dyno's repository their cases)."""

from __future__ import annotations

import hashlib
import ssl

from dyno_protocol import Adapter, Bench, BenchError, Family, hexfield, tohex

__version__ = "0.1.0"

# The example: SHA-256 from the standard library, on dyno's hash/sha256 ids.
SHA256_IDS = ("hash/sha256/1B", "hash/sha256/32B", "hash/sha256/1KiB", "hash/sha256/100KiB")


def sha256(id_: str) -> Bench:
    if id_ not in SHA256_IDS:
        raise BenchError(f"unknown id {id_}")
    return Bench(
        parse=lambda inp: hexfield(inp, "data"),
        op=lambda data: hashlib.sha256(data).digest(),
        encode=lambda out, _inp: {"digest": tohex(out)},
    )


def families() -> list[Family]:
    return [
        Family(
            "hash/sha256/*",
            "{{name}}-sha256",
            "hashlib",
            sha256,
            SHA256_IDS,
            advertise_pattern=False,
        ),
    ]


ADAPTER = Adapter(
    name="{{name}}",
    version=__version__,
    prefix="{{name}}",
    families=families,
    libraries=lambda: {"openssl (hashlib)": ssl.OPENSSL_VERSION},
)
