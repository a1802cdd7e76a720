"""SplitMix64 byte stream shared by every dyno implementation.

seq(seed, n): run SplitMix64 from state `seed`, emit each 64-bit output as
8 little-endian bytes, concatenate, and truncate to n bytes.  This must match
the Rust (and later Go/Java/Node) implementations byte for byte.
Known answer: seq(0, 24) read as three little-endian u64 words is
0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F.
"""

MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15


def seq(seed: int, n: int) -> bytes:
    out = bytearray()
    s = seed & MASK
    while len(out) < n:
        s = (s + GAMMA) & MASK
        z = s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        z ^= z >> 31
        out += z.to_bytes(8, "little")
    return bytes(out[:n])


KNOWN_ANSWER_SEED0 = (0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F)
