"""The protocol loop with a toy adapter: in-process, then as a process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import dyno_protocol
from dyno_protocol import Adapter, Bench, BenchError, Family, hexfield, tohex
from dyno_protocol.worker import hello

SRC = Path(__file__).resolve().parent.parent / "src"


def reverse_bench(id_: str) -> Bench:
    if id_ != "toy/reverse/4B":
        raise BenchError(f"unknown id {id_}")
    return Bench(
        parse=lambda inp: hexfield(inp, "data"),
        op=lambda b: b[::-1],
        encode=lambda out, _inp: {"data": tohex(out)},
    )


TOY = Adapter(
    name="toy-adapter",
    version="0.0.1",
    prefix="toy",
    families=lambda: [
        Family("toy/reverse/4B", "toy-reverse", "-", reverse_bench, ("toy/reverse/4B",))
    ],
    libraries=lambda: {"toylib": "1.2.3"},
    flags=lambda: ["TOY=1"],
)


def handle(msg: dict, state: dict) -> dict:
    return dyno_protocol.handle(json.dumps(msg).encode(), state, TOY)


def case(data: str, want: str) -> dict:
    return {"input": {"data": data}, "expected": {"data": want}}


def test_hello_lists_the_adapter_and_the_harness_ids():
    h = hello(TOY)
    assert h["protocol"] == dyno_protocol.PROTOCOL == 1
    assert h["adapter"] == {"name": "toy-adapter", "version": "0.0.1"}
    assert h["libraries"] == {"toylib": "1.2.3"}
    assert "TOY=1" in h["runtime"]["flags"]
    pairs = {(b["id"], b["implementation"]) for b in h["benchmarks"]}
    assert pairs == {
        ("toy/reverse/4B", "toy-reverse"),
        ("harness/noop/empty", "toy-noop"),
        ("harness/sleep/1ms", "toy-sleep"),
    }
    assert dyno_protocol.__version__.split(".")[0] == str(dyno_protocol.PROTOCOL)


def test_prepare_checks_every_output_then_runs():
    state: dict = {}
    req = {
        "type": "prepare",
        "id": "toy/reverse/4B",
        "implementation": "toy-reverse",
        "cases": [case("0x01020304", "0x04030201"), case("0xaabbccdd", "0xDDCCBBAA")],
    }
    reply = handle(req, state)
    assert reply == {
        "type": "prepared",
        "id": "toy/reverse/4B",
        "cases": 2,
        "outputs": [{"data": "0x04030201"}, {"data": "0xddccbbaa"}],
    }
    run = handle({"type": "run", "iterations": 5, "samples": 3}, state)
    assert run["type"] == "samples" and len(run["ns"]) == 3
    # a wrong expected value is a mismatch naming the case and field
    req["cases"][1] = case("0xaabbccdd", "0x00")
    bad = handle(req, state)
    assert bad == {
        "type": "mismatch",
        "case": 1,
        "field": "data",
        "expected": "0x00",
        "actual": "0xddccbbaa",
    }
    # and leaves nothing prepared
    assert handle({"type": "run", "iterations": 1, "samples": 1}, state)["type"] == "error"


def test_errors_are_replies_and_only_garbage_is_fatal():
    state: dict = {}
    unknown = handle(
        {"type": "prepare", "id": "toy/x/y", "implementation": "toy-reverse", "cases": []}, state
    )
    assert unknown["type"] == "error" and not unknown["fatal"]
    no_input = handle(
        {
            "type": "prepare",
            "id": "toy/reverse/4B",
            "implementation": "toy-reverse",
            "cases": [{"input": {}, "expected": {"data": "0x"}}],
        },
        state,
    )
    assert no_input["type"] == "error" and "data" in no_input["message"]
    assert handle({"type": "run", "iterations": 0, "samples": 1}, state)["type"] == "error"
    assert handle({"type": "nonsense"}, state)["type"] == "error"
    with pytest.raises(dyno_protocol.worker.Fatal):
        dyno_protocol.handle(b"{not json", state, TOY)


def test_the_sleep_takes_a_millisecond_per_operation():
    state: dict = {}
    noop = [{"input": {"value": "0x01"}, "expected": {"value": "0x01"}}]
    req = {
        "type": "prepare",
        "id": "harness/sleep/1ms",
        "implementation": "toy-sleep",
        "cases": noop,
    }
    assert handle(req, state)["type"] == "prepared"
    t0 = time.perf_counter_ns()
    ns = handle({"type": "run", "iterations": 5, "samples": 1}, state)["ns"][0]
    outside = time.perf_counter_ns() - t0
    assert 5_000_000 <= ns <= outside


WORKER = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {src!r})
    from dyno_protocol import Adapter, serve

    def families():
        print("a chatty library")  # must not reach stdout
        return []

    sys.exit(serve(Adapter(name="t", version="0", prefix="t", families=families)))
    """
)


def test_serve_keeps_stdout_for_replies_and_exits_on_garbage(tmp_path):
    script = tmp_path / "worker.py"
    script.write_text(WORKER.format(src=str(SRC)))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    p = subprocess.run(
        [sys.executable, str(script)],
        input=b'{"type":"hello","protocol":1}\n{not json\n{"type":"hello","protocol":1}\n',
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    lines = p.stdout.decode().splitlines()
    assert [json.loads(line)["type"] for line in lines] == ["hello", "error"], lines
    assert json.loads(lines[1])["fatal"] is True
    assert p.returncode == 1
    assert b"a chatty library" in p.stderr


def test_serve_exits_0_when_stdin_closes(tmp_path):
    script = tmp_path / "worker.py"
    script.write_text(WORKER.format(src=str(SRC)))
    p = subprocess.run(
        [sys.executable, str(script)], input=b"", capture_output=True, timeout=60, check=False
    )
    assert p.returncode == 0 and p.stdout == b""
