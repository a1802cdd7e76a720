"""Ethereum-shaped objects for dyno's RLP suite, drawn from the SplitMix64 stream.

The definition of every case in vectors/rlp.json. It follows, field by field
and draw by draw, the object generator of the Rust suite
(crates/micro/src/rlp/objects.rs), but shares no code with it and none with
the libraries the suite benchmarks (alloy-rlp, parity rlp): each object is
written here as the list the Yellow Paper and the EIPs define for it, and
encoded by an RLP encoder passed in (the `rlp` package, and the Yellow
Paper's Appendix B in ref_trie.py as a second opinion).

An object is a tree of ints, bytes, lists and `Typed` (an EIP-2718 typed
transaction or receipt: in a block body or a receipt list, and as an object
of its own here, it is an RLP string holding type || rlp(fields)).
"""

from splitmix import seq

GWEI = 10**9
PRAGUE_BLOCK = 22_431_084
PRAGUE_TIME = 1_746_612_311
GAS_PER_BLOB = 131_072
EMPTY_ROOT = bytes.fromhex("56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421")
KECCAK_EMPTY = bytes.fromhex("c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470")
EMPTY_OMMERS = bytes.fromhex("1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347")
# sha256 of nothing: the requests hash of a block without EIP-7685 requests
EMPTY_REQUESTS = bytes.fromhex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
EXTRA_DATA = (
    b"beaverbuild.org",
    b"Titan (titanbuilder.xyz)",
    b"rsync-builder.xyz",
    b"BuilderNet (Flashbots)",
    b"reth/v1.3.12/linux",
    b"",
)


class Typed:
    """An EIP-2718 envelope: `kind` || rlp(`fields`), carried as an RLP string."""

    __slots__ = ("kind", "fields")

    def __init__(self, kind: int, fields):
        self.kind = kind
        self.fields = fields


def to_item(tree, encode):
    """The tree with every `Typed` turned into its bytes under `encode`."""
    if isinstance(tree, Typed):
        return bytes([tree.kind]) + encode(to_item(tree.fields, encode))
    if isinstance(tree, list):
        return [to_item(x, encode) for x in tree]
    return tree


class Rng:
    """Consecutive bytes of seq(seed, ...), read as an object's fields."""

    def __init__(self, seed: int):
        self.seed = seed
        self.buf = seq(seed, 4096)
        self.pos = 0

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.buf):
            self.buf = seq(self.seed, max(2 * len(self.buf), self.pos + n))
        out = self.buf[self.pos:self.pos + n]
        self.pos += n
        return out

    def u64(self) -> int:
        return int.from_bytes(self.take(8), "little")

    def below(self, n: int) -> int:
        return self.u64() % n

    def range(self, lo: int, hi: int) -> int:
        return lo + self.below(hi - lo + 1)

    def percent(self, p: int) -> bool:
        return self.below(100) < p

    def address(self) -> bytes:
        return self.take(20)

    def b256(self) -> bytes:
        return self.take(32)

    def uint(self, max_bytes: int) -> int:
        return int.from_bytes(self.take(self.range(0, max_bytes)), "big")

    def gwei(self, lo: int, hi: int) -> int:
        return self.range(lo, hi) * GWEI + self.below(GWEI)

    def signature(self):
        """(y_parity, r, s) with s in the lower half of the range."""
        r = int.from_bytes(self.take(32), "big")
        s = bytearray(self.take(32))
        s[0] &= 0x7F
        return self.u64() & 1, r, int.from_bytes(s, "big")


def word(value: bytes) -> bytes:
    return bytes(32 - len(value)) + value


def minimal(v: int) -> bytes:
    return v.to_bytes((v.bit_length() + 7) // 8, "big")


class Call:
    def __init__(self, to, value, data, gas_limit, access_list):
        self.to, self.value, self.data, self.gas_limit, self.access_list = to, value, data, gas_limit, access_list


def eth_transfer(rng):
    return Call(rng.address(), rng.uint(9), b"", 21_000, [])


def erc20_transfer(rng, with_access_list, keccak):
    token = rng.address()
    data = keccak(b"transfer(address,uint256)")[:4] + word(rng.take(20)) + word(minimal(rng.uint(12)))
    access_list = [[token, [rng.b256(), rng.b256()]]] if with_access_list else []
    return Call(token, 0, data, rng.range(45_000, 80_000), access_list)


def contract_call(rng):
    to = rng.address()
    value = rng.uint(8) if rng.percent(30) else 0
    words = rng.range(2, 14)
    data = rng.take(4)
    for _ in range(words):
        kind = rng.below(4)
        if kind == 0:
            data += word(rng.take(20))
        elif kind == 1:
            data += word(rng.take(rng.range(1, 16)))
        elif kind == 2:
            data += rng.take(32)
        else:
            data += word(b"")
    access_list = []
    if rng.percent(25):
        for _ in range(rng.range(1, 3)):
            address = rng.address()
            access_list.append([address, [rng.b256() for _ in range(rng.below(4))]])
    return Call(to, value, data, rng.range(100_000, 600_000), access_list)


def calldata_heavy(rng):
    to = b"" if rng.percent(50) else rng.address()
    data = rng.take(rng.range(2048, 16 * 1024))
    return Call(to, 0, data, rng.range(1_000_000, 10_000_000), [])


def legacy(rng, call):
    """EIP-155 on chain 1: [nonce, gasPrice, gas, to, value, data, v, r, s], v = 37 + y_parity."""
    nonce = rng.below(100_000)
    gas_price = rng.gwei(1, 60)
    y, r, s = rng.signature()
    return [nonce, gas_price, call.gas_limit, call.to, call.value, call.data, 37 + y, r, s]


def eip1559(rng, call):
    """EIP-1559: 0x02 || rlp([chainId, nonce, maxPriorityFee, maxFee, gas, to, value, data,
    accessList, yParity, r, s])."""
    priority = rng.range(1, 3_000) * GWEI // 1000
    nonce = rng.below(100_000)
    max_fee = priority + rng.gwei(2, 80)
    y, r, s = rng.signature()
    return Typed(2, [1, nonce, priority, max_fee, call.gas_limit, call.to, call.value, call.data,
                     call.access_list, y, r, s])


def blob(rng):
    """EIP-4844 as a block carries it: 0x03 || rlp([chainId, nonce, maxPriorityFee, maxFee, gas,
    to, value, data, accessList, maxFeePerBlobGas, blobVersionedHashes, yParity, r, s])."""
    priority = rng.range(1, 3_000) * GWEI // 1000
    if rng.percent(50):
        data = b""
    else:
        data = rng.take(4)
        for _ in range(rng.range(1, 3)):
            data += word(rng.take(8))
    blobs = rng.range(1, 6)
    nonce = rng.below(1_000_000)
    gas_limit = rng.range(21_000, 100_000)
    max_fee = priority + rng.gwei(2, 80)
    to = rng.address()
    hashes = [b"\x01" + rng.take(32)[1:] for _ in range(blobs)]
    max_fee_per_blob_gas = rng.range(1, 20_000_000)
    access_list = [[rng.address(), [rng.b256()]]] if rng.percent(10) else []
    y, r, s = rng.signature()
    return Typed(3, [1, nonce, priority, max_fee, gas_limit, to, 0, data, access_list,
                     max_fee_per_blob_gas, hashes, y, r, s])


def account(rng, keccak=None):
    """A state-trie account: [nonce, balance, storageRoot, codeHash]."""
    if rng.percent(30):
        return [1, rng.uint(12), rng.b256(), rng.b256()]
    return [rng.below(5_000), rng.uint(12), EMPTY_ROOT, KECCAK_EMPTY]


def legacy_transfer(rng, keccak=None):
    return legacy(rng, eth_transfer(rng))


def erc20_transfer_eip1559(rng, keccak):
    return eip1559(rng, erc20_transfer(rng, True, keccak))


def block_tx(rng, keccak):
    kind = rng.below(100)
    if kind < 6:
        return legacy_transfer(rng)
    if kind < 12:
        call = contract_call(rng)
        call.access_list = []
        return legacy(rng, call)
    if kind < 30:
        return eip1559(rng, eth_transfer(rng))
    if kind < 60:
        with_access_list = rng.percent(20)
        return eip1559(rng, erc20_transfer(rng, with_access_list, keccak))
    if kind < 96:
        return eip1559(rng, contract_call(rng))
    return blob(rng)


def body(rng, keccak, txs, heavy_every=None):
    """A block body: [transactions, ommers, withdrawals], each withdrawal
    [index, validatorIndex, address, amount] (EIP-4895)."""
    transactions = []
    for i in range(txs):
        if heavy_every and i % heavy_every == heavy_every // 2:
            transactions.append(eip1559(rng, calldata_heavy(rng)))
        else:
            transactions.append(block_tx(rng, keccak))
    first_index = rng.range(80_000_000, 100_000_000)
    validator = rng.range(0, 1_900_000)
    withdrawals = []
    for index in range(first_index, first_index + 16):
        address = rng.address()
        if rng.percent(2):
            amount = 32_000_000_000 + rng.below(100_000_000)
        else:
            amount = rng.range(10_000_000, 25_000_000)
        withdrawals.append([index, validator, address, amount])
        validator += rng.range(1, 40)
    return [transactions, [], withdrawals]


def log(rng, keccak):
    """[address, topics, data]."""
    address = rng.address()
    kind = rng.below(100)
    if kind < 55:
        signature, indexed, words = "Transfer(address,address,uint256)", 2, 1
    elif kind < 65:
        signature, indexed, words = "Approval(address,address,uint256)", 2, 1
    elif kind < 85:
        signature, indexed, words = "Swap(address,address,int256,int256,uint160,uint128,int24)", 2, 5
    else:
        signature, indexed, words = "Sync(uint112,uint112)", 0, 2
    topics = [keccak(signature.encode())] + [word(rng.take(20)) for _ in range(indexed)]
    data = b"".join(word(rng.take(rng.range(4, 20))) for _ in range(words))
    return [address, topics, data]


def bloom(logs, keccak) -> bytes:
    """The Yellow Paper's M3:2048 over each log's address and topics."""
    out = bytearray(256)
    for address, topics, _ in logs:
        for x in [address] + topics:
            h = keccak(x)
            for i in (0, 2, 4):
                bit = ((h[i] << 8) | h[i + 1]) & 2047
                out[255 - bit // 8] |= 1 << (bit % 8)
    return bytes(out)


def receipts(rng, keccak, n):
    """A block's receipts, each [status, cumulativeGas, bloom, logs]; legacy
    ones bare, typed ones (2, 3) as EIP-2718 envelopes."""
    cumulative = 0
    out = []
    for _ in range(n):
        cumulative += rng.range(21_000, 250_000)
        success = not rng.percent(3)
        draw = rng.below(100)
        if not success or draw < 30:
            count = 0
        elif draw < 65:
            count = 1
        elif draw < 85:
            count = 2
        elif draw < 95:
            count = 3
        else:
            count = rng.range(4, 6)
        logs = [log(rng, keccak) for _ in range(count)]
        fields = [int(success), cumulative, bloom(logs, keccak), logs]
        kind = rng.below(100)
        out.append(fields if kind < 12 else Typed(2 if kind < 96 else 3, fields))
    return out


def header(rng, keccak=None):
    """A post-Prague header: the 21 fields up to requestsHash (EIP-7685)."""
    number = rng.range(PRAGUE_BLOCK, PRAGUE_BLOCK + 1_500_000)
    gas_limit = 36_000_000 if rng.percent(50) else 45_000_000
    parent = rng.b256()
    beneficiary = rng.address()
    state_root, tx_root, receipts_root = rng.b256(), rng.b256(), rng.b256()
    logs_bloom = rng.take(256)
    gas_used = rng.below(gas_limit + 1)
    timestamp = PRAGUE_TIME + 12 * (number - PRAGUE_BLOCK)
    extra = EXTRA_DATA[rng.below(len(EXTRA_DATA))]
    mix = rng.b256()
    base_fee = rng.range(100_000_000, 30_000_000_000)
    withdrawals_root = rng.b256()
    blob_gas_used = GAS_PER_BLOB * rng.below(10)
    excess_blob_gas = rng.below(40_000_000)
    beacon_root = rng.b256()
    requests = EMPTY_REQUESTS if rng.percent(80) else rng.b256()
    return [parent, EMPTY_OMMERS, beneficiary, state_root, tx_root, receipts_root, logs_bloom, 0, number,
            gas_limit, gas_used, timestamp, extra, mix, bytes(8), base_fee, withdrawals_root, blob_gas_used,
            excess_blob_gas, beacon_root, requests]


# (input id, first seed, cases, generator(rng, keccak)): case k is drawn from seq(seed + k, ...)
INPUTS = (
    ("tiny-account", 1000, 8, account),
    ("small-legacy-tx", 2000, 8, legacy_transfer),
    ("small-eip1559-tx", 3000, 8, erc20_transfer_eip1559),
    ("small-header", 4000, 8, header),
    ("medium-receipts", 5000, 4, lambda rng, k: receipts(rng, k, 10)),
    ("medium-body", 6000, 4, lambda rng, k: body(rng, k, 20)),
    ("large-body", 7000, 4, lambda rng, k: body(rng, k, 200)),
    ("large-receipts", 8000, 4, lambda rng, k: receipts(rng, k, 100)),
    ("vlarge-body", 9000, 2, lambda rng, k: body(rng, k, 1500, 150)),
)


def encoding(tree, encode) -> bytes:
    """An object's RLP under `encode`; a typed one in its network form (an RLP string)."""
    return encode(to_item(tree, encode))
