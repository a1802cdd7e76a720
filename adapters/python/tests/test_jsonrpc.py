"""jsonrpc/getlogs-*: a small hand-made eth_getLogs response."""

from __future__ import annotations

import json

import dyno_protocol
from conftest import corrupt, prepare

from dyno_adapter.worker import ADAPTER

TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"


def log(i: int, block: int) -> dict:
    return {
        "address": "0x" + f"{i:02x}" * 20,
        "topics": [TRANSFER, "0x" + "00" * 12 + "11" * 20, "0x" + "00" * 12 + "22" * 20],
        "data": "0x" + "ab" * (32 + i),
        "blockNumber": hex(block),
        "transactionHash": "0x" + "33" * 32,
        "transactionIndex": "0x0",
        "blockHash": "0x" + "44" * 32,
        "blockTimestamp": "0x6553f100",
        "logIndex": hex(i),
        "removed": False,
    }


BODY = json.dumps({"jsonrpc": "2.0", "id": 1, "result": [log(1, 19_000_000), log(2, 19_000_001)]})


def ref_digest(logs: list[dict]) -> str:
    """The records digest of the case schema, written out over the JSON logs."""
    from Crypto.Hash import keccak

    b = lambda h: bytes.fromhex(h[2:])  # noqa: E731
    out = b""
    for o in logs:
        out += (
            b(o["address"])
            + len(o["topics"]).to_bytes(4, "big")
            + b"".join(b(t) for t in o["topics"])
        )
        out += len(b(o["data"])).to_bytes(4, "big") + b(o["data"])
        out += int(o["blockNumber"], 16).to_bytes(8, "big") + b(o["transactionHash"])
        out += int(o["logIndex"], 16).to_bytes(8, "big")
    return "0x" + keccak.new(digest_bits=256, data=out).hexdigest()


def handle(msg: dict, state: dict) -> dict:
    return dyno_protocol.handle(json.dumps(msg).encode(), state, ADAPTER)


def test_getlogs_raw():
    req = prepare(
        "jsonrpc/getlogs-raw/100",
        "python-json",
        [{"input": {"body": BODY}, "expected": {"logs": 2}}],
    )
    assert handle(req, {})["outputs"] == [{"logs": 2}]
    assert handle(corrupt(req)[0], {})["type"] == "mismatch"


def test_getlogs_typed():
    expected = {
        "logs": 2,
        "topics": 6,
        "data_bytes": 33 + 34,
        "last_address": "0x" + "02" * 20,
        "last_block": 19_000_001,
        "digest": ref_digest(json.loads(BODY)["result"]),
    }
    req = prepare(
        "jsonrpc/getlogs-typed/100",
        "python-json",
        [{"input": {"body": BODY}, "expected": expected}],
    )
    state: dict = {}
    assert handle(req, state)["outputs"] == [expected]
    assert handle({"type": "run", "iterations": 2, "samples": 1}, state)["type"] == "samples"
    assert handle(corrupt(req)[0], {})["type"] == "mismatch"


def test_getlogs_typed_a_changed_topic_is_a_digest_mismatch():
    # The same counts, addresses and blocks: only the digest sees the byte.
    other = json.loads(BODY)
    other["result"][0]["topics"][1] = "0x" + "00" * 12 + "12" * 20
    req = prepare(
        "jsonrpc/getlogs-typed/100",
        "python-json",
        [{"input": {"body": BODY}, "expected": {"logs": 2, "digest": ref_digest(other["result"])}}],
    )
    reply = handle(req, {})
    assert reply["type"] == "mismatch" and reply["field"] == "digest", reply


def test_getlogs_typed_rejects_a_short_address():
    bad = json.loads(BODY)
    bad["result"][0]["address"] = "0x1234"
    req = prepare(
        "jsonrpc/getlogs-typed/100",
        "python-json",
        [{"input": {"body": json.dumps(bad)}, "expected": {"logs": 2}}],
    )
    assert handle(req, {})["type"] == "error"
