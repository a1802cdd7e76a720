"""The generated state of dyno's `state` suite, version 1 (docs/state.md).

Every value is a Keccak-256 of a tag, so Python, Rust
(crates/state/src/shape.rs) and Go (the adapter's geth state) draw the same
state without sharing code:

    tag(name, x0, x1, ...) = keccak256(b"dyno-state/v1/" + name + b"/" + u64be(x0) + u64be(x1) ...)

Account i of a state of n accounts (0 <= i < n):
    h = tag("account", i); address = h[12:32]; nonce = u16be(h[0:2]);
    balance = u64be(h[2:10]) + 1 (never an empty account)
    a contract iff i % 10 == 0 (10%), code = 0x67 u64be(i) 0x50 0x5b*(i % 61) 0x00
    (PUSH8 i POP, i % 61 JUMPDESTs, STOP: 11-71 bytes, every one different)
Storage of contract i:
    i == 0 (the "token", standing for the few contracts that hold most of
    mainnet's storage): n // 8 slots
    otherwise k slots, k in 1..=1000 drawn from a Zipf law of exponent 2:
    weight(k) = 10**15 // k**2, u = u64be(tag("slots", i)[0:8]) % sum(weights),
    k = the least k whose cumulative weight exceeds u
    slot j (0 <= j < k): key = tag("slot", i, j), value = u128be(tag("value", i, j)[16:32]) | 1
Absent keys (the benchmarks' missing accounts and slots):
    tag("missing-account", m)[12:32] and tag("missing-slot", m)
"""

import bisect

VERSION = 1
CONTRACT_EVERY = 10
MAX_SLOTS = 1000
ZIPF_SCALE = 10**15


def u64be(x: int) -> bytes:
    return x.to_bytes(8, "big")


def tag(keccak, name: str, *xs: int) -> bytes:
    return keccak(b"dyno-state/v1/" + name.encode() + b"/" + b"".join(u64be(x) for x in xs))


_WEIGHTS = [ZIPF_SCALE // (k * k) for k in range(1, MAX_SLOTS + 1)]
_CUMULATIVE = []
_acc = 0
for _w in _WEIGHTS:
    _acc += _w
    _CUMULATIVE.append(_acc)
ZIPF_TOTAL = _acc


def account(keccak, i: int):
    """(address, nonce, balance) of account i."""
    h = tag(keccak, "account", i)
    return h[12:], int.from_bytes(h[0:2], "big"), int.from_bytes(h[2:10], "big") + 1


def is_contract(i: int) -> bool:
    return i % CONTRACT_EVERY == 0


def code(i: int) -> bytes:
    return b"\x67" + u64be(i) + b"\x50" + b"\x5b" * (i % 61) + b"\x00"


def slot_count(keccak, i: int, n: int) -> int:
    if i == 0:
        return n // 8
    u = int.from_bytes(tag(keccak, "slots", i)[0:8], "big") % ZIPF_TOTAL
    return bisect.bisect_right(_CUMULATIVE, u) + 1


def slot(keccak, i: int, j: int):
    """(key, value) of slot j of contract i."""
    value = int.from_bytes(tag(keccak, "value", i, j)[16:32], "big") | 1
    return tag(keccak, "slot", i, j), value
