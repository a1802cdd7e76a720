"""Shared helpers: repo paths, SplitMix64 inputs, vector-built prepare requests."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ADAPTER = Path(__file__).resolve().parent.parent
REPO = ADAPTER.parent.parent
VECTORS = REPO / "vectors"
FIXTURE = REPO / "adapters" / "testdata" / "prepare.jsonl"

MASK = (1 << 64) - 1


def seq(seed: int, n: int) -> bytes:
    """SplitMix64 bytes (vectors/gen/splitmix.py)."""
    out = bytearray()
    s = seed & MASK
    while len(out) < n:
        s = (s + 0x9E3779B97F4A7C15) & MASK
        z = s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        z ^= z >> 31
        out += z.to_bytes(8, "little")
    return bytes(out[:n])


def vectors(name: str) -> dict:
    return json.loads((VECTORS / name).read_text())


SIZES = {1: "1B", 32: "32B", 1024: "1KiB", 102400: "100KiB"}


def hash_requests(alg: str, implementation: str) -> list[dict]:
    by_size: dict[int, list] = {}
    for c in vectors("hash.json")["cases"]:
        if c["algorithm"] == alg:
            case = {
                "input": {"data": "0x" + seq(c["seed"], c["len"]).hex()},
                "expected": {"digest": c["digest"]},
            }
            by_size.setdefault(c["len"], []).append(case)
    return [
        prepare(f"hash/{alg}/{SIZES[n]}", implementation, cases[:4])
        for n, cases in sorted(by_size.items())
    ]


def fixture_input(op: str, field: str):
    """`field` of the first case of the first bytecode-mode request for
    `op` in the fixture: what dyno hands the worker."""
    for line in FIXTURE.read_text().splitlines():
        if f'"precompile-bytecode/{op}/' not in line:
            continue
        value = json.loads(line)["cases"][0]["input"].get(field)
        if value is not None:
            return value
    raise AssertionError(f"no precompile-bytecode/{op} request with a {field} in {FIXTURE}")


def loop_code(op: str) -> str:
    """The loop program dyno hands the worker for bytecode-mode `op`, from a
    real prepare request in the fixture (dyno builds it; no adapter does)."""
    code = fixture_input(op, "code")
    assert isinstance(code, str), code
    return code


def address_of(op: str) -> int:
    """The precompile address dyno gives bytecode-mode `op`'s cases (from
    specs/gas/osaka.toml; no adapter keeps a table of them)."""
    address = fixture_input(op, "address")
    assert isinstance(address, int), address
    return address


def prepare(id_: str, implementation: str, cases: list[dict]) -> dict:
    return {"type": "prepare", "id": id_, "implementation": implementation, "cases": cases}


def secp256k1_requests(implementation: str) -> list[dict]:
    cs = vectors("secp256k1.json")["cases"][:6]
    return [
        prepare(
            "crypto/secp256k1-sign/recid-direct",
            implementation,
            [
                {
                    "input": {"private_key": c["private_key"], "message_hash": c["message_hash"]},
                    "expected": {"r": c["r"], "s": c["s"], "v": c["v"]},
                }
                for c in cs
            ],
        ),
        prepare(
            "crypto/secp256k1-verify/valid",
            implementation,
            [
                {
                    "input": {
                        "public_key": c["public_key"],
                        "message_hash": c["message_hash"],
                        "r": c["r"],
                        "s": c["s"],
                    },
                    "expected": {"valid": True},
                }
                for c in cs
            ],
        ),
        prepare(
            "crypto/secp256k1-recover/valid",
            implementation,
            [
                {
                    "input": {
                        "message_hash": c["message_hash"],
                        "r": c["r"],
                        "s": c["s"],
                        "v": c["v"],
                    },
                    "expected": {"public_key": c["public_key"]},
                }
                for c in cs
            ],
        ),
        prepare(
            "crypto/secp256k1-keygen/pubkey",
            implementation,
            [
                {
                    "input": {"private_key": c["private_key"]},
                    "expected": {"public_key": c["public_key"]},
                }
                for c in cs
            ],
        ),
    ]


def nist_requests(curve: str) -> list[dict]:
    cs = vectors(f"{curve}.json")["cases"][:4]
    return [
        prepare(
            f"crypto/{curve}-sign/32B",
            "cryptography",
            [
                {
                    "input": {
                        "private_key": c["private_key"],
                        "public_key": c["public_key"],
                        "message": c["message"],
                    },
                    "expected": c["rfc6979"],
                }
                for c in cs
            ],
        ),
        prepare(
            f"crypto/{curve}-verify/32B",
            "cryptography",
            [
                {
                    "input": {
                        "public_key": c["public_key"],
                        "message": c["message"],
                        "r": c[k]["r"],
                        "s": c[k]["s"],
                    },
                    "expected": {"valid": True},
                }
                for c in cs
                for k in ("rfc6979", "random")
            ],
        ),
    ]


def corrupt(req: dict, case: int = 0) -> tuple[dict, str]:
    """A copy of `req` whose case `case` has its first expected field changed."""
    req = json.loads(json.dumps(req))
    expected = req["cases"][case]["expected"]
    field = next(iter(expected))
    value = expected[field]
    if isinstance(value, bool):
        expected[field] = not value
    elif isinstance(value, int):
        expected[field] = value + 1
    else:
        last = value[-1]
        expected[field] = value[:-1] + ("0" if last != "0" else "1")
    return req, field


def adapter_home() -> Path:
    env = os.environ.get("DYNO_ADAPTER_HOME")
    if env:
        return Path(env)
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "dyno" / "adapters" / "python"


class Worker:
    """The real worker (HOME/run) over pipes."""

    def __init__(self):
        run = adapter_home() / "run"
        if not os.access(run, os.X_OK):
            pytest.fail(f"{run} missing: run adapters/python/setup first")
        self.proc = subprocess.Popen(
            [str(run)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def send_raw(self, line: str) -> dict:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline()
        assert reply.endswith("\n"), f"no reply line; stderr: {self.stderr_tail()}"
        return json.loads(reply)

    def send(self, msg: dict) -> dict:
        return self.send_raw(json.dumps(msg))

    def close(self, timeout: float = 10) -> int:
        assert self.proc.stdin
        self.proc.stdin.close()
        try:
            return self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self.proc.stdout.close()
            self.proc.stderr.close()

    def stderr_tail(self) -> str:
        if self.proc.poll() is None:
            return "(running)"
        return self.proc.stderr.read()[-2000:]


@pytest.fixture
def worker():
    w = Worker()
    yield w
    if w.proc.poll() is None:
        w.close()
