"""Pure-Python Keccak-256 (the original Keccak padding used by Ethereum).

Written directly from the Keccak reference (FIPS 202 sections 3.2 and the
pre-standard pad10*1 with domain bits 0x01).  The round constants and
rotation offsets are derived from their defining LFSR / walk rather than
copied as tables.  Used only as an independent cross-check of pycryptodome.
"""

_M64 = (1 << 64) - 1


def _rc_bit(t: int) -> int:
    # FIPS 202 Algorithm 5.
    if t % 255 == 0:
        return 1
    r = [1, 0, 0, 0, 0, 0, 0, 0]
    for _ in range(1, t % 255 + 1):
        r = [0] + r
        r[0] ^= r[8]
        r[4] ^= r[8]
        r[5] ^= r[8]
        r[6] ^= r[8]
        r = r[:8]
    return r[0]


def _round_constants():
    out = []
    for ir in range(24):
        rc = 0
        for j in range(7):
            rc |= _rc_bit(j + 7 * ir) << ((1 << j) - 1)
        out.append(rc)
    return out


def _rotations():
    rot = [0] * 25
    x, y = 1, 0
    for t in range(24):
        rot[x + 5 * y] = ((t + 1) * (t + 2) // 2) % 64
        x, y = y, (2 * x + 3 * y) % 5
    return rot


RC = _round_constants()
ROT = _rotations()
# pi: B[y, 2x+3y] = rot(A[x, y])
_PI = [(x + 5 * y, y + 5 * ((2 * x + 3 * y) % 5)) for x in range(5) for y in range(5)]


def _rol(v: int, n: int) -> int:
    n %= 64
    return ((v << n) | (v >> (64 - n))) & _M64 if n else v


def keccak_f1600(a):
    for rnd in range(24):
        c = [a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20] for x in range(5)]
        d = [c[(x - 1) % 5] ^ _rol(c[(x + 1) % 5], 1) for x in range(5)]
        a = [a[i] ^ d[i % 5] for i in range(25)]
        b = [0] * 25
        for src, dst in _PI:
            b[dst] = _rol(a[src], ROT[src])
        a = [
            b[i] ^ ((~b[5 * (i // 5) + (i % 5 + 1) % 5]) & b[5 * (i // 5) + (i % 5 + 2) % 5])
            for i in range(25)
        ]
        a[0] ^= RC[rnd]
    return a


def keccak256(data: bytes) -> bytes:
    rate = 136
    msg = bytearray(data)
    msg.append(0x01)
    while len(msg) % rate:
        msg.append(0)
    msg[-1] |= 0x80
    state = [0] * 25
    for off in range(0, len(msg), rate):
        block = msg[off:off + rate]
        for i in range(rate // 8):
            state[i] ^= int.from_bytes(block[8 * i:8 * i + 8], "little")
        state = keccak_f1600(state)
    return b"".join(state[i].to_bytes(8, "little") for i in range(4))
