"""rlp/decode-generic/<input> and rlp/encode-generic/<input>: pyrlp (`rlp`).

decode: `rlp.decode(encoded)` without sedes (strict), giving pyrlp's generic
        tree: nested Python lists of `bytes`, the byte strings left as they
        are. The counts (`lists`, `strings`, `bytes`) and the tree's `digest`
        are taken from that tree at prepare, outside the timed loop; prepare
        also re-encodes the tree with `rlp.encode` and reports a mismatch on
        `encoded` when it differs.
encode: the JSON tree (hex strings and arrays) becomes nested lists of
        `bytes` at prepare; the timed op is `rlp.encode(tree)`.
"""

from __future__ import annotations

from typing import Any

from dyno_protocol import Bench, BenchError, Family, field, hexfield, tohex, unhex

INPUTS = (
    "tiny-account",
    "small-legacy-tx",
    "small-eip1559-tx",
    "small-header",
    "medium-receipts",
    "medium-body",
    "large-body",
    "large-receipts",
    "vlarge-body",
)
IMPLEMENTATION = "pyrlp"
LIBRARY = "rlp"


def counts(tree: Any) -> tuple[int, int, int]:
    """(lists, strings, bytes) over the whole tree, the outermost item included."""
    lists = strings = total = 0
    stack = [tree]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            lists += 1
            stack.extend(item)
        elif isinstance(item, bytes):
            strings += 1
            total += len(item)
        else:
            raise BenchError(f"decoded tree holds a {type(item).__name__}")
    return lists, strings, total


def digest(tree: Any) -> bytes:
    """keccak-256 over a pre-order walk of the tree: a byte string as
    0x80 || u32 BE length || bytes, a list as 0xc0 || u32 BE item count,
    then its items (docs/adapter-protocol.md)."""
    from Crypto.Hash import keccak

    h = keccak.new(digest_bits=256)
    stack = [tree]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            h.update(b"\xc0" + len(item).to_bytes(4, "big"))
            stack.extend(reversed(item))
        elif isinstance(item, bytes):
            h.update(b"\x80" + len(item).to_bytes(4, "big") + item)
        else:
            raise BenchError(f"decoded tree holds a {type(item).__name__}")
    return h.digest()


def native_tree(value: Any, path: str = "tree") -> Any:
    """The JSON tree as pyrlp's native one: a hex string -> bytes, an array -> list."""
    if isinstance(value, list):
        return [native_tree(v, f"{path}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, str):
        return unhex(value, path)
    raise BenchError(f"field {path!r}: expected a hex string or an array, got {value!r}")


def _decode_check(tree: Any, inp: dict) -> tuple[str, Any, Any] | None:
    """Untimed: the decoded tree must re-encode to the input."""
    import rlp

    encoded = hexfield(inp, "encoded")
    again = rlp.encode(tree)
    if again != encoded:
        return ("encoded", tohex(encoded), tohex(again))
    return None


def _decode_output(tree: Any, _inp: dict) -> dict:
    lists, strings, total = counts(tree)
    return {"lists": lists, "strings": strings, "bytes": total, "digest": tohex(digest(tree))}


def _make(id_: str) -> Bench:
    import rlp

    parts = id_.split("/")
    if len(parts) != 3 or parts[0] != "rlp" or parts[2] not in INPUTS:
        raise BenchError(f"unknown id {id_}")
    if parts[1] == "decode-generic":
        return Bench(
            parse=lambda inp: hexfield(inp, "encoded"),
            op=rlp.decode,
            encode=_decode_output,
            check=_decode_check,
        )
    if parts[1] == "encode-generic":
        return Bench(
            parse=lambda inp: native_tree(field(inp, "tree")),
            op=rlp.encode,
            encode=lambda out, _inp: {"encoded": tohex(out)},
        )
    raise BenchError(f"unknown id {id_}")


def ids(op: str) -> tuple[str, ...]:
    return tuple(f"rlp/{op}-generic/{name}" for name in INPUTS)


def families() -> list[Family]:
    # The nine ids of each op go under hello `benchmarks`; the pattern is not
    # advertised, and `_make` rejects any other input name.
    return [
        Family(
            f"rlp/{op}-generic/*",
            IMPLEMENTATION,
            LIBRARY,
            _make,
            ids(op),
            advertise_pattern=False,
        )
        for op in ("decode", "encode")
    ]
