"""The ids every worker offers (docs/adapter-protocol.md, "The harness ids"):
`harness/noop/empty`, the identity operation, which measures the adapter's own
loop and call; `harness/sleep/1ms`, a 1 ms sleep per operation, against which
`dyno adapter check` compares the worker's clock with its own."""

from __future__ import annotations

import time

from dyno_protocol.spec import Bench, BenchError, Family, hexfield, tohex

NOOP = "harness/noop/empty"
SLEEP = "harness/sleep/1ms"


def identity(value):
    return value


def nap(value):
    time.sleep(0.001)
    return value


def _bench(id_: str, want: str, op) -> Bench:
    if id_ != want:
        raise BenchError(f"unknown id {id_}")
    return Bench(
        parse=lambda inp: hexfield(inp, "value"),
        op=op,
        encode=lambda out, _inp: {"value": tohex(out)},
    )


def families(prefix: str) -> list[Family]:
    """The harness ids under `<prefix>-noop` and `<prefix>-sleep`."""
    return [
        Family(NOOP, f"{prefix}-noop", "-", lambda i: _bench(i, NOOP, identity), (NOOP,)),
        Family(SLEEP, f"{prefix}-sleep", "-", lambda i: _bench(i, SLEEP, nap), (SLEEP,)),
    ]
