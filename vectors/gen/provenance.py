"""What every vector file shares: the cross-check that makes a disagreement
loud, hex and JSON formatting, the provenance block naming the generator,
the libraries and the interpreter, Keccak-256 with its known answers, and
the private keys drawn from SplitMix64."""

import json
import platform
import ssl
from importlib import metadata

import ref_keccak
from splitmix import seq

GENERATOR_PATH = "vectors/gen/generate.py"

SPLITMIX_DEFINITION = (
    "seq(seed, n): SplitMix64 with state s = seed; for each output word s = s + 0x9E3779B97F4A7C15, "
    "z = s, z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9, z = (z ^ (z >> 27)) * 0x94D049BB133111EB, "
    "z = z ^ (z >> 31) (all mod 2^64); words are emitted as 8 little-endian bytes, concatenated "
    "and truncated to n bytes. seq(0, 24) = LE words 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, "
    "0x06c45d188009454f."
)


class CrossCheckError(AssertionError):
    pass


def check(cond, what):
    if not cond:
        raise CrossCheckError(what)


def hx(b: bytes) -> str:
    return "0x" + bytes(b).hex()


def int_hex(v: int, size: int) -> str:
    return hx(v.to_bytes(size, "big"))


def dumps(doc) -> str:
    return json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=True) + "\n"


# --------------------------------------------------------------------------
# provenance


def lib(dist: str, note: str = None):
    entry = {"name": dist, "version": metadata.version(dist)}
    if note:
        entry["note"] = note
    return entry


def interpreter(with_openssl: bool = False):
    info = {"implementation": platform.python_implementation(), "version": platform.python_version()}
    if with_openssl:
        info["hashlib_openssl"] = ssl.OPENSSL_VERSION
    return info


def provenance(name, libraries, cross_checks, definition, with_openssl=False, **extra):
    p = {
        "generator": GENERATOR_PATH,
        "command": f"python {GENERATOR_PATH} --only {name}",
        "python": interpreter(with_openssl),
        "libraries": sorted(libraries, key=lambda e: e["name"]),
        "cross_checks": cross_checks,
        "definition": definition,
    }
    p.update(extra)
    return p


# --------------------------------------------------------------------------
# keccak


def keccak256(data: bytes) -> bytes:
    from Crypto.Hash import keccak

    return keccak.new(digest_bits=256, data=data).digest()


KECCAK_KAT = {
    b"": "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
    b"abc": "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45",
}


def check_keccak_kat():
    for msg, want in KECCAK_KAT.items():
        check(keccak256(msg).hex() == want, f"pycryptodome keccak256({msg!r}) known answer")
        check(ref_keccak.keccak256(msg).hex() == want, f"reference keccak256({msg!r}) known answer")


def private_key(base_seed: int, size: int, n: int):
    """Big-endian integer of seq(seed, size); if not in [1, n-1], seed += 2**32 and retry."""
    seed = base_seed
    while True:
        d = int.from_bytes(seq(seed, size), "big")
        if 1 <= d <= n - 1:
            return d, seed
        seed += 1 << 32
