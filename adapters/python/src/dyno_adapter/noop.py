"""harness/noop/empty: the identity op, the adapter's own loop and call cost."""

from __future__ import annotations

from dyno_adapter.spec import Bench, BenchError, Family, hexfield, tohex

NOOP = "harness/noop/empty"


def identity(value):
    return value


def _make(id_: str) -> Bench:
    if id_ != NOOP:
        raise BenchError(f"unknown id {id_}")
    return Bench(
        parse=lambda inp: hexfield(inp, "value"),
        op=identity,
        encode=lambda out, _inp: {"value": tohex(out)},
    )


def families() -> list[Family]:
    return [Family(NOOP, "python-noop", "-", _make, (NOOP,))]
