"""dyno's adapter protocol for Python: the worker loop, so an adapter is only
its benchmarks (docs/adapter-protocol.md, protocol 1).

An adapter lists its benchmarks as `Family` values, each making a `Bench`
(parse an input, the timed operation, encode its output), and calls
`serve(Adapter(...))` from its entry point. The library answers `hello`,
`prepare` and `run`, checks outputs, times the loop with
`time.perf_counter_ns`, offers `harness/noop/empty` and `harness/sleep/1ms`,
and keeps stdout for protocol lines only.

The major version is the protocol's: 1.x speaks protocol 1.
"""

from dyno_protocol.spec import Bench, BenchError, Family, field, hexfield, tohex, unhex
from dyno_protocol.worker import PROTOCOL, Adapter, find, handle, matches, same, serve

__version__ = "1.0.0"

__all__ = [
    "PROTOCOL",
    "Adapter",
    "Bench",
    "BenchError",
    "Family",
    "field",
    "find",
    "handle",
    "hexfield",
    "matches",
    "same",
    "serve",
    "tohex",
    "unhex",
]
