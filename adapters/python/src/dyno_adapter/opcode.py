"""opcode/<op>/<input>: one opcode's sequence run N times from EVM bytecode in py-evm.

The counterpart of crates/evm/src/opcode.rs (and the Go adapter's
internal/bench/opcode.go): a short, stack-neutral sequence around one
opcode, looped inside one call of a contract. dyno builds the program and
hands it over with the case (`code`), so every EVM runs the same bytes; the
calldata that runs exactly N sequences is the word N // unroll, the word
N % unroll, then `data`. It runs in py-evm's PragueVM, as one
`PragueComputation.apply_computation` (bytecode.py's `LoopCall`, calling no
precompile). One `run` sample is one call with N = `iterations`, so dyno
fits time against N: the slope is one sequence (and 1/unroll of a loop
turn), the intercept the call around the loops. The program returns one
word, the opcode run once more after the loops; prepare runs a turn of
each loop (N = unroll + 3) and dyno compares the word with the case's
expected output.
"""

from __future__ import annotations

from dyno_protocol import Bench, BenchError, Family, field, hexfield, tohex

from .bytecode import LoopCall

GROUP = "opcode"


class Program:
    """One case: the deployed program, its data, and its calldata per N."""

    __slots__ = ("call", "calldata", "data", "unroll")

    def __init__(self, call: LoopCall, data: bytes, unroll: int):
        self.call, self.data, self.unroll = call, data, unroll
        self.calldata: dict[int, bytes] = {}

    def with_n(self, n: int) -> bytes:
        d = self.calldata.get(n)
        if d is None:
            d = self.calldata[n] = calldata(self.unroll, self.data, n)
        return d


def calldata(unroll: int, data: bytes, n: int) -> bytes:
    """The calldata that runs exactly n sequences."""
    return (n // unroll).to_bytes(32, "big") + (n % unroll).to_bytes(32, "big") + data


def _make(id_: str) -> Bench:
    parts = id_.split("/")
    if len(parts) != 3 or parts[0] != GROUP:
        raise BenchError(f"unknown id {id_}")
    seen: list[Program] = []

    def parse(inp: dict) -> Program:
        if seen:
            raise BenchError("opcode mode runs one case (one program)")
        unroll = field(inp, "unroll")
        if not isinstance(unroll, int) or isinstance(unroll, bool) or unroll < 1:
            raise BenchError(f"field 'unroll': expected a positive integer, got {unroll!r}")
        p = Program(LoopCall(None, hexfield(inp, "code")), hexfield(inp, "data"), unroll)
        seen.append(p)
        return p

    def loop(p: Program, n: int) -> bytes:
        return p.call(p.with_n(n))

    def verify_call(p: Program) -> bytes:
        return loop(p, p.unroll + 3)  # a turn of each loop

    def encode(out: bytes, _inp: dict) -> dict:
        return {"output": tohex(out)}

    return Bench(parse, verify_call, encode, loop=loop)


def families() -> list[Family]:
    return [Family(f"{GROUP}/*/*", "py-evm", "py-evm", _make)]
