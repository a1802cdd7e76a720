"""End to end: the real worker (HOME/run) over pipes."""

from __future__ import annotations

import subprocess

from conftest import Worker, adapter_home, corrupt, hash_requests, secp256k1_requests


def test_protocol_session(worker):
    hello = worker.send({"type": "hello", "protocol": 1})
    assert hello["type"] == "hello" and hello["protocol"] == 1
    assert hello["runtime"]["name"] == "python" and hello["jit"] is False
    assert "PYTHONHASHSEED=0" in hello["runtime"]["flags"]
    assert "eth_hash.auto backend=pycryptodome" in hello["runtime"]["flags"]
    assert hello["clock"]["resolution_ns"] >= 1
    pairs = {(b["id"], b["implementation"]) for b in hello["benchmarks"]}
    assert ("harness/noop/empty", "python-noop") in pairs
    assert ("hash/keccak256/32B", "pycryptodome") in pairs
    assert ("crypto/secp256k1-sign/recid-direct", "eth-keys") in pairs
    patterns = {(p["id"], p["implementation"]) for p in hello["patterns"]}
    assert ("precompile/bn254-pairing/*", "py-ecc") in patterns
    assert ("precompile/kzg-point-evaluation/*", "ckzg") in patterns
    for lib in (
        "coincurve",
        "eth-keys",
        "eth-hash",
        "pycryptodome",
        "cryptography",
        "py-ecc",
        "ckzg",
    ):
        assert lib in hello["libraries"]

    # run before prepare
    reply = worker.send({"type": "run", "iterations": 1, "samples": 1})
    assert reply["type"] == "error" and reply["fatal"] is False

    req = hash_requests("keccak256", "pycryptodome")[1]  # 32B
    reply = worker.send(req)
    assert reply["type"] == "prepared" and reply["cases"] == len(req["cases"])
    assert [o["digest"] for o in reply["outputs"]] == [
        c["expected"]["digest"] for c in req["cases"]
    ]
    for iterations, samples in ((1, 1), (1000, 3), (7, 5)):
        reply = worker.send({"type": "run", "iterations": iterations, "samples": samples})
        assert reply["type"] == "samples"
        assert len(reply["ns"]) == samples
        assert all(isinstance(n, int) and n > 0 for n in reply["ns"])
        assert reply["gc"]["count"] >= 0 and reply["gc"]["time_ns"] >= 0

    bad, field = corrupt(req, case=2)
    reply = worker.send(bad)
    assert reply == {
        "type": "mismatch",
        "case": 2,
        "field": field,
        "expected": bad["cases"][2]["expected"][field],
        "actual": req["cases"][2]["expected"][field],
    }

    sign = secp256k1_requests("coincurve")[0]
    assert worker.send(sign)["type"] == "prepared"
    assert len(worker.send({"type": "run", "iterations": 10, "samples": 2})["ns"]) == 2

    reply = worker.send(
        {"type": "prepare", "id": "crypto/foo/bar", "implementation": "coincurve", "cases": []}
    )
    assert reply["type"] == "error" and reply["fatal"] is False
    reply = worker.send(
        {
            "type": "prepare",
            "id": "crypto/foo/bar",
            "implementation": "x",
            "cases": [{"input": {}, "expected": {}}],
        }
    )
    assert reply["type"] == "error" and "unknown id crypto/foo/bar" in reply["message"]

    # unknown fields are ignored
    reply = worker.send({"type": "hello", "protocol": 1, "future": {"x": 1}})
    assert reply["type"] == "hello"

    assert worker.close() == 0  # EOF -> exit 0


def test_unparseable_request_is_fatal():
    w = Worker()
    reply = w.send_raw("{not json")
    assert reply["type"] == "error" and reply["fatal"] is True
    assert w.proc.wait(10) != 0
    w.close()


def test_eof_right_away_exits_zero():
    run = adapter_home() / "run"
    proc = subprocess.run([str(run)], input="", capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0 and proc.stdout == ""
