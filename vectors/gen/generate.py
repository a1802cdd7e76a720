#!/usr/bin/env python3
"""dyno test-vector generator.

Writes vectors/{hash,secp256k1,p256,p384,trie,opcode,db,rlp,state}.json.  Every value is computed
by an implementation independent of the Rust crates that dyno benchmarks and,
where possible, cross-checked inside this script by a second independent
implementation: any disagreement raises and nothing is written.

Usage (from the repository root, inside the venv described in
requirements.txt):

    python vectors/gen/generate.py [--out DIR] [--only NAME ...] [--fresh-random]

NAME is one of: hash, secp256k1, p256, p384, trie, opcode, db, rlp, state.  DIR defaults to vectors/.

Output is deterministic: no timestamps, sorted keys, fixed case order.  The one
inherently random value, the "random" ECDSA signature in p256/p384.json, is
taken over from the committed file (vectors/ next to this directory) when it
still verifies, under both cryptography and python-ecdsa, for the same key
and message; --fresh-random ignores the committed file and signs anew.
"""

import argparse
import hashlib
import os
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import ref_keccak  # noqa: E402
import ref_ripemd160  # noqa: E402
import ref_trie  # noqa: E402
import rlp_objects  # noqa: E402
import state_shape  # noqa: E402
from curves import gen_nist, gen_secp256k1  # noqa: E402
from provenance import (  # noqa: E402
    SPLITMIX_DEFINITION,
    KECCAK_KAT,
    CrossCheckError,  # noqa: F401 (the tests catch it as generate.CrossCheckError)
    check,
    check_keccak_kat,
    dumps,
    hx,
    int_hex,
    keccak256,
    lib,
    provenance,
)
from splitmix import KNOWN_ANSWER_SEED0, seq  # noqa: E402

VECTORS_DIR = HERE.parent
NAMES = ("hash", "secp256k1", "p256", "p384", "trie", "opcode", "db", "rlp", "state")

EMPTY_ROOT = bytes.fromhex("56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421")
KECCAK_EMPTY = bytes.fromhex("c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470")


# --------------------------------------------------------------------------
# hash.json

HASH_ALGORITHMS = ("keccak256", "sha256", "sha384", "sha512", "ripemd160", "blake2b512", "blake2s256")
HASH_LENGTHS = (1, 32, 1024, 102400)
HASH_CASES_PER_LEN = 8

HASH_KAT = {
    ("sha256", b"abc"): "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    ("sha384", b"abc"): "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed"
    "8086072ba1e7cc2358baeca134c825a7",
    ("sha512", b"abc"): "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
    "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
    ("ripemd160", b"abc"): "8eb208f7e05d987a9b044a8e98c6b087f15a0bfc",
    ("blake2b512", b"abc"): "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
    "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923",
    ("blake2s256", b"abc"): "508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982",
}


def _hash_impls():
    from Crypto.Hash import BLAKE2b, BLAKE2s, RIPEMD160, SHA256, SHA384, SHA512

    def hl_ripemd(d):
        try:
            return hashlib.new("ripemd160", d).digest()
        except ValueError:  # OpenSSL 3 without the legacy provider
            return None

    primary = {
        "keccak256": keccak256,
        "sha256": lambda d: hashlib.sha256(d).digest(),
        "sha384": lambda d: hashlib.sha384(d).digest(),
        "sha512": lambda d: hashlib.sha512(d).digest(),
        "ripemd160": lambda d: RIPEMD160.new(d).digest(),
        "blake2b512": lambda d: hashlib.blake2b(d, digest_size=64).digest(),
        "blake2s256": lambda d: hashlib.blake2s(d, digest_size=32).digest(),
    }
    secondary = {
        "keccak256": [ref_keccak.keccak256],
        "sha256": [lambda d: SHA256.new(d).digest()],
        "sha384": [lambda d: SHA384.new(d).digest()],
        "sha512": [lambda d: SHA512.new(d).digest()],
        "ripemd160": [ref_ripemd160.ripemd160, hl_ripemd],
        "blake2b512": [lambda d: BLAKE2b.new(data=d, digest_bits=512).digest()],
        "blake2s256": [lambda d: BLAKE2s.new(data=d, digest_bits=256).digest()],
    }
    return primary, secondary


def gen_hash(**_):
    primary, secondary = _hash_impls()
    check_keccak_kat()
    for (alg, msg), want in HASH_KAT.items():
        for fn in [primary[alg]] + secondary[alg]:
            got = fn(msg)
            if got is not None:
                check(got.hex() == want, f"{alg}({msg!r}) known answer")
    cases = []
    for alg in HASH_ALGORITHMS:
        for length in HASH_LENGTHS:
            for k in range(HASH_CASES_PER_LEN):
                seed = length * 1000 + k
                data = seq(seed, length)
                digest = primary[alg](data)
                for fn in secondary[alg]:
                    other = fn(data)
                    if other is not None:
                        check(other == digest, f"{alg} len={length} seed={seed}: implementations disagree")
                cases.append({"algorithm": alg, "len": length, "seed": seed, "digest": hx(digest)})
    prov = provenance(
        "hash",
        [lib("pycryptodome")],
        [
            "keccak256: pycryptodome Crypto.Hash.keccak (digest_bits=256) == pure-Python Keccak-f[1600] "
            "written from the specification (vectors/gen/ref_keccak.py), every case; both also checked "
            "against keccak256('') and keccak256('abc')",
            "sha256, sha384, sha512: CPython hashlib (OpenSSL) == pycryptodome, every case",
            "blake2b512, blake2s256: CPython hashlib (CPython's built-in BLAKE2) == pycryptodome, every case",
            "ripemd160: pycryptodome == pure-Python RIPEMD-160 written from the specification "
            "(vectors/gen/ref_ripemd160.py), every case; also == hashlib when the interpreter's OpenSSL "
            "provides ripemd160",
            "known answers for 'abc' checked for every algorithm and every implementation: " +
            ", ".join(f"{a}={v}" for (a, _), v in sorted(HASH_KAT.items())) +
            ", keccak256=" + KECCAK_KAT[b"abc"],
        ],
        "For algorithm A, length L in (1, 32, 1024, 102400) and k in 0..7: seed = L*1000 + k, "
        "input = seq(seed, L), digest = A(input). keccak256 is Ethereum's Keccak-256 (original "
        "Keccak padding, not SHA3-256); blake2b512 is unkeyed BLAKE2b with a 64-byte digest; "
        "blake2s256 is unkeyed BLAKE2s with a 32-byte digest. " + SPLITMIX_DEFINITION,
        with_openssl=True,
    )
    return {"provenance": prov, "cases": cases}


# --------------------------------------------------------------------------
# trie.json

ACCOUNT_COUNTS = (100, 1000, 10000, 100000)
STORAGE_SLOTS = (1000,)


def account(i: int):
    r = seq(0xACC00000 + i, 34)
    address = r[0:20]
    nonce = int.from_bytes(r[20:22], "little")
    balance = int.from_bytes(r[22:34], "big")
    if i % 8 == 0:
        storage_root, code_hash = seq(0x57000000 + i, 32), seq(0xC0DE0000 + i, 32)
    else:
        storage_root, code_hash = EMPTY_ROOT, KECCAK_EMPTY
    return address, nonce, balance, storage_root, code_hash


def storage_value(j: int) -> int:
    return int.from_bytes(seq(0x51070000 + j, 32), "big")


def _pytrie_roots(pairs, checkpoints):
    """Insert pairs in order into py-trie's HexaryTrie; return root after each checkpoint count."""
    from trie import HexaryTrie

    t = HexaryTrie(db={})
    check(t.root_hash == EMPTY_ROOT, "py-trie empty root")
    roots = {}
    for idx, (key, value) in enumerate(pairs, start=1):
        t[key] = value
        if idx in checkpoints:
            roots[idx] = t.root_hash
    # reading back a few values exercises the stored structure, not only the root
    for key, value in pairs[:: max(1, len(pairs) // 50)]:
        check(t[key] == value, "py-trie lookup mismatch")
    return roots


def gen_trie(account_counts=ACCOUNT_COUNTS, **_):
    import rlp
    from eth_hash import Keccak256
    from eth_hash.backends import pycryptodome as eth_hash_pycryptodome

    eth_keccak = Keccak256(eth_hash_pycryptodome)

    check_keccak_kat()
    check(eth_keccak(b"") == KECCAK_EMPTY, "eth-hash keccak256('') known answer")
    check(keccak256(ref_trie.rlp_encode(b"")) == EMPTY_ROOT, "empty root = keccak256(rlp(''))")
    check(ref_trie.trie_root([], keccak256) == EMPTY_ROOT, "reference empty root")
    timings = {}

    max_n = max(account_counts)
    pairs, seen = [], set()
    for i in range(max_n):
        address, nonce, balance, storage_root, code_hash = account(i)
        check(address not in seen, f"duplicate address at account {i}")
        seen.add(address)
        value = rlp.encode([nonce, balance, storage_root, code_hash])
        check(value == ref_trie.rlp_encode([nonce, balance, storage_root, code_hash]), f"account {i}: RLP differs")
        pairs.append((eth_keccak(address), value))
    if max_n:
        check(ref_keccak.keccak256(account(0)[0]) == pairs[0][0], "account key keccak")

    t0 = time.perf_counter()
    roots = _pytrie_roots(pairs, set(account_counts))
    timings["accounts_py_trie_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    accounts = []
    for n in account_counts:
        ref = ref_trie.trie_root(pairs[:n], keccak256)
        check(ref == roots[n], f"accounts N={n}: py-trie root {roots[n].hex()} != reference root {ref.hex()}")
        accounts.append({"count": n, "root": hx(roots[n])})
    timings["accounts_reference_s"] = time.perf_counter() - t0

    storage = []
    for slots in STORAGE_SLOTS:
        spairs = []
        for j in range(slots):
            value = storage_value(j)
            check(value != 0, f"slot {j}: zero value would be absent from the trie")
            enc = rlp.encode(value)
            check(enc == ref_trie.rlp_encode(value), f"slot {j}: RLP differs")
            spairs.append((eth_keccak(j.to_bytes(32, "big")), enc))
        root = _pytrie_roots(spairs, {slots})[slots]
        ref = ref_trie.trie_root(spairs, keccak256)
        check(ref == root, f"storage slots={slots}: py-trie root != reference root")
        storage.append({"slots": slots, "root": hx(root)})

    prov = provenance(
        "trie",
        [
            lib("trie", "py-trie HexaryTrie"),
            lib("rlp"),
            lib("eth-hash", "keccak256 through its pycryptodome backend"),
            lib("pycryptodome", "keccak256 for the reference root"),
        ],
        [
            "every root: py-trie HexaryTrie (incremental inserts in index order into an in-memory db) == "
            "an independent one-pass root computation over the sorted key set written from the Yellow "
            "Paper appendices B-D (vectors/gen/ref_trie.py, with its own RLP and hex-prefix encoders), "
            "for every account count and the storage trie",
            "every leaf value: rlp.encode == the reference RLP encoder",
            "keccak256 (eth-hash/pycryptodome) checked against a pure-Python Keccak (vectors/gen/ref_keccak.py) "
            "on known answers and an account key; empty_root == keccak256(rlp(''))",
        ],
        "Secure (hashed-key) Merkle-Patricia tries as in Ethereum state. Account i = 0..N-1 (the set "
        "for N is the first N accounts): r = seq(0xACC00000 + i, 34); address = r[0:20]; nonce = "
        "r[20:22] as a little-endian integer; balance = r[22:34] as a big-endian integer; if i % 8 == 0 "
        "(a contract) storage_root = seq(0x57000000 + i, 32) and code_hash = seq(0xC0DE0000 + i, 32), "
        "else storage_root = " + hx(EMPTY_ROOT) + " (EMPTY_ROOT) and code_hash = " + hx(KECCAK_EMPTY) +
        " (keccak256 of empty input); key = keccak256(address); value = RLP([nonce, balance, "
        "storage_root, code_hash]) with integers as minimal big-endian byte strings (0 is the empty "
        "string). Storage slot j = 0..slots-1: key = keccak256(j as 32-byte big-endian); value = "
        "RLP(int.from_bytes(seq(0x51070000 + j, 32), 'big')). root = keccak256 of the RLP of the "
        "root node (also when that RLP is shorter than 32 bytes). " + SPLITMIX_DEFINITION,
    )
    doc = {"provenance": prov, "empty_root": hx(EMPTY_ROOT), "accounts": accounts, "storage": storage}
    return doc, timings


# --------------------------------------------------------------------------
# EVM arithmetic opcodes


WORD = 1 << 256
OPCODE_OPERANDS = {"a": (0x0A, 32), "b": (0x0B, 16), "c": (0x0C, 25)}


def _signed(x: int) -> int:
    return x - WORD if x >> 255 else x


def _word(x: int) -> int:
    return x % WORD


def _sdiv(a: int, b: int) -> int:
    if b == 0:
        return 0
    sa, sb = _signed(a), _signed(b)
    q = abs(sa) // abs(sb)
    return _word(-q if (sa < 0) != (sb < 0) else q)


def _smod(a: int, b: int) -> int:
    if b == 0:
        return 0
    sa, sb = _signed(a), _signed(b)
    r = abs(sa) % abs(sb)
    return _word(-r if sa < 0 else r)


# The Yellow Paper's definitions (Appendix H), on Python integers. mu_s[0]
# is `a`, mu_s[1] is `b`, mu_s[2] is `c`.
ARITHMETIC = {
    "add": (2, lambda a, b, c: _word(a + b)),
    "mul": (2, lambda a, b, c: _word(a * b)),
    "sub": (2, lambda a, b, c: _word(a - b)),
    "div": (2, lambda a, b, c: 0 if b == 0 else a // b),
    "sdiv": (2, lambda a, b, c: _sdiv(a, b)),
    "mod": (2, lambda a, b, c: 0 if b == 0 else a % b),
    "smod": (2, lambda a, b, c: _smod(a, b)),
    "addmod": (3, lambda a, b, c: 0 if c == 0 else (a + b) % c),
    "mulmod": (3, lambda a, b, c: 0 if c == 0 else (a * b) % c),
    "exp": (2, lambda a, b, c: pow(a, b, WORD)),
    "shl": (2, lambda a, b, c: _word(b << a) if a < 256 else 0),
}


def gen_opcode(**_):
    operands = {k: int.from_bytes(seq(seed, n), "big") for k, (seed, n) in OPCODE_OPERANDS.items()}
    a, b, c = operands["a"], operands["b"], operands["c"]
    check(a >> 255 == 1, "operand a is negative as a signed word, so SDIV/SMOD take the signed path")
    cases = []
    for op, (arity, f) in ARITHMETIC.items():
        cases.append({"op": op, "arity": arity, "result": int_hex(f(a, b, c), 32)})
    # Spot checks of the signed definitions against hand-worked values.
    check(_sdiv(_word(-7), 2) == _word(-3), "SDIV rounds toward zero")
    check(_smod(_word(-7), 2) == _word(-1), "SMOD takes the dividend's sign")
    prov = provenance(
        "opcode",
        [{"name": "cpython int", "version": platform.python_version(), "note": "arbitrary-precision integers"}],
        ["revm (the EVM dyno runs) must return every result when dyno verifies the benchmark, before timing"],
        "operands a, b, c = big-endian integers of seq(0x0a, 32), seq(0x0b, 16), seq(0x0c, 25); "
        "result = the op applied to (a, b) or (a, b, c) as the Yellow Paper defines it, modulo 2^256; "
        "signed ops read words as two's complement. " + SPLITMIX_DEFINITION,
    )
    doc = {
        "provenance": prov,
        "operands": {k: int_hex(v, 32) for k, v in operands.items()},
        "cases": cases,
    }
    return doc


# --------------------------------------------------------------------------
# storage engines (docs/db.md): the key-value data set, version 1

DB_SIZES = (10_000, 1_000_000)


def u64_le(seed: int) -> int:
    return int.from_bytes(seq(seed, 8), "little")


def db_key(i: int) -> bytes:
    return keccak256(i.to_bytes(8, "little"))


def db_value(i: int) -> bytes:
    return seq(0xDB_8000_0000 + i, 100 + u64_le(0xDB_0000_0000 + i) % 501)


def db_access(j: int, n: int) -> int:
    return u64_le(0xDB_A000_0000 + j) % n


def db_write(j: int) -> bool:
    return u64_le(0xDB_B000_0000 + j) % 10 >= 8


def _db_set(n):
    keys = [db_key(i) for i in range(n)]
    check(len(set(keys)) == n, f"N={n}: duplicate keys")
    order = sorted(range(n), key=lambda i: keys[i])
    rank = {i: r for r, i in enumerate(order)}
    access = [db_access(j, n) for j in range(4 * 100)]
    iterate = []
    for j in range(4):
        r = rank[access[j]]
        run = order[r:r + 1000]
        iterate.append({
            "start": access[j],
            "count": len(run),
            "digest": hx(keccak256(b"".join(keys[i] + db_value(i) for i in run))),
            "first_key": hx(keys[run[0]]),
            "last_key": hx(keys[run[-1]]),
        })
    # the last keys in order: a scan from one of them stops at the end
    tail = order[-5:]
    batch = {}
    for k in (10, 100):
        batch[str(k)] = [hx(keccak256(b"".join(db_value(access[j * k + m]) for m in range(k)))) for j in range(4)]
    return {
        "keys": n,
        "access": access[:16],
        "batch_digests": batch,
        "iterate": iterate,
        "last_keys": [hx(keys[i]) for i in tail],
    }


def gen_db(db_sizes=DB_SIZES, **_):
    check_keccak_kat()
    check(ref_keccak.keccak256((0).to_bytes(8, "little")) == db_key(0), "key(0): pycryptodome == reference keccak")
    samples = [{"index": i, "key": hx(db_key(i)), "value": hx(db_value(i))} for i in (0, 1, 2, 999_999)]
    lengths = [len(db_value(i)) for i in range(100_000)]
    check(min(lengths) == 100 and max(lengths) == 600, f"value lengths {min(lengths)}..{max(lengths)}")
    values_digest = hx(keccak256(b"".join(db_value(i) for i in range(1000))))
    writes = [db_write(j) for j in range(4096)]
    prov = provenance(
        "db",
        [lib("pycryptodome", "keccak256")],
        [
            "keccak256 (pycryptodome) checked against a pure-Python Keccak (vectors/gen/ref_keccak.py) on known "
            "answers and on key(0)",
            "every data set's keys are distinct; value lengths over the first 100 000 indices span 100..600",
            "iterate digests come from a full sort of the data set's keys (Python's sorted on bytes)",
        ],
        "The storage engines' data set, version 1 (docs/db.md). Index i = 0..N-1: key(i) = keccak256(i as "
        "8 little-endian bytes); value(i) = seq(0xDB80000000 + i, 100 + u64_le(0xDB00000000 + i) % 501), "
        "where u64_le(s) is seq(s, 8) read as a little-endian integer. Access j (j = 0, 1, ...) picks "
        "index a(j) = u64_le(0xDBA0000000 + j) % N; in db/mixed/r80w20 access j writes if "
        "u64_le(0xDBB0000000 + j) % 10 >= 8, else reads. batch_digests[K][j] = keccak256 of value(a(jK)) .. "
        "value(a(jK+K-1)) concatenated. iterate[j]: the first 1000 pairs in key order from key(a(j)) "
        "inclusive; digest = keccak256 of key || value of each, concatenated in order. values_digest = "
        "keccak256(value(0) || ... || value(999)). " + SPLITMIX_DEFINITION,
    )
    doc = {
        "provenance": prov,
        "samples": samples,
        "values_digest_0_999": values_digest,
        "mixed_writes": sum(writes),
        "mixed_write_flags_0_31": writes[:32],
        "sets": [_db_set(n) for n in db_sizes],
    }
    return doc, {}

# --------------------------------------------------------------------------
# rlp: Ethereum objects and their encodings (the rlp suite's expected values)

# EIP-155's example: nonce 9, 20 gwei, 21000 gas, to 0x3535...35, 1 ether, chain 1, v = 37
EIP155_EXAMPLE = [9, 20 * 10**9, 21_000, b"\x35" * 20, 10**18, b"", 37,
                  0x28EF61340BD939BC2195FE537567866003E1A15D3C71FF63E1590620AA636276,
                  0x67CBE9D8997F761AECB703304B3800CCF555C9F3DC64214B297FB1966A3B6D83]
EIP155_SIGNED = bytes.fromhex(
    "f86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939"
    "bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb"
    "1966a3b6d83"
)
# Mainnet's block 0, the 15 fields of a Frontier header
GENESIS_HEADER = [
    bytes(32), rlp_objects.EMPTY_OMMERS, bytes(20),
    bytes.fromhex("d7f8974fb5ac78d9ac099b9ad5018bedc2ce0a72dad1827a1709da30580f0544"),
    rlp_objects.EMPTY_ROOT, rlp_objects.EMPTY_ROOT, bytes(256), 17_179_869_184, 0, 5000, 0, 0,
    bytes.fromhex("11bbe8db4e347b4e8c937c1c8370e4b5ed33adb3db69cbdb7a38e1e50b1b82fa"), bytes(32),
    bytes.fromhex("0000000000000042"),
]
GENESIS_HASH = bytes.fromhex("d4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3")


def gen_rlp(**_):
    import rlp

    check_keccak_kat()
    encoders = (("rlp", rlp.encode), ("ref", ref_trie.rlp_encode))
    for who, encode in encoders:
        check(encode(EIP155_EXAMPLE) == EIP155_SIGNED, f"EIP-155 example transaction under {who}")
        check(keccak256(encode(GENESIS_HEADER)) == GENESIS_HASH, f"mainnet genesis header hash under {who}")
    cases = []
    for name, seed, count, make in rlp_objects.INPUTS:
        for k in range(count):
            tree = make(rlp_objects.Rng(seed + k), keccak256)
            enc, ref = (rlp_objects.encoding(tree, e) for _, e in encoders)
            check(enc == ref, f"{name} case {k}: the rlp package and the Yellow Paper encoder differ")
            digest = keccak256(enc)
            if len(enc) <= 8192:
                check(ref_keccak.keccak256(enc) == digest, f"{name} case {k}: keccak256 implementations differ")
            cases.append({"input": name, "case": k, "seed": seed + k, "len": len(enc), "keccak256": hx(digest)})
    prov = provenance(
        "rlp",
        [lib("rlp", "encoding"), lib("pycryptodome", "keccak256")],
        [
            "every case encoded twice, byte-identical: by the rlp package (pyrlp) and by the Yellow Paper's "
            "Appendix B in vectors/gen/ref_trie.py",
            "keccak256 (pycryptodome) checked against a pure-Python Keccak (vectors/gen/ref_keccak.py) on known "
            "answers and on every encoding of 8 KiB or less",
            "the object layouts pinned to Ethereum's own examples under both encoders: EIP-155's example "
            "transaction encodes to the signed bytes the EIP gives, and mainnet's genesis header hashes to "
            "0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3",
            "shares no code with the libraries the rlp suite benchmarks (alloy-rlp, parity rlp), which are "
            "checked against this file before any timing",
        ],
        "Each case is one Ethereum object drawn from the SplitMix64 byte stream seq(seed, ...), fields read "
        "from consecutive bytes as vectors/gen/rlp_objects.py defines (the same draws as "
        "crates/micro/src/rlp/objects.rs); `len` and `keccak256` are the length and Keccak-256 of its RLP "
        "encoding. Typed (EIP-2718) transactions and receipts are in the network form that block bodies and "
        "receipt lists carry: an RLP string holding type || rlp(fields). " + SPLITMIX_DEFINITION,
    )
    return {"provenance": prov, "cases": cases}


# --------------------------------------------------------------------------
# state: the generated state of the state-access suite (vectors/gen/state_shape.py)

STATE_SIZES = (1000, 10000, 100000, 1000000, 10000000)


def state_root(n, storage_of, keccak=None):
    """State root of the generated state of n accounts, with its counts.

    storage_of(i, n) -> (storage root, slot count) of contract i.
    """
    import rlp

    keccak = keccak or keccak256
    pairs = []
    contracts = slots = code_bytes = 0
    for i in range(n):
        address, nonce, balance = state_shape.account(keccak, i)
        if state_shape.is_contract(i):
            code = state_shape.code(i)
            storage_root, k = storage_of(i, n)
            code_hash = keccak(code)
            contracts += 1
            slots += k
            code_bytes += len(code)
        else:
            storage_root, code_hash = EMPTY_ROOT, KECCAK_EMPTY
        pairs.append((keccak(address), rlp.encode([nonce, balance, storage_root, code_hash])))
    root = ref_trie.trie_root(pairs, keccak)
    return root, {"accounts": n, "contracts": contracts, "slots": slots, "code_bytes": code_bytes}


def storage_pairs(i, n, keccak=None):
    import rlp

    keccak = keccak or keccak256
    out = []
    for j in range(state_shape.slot_count(keccak, i, n)):
        key, value = state_shape.slot(keccak, i, j)
        out.append((keccak(key), rlp.encode(value)))
    return out


def gen_state(state_sizes=None):
    import rlp
    from trie import HexaryTrie

    state_sizes = state_sizes or STATE_SIZES
    check_keccak_kat()
    timings = {}
    # The Zipf table: the least and the greatest draw.
    check(state_shape.ZIPF_TOTAL > 0, "zipf table")
    cache = {}

    def storage_of(i, n):
        k = (i, n) if i == 0 else i
        if k not in cache:
            pairs = storage_pairs(i, n)
            cache[k] = (ref_trie.trie_root(pairs, keccak256), len(pairs))
        return cache[k]

    # Cross-check on the smallest size: py-trie's HexaryTrie, filled by inserts in account order
    # (storage tries too), against the one-pass reference root.
    small = min(state_sizes)
    t0 = time.perf_counter()
    accounts = HexaryTrie(db={})
    for i in range(small):
        address, nonce, balance = state_shape.account(keccak256, i)
        storage_root, code_hash = EMPTY_ROOT, KECCAK_EMPTY
        if state_shape.is_contract(i):
            st = HexaryTrie(db={})
            for key, value in storage_pairs(i, small):
                st[key] = value
            storage_root, code_hash = st.root_hash, keccak256(state_shape.code(i))
        value = rlp.encode([nonce, balance, storage_root, code_hash])
        check(value == ref_trie.rlp_encode([nonce, balance, storage_root, code_hash]), f"account {i}: RLP differs")
        accounts[keccak256(address)] = value
    check(ref_keccak.keccak256(state_shape.account(keccak256, 1)[0]) == keccak256(state_shape.account(keccak256, 1)[0]),
          "address keccak")
    timings["py_trie_cross_check_s"] = time.perf_counter() - t0

    sizes = []
    for n in sorted(state_sizes):
        t0 = time.perf_counter()
        root, counts = state_root(n, storage_of)
        if n == small:
            check(root == accounts.root_hash, f"state of {n}: reference root {root.hex()} != py-trie's")
        timings[f"root_{n}_s"] = time.perf_counter() - t0
        print(f"state of {n} accounts: root {root.hex()} in {timings[f'root_{n}_s']:.1f} s", flush=True)
        sizes.append({**counts, "root": hx(root)})

    prov = provenance(
        "state",
        [lib("rlp", "encoding"), lib("pycryptodome", "keccak256"), lib("trie", "py-trie HexaryTrie")],
        [
            f"the state of {small} accounts built twice, byte-identical root: by py-trie's HexaryTrie (inserts in "
            "account order, every storage trie too) and by the one-pass Yellow Paper root of vectors/gen/ref_trie.py",
            "every other size by the one-pass root; account and slot values RLP-encoded by pyrlp, checked against "
            "ref_trie's encoder on the cross-checked size",
            "shares no code with dyno's Rust generator (crates/state/src/shape.rs) or the Go adapter's, whose stores "
            "are checked against these roots before any timing",
        ],
        "The generated state of the state-access suite, version "
        f"{state_shape.VERSION}: " + " ".join(state_shape.__doc__.split("\n\n", 1)[1].split()),
    )
    return {"provenance": prov, "version": state_shape.VERSION, "sizes": sizes}, timings

# --------------------------------------------------------------------------


def generate(
    name, previous_dir=VECTORS_DIR, account_counts=ACCOUNT_COUNTS, db_sizes=DB_SIZES, state_sizes=None
):
    """Return (document, info) for one file."""
    if name == "hash":
        return gen_hash(), {}
    if name == "secp256k1":
        return gen_secp256k1(), {}
    if name in ("p256", "p384"):
        return gen_nist(name, previous_dir=previous_dir)
    if name == "trie":
        return gen_trie(account_counts=account_counts)
    if name == "opcode":
        return gen_opcode(), {}
    if name == "db":
        return gen_db(db_sizes=db_sizes)
    if name == "rlp":
        return gen_rlp(), {}
    if name == "state":
        return gen_state(state_sizes=state_sizes)
    raise ValueError(f"unknown vector file {name!r}")


def self_test():
    words = seq(0, 24)
    got = tuple(int.from_bytes(words[i:i + 8], "little") for i in range(0, 24, 8))
    check(got == KNOWN_ANSWER_SEED0, f"SplitMix64 known answer: {[hex(w) for w in got]}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(VECTORS_DIR), help="output directory (default: vectors/)")
    ap.add_argument("--only", nargs="+", choices=NAMES, metavar="NAME", help=f"subset of {', '.join(NAMES)}")
    ap.add_argument(
        "--fresh-random", action="store_true",
        help="do not take over the committed random P-256/P-384 signatures; sign anew",
    )
    args = ap.parse_args(argv)
    self_test()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    previous = None if args.fresh_random else VECTORS_DIR
    for name in args.only or NAMES:
        t0 = time.perf_counter()
        doc, info = generate(name, previous_dir=previous)
        text = dumps(doc)
        path = out / f"{name}.json"
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(text)
        os.replace(tmp, path)
        extra = "".join(f" {k}={v:.1f}" if isinstance(v, float) else f" {k}={v}" for k, v in info.items())
        print(f"{path}: {len(text)} bytes in {time.perf_counter() - t0:.1f} s{extra}", flush=True)


if __name__ == "__main__":
    main()
