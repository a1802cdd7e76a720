"""The example benchmark through the protocol loop, in-process."""

import json

import dyno_protocol

from adapter import ADAPTER

# SHA-256 of 32 zero bytes, from outside this code (FIPS 180-4; coreutils:
# `head -c 32 /dev/zero | sha256sum`).
ZEROS = "0x" + "00" * 32
DIGEST = "0x66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"


def handle(msg: dict, state: dict) -> dict:
    return dyno_protocol.handle(json.dumps(msg).encode(), state, ADAPTER)


def prepare(digest: str) -> dict:
    return {
        "type": "prepare",
        "id": "hash/sha256/32B",
        "implementation": "{{name}}-sha256",
        "cases": [{"input": {"data": ZEROS}, "expected": {"digest": digest}}],
    }


def test_sha256_is_checked_then_timed():
    state: dict = {}
    assert handle(prepare(DIGEST), state)["type"] == "prepared"
    reply = handle({"type": "run", "iterations": 100, "samples": 2}, state)
    assert reply["type"] == "samples" and len(reply["ns"]) == 2


def test_a_wrong_digest_is_a_mismatch():
    reply = handle(prepare("0x" + "00" * 32), {})
    assert reply["type"] == "mismatch" and reply["field"] == "digest"


def test_hello_offers_the_example_and_the_harness_ids():
    reply = handle({"type": "hello", "protocol": 1}, {})
    pairs = {(b["id"], b["implementation"]) for b in reply["benchmarks"]}
    assert ("hash/sha256/32B", "{{name}}-sha256") in pairs
    assert ("harness/sleep/1ms", "{{name}}-sleep") in pairs
