"""What an implementation provides for one benchmark id, and the hex helpers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class BenchError(Exception):
    """The worker cannot run an id or parse an input: answered with `error`."""


def unhex(value: Any, field: str) -> bytes:
    if not isinstance(value, str) or not value.startswith("0x"):
        raise BenchError(f"field {field!r}: expected 0x-prefixed hex, got {value!r}")
    try:
        return bytes.fromhex(value[2:])
    except ValueError as e:
        raise BenchError(f"field {field!r}: bad hex: {e}") from None


def tohex(b: bytes) -> str:
    return "0x" + bytes(b).hex()


def field(obj: dict, name: str) -> Any:
    if not isinstance(obj, dict) or name not in obj:
        raise BenchError(f"missing input field {name!r}")
    return obj[name]


def hexfield(obj: dict, name: str) -> bytes:
    return unhex(field(obj, name), name)


@dataclass
class Bench:
    """A prepared-able benchmark.

    parse:  case input dict -> the op's single argument (native types; untimed)
    op:     the timed operation, one argument -> result
    encode: (result, input dict) -> output dict in the `expected` encoding (untimed)
    self_check: optional (output dict, input dict) -> bool, e.g. a signer's
            output verified with the library's own verify; False = mismatch
    compare: False for outputs that legitimately differ from `expected`
            (random-nonce signers): only self_check judges them then
    loop:   optional (argument, n) -> result running the operation n times in
            one call (bytecode mode: one EVM call with N = n); `run` then
            makes one such call per sample with n = iterations, and the case
            advances once per sample
    encode_expected: encode is called as (result, input dict, expected dict),
            for outputs only comparable through `expected` (a hash of it)
    check:  optional (result, input dict) -> None, or (field, expected, actual)
            for a mismatch the output fields cannot show (an RLP tree that
            does not re-encode to its input); checked before `expected`
    """

    parse: Callable[[dict], Any]
    op: Callable[[Any], Any]
    encode: Callable[[Any, dict], dict]
    self_check: Callable[[dict, dict], bool] | None = None
    compare: bool = True
    loop: Callable[[Any, int], Any] | None = None
    encode_expected: bool = False
    check: Callable[[Any, dict], tuple[str, Any, Any] | None] | None = None


@dataclass
class Family:
    """One (id pattern, implementation) pair as listed in hello."""

    pattern: str  # an exact id, or with `*` matching one path segment
    implementation: str
    library: str
    make: Callable[[str], Bench]  # id -> Bench (raises BenchError)
    explicit: tuple[str, ...] = ()  # concrete ids listed under `benchmarks`
    # False: a `*` pattern only routes prepare to `make` (which rejects ids
    # outside `explicit`); hello lists the explicit ids, not the pattern
    advertise_pattern: bool = True
