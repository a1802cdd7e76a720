"""jsonrpc/getlogs-raw/<n> and jsonrpc/getlogs-typed/<n>: CPython's json module.

raw:   json.loads the whole eth_getLogs response, count `result`.
typed: json.loads, then decode every log into a record (20-byte address,
       32-byte topics and hashes, byte data, integer quantities), then
       summarize the records as the case schema asks; the records' `digest`
       (every decoded field that matters) is computed at prepare, outside
       the timed loop.
"""

from __future__ import annotations

import json
from typing import NamedTuple

from dyno_protocol import Bench, BenchError, Family, field, tohex

SIZES = ("100", "1000", "5000")


class Log(NamedTuple):
    address: bytes
    topics: list[bytes]
    data: bytes
    block_number: int
    transaction_hash: bytes
    transaction_index: int
    block_hash: bytes
    block_timestamp: int | None
    log_index: int
    removed: bool


def _fixed(s: str, n: int) -> bytes:
    b = bytes.fromhex(s[2:])
    if len(b) != n or s[:2] != "0x":
        raise ValueError(f"expected {n} hex bytes, got {s[:20]!r}")
    return b


def _qty(s: str) -> int:
    if s[:2] != "0x":
        raise ValueError(f"bad quantity {s!r}")
    return int(s, 16)


def decode_log(o: dict) -> Log:
    ts = o.get("blockTimestamp")
    return Log(
        _fixed(o["address"], 20),
        [_fixed(t, 32) for t in o["topics"]],
        bytes.fromhex(o["data"][2:]),
        _qty(o["blockNumber"]),
        _fixed(o["transactionHash"], 32),
        _qty(o["transactionIndex"]),
        _fixed(o["blockHash"], 32),
        None if ts is None else _qty(ts),
        _qty(o["logIndex"]),
        bool(o.get("removed", False)),
    )


def raw(body: str) -> int:
    return len(json.loads(body)["result"])


def digest(logs: list[Log]) -> bytes:
    """keccak-256 over every record, in order: address || u32 BE topic count ||
    topics || u32 BE data length || data || u64 BE block number ||
    transaction hash || u64 BE log index (docs/adapter-protocol.md)."""
    from Crypto.Hash import keccak

    h = keccak.new(digest_bits=256)
    for log in logs:
        h.update(log.address + len(log.topics).to_bytes(4, "big") + b"".join(log.topics))
        h.update(len(log.data).to_bytes(4, "big") + log.data)
        h.update(log.block_number.to_bytes(8, "big") + log.transaction_hash)
        h.update(log.log_index.to_bytes(8, "big"))
    return h.digest()


def typed(body: str) -> tuple[int, int, int, bytes, int, list[Log]]:
    logs = [decode_log(o) for o in json.loads(body)["result"]]
    topics = 0
    data_bytes = 0
    for log in logs:
        topics += len(log.topics)
        data_bytes += len(log.data)
    last = logs[-1] if logs else None
    return (
        len(logs),
        topics,
        data_bytes,
        last.address if last else b"\x00" * 20,
        last.block_number if last else 0,
        logs,
    )


def _parse(inp: dict) -> str:
    body = field(inp, "body")
    if not isinstance(body, str):
        raise BenchError("field 'body': expected a JSON string")
    return body


def _make(id_: str) -> Bench:
    parts = id_.split("/")
    if len(parts) != 3 or parts[0] != "jsonrpc":
        raise BenchError(f"unknown id {id_}")
    if parts[1] == "getlogs-raw":
        return Bench(_parse, raw, lambda n, _inp: {"logs": n})
    if parts[1] == "getlogs-typed":

        def encode(s, _inp):
            return {
                "logs": s[0],
                "topics": s[1],
                "data_bytes": s[2],
                "last_address": tohex(s[3]),
                "last_block": s[4],
                "digest": tohex(digest(s[5])),
            }

        return Bench(_parse, typed, encode)
    raise BenchError(f"unknown id {id_}")


def families() -> list[Family]:
    return [
        Family(
            f"jsonrpc/{kind}/*",
            "python-json",
            "json",
            _make,
            tuple(f"jsonrpc/{kind}/{n}" for n in SIZES),
        )
        for kind in ("getlogs-raw", "getlogs-typed")
    ]
