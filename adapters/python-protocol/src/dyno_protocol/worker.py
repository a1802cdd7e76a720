"""The JSON Lines worker loop (docs/adapter-protocol.md, protocol 1).

`serve(adapter)` reads requests on stdin and writes one reply per request on
stdout; everything else a library prints goes to stderr.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from dyno_protocol import harness
from dyno_protocol.spec import BenchError, Family

PROTOCOL = 1


@dataclass
class Adapter:
    """What an adapter tells the library about itself.

    name, version: the adapter's own (`hello`'s `adapter`).
    prefix: names its harness implementations, `<prefix>-noop` and
        `<prefix>-sleep`; unique across adapters (e.g. `python`, `my-adapter`).
    families: returns its benchmarks (called once).
    libraries: returns library name -> version, for `hello`.
    flags: returns the runtime settings that affect timing, for `hello`
        (the library adds the interpreter's own).
    """

    name: str
    version: str
    prefix: str
    families: Callable[[], Sequence[Family]]
    libraries: Callable[[], dict[str, str]] = field(default=dict)
    flags: Callable[[], list[str]] = field(default=list)

    @cached_property
    def all_families(self) -> tuple[Family, ...]:
        return (*self.families(), *harness.families(self.prefix))


class Fatal(Exception):
    """Reply with a fatal error and exit."""


def matches(pattern: str, id_: str) -> bool:
    """`*` matches exactly one whole path segment."""
    p, i = pattern.split("/"), id_.split("/")
    return len(p) == len(i) and all(a == "*" or a == b for a, b in zip(p, i, strict=True))


def find(families: Sequence[Family], id_: str, implementation: str | None) -> Family:
    """The family that runs `id_` (as `implementation`, if given)."""
    for f in families:
        if matches(f.pattern, id_) and (
            implementation is None or f.implementation == implementation
        ):
            return f
    if implementation is None:
        raise BenchError(f"unknown id {id_}")
    raise BenchError(f"unknown id {id_} for implementation {implementation}")


# --- hello ------------------------------------------------------------------


def measured_clock_resolution_ns(reads: int = 20000) -> int:
    """Smallest non-zero difference between consecutive perf_counter_ns reads."""
    clock = time.perf_counter_ns
    best = None
    prev = clock()
    for _ in range(reads):
        now = clock()
        d = now - prev
        if d > 0 and (best is None or d < best):
            best = d
        prev = now
    return best or 1


def interpreter_flags() -> list[str]:
    flags = [
        f"PYTHONHASHSEED={os.environ.get('PYTHONHASHSEED', 'random')}",
        f"gc.enabled={gc.isenabled()}",
        "gc.threshold=" + ",".join(str(t) for t in gc.get_threshold()),
        f"optimize={sys.flags.optimize}",
    ]
    for name in ("PYTHONMALLOC", "PYTHONDEVMODE", "PYTHONOPTIMIZE"):
        if os.environ.get(name):
            flags.append(f"{name}={os.environ[name]}")
    for k, v in sorted(sys._xoptions.items()):
        flags.append(f"-X {k}" if v is True else f"-X {k}={v}")
    return flags


def hello(adapter: Adapter) -> dict:
    info = time.get_clock_info("perf_counter")
    benchmarks, patterns = [], []
    for f in adapter.all_families:
        for id_ in f.explicit:
            benchmarks.append({"id": id_, "implementation": f.implementation, "library": f.library})
        if "*" in f.pattern and f.advertise_pattern:
            patterns.append(
                {"id": f.pattern, "implementation": f.implementation, "library": f.library}
            )
    return {
        "type": "hello",
        "protocol": PROTOCOL,
        "runtime": {
            "name": "python",
            "version": f"{platform.python_implementation()} {platform.python_version()}",
            "implementation": platform.python_implementation(),
            "flags": interpreter_flags() + list(adapter.flags()),
        },
        "adapter": {"name": adapter.name, "version": adapter.version},
        "libraries": dict(adapter.libraries()),
        "clock": {
            "source": f"time.perf_counter_ns ({info.implementation}, "
            f"reported resolution {info.resolution * 1e9:g} ns)",
            "resolution_ns": measured_clock_resolution_ns(),
        },
        "jit": False,
        "benchmarks": benchmarks,
        "patterns": patterns,
    }


# --- prepare ------------------------------------------------------------------


def same(expected, actual) -> bool:
    if isinstance(expected, str) and isinstance(actual, str):
        return expected.lower() == actual.lower()
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    return expected == actual


class Current:
    """The prepared benchmark: op, parsed arguments, cycling position."""

    def __init__(self, op, args, loop=None):
        self.op = op
        self.args = args
        self.loop = loop
        self.pos = 0
        self.sink = None


def prepare(req: dict, state: dict, adapter: Adapter) -> dict:
    state["current"] = None
    id_ = req.get("id")
    if not isinstance(id_, str):
        raise BenchError("prepare: missing id")
    impl = req.get("implementation") or None  # absent or "": the first offering it
    cases = req.get("cases")
    if not isinstance(cases, list) or not cases:
        raise BenchError("prepare: cases must be a non-empty list")
    bench = find(adapter.all_families, id_, impl).make(id_)
    args = []
    for i, case in enumerate(cases):
        if not isinstance(case, dict) or not isinstance(case.get("input"), dict):
            raise BenchError(f"case {i}: missing input")
        try:
            args.append(bench.parse(case["input"]))
        except BenchError as e:
            raise BenchError(f"case {i}: {e}") from None
    outputs = []
    for i, (case, arg) in enumerate(zip(cases, args, strict=True)):
        try:
            result = bench.op(arg)
        except Exception as e:
            raise BenchError(f"case {i}: {id_} failed: {type(e).__name__}: {e}") from None
        expected = case.get("expected")
        if not isinstance(expected, dict):
            raise BenchError(f"case {i}: missing expected")
        if bench.check is not None:
            bad = bench.check(result, case["input"])
            if bad is not None:
                return mismatch(i, *bad)
        if bench.encode_expected:
            try:
                out = bench.encode(result, case["input"], expected)
            except BenchError as e:
                raise BenchError(f"case {i}: {e}") from None
        else:
            out = bench.encode(result, case["input"])
        outputs.append(out)
        if bench.self_check is not None and not bench.self_check(out, case["input"]):
            f = next(iter(out))
            return mismatch(i, f, expected.get(f), out[f])
        if bench.compare:
            for f, want in expected.items():
                got = out.get(f)
                if not same(want, got):
                    return mismatch(i, f, want, got)
    state["current"] = Current(bench.op, args, bench.loop)
    return {"type": "prepared", "id": id_, "cases": len(cases), "outputs": outputs}


def mismatch(case: int, field: str, expected, actual) -> dict:
    return {
        "type": "mismatch",
        "case": case,
        "field": field,
        "expected": expected,
        "actual": actual,
    }


# --- run ----------------------------------------------------------------------


class GcMeter:
    """Counts collections and their time through gc.callbacks."""

    def __init__(self):
        self.count = 0
        self.time_ns = 0
        self._start = 0

    def __call__(self, phase, _info):
        if phase == "start":
            self._start = time.perf_counter_ns()
        else:
            self.time_ns += time.perf_counter_ns() - self._start
            self.count += 1


def timed(op, args, pos, iterations, samples):
    """The measured loop: returns (ns list, next position, last output)."""
    clock = time.perf_counter_ns
    n = len(args)
    ns = []
    sink = None
    for _ in range(samples):
        i = pos
        t0 = clock()
        for _ in range(iterations):
            sink = op(args[i])
            i += 1
            if i == n:
                i = 0
        t1 = clock()
        ns.append(t1 - t0)
        pos = i
    return ns, pos, sink


def timed_loop(loop, args, pos, iterations, samples):
    """Bytecode mode: one call of `loop` with n = iterations per sample; the
    case advances once per sample. Returns (ns list, next position, last output)."""
    clock = time.perf_counter_ns
    n = len(args)
    ns = []
    sink = None
    for _ in range(samples):
        arg = args[pos]
        t0 = clock()
        sink = loop(arg, iterations)
        t1 = clock()
        ns.append(t1 - t0)
        pos += 1
        if pos == n:
            pos = 0
    return ns, pos, sink


def positive_int(req: dict, name: str) -> int:
    v = req.get(name)
    if not isinstance(v, int) or isinstance(v, bool) or v < 1:
        raise BenchError(f"run: {name} must be an integer >= 1, got {v!r}")
    return v


def run(req: dict, state: dict) -> dict:
    iterations = positive_int(req, "iterations")
    samples = positive_int(req, "samples")
    cur = state.get("current")
    if cur is None:
        raise BenchError("run before a successful prepare")
    meter = GcMeter()
    gc.callbacks.append(meter)
    try:
        if cur.loop is not None:
            ns, cur.pos, cur.sink = timed_loop(cur.loop, cur.args, cur.pos, iterations, samples)
        else:
            ns, cur.pos, cur.sink = timed(cur.op, cur.args, cur.pos, iterations, samples)
    finally:
        gc.callbacks.remove(meter)
    return {
        "type": "samples",
        "ns": ns,
        "gc": {"count": meter.count, "time_ns": meter.time_ns},
    }


# --- main loop ------------------------------------------------------------------


def handle(line: bytes, state: dict, adapter: Adapter) -> dict:
    """The reply to one request line; raises Fatal for one that is not JSON."""
    try:
        req = json.loads(line)
    except ValueError as e:
        raise Fatal(f"unparseable request: {e}") from None
    if not isinstance(req, dict):
        raise Fatal("request is not a JSON object")
    kind = req.get("type")
    try:
        if kind == "hello":
            return hello(adapter)
        if kind == "prepare":
            return prepare(req, state, adapter)
        if kind == "run":
            return run(req, state)
        raise BenchError(f"unknown request type {kind!r}")
    except BenchError as e:
        return {"type": "error", "message": str(e), "fatal": False}
    except Exception as e:  # a bug or a library failure: report, keep serving
        return {"type": "error", "message": f"{type(e).__name__}: {e}", "fatal": False}


def serve(adapter: Adapter) -> int:
    """Serve requests from stdin until it closes: the exit code."""
    # Protocol lines go to the original stdout; anything else that writes to
    # fd 1 or sys.stdout (a chatty library) ends up on stderr.
    proto = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    state: dict = {"current": None}

    def send(msg: dict) -> None:
        proto.write(json.dumps(msg, separators=(",", ":")) + "\n")
        proto.flush()

    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        try:
            reply = handle(line, state, adapter)
        except Fatal as e:
            send({"type": "error", "message": str(e), "fatal": True})
            return 1
        send(reply)
    return 0
