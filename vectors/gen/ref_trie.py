"""Independent Merkle-Patricia trie root and RLP, from the Yellow Paper.

Appendix B (RLP), Appendix C (hex-prefix encoding) and Appendix D (modified
Merkle-Patricia trie) of the Ethereum Yellow Paper.  The root is computed in
one pass over the sorted key/value set (no database, no incremental updates),
which is a different algorithm from py-trie's incremental HexaryTrie.  Only
the hash function (keccak256) is shared; it is passed in.
"""


class Raw:
    """An already RLP-encoded item to be spliced into a list verbatim
    (a child node whose encoding is shorter than 32 bytes)."""

    __slots__ = ("enc",)

    def __init__(self, enc: bytes):
        self.enc = enc


def _len_prefix(n: int, offset: int) -> bytes:
    if n < 56:
        return bytes([offset + n])
    ln = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([offset + 55 + len(ln)]) + ln


def rlp_encode(item) -> bytes:
    if isinstance(item, Raw):
        return item.enc
    if isinstance(item, int):
        if item < 0:
            raise ValueError("negative integer")
        item = item.to_bytes((item.bit_length() + 7) // 8, "big") if item else b""
    if isinstance(item, (bytes, bytearray)):
        item = bytes(item)
        if len(item) == 1 and item[0] < 0x80:
            return item
        return _len_prefix(len(item), 0x80) + item
    if isinstance(item, (list, tuple)):
        body = b"".join(rlp_encode(x) for x in item)
        return _len_prefix(len(body), 0xC0) + body
    raise TypeError(type(item))


def hex_prefix(nibbles, leaf: bool) -> bytes:
    flag = 2 if leaf else 0
    if len(nibbles) % 2:
        nibs = [flag + 1] + list(nibbles)
    else:
        nibs = [flag, 0] + list(nibbles)
    return bytes(16 * nibs[i] + nibs[i + 1] for i in range(0, len(nibs), 2))


def _nibbles(key: bytes):
    out = []
    for b in key:
        out.append(b >> 4)
        out.append(b & 15)
    return tuple(out)


def trie_root(pairs, keccak) -> bytes:
    """Root hash of the trie holding `pairs` (iterable of (key, value) bytes)."""
    items = sorted((_nibbles(k), v) for k, v in pairs)
    for i in range(1, len(items)):
        if items[i][0] == items[i - 1][0]:
            raise ValueError("duplicate key")
    if not items:
        return keccak(rlp_encode(b""))

    def ref(encoded: bytes):
        # c(I, i) in the Yellow Paper: inline if shorter than 32 bytes.
        return Raw(encoded) if len(encoded) < 32 else keccak(encoded)

    def node(lo: int, hi: int, depth: int) -> bytes:
        # items[lo:hi] all share their first `depth` nibbles.
        first = items[lo][0]
        if hi - lo == 1:
            return rlp_encode([hex_prefix(first[depth:], True), items[lo][1]])
        last = items[hi - 1][0]  # sorted: common prefix of the range = that of first and last
        cp = depth
        while cp < len(first) and cp < len(last) and first[cp] == last[cp]:
            cp += 1
        if cp > depth:
            return rlp_encode([hex_prefix(first[depth:cp], False), ref(node(lo, hi, cp))])
        slots = [b""] * 17
        i = lo
        if len(items[i][0]) == depth:  # a key that ends here stores its value in the branch
            slots[16] = items[i][1]
            i += 1
        while i < hi:
            nib = items[i][0][depth]
            j = i
            while j < hi and items[j][0][depth] == nib:
                j += 1
            slots[nib] = ref(node(i, j, depth + 1))
            i = j
        return rlp_encode(slots)

    return keccak(node(0, len(items), 0))
