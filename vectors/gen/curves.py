"""secp256k1.json, p256.json and p384.json: ECDSA keys, signatures and
recoveries, each computed by one library and checked by another."""

import hashlib
import json
from pathlib import Path

import ref_keccak
from provenance import (
    SPLITMIX_DEFINITION,
    check,
    check_keccak_kat,
    hx,
    int_hex,
    keccak256,
    lib,
    private_key,
    provenance,
)
from splitmix import seq

# --------------------------------------------------------------------------
# secp256k1.json

SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
SECP256K1_CASES = 16


def gen_secp256k1(**_):
    import coincurve
    import ecdsa
    from ecdsa.util import sigdecode_string
    from eth_keys.backends import NativeECCBackend
    from eth_keys.datatypes import PrivateKey as EthPrivateKey

    check_keccak_kat()
    # eth-keys picks coincurve as its default backend when coincurve is installed, and
    # KeyAPI(backend).PrivateKey does NOT carry that backend: pass it explicitly everywhere.
    native = NativeECCBackend()

    def native_key(b):
        key = EthPrivateKey(b, backend=native)
        check(key.backend is native and key.public_key.backend is native, "eth-keys backend is not the native one")
        return key

    # known answer: the Ethereum address of private key 1
    one = (1).to_bytes(32, "big")
    kat_address = "7e5f4552091a69125d5dfcb7b8c2659029395bdf"
    check(keccak256(coincurve.PrivateKey(one).public_key.format(False)[1:])[12:].hex() == kat_address,
          "coincurve: address of private key 1")
    check(native_key(one).public_key.to_canonical_address().hex() == kat_address,
          "eth-keys: address of private key 1")
    cases, retried = [], []
    for k in range(SECP256K1_CASES):
        d, seed = private_key(0x5EC00000 + k, 32, SECP256K1_N)
        if seed != 0x5EC00000 + k:
            retried.append({"case": k, "seed": seed})
        sk_bytes = d.to_bytes(32, "big")
        msg = seq(0x4D534700 + k, 100)
        h = keccak256(msg)
        check(h == ref_keccak.keccak256(msg), f"case {k}: message hash keccak disagreement")

        # primary: libsecp256k1 through coincurve
        csk = coincurve.PrivateKey(sk_bytes)
        pub = csk.public_key.format(compressed=False)
        sig65 = csk.sign_recoverable(h, hasher=None)
        r = int.from_bytes(sig65[0:32], "big")
        s = int.from_bytes(sig65[32:64], "big")
        v = sig65[64]
        check(v in (0, 1), f"case {k}: recovery id {v}")
        check(1 <= s <= SECP256K1_N // 2, f"case {k}: coincurve signature is not low-s")
        address = keccak256(pub[1:])[12:]
        check(address == ref_keccak.keccak256(pub[1:])[12:], f"case {k}: address keccak disagreement")

        # cross-check 1: eth-keys' pure-Python backend
        nsk = native_key(sk_bytes)
        npub = native.private_key_to_public_key(nsk)
        check(npub.to_bytes() == pub[1:], f"case {k}: eth-keys public key differs")
        nsig = native.ecdsa_sign(h, nsk)
        check((nsig.r, nsig.s, nsig.v) == (r, s, v), f"case {k}: eth-keys signature differs")
        rec = native.ecdsa_recover(h, nsig)
        check(rec.to_bytes() == pub[1:], f"case {k}: eth-keys recovered a different public key")
        check(rec.to_canonical_address() == address, f"case {k}: eth-keys address differs")
        check(native.ecdsa_verify(h, nsig, npub), f"case {k}: eth-keys verify failed")

        # cross-check 2: libsecp256k1 recovery and python-ecdsa verification
        crec = coincurve.PublicKey.from_signature_and_message(sig65, h, hasher=None)
        check(crec.format(compressed=False) == pub, f"case {k}: coincurve recovered a different key")
        vk = ecdsa.VerifyingKey.from_string(pub, curve=ecdsa.SECP256k1)
        check(
            vk.verify_digest(sig65[:64], h, sigdecode=sigdecode_string),
            f"case {k}: python-ecdsa rejects the signature",
        )

        cases.append({
            "private_key": hx(sk_bytes),
            "public_key": hx(pub),
            "address": hx(address),
            "message_hash": hx(h),
            "r": int_hex(r, 32),
            "s": int_hex(s, 32),
            "v": v,
        })
    prov = provenance(
        "secp256k1",
        [
            lib("coincurve", "bundles libsecp256k1"),
            lib("eth-keys", "NativeECCBackend (pure Python)"),
            lib("ecdsa"),
            lib("pycryptodome", "keccak256"),
        ],
        [
            "public_key, r, s, v: coincurve (libsecp256k1) sign_recoverable(message_hash, hasher=None) "
            "== eth-keys NativeECCBackend sign_msg_hash (pure-Python RFC 6979, low-s), every case",
            "eth-keys NativeECCBackend recovers public_key and address from (r, s, v); coincurve "
            "recovers the same public_key; python-ecdsa verifies (r, s) against public_key, every case",
            "keccak256 (message_hash, address): pycryptodome == pure-Python Keccak (vectors/gen/ref_keccak.py)",
            "known answer: private key 1 has address 0x7e5f4552091a69125d5dfcb7b8c2659029395bdf under "
            "coincurve and eth-keys",
        ],
        "Case k = 0..15. private_key = seq(0x5EC00000 + k, 32) read big-endian; if it is not in "
        "[1, n-1] the seed is increased by 2^32 and the draw repeated (retried_key_seeds lists where "
        "that happened). public_key = uncompressed SEC1 point (0x04 || X || Y). address = last 20 bytes "
        "of keccak256(public_key[1:]). message_hash = keccak256(seq(0x4D534700 + k, 100)). (r, s, v) = "
        "ECDSA over secp256k1 signing message_hash directly (no further hashing) with the RFC 6979 "
        "HMAC-SHA256 nonce, s normalised to s <= n/2, v = recovery id of the final (r, s): 0 if "
        "the point R it recovers (x = r) has even y, 1 if odd. " + SPLITMIX_DEFINITION,
        retried_key_seeds=retried,
    )
    return {"provenance": prov, "cases": cases}


# --------------------------------------------------------------------------
# p256.json / p384.json

NIST = {
    "p256": {
        "curve": "P-256", "hash": "SHA-256", "size": 32,
        "key_seed": 0x50325EC0, "msg_seed": 0x50320000,
    },
    "p384": {
        "curve": "P-384", "hash": "SHA-384", "size": 48,
        "key_seed": 0x50385EC0, "msg_seed": 0x50380000,
    },
}
NIST_CASES = 8

# RFC 6979 appendix A.2.5 (P-256, SHA-256) and A.2.6 (P-384, SHA-384), message "sample".
RFC6979_KAT = {
    "p256": (
        0xC9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721,
        0xEFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716,
        0xF7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8,
    ),
    "p384": (
        0x6B9D3DAD2E1B8C1C05B19875B6659F4DE23C3B667BF297BA9AA47740787137D896D5724E4C70A825F872C9EA60D2EDF5,
        0x94EDBB92A5ECB8AAD4736E56C691916B3F88140666CE9FA73D64C4EA95AD133C81A648152E44ACF96E36DD1E80FABE46,
        0x99EF4AEB15F178CEA1FE40DB2603138F130E740A19624526203B6351D0A3A94FA329C145786E679E7B82C71A38628AC8,
    ),
}


def _previous_cases(previous_dir, name):
    if previous_dir is None:
        return {}
    path = Path(previous_dir) / f"{name}.json"
    if not path.exists():
        return {}
    doc = json.loads(path.read_text())
    return {(c["private_key"], c["message"]): c.get("random") for c in doc.get("cases", [])}


def gen_nist(name, previous_dir=None, **_):
    import ecdsa
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.backends.openssl.backend import backend as ossl
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import (
        decode_dss_signature,
        encode_dss_signature,
    )
    from ecdsa.util import sigdecode_string, sigencode_string

    p = NIST[name]
    size = p["size"]
    if name == "p256":
        c_curve, e_curve, c_hash, e_hash = ec.SECP256R1(), ecdsa.NIST256p, hashes.SHA256(), hashlib.sha256
    else:
        c_curve, e_curve, c_hash, e_hash = ec.SECP384R1(), ecdsa.NIST384p, hashes.SHA384(), hashlib.sha384
    n = e_curve.order
    previous = _previous_cases(previous_dir, name)

    def verify_both(pub_c, vk, msg, r, s):
        try:
            pub_c.verify(encode_dss_signature(r, s), msg, ec.ECDSA(c_hash))
        except InvalidSignature:
            return False
        try:
            return vk.verify(int_bytes(r) + int_bytes(s), msg, hashfunc=e_hash, sigdecode=sigdecode_string)
        except ecdsa.BadSignatureError:
            return False

    def int_bytes(v):
        return v.to_bytes(size, "big")

    def rfc6979_both(d, msg):
        csk = ec.derive_private_key(d, c_curve)
        sig_c = decode_dss_signature(csk.sign(msg, ec.ECDSA(c_hash, deterministic_signing=True)))
        esk = ecdsa.SigningKey.from_secret_exponent(d, curve=e_curve, hashfunc=e_hash)
        sig_e = esk.sign_deterministic(msg, hashfunc=e_hash, sigencode=sigencode_string)
        return sig_c, (int.from_bytes(sig_e[:size], "big"), int.from_bytes(sig_e[size:], "big"))

    kat_x, kat_r, kat_s = RFC6979_KAT[name]
    kat_c, kat_e = rfc6979_both(kat_x, b"sample")
    check(kat_c == (kat_r, kat_s), f"{name}: cryptography fails the RFC 6979 known answer")
    check(kat_e == (kat_r, kat_s), f"{name}: python-ecdsa fails the RFC 6979 known answer")

    cases, retried, reused, fresh = [], [], 0, 0
    for k in range(NIST_CASES):
        d, seed = private_key(p["key_seed"] + k, size, n)
        if seed != p["key_seed"] + k:
            retried.append({"case": k, "seed": seed})
        msg = seq(p["msg_seed"] + k, 32)

        csk = ec.derive_private_key(d, c_curve)
        pub = csk.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        esk = ecdsa.SigningKey.from_secret_exponent(d, curve=e_curve, hashfunc=e_hash)
        vk = esk.get_verifying_key()
        check(vk.to_string("uncompressed") == pub, f"{name} case {k}: public keys differ")
        check(csk.private_numbers().private_value == d, f"{name} case {k}: private key mismatch")

        # RFC 6979: cryptography (OpenSSL >= 3.2) vs python-ecdsa
        r1, s1 = decode_dss_signature(csk.sign(msg, ec.ECDSA(c_hash, deterministic_signing=True)))
        (r1b, s1b), (r2, s2) = rfc6979_both(d, msg)
        check((r1, s1) == (r1b, s1b), f"{name} case {k}: cryptography deterministic signing is not deterministic")
        check((r1, s1) == (r2, s2), f"{name} case {k}: RFC 6979 signatures differ (cryptography vs python-ecdsa)")
        check(verify_both(csk.public_key(), vk, msg, r1, s1), f"{name} case {k}: RFC 6979 signature does not verify")

        # randomized: keep the committed one if it still verifies for this key and message
        rnd = None
        prev = previous.get((hx(int_bytes(d)), hx(msg)))
        if prev:
            pr, ps = int(prev["r"], 16), int(prev["s"], 16)
            if (
                prev["r"] == int_hex(pr, size) and prev["s"] == int_hex(ps, size)
                and (pr, ps) != (r1, s1)
                and verify_both(csk.public_key(), vk, msg, pr, ps)
            ):
                rnd = (pr, ps)
                reused += 1
        if rnd is None:
            rnd = decode_dss_signature(csk.sign(msg, ec.ECDSA(c_hash)))
            check(rnd != (r1, s1), f"{name} case {k}: random signature equals the deterministic one")
            check(verify_both(csk.public_key(), vk, msg, *rnd), f"{name} case {k}: random signature does not verify")
            fresh += 1

        cases.append({
            "private_key": hx(int_bytes(d)),
            "public_key": hx(pub),
            "message": hx(msg),
            "rfc6979": {"r": int_hex(r1, size), "s": int_hex(s1, size)},
            "random": {"r": int_hex(rnd[0], size), "s": int_hex(rnd[1], size)},
        })
    prov = provenance(
        name,
        [lib("cryptography", f"bundled {ossl.openssl_version_text()}"), lib("ecdsa")],
        [
            "public_key: cryptography (OpenSSL) == python-ecdsa, every case",
            "rfc6979: cryptography ECDSA(deterministic_signing=True) == python-ecdsa sign_deterministic "
            f"(hashfunc={p['hash']}), every case; verified by both; both reproduce the RFC 6979 "
            f"appendix {'A.2.5' if name == 'p256' else 'A.2.6'} known answer ({p['curve']}, {p['hash']}, "
            "message 'sample')",
            "random: signed by cryptography ECDSA (OpenSSL, random nonce); verified by cryptography and "
            "python-ecdsa, every case",
        ],
        f"Case k = 0..7. private_key = seq(0x{p['key_seed']:08X} + k, {size}) read big-endian; if it is "
        "not in [1, n-1] the seed is increased by 2^32 and the draw repeated (retried_key_seeds lists "
        "where that happened). public_key = uncompressed SEC1 point (0x04 || X || Y). message = "
        f"seq(0x{p['msg_seed']:08X} + k, 32), the raw message: ECDSA hashes it with {p['hash']} (e = "
        f"leftmost bits of {p['hash']}(message)). rfc6979 = deterministic ECDSA per RFC 6979 with "
        f"HMAC-{p['hash']}. random = an ordinary randomized ECDSA signature; it was produced once and "
        "is kept on regeneration as long as it verifies for the same key and message (run the "
        "generator with --fresh-random to replace it). Neither signature is low-s normalised. "
        "r and s are big-endian, zero-padded to the field size. " + SPLITMIX_DEFINITION,
        retried_key_seeds=retried,
    )
    doc = {"provenance": prov, "curve": p["curve"], "hash": p["hash"], "cases": cases}
    return doc, {"random_signatures_reused": reused, "random_signatures_fresh": fresh}
