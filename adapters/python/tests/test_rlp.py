"""rlp/{decode,encode}-generic/*: pyrlp against hand-made trees.

The expected encodings come from the EIP-155 example transaction and from a
small reference encoder written here (not pyrlp), so that the two agree
independently.
"""

from __future__ import annotations

import json

import dyno_protocol
import pytest
from conftest import corrupt, prepare

from dyno_adapter import registry, rlp_generic
from dyno_adapter.worker import ADAPTER

# EIP-155's example: nonce 9, gas price 20 gwei, gas 21000, to 0x3535..., 1 ether,
# no data, v = 37 (chain id 1), r, s.
EIP155_TX = (
    "0xf86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a764000080"
    "25a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703"
    "304b3800ccf555c9f3dc64214b297fb1966a3b6d83"
)
EIP155_TREE = [
    "0x09",
    "0x04a817c800",
    "0x5208",
    "0x" + "35" * 20,
    "0x0de0b6b3a7640000",
    "0x",
    "0x25",
    "0x28ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276",
    "0x67cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83",
]
EIP155_COUNTS = {"lists": 1, "strings": 9, "bytes": 1 + 5 + 2 + 20 + 8 + 0 + 1 + 32 + 32}

# Empty list and string, single bytes on both sides of 0x80, a 55/56-byte
# string boundary, nesting, and a list longer than 55 bytes.
NESTED_TREE = [
    [],
    "0x",
    "0x00",
    "0x7f",
    "0x80",
    ["0x" + "ab" * 55, ["0x" + "cd" * 56, []]],
    [["0x01"], [["0x02", "0x"]]],
    "0x" + "ef" * 1024,
]
NESTED_COUNTS = {
    # outer; []; [55, [56, []]] holds 3; [["0x01"], [["0x02", "0x"]]] holds 4
    "lists": 1 + 1 + 3 + 4,
    # "0x" "0x00" "0x7f" "0x80"; the 55- and 56-byte ones; 01 02 ""; the 1 KiB one
    "strings": 4 + 2 + 3 + 1,
    "bytes": 0 + 1 + 1 + 1 + 55 + 56 + 1 + 1 + 0 + 1024,
}


def ref_encode(tree) -> bytes:
    """Reference RLP encoder over the JSON form (hex strings, arrays)."""

    def prefix(n: int, offset: int) -> bytes:
        if n < 56:
            return bytes([offset + n])
        ln = n.to_bytes((n.bit_length() + 7) // 8, "big")
        return bytes([offset + 55 + len(ln)]) + ln

    if isinstance(tree, list):
        payload = b"".join(ref_encode(t) for t in tree)
        return prefix(len(payload), 0xC0) + payload
    b = bytes.fromhex(tree[2:])
    if len(b) == 1 and b[0] < 0x80:
        return b
    return prefix(len(b), 0x80) + b


def ref_digest(tree) -> str:
    """The tree digest of the case schema, written out over the JSON form:
    keccak-256 of the pre-order walk (0x80 || u32 BE length || bytes per
    string, 0xc0 || u32 BE count per list)."""
    from Crypto.Hash import keccak

    def walk(t) -> bytes:
        if isinstance(t, list):
            return b"\xc0" + len(t).to_bytes(4, "big") + b"".join(walk(x) for x in t)
        b = bytes.fromhex(t[2:])
        return b"\x80" + len(b).to_bytes(4, "big") + b

    return "0x" + keccak.new(digest_bits=256, data=walk(tree)).hexdigest()


EIP155_COUNTS["digest"] = ref_digest(EIP155_TREE)
NESTED_COUNTS["digest"] = ref_digest(NESTED_TREE)


def handle(msg: dict, state: dict) -> dict:
    return dyno_protocol.handle(json.dumps(msg).encode(), state, ADAPTER)


def decode_req(name: str, cases: list[tuple[str, dict]]) -> dict:
    return prepare(
        f"rlp/decode-generic/{name}",
        "pyrlp",
        [{"input": {"encoded": e}, "expected": dict(c)} for e, c in cases],
    )


def encode_req(name: str, trees: list) -> dict:
    return prepare(
        f"rlp/encode-generic/{name}",
        "pyrlp",
        [
            {"input": {"tree": t}, "expected": {"encoded": "0x" + ref_encode(t).hex()}}
            for t in trees
        ],
    )


def test_reference_encoder_matches_eip155():
    assert "0x" + ref_encode(EIP155_TREE).hex() == EIP155_TX


def test_hello_lists_the_18_ids_without_patterns():
    hello = handle({"type": "hello", "protocol": 1}, {})
    rlp_ids = sorted(
        b["id"]
        for b in hello["benchmarks"]
        if b["id"].startswith("rlp/") and b["implementation"] == "pyrlp"
    )
    assert (
        rlp_ids == sorted(rlp_generic.ids("decode") + rlp_generic.ids("encode"))
        and len(rlp_ids) == 18
    )
    assert not [p for p in hello["patterns"] if p["id"].startswith("rlp/")]
    assert hello["libraries"]["rlp"] == "5.0.0"


def test_decode_generic():
    nested = "0x" + ref_encode(NESTED_TREE).hex()
    req = decode_req("small-legacy-tx", [(EIP155_TX, EIP155_COUNTS), (nested, NESTED_COUNTS)])
    state: dict = {}
    reply = handle(req, state)
    assert reply == {
        "type": "prepared",
        "id": "rlp/decode-generic/small-legacy-tx",
        "cases": 2,
        "outputs": [EIP155_COUNTS, NESTED_COUNTS],
    }
    run = handle({"type": "run", "iterations": 5, "samples": 2}, state)
    assert run["type"] == "samples" and len(run["ns"]) == 2
    for case in (0, 1):
        bad, field = corrupt(req, case)
        reply = handle(bad, {})
        assert reply["type"] == "mismatch" and reply["case"] == case and reply["field"] == field


@pytest.mark.parametrize(
    ("expected", "field"),
    [
        ({"strings": 10}, "strings"),
        ({"bytes": 100}, "bytes"),
        ({"lists": 2}, "lists"),
        # the same counts, another tree: only the digest sees it
        ({"digest": ref_digest(["0x0a", *EIP155_TREE[1:]])}, "digest"),
    ],
)
def test_decode_generic_each_count_is_compared(expected, field):
    req = decode_req("tiny-account", [(EIP155_TX, dict(EIP155_COUNTS, **expected))])
    reply = handle(req, {})
    assert reply["type"] == "mismatch" and reply["field"] == field


def test_decode_generic_reencoding_mismatch(monkeypatch):
    # pyrlp's strict decoder rejects every non-canonical input, so a tree that
    # re-encodes differently needs an encoder that disagrees.
    import rlp

    req = decode_req("tiny-account", [(EIP155_TX, EIP155_COUNTS)])
    monkeypatch.setattr(rlp, "encode", lambda tree: b"\xc0")
    reply = handle(req, {})
    assert reply == {
        "type": "mismatch",
        "case": 0,
        "field": "encoded",
        "expected": EIP155_TX,
        "actual": "0xc0",
    }


@pytest.mark.parametrize(
    "encoded",
    [
        "0x8105",  # a single byte < 0x80 as a short string
        "0xc3830102",  # truncated
        "0xc0c0",  # trailing bytes
        "0xb8050102030405",  # long form for a short string
        "0x",  # nothing at all
    ],
)
def test_decode_generic_rejects_non_canonical(encoded):
    reply = handle(decode_req("tiny-account", [(encoded, EIP155_COUNTS)]), {})
    assert reply["type"] == "error" and reply["fatal"] is False


def test_decode_generic_single_byte_and_empty_list():
    req = decode_req(
        "tiny-account",
        [
            ("0x12", {"lists": 0, "strings": 1, "bytes": 1}),
            ("0xc0", {"lists": 1, "strings": 0, "bytes": 0}),
            ("0x80", {"lists": 0, "strings": 1, "bytes": 0}),
        ],
    )
    assert handle(req, {})["type"] == "prepared"


def test_encode_generic():
    req = encode_req("medium-body", [EIP155_TREE, NESTED_TREE, [], "0x", "0x7f", "0x" + "aa" * 60])
    assert req["cases"][0]["expected"]["encoded"] == EIP155_TX
    state: dict = {}
    reply = handle(req, state)
    assert reply["type"] == "prepared" and reply["cases"] == 6
    assert reply["outputs"] == [c["expected"] for c in req["cases"]]
    run = handle({"type": "run", "iterations": 7, "samples": 3}, state)
    assert run["type"] == "samples" and len(run["ns"]) == 3
    for case in (0, 1):
        bad, field = corrupt(req, case)
        reply = handle(bad, {})
        assert reply["type"] == "mismatch" and reply["case"] == case and reply["field"] == field


@pytest.mark.parametrize("tree", [["0x1"], [1], ["12"], {"a": "0x"}, [None]])
def test_encode_generic_rejects_bad_trees(tree):
    req = prepare(
        "rlp/encode-generic/tiny-account",
        "pyrlp",
        [{"input": {"tree": tree}, "expected": {"encoded": "0xc0"}}],
    )
    reply = handle(req, {})
    assert reply["type"] == "error" and reply["fatal"] is False


def test_unknown_rlp_input_is_an_error():
    assert registry.families()  # loaded
    req = decode_req("huge-body", [(EIP155_TX, EIP155_COUNTS)])
    reply = handle(req, {})
    assert reply["type"] == "error" and "unknown id" in reply["message"]
