"""precompile/<op>/<input>: EVM precompile semantics on top of Python libraries.

bn254-add / bn254-mul / bn254-pairing (0x06-0x08, Istanbul+ gas) on
py_ecc.optimized_bn128, kzg-point-evaluation (0x0a, EIP-4844) on ckzg, and
ecrecover (coincurve + pycryptodome keccak), sha256 / ripemd160 (hashlib),
p256verify (EIP-7951, cryptography) and modexp (CPython int pow, EIP-7823
bounds). blake2f is left out: py-evm's pure-Python compression takes minutes
for geth's 8,000,000-round vector.
The whole precompile (decode, checks, compute, encode) is the timed op; the
gas check is done once at prepare (a call given too little gas is an error;
modexp's EIP-7883 price is not computed, so modexp has no gas check).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from pathlib import Path

from dyno_protocol import Bench, BenchError, Family, field, hexfield, tohex


class PrecompileError(Exception):
    """The precompile call fails (invalid input): an EVM revert-all-gas."""


def _gas_of(op: str, data: bytes) -> int:
    if op == "bn254-add":
        return 150
    if op == "bn254-mul":
        return 6000
    if op == "bn254-pairing":
        return 45000 + 34000 * (len(data) // 192)
    if op == "kzg-point-evaluation":
        return 50000
    words = (len(data) + 31) // 32
    if op == "ecrecover":
        return 3000
    if op == "sha256":
        return 60 + 12 * words
    if op == "ripemd160":
        return 600 + 120 * words
    if op == "p256verify":
        return 6900
    if op == "modexp":
        return 0
    raise BenchError(f"unknown precompile {op}")


# --- bn254 (py-ecc) -----------------------------------------------------------


def bn254_ops():
    from py_ecc import optimized_bn128 as bn

    FQ, FQ2 = bn.FQ, bn.FQ2
    P = bn.field_modulus
    ORDER = bn.curve_order
    B, B2 = bn.b, bn.b2
    add, multiply, normalize = bn.add, bn.multiply, bn.normalize
    is_on_curve, is_inf = bn.is_on_curve, bn.is_inf
    INF1 = (FQ.one(), FQ.one(), FQ.zero())
    INF2 = (FQ2.one(), FQ2.one(), FQ2.zero())
    ONE12 = bn.FQ12.one()
    pairing, final_exp = bn.pairing, bn.final_exponentiate
    from_bytes = int.from_bytes

    def g1(buf: bytes, off: int):
        x = from_bytes(buf[off : off + 32], "big")
        y = from_bytes(buf[off + 32 : off + 64], "big")
        if x >= P or y >= P:
            raise PrecompileError("G1 coordinate not below the field modulus")
        if x == 0 and y == 0:
            return INF1
        pt = (FQ(x), FQ(y), FQ.one())
        if not is_on_curve(pt, B):
            raise PrecompileError("G1 point not on curve")
        return pt

    def g2(buf: bytes, off: int):
        # EVM order: x.imag, x.real, y.imag, y.real
        xi, xr, yi, yr = (from_bytes(buf[off + k : off + k + 32], "big") for k in (0, 32, 64, 96))
        if xi >= P or xr >= P or yi >= P or yr >= P:
            raise PrecompileError("G2 coordinate not below the field modulus")
        if xi == 0 and xr == 0 and yi == 0 and yr == 0:
            return INF2
        pt = (FQ2([xr, xi]), FQ2([yr, yi]), FQ2.one())
        if not is_on_curve(pt, B2):
            raise PrecompileError("G2 point not on curve")
        if not is_inf(multiply(pt, ORDER)):
            raise PrecompileError("G2 point not in the r-torsion subgroup")
        return pt

    def encode_g1(pt) -> bytes:
        x, y = normalize(pt)  # infinity normalizes to (0, 0)
        return x.n.to_bytes(32, "big") + y.n.to_bytes(32, "big")

    def ec_add(data: bytes) -> bytes:
        buf = data[:128].ljust(128, b"\x00")
        return encode_g1(add(g1(buf, 0), g1(buf, 64)))

    def ec_mul(data: bytes) -> bytes:
        buf = data[:96].ljust(96, b"\x00")
        return encode_g1(multiply(g1(buf, 0), from_bytes(buf[64:96], "big")))

    def ec_pairing(data: bytes) -> bytes:
        if len(data) % 192:
            raise PrecompileError("pairing input length not a multiple of 192")
        acc = ONE12
        for off in range(0, len(data), 192):
            p1 = g1(data, off)
            q2 = g2(data, off + 64)
            if is_inf(p1) or is_inf(q2):
                continue
            acc = acc * pairing(q2, p1, final_exponentiate=False)
        ok = final_exp(acc) == ONE12
        return b"\x00" * 31 + (b"\x01" if ok else b"\x00")

    return {"bn254-add": ec_add, "bn254-mul": ec_mul, "bn254-pairing": ec_pairing}


# --- kzg point evaluation (ckzg) ------------------------------------------------

FIELD_ELEMENTS_PER_BLOB = 4096
BLS_MODULUS = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
# sha256 of the mainnet KZG ceremony output in c-kzg's text format
MAINNET_SETUP_SHA256 = "d39b9f2d047cc9dca2de58f264b6a09448ccd34db967881a6713eacacf0f26b7"
_trusted_setup = None


def trusted_setup_path() -> Path:
    """The mainnet trusted setup: $DYNO_KZG_TRUSTED_SETUP, else the copy that
    the py-evm wheel ships (eth/_utils/kzg_trusted_setup.txt); ckzg 2.x's
    wheel ships none."""
    env = os.environ.get("DYNO_KZG_TRUSTED_SETUP")
    if env:
        return Path(env)
    spec = importlib.util.find_spec("eth")  # does not import py-evm
    if spec is None or not spec.submodule_search_locations:
        raise BenchError("no KZG trusted setup: py-evm is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "_utils" / "kzg_trusted_setup.txt"


def trusted_setup():
    global _trusted_setup
    if _trusted_setup is None:
        import ckzg

        path = trusted_setup_path()
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError as e:
            raise BenchError(f"KZG trusted setup: {e}") from None
        if digest != MAINNET_SETUP_SHA256:
            raise BenchError(f"KZG trusted setup {path} is not the mainnet one")
        _trusted_setup = ckzg.load_trusted_setup(str(path), 0)
    return _trusted_setup


def kzg_op():
    import ckzg

    ts = trusted_setup()
    verify = ckzg.verify_kzg_proof
    sha256 = hashlib.sha256
    result = FIELD_ELEMENTS_PER_BLOB.to_bytes(32, "big") + BLS_MODULUS.to_bytes(32, "big")

    def point_evaluation(data: bytes) -> bytes:
        if len(data) != 192:
            raise PrecompileError("point evaluation input is not 192 bytes")
        commitment = data[96:144]
        if b"\x01" + sha256(commitment).digest()[1:] != data[:32]:
            raise PrecompileError("commitment does not match the versioned hash")
        try:
            ok = verify(commitment, data[32:64], data[64:96], data[144:192], ts)
        except Exception as e:  # ckzg raises on malformed field elements/points
            raise PrecompileError(f"KZG proof rejected: {e}") from None
        if not ok:
            raise PrecompileError("KZG proof verification failed")
        return result

    return point_evaluation


# --- the other precompiles ---------------------------------------------------------


SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
P256_N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
P256_P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF


def ecrecover_op():
    """0x01: an invalid signature or key is an empty output, not a failure."""
    from coincurve import PublicKey
    from Crypto.Hash import keccak

    from_sig = PublicKey.from_signature_and_message
    new = keccak.new
    from_bytes = int.from_bytes
    zero31 = b"\x00" * 31
    n = SECP256K1_N

    def ecrecover(data: bytes) -> bytes:
        buf = data[:128].ljust(128, b"\x00")
        if buf[32:63] != zero31 or buf[63] not in (27, 28):
            return b""
        r = from_bytes(buf[64:96], "big")
        s = from_bytes(buf[96:128], "big")
        if not (0 < r < n and 0 < s < n):
            return b""
        try:
            pub = from_sig(buf[64:128] + bytes([buf[63] - 27]), buf[:32], hasher=None)
        except Exception:  # coincurve: no key recovers from this signature
            return b""
        digest = new(data=pub.format(compressed=False)[1:], digest_bits=256).digest()
        return b"\x00" * 12 + digest[12:]

    return ecrecover


def sha256_op():
    import hashlib

    sha256 = hashlib.sha256

    def op(data: bytes) -> bytes:
        return sha256(data).digest()

    return op


def ripemd160_op():
    import hashlib

    new = hashlib.new

    def op(data: bytes) -> bytes:
        return b"\x00" * 12 + new("ripemd160", data).digest()

    return op


def p256verify_op():
    """EIP-7951: 32-byte 1 on success, empty output on any failure."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import (
        Prehashed,
        encode_dss_signature,
    )

    curve = ec.SECP256R1()
    algorithm = ec.ECDSA(Prehashed(hashes.SHA256()))
    from_point = ec.EllipticCurvePublicKey.from_encoded_point
    from_bytes = int.from_bytes
    ok = b"\x00" * 31 + b"\x01"

    def p256verify(data: bytes) -> bytes:
        if len(data) != 160:
            return b""
        r = from_bytes(data[32:64], "big")
        s = from_bytes(data[64:96], "big")
        if not (0 < r < P256_N and 0 < s < P256_N):
            return b""
        if from_bytes(data[96:128], "big") >= P256_P or from_bytes(data[128:], "big") >= P256_P:
            return b""
        try:
            key = from_point(curve, b"\x04" + data[96:160])
            key.verify(encode_dss_signature(r, s), data[:32], algorithm)
        except (ValueError, InvalidSignature):  # off-curve / infinity key, bad signature
            return b""
        return ok

    return p256verify


def modexp_op():
    """0x05 (EIP-198 with EIP-7823's 1024-byte bounds)."""
    from_bytes = int.from_bytes

    def modexp(data: bytes) -> bytes:
        head = data[:96].ljust(96, b"\x00")
        blen = from_bytes(head[:32], "big")
        elen = from_bytes(head[32:64], "big")
        mlen = from_bytes(head[64:96], "big")
        if blen > 1024 or elen > 1024 or mlen > 1024:
            raise PrecompileError("modexp operand longer than 1024 bytes (EIP-7823)")
        body = data[96 : 96 + blen + elen + mlen].ljust(blen + elen + mlen, b"\x00")
        if mlen == 0:
            return b""
        base = from_bytes(body[:blen], "big")
        exp = from_bytes(body[blen : blen + elen], "big")
        mod = from_bytes(body[blen + elen :], "big")
        if mod == 0:
            return b"\x00" * mlen
        return pow(base, exp, mod).to_bytes(mlen, "big")

    return modexp


# library, implementation, op factory of each precompile
OTHERS = {
    "ecrecover": ("coincurve", "coincurve", ecrecover_op),
    "sha256": ("hashlib", "hashlib", sha256_op),
    "ripemd160": ("hashlib", "hashlib", ripemd160_op),
    "p256verify": ("cryptography", "cryptography", p256verify_op),
    "modexp": ("-", "python-int", modexp_op),
}


# --- families -----------------------------------------------------------------


def _make(id_: str) -> Bench:
    parts = id_.split("/")
    if len(parts) != 3 or parts[0] != "precompile":
        raise BenchError(f"unknown id {id_}")
    name = parts[1]
    if name == "kzg-point-evaluation":
        fn = kzg_op()
    elif name in ("bn254-add", "bn254-mul", "bn254-pairing"):
        fn = bn254_ops()[name]
    elif name in OTHERS:
        fn = OTHERS[name][2]()
    else:
        raise BenchError(f"unknown id {id_}")

    def parse(inp):
        data = hexfield(inp, "input")
        gas = field(inp, "gas")
        if not isinstance(gas, int) or isinstance(gas, bool):
            raise BenchError(f"field 'gas': expected a number, got {gas!r}")
        need = _gas_of(name, data)
        if gas < need:
            raise BenchError(f"{name}: out of gas (given {gas}, needs {need})")
        return data

    def encode(out, _inp):
        return {"output": tohex(out)}

    return Bench(parse, fn, encode)


def families() -> list[Family]:
    return [
        Family("precompile/bn254-add/*", "py-ecc", "py-ecc", _make),
        Family("precompile/bn254-mul/*", "py-ecc", "py-ecc", _make),
        Family("precompile/bn254-pairing/*", "py-ecc", "py-ecc", _make),
        Family("precompile/kzg-point-evaluation/*", "ckzg", "ckzg", _make),
    ] + [
        Family(f"precompile/{name}/*", impl, lib, _make)
        for name, (lib, impl, _) in OTHERS.items()
        if name != "ripemd160" or _hashlib_has_ripemd160()
    ]


def _hashlib_has_ripemd160() -> bool:
    from dyno_adapter.hashes import hashlib_has_ripemd160

    return hashlib_has_ripemd160()
