"""The worker's request handling, in-process, against the repository's vectors."""

from __future__ import annotations

import json

import dyno_protocol
import dyno_protocol.worker
import pytest
from conftest import (
    FIXTURE,
    address_of,
    corrupt,
    hash_requests,
    loop_code,
    nist_requests,
    prepare,
    secp256k1_requests,
)

from dyno_adapter import registry
from dyno_adapter.secp256k1 import der_signature
from dyno_adapter.worker import ADAPTER


def handle(msg: dict, state: dict) -> dict:
    return dyno_protocol.handle(json.dumps(msg).encode(), state, ADAPTER)


HASHES = [
    ("keccak256", "pycryptodome"),
    ("keccak256", "eth-hash"),
    ("ripemd160", "pycryptodome"),
    ("sha256", "hashlib"),
    ("sha384", "hashlib"),
    ("sha512", "hashlib"),
    ("blake2b512", "hashlib"),
    ("blake2s256", "hashlib"),
]


def all_requests() -> list[dict]:
    reqs = []
    for alg, impl in HASHES:
        reqs += hash_requests(alg, impl)
    for impl in ("coincurve", "eth-keys"):
        reqs += secp256k1_requests(impl)
    reqs += nist_requests("p256") + nist_requests("p384")
    return reqs


@pytest.mark.parametrize("req", all_requests(), ids=lambda r: f"{r['id']}@{r['implementation']}")
def test_vectors_prepare_and_corrupted_mismatch(req):
    state: dict = {}
    reply = handle(req, state)
    assert reply["type"] == "prepared", reply
    assert reply["id"] == req["id"] and reply["cases"] == len(req["cases"])
    for out, case in zip(reply["outputs"], req["cases"], strict=True):
        assert set(out) == set(case["expected"])
        for k, v in case["expected"].items():
            assert dyno_protocol.same(v, out[k]), (k, v, out[k])
    samples = handle({"type": "run", "iterations": 3, "samples": 2}, state)
    assert samples["type"] == "samples" and len(samples["ns"]) == 2

    bad, field = corrupt(req, case=len(req["cases"]) - 1)
    reply = handle(bad, state)
    assert reply["type"] == "mismatch", reply
    assert reply["case"] == len(req["cases"]) - 1 and reply["field"] == field
    # a failed prepare leaves no current benchmark
    assert handle({"type": "run", "iterations": 1, "samples": 1}, state)["type"] == "error"


def test_hashlib_ripemd160_when_openssl_has_it():
    from dyno_adapter.hashes import hashlib_has_ripemd160

    offered = any(
        f.implementation == "hashlib" and f.pattern == "hash/ripemd160/*"
        for f in registry.families()
    )
    assert offered == hashlib_has_ripemd160()
    if offered:
        for req in hash_requests("ripemd160", "hashlib"):
            assert handle(req, {})["type"] == "prepared"


# geth's core/vm/testdata/precompiles vectors (bn256Add chfast1,
# bn256ScalarMul chfast1, bn256Pairing jeff1 and empty_data).
BN254 = [
    (
        "precompile/bn254-add/chfast1",
        "18b18acfb4c2c30276db5411368e7185b311dd124691610c5d3b74034e093dc9063c909c4720840cb5134cb9f59fa749755796819658d32efc0d288198f3726607c2b7f58a84bd6145f00c9c2bc0bb1a187f20ff2c92963a88019e7c6a014eed06614e20c147e940f2d70da3f74c9a17df361706a4485c742bd6788478fa17d7",
        150,
        "2243525c5efd4b9c3d3c45ac0ca3fe4dd85e830a4ce6b65fa1eeaee202839703301d1d33be6da8e509df21cc35964723180eed7532537db9ae5e7d48f195c915",
    ),
    (
        "precompile/bn254-mul/chfast1",
        "2bd3e6d0f3b142924f5ca7b49ce5b9d54c4703d7ae5648e61d02268b1a0a9fb721611ce0a6af85915e2f1d70300909ce2e49dfad4a4619c8390cae66cefdb20400000000000000000000000000000000000000000000000011138ce750fa15c2",
        6000,
        "070a8d6a982153cae4be29d434e8faef8a47b274a053f5a4ee2a6c9c13c31e5c031b8ce914eba3a9ffb989f9cdd5b0f01943074bf4f0f315690ec3cec6981afc",
    ),
    ("precompile/bn254-pairing/empty_data", "", 45000, "00" * 31 + "01"),
    (
        "precompile/bn254-pairing/jeff1",
        "1c76476f4def4bb94541d57ebba1193381ffa7aa76ada664dd31c16024c43f593034dd2920f673e204fee2811c678745fc819b55d3e9d294e45c9b03a76aef41209dd15ebff5d46c4bd888e51a93cf99a7329636c63514396b4a452003a35bf704bf11ca01483bfa8b34b43561848d28905960114c8ac04049af4b6315a416782bb8324af6cfc93537a2ad1a445cfd0ca2a71acd7ac41fadbf933c2a51be344d120a2a4cf30c1bf9845f20c6fe39e07ea2cce61f0c9bb048165fe5e4de877550111e129f1cf1097710d41c4ac70fcdfa5ba2023c6ff1cbeac322de49d1b6df7c2032c61a830e3c17286de9462bf242fca2883585b93870a73853face6a6bf411198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c21800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa",
        113000,
        "00" * 31 + "01",
    ),
]


@pytest.mark.parametrize("id_,data,gas,output", BN254, ids=[b[0] for b in BN254])
def test_bn254_precompiles(id_, data, gas, output):
    req = prepare(
        id_,
        "py-ecc",
        [{"input": {"input": "0x" + data, "gas": gas}, "expected": {"output": "0x" + output}}],
    )
    state: dict = {}
    reply = handle(req, state)
    assert reply["type"] == "prepared", reply
    bad, _ = corrupt(req)
    assert handle(bad, state)["type"] == "mismatch"
    low = json.loads(json.dumps(req))
    low["cases"][0]["input"]["gas"] = gas - 1
    reply = handle(low, state)
    assert reply["type"] == "error" and "out of gas" in reply["message"]


def test_bn254_invalid_point_is_an_error():
    data = "00" * 31 + "01" + "00" * 31 + "03" + "00" * 64  # (1, 3) is not on the curve
    req = prepare(
        "precompile/bn254-add/bad",
        "py-ecc",
        [{"input": {"input": "0x" + data, "gas": 150}, "expected": {"output": "0x"}}],
    )
    reply = handle(req, {})
    assert reply["type"] == "error" and "not on curve" in reply["message"]


POINT_EVALUATION = (
    "01e798154708fe7789429634053cbf9f99b619f9f084048927333fce637f549b564c0a11a0f704f4fc3e8acfe0f8245f0ad1347b378fbf96e206da11a5d3630624d25032e67a7e6a4910df5834b8fe70e6bcfeeac0352434196bdf4b2485d5a18f59a8d2a1a625a17f3fea0fe5eb8c896db3764f3185481bc22f91b4aaffcca25f26936857bc3a7c2539ea8ec3a952b7873033e038326e87ed3e1276fd140253fa08e9fc25fb2d9a98527fc22a2c9612fbeafdad446cbc7bcdbdcd780af2c16a",
    "000000000000000000000000000000000000000000000000000000000000100073eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001",
)


def test_kzg_point_evaluation():
    data, output = POINT_EVALUATION
    req = prepare(
        "precompile/kzg-point-evaluation/pointEvaluation1",
        "ckzg",
        [{"input": {"input": "0x" + data, "gas": 50000}, "expected": {"output": "0x" + output}}],
    )
    state: dict = {}
    assert handle(req, state)["type"] == "prepared"
    assert handle(corrupt(req)[0], state)["type"] == "mismatch"
    # a proof for another commitment: the versioned hash check fails
    bad = json.loads(json.dumps(req))
    bad["cases"][0]["input"]["input"] = "0x02" + data[2:]
    reply = handle(bad, state)
    assert reply["type"] == "error" and "versioned hash" in reply["message"]


def test_noop_identity():
    req = prepare(
        "harness/noop/empty",
        "python-noop",
        [{"input": {"value": "0xab"}, "expected": {"value": "0xab"}}],
    )
    state: dict = {}
    assert handle(req, state)["outputs"] == [{"value": "0xab"}]
    reply = handle({"type": "run", "iterations": 10, "samples": 3}, state)
    assert reply["type"] == "samples" and len(reply["ns"]) == 3
    assert all(isinstance(n, int) and n > 0 for n in reply["ns"])
    assert set(reply["gc"]) == {"count", "time_ns"} and "alloc" not in reply


def test_patterns_match_one_segment():
    assert dyno_protocol.matches("hash/keccak256/*", "hash/keccak256/32B")
    assert not dyno_protocol.matches("hash/keccak256/*", "hash/keccak256/32B/x")
    assert not dyno_protocol.matches("hash/keccak256/*", "hash/sha256/32B")
    assert not dyno_protocol.matches("precompile/bn254-add/*", "precompile/bn254-add")


def test_der_signature():
    r = bytes.fromhex("00" * 31 + "7f")
    s = bytes.fromhex("80" + "00" * 31)
    assert der_signature(r, s) == bytes.fromhex("3026" + "02017f" + "022100" + "80" + "00" * 31)


def test_same_is_type_strict():
    assert dyno_protocol.same("0xAB", "0xab")
    assert not dyno_protocol.same(True, 1)
    assert not dyno_protocol.same(0, False)
    assert dyno_protocol.same(1, 1)


def test_timed_loop_cycles_through_cases():
    seen = []
    ns, pos, _sink = dyno_protocol.worker.timed(seen.append, [0, 1, 2], 1, 4, 2)
    assert seen == [1, 2, 0, 1, 2, 0, 1, 2] and pos == 0 and len(ns) == 2


@pytest.mark.parametrize(
    "msg,needle",
    [
        ({"type": "run", "iterations": 1, "samples": 1}, "before a successful prepare"),
        ({"type": "run", "iterations": 0, "samples": 1}, "iterations"),
        ({"type": "nope"}, "unknown request type"),
        (prepare("crypto/foo/bar", "coincurve", [{"input": {}, "expected": {}}]), "unknown id"),
        (prepare("hash/sha256/32B", "hashlib", [{"input": {"data": "zz"}, "expected": {}}]), "hex"),
        (prepare("hash/sha256/32B", "hashlib", []), "non-empty"),
    ],
)
def test_errors(msg, needle):
    reply = handle(msg, {})
    assert reply["type"] == "error" and reply["fatal"] is False
    assert needle in reply["message"]


def _call(id_: str, impl: str, data: str, gas: int = 10**6) -> dict:
    req = prepare(id_, impl, [{"input": {"input": data, "gas": gas}, "expected": {}}])
    return handle(req, {})


def test_ecrecover_bad_v_or_unrecoverable_is_empty_output():
    h = "11" * 32
    bad_v = "00" * 31 + "1d"
    r_s = "22" * 32 + "33" * 32
    out = _call("precompile/ecrecover/x", "coincurve", "0x" + h + bad_v + r_s)
    assert out["outputs"] == [{"output": "0x"}]
    zero_r = "00" * 31 + "1b" + "00" * 32 + "33" * 32
    out = _call("precompile/ecrecover/x", "coincurve", "0x" + h + zero_r)
    assert out["outputs"] == [{"output": "0x"}]


def test_p256verify_wrong_length_or_bad_key_is_empty_output():
    assert _call("precompile/p256verify/x", "cryptography", "0x" + "11" * 159)["outputs"] == [
        {"output": "0x"}
    ]
    off_curve = "11" * 32 + "22" * 32 + "33" * 32 + "00" * 31 + "01" + "00" * 31 + "01"
    out = _call("precompile/p256verify/x", "cryptography", "0x" + off_curve)
    assert out["outputs"] == [{"output": "0x"}]


def test_modexp():
    def word(n: int) -> str:
        return f"{n:064x}"

    # 3^5 mod 7 = 5, with a 2-byte modulus
    data = "0x" + word(1) + word(1) + word(2) + "03" + "05" + "0007"
    assert _call("precompile/modexp/x", "python-int", data)["outputs"] == [{"output": "0x0005"}]
    # zero modulus -> zeros; zero-length modulus -> empty
    data = "0x" + word(1) + word(1) + word(2) + "03" + "05" + "0000"
    assert _call("precompile/modexp/x", "python-int", data)["outputs"] == [{"output": "0x0000"}]
    data = "0x" + word(1) + word(1) + word(0) + "03" + "05"
    assert _call("precompile/modexp/x", "python-int", data)["outputs"] == [{"output": "0x"}]
    too_long = "0x" + word(1025) + word(1) + word(1)
    reply = _call("precompile/modexp/x", "python-int", too_long)
    assert reply["type"] == "error" and "EIP-7823" in reply["message"]


def test_sha256_and_ripemd160_precompiles():
    out = _call("precompile/sha256/x", "hashlib", "0x")["outputs"][0]["output"]
    assert out == "0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    if dyno_protocol.matches("precompile/ripemd160/*", "precompile/ripemd160/x") and any(
        f.pattern == "precompile/ripemd160/*" for f in registry.families()
    ):
        out = _call("precompile/ripemd160/x", "hashlib", "0x")["outputs"][0]["output"]
        assert out == "0x" + "00" * 12 + "9c1185a5c5e9fc54612808977ee8f548b2258d31"


# --- bytecode mode (py-evm) ---------------------------------------------------------


def bytecode_case(data: str, output: str, op: str = "noop") -> dict:
    known = op if op != "p256verify" else "noop"
    code, address = loop_code(known), address_of(known)
    return {
        "input": {"input": data, "gas": 100000, "code": code, "address": address},
        "expected": {"output": output},
    }


def test_bytecode_identity_prepare_run_and_mismatch():
    state: dict = {}
    data = "0x" + bytes(range(40)).hex()
    req = prepare(
        "precompile-bytecode/identity/40B", "py-evm", [bytecode_case(data, data, "identity")]
    )
    reply = handle(req, state)
    assert reply == {
        "type": "prepared",
        "id": req["id"],
        "cases": 1,
        "outputs": [{"output": data}],
    }
    run = handle({"type": "run", "iterations": 5, "samples": 3}, state)
    assert run["type"] == "samples" and len(run["ns"]) == 3
    assert len(state["current"].sink) == 64  # the flag and the hash
    bad, field = corrupt(req)
    reply = handle(bad, state)
    assert reply["type"] == "mismatch" and reply["field"] == field
    assert reply["actual"].startswith("success=1 keccak256(returndata)=0x")


def test_bytecode_noop_control_is_listed_and_runs():
    h = dyno_protocol.worker.hello(ADAPTER)
    assert {
        "id": "precompile-bytecode/noop/identity-empty",
        "implementation": "py-evm",
        "library": "py-evm",
    } in h["benchmarks"]
    patterns = {(p["id"], p["implementation"]) for p in h["patterns"]}
    assert ("precompile-bytecode/ecrecover/*", "py-evm") in patterns
    assert ("precompile-bytecode/p256verify/*", "py-evm") not in patterns
    assert any("PragueVM" in f for f in h["runtime"]["flags"])
    state: dict = {}
    req = prepare("precompile-bytecode/noop/identity-empty", "py-evm", [bytecode_case("0x", "0x")])
    assert handle(req, state)["type"] == "prepared"
    assert handle({"type": "run", "iterations": 1, "samples": 2}, state)["type"] == "samples"


def test_bytecode_failing_precompile_call_is_a_mismatch():
    # (1, 1) is not on bn254: the precompile fails and STATICCALL returns 0
    state: dict = {}
    point = (1).to_bytes(32, "big") * 2
    req = prepare(
        "precompile-bytecode/bn254-add/off-curve",
        "py-evm",
        [bytecode_case("0x" + (point * 2).hex(), "0x" + "00" * 64, "bn254-add")],
    )
    reply = handle(req, state)
    assert reply["type"] == "mismatch", reply
    assert reply["actual"].startswith("success=0 "), reply


def test_bytecode_needs_the_loop_program_in_every_case():
    state: dict = {}
    bare = {"input": {"input": "0x", "gas": 15}, "expected": {"output": "0x"}}
    req = prepare("precompile-bytecode/noop/identity-empty", "py-evm", [bare])
    reply = handle(req, state)
    assert reply["type"] == "error" and "code" in reply["message"], reply
    other = bytecode_case("0x", "0x")
    other["input"]["code"] = "0x00"
    req = prepare(
        "precompile-bytecode/noop/identity-empty", "py-evm", [bytecode_case("0x", "0x"), other]
    )
    reply = handle(req, state)
    assert reply["type"] == "error" and "code differs" in reply["message"], reply
    # The address is the case's; one that is missing or not a number is an
    # error at prepare.
    for address in (None, "0x04", -1):
        case = bytecode_case("0x", "0x")
        if address is None:
            del case["input"]["address"]
        else:
            case["input"]["address"] = address
        req = prepare("precompile-bytecode/noop/identity-empty", "py-evm", [case])
        reply = handle(req, {})
        assert reply["type"] == "error" and "address" in reply["message"], reply


def test_bytecode_unoffered_op_is_an_error():
    state: dict = {}
    req = prepare("precompile-bytecode/p256verify/x", "py-evm", [bytecode_case("0x", "0x")])
    assert handle(req, state)["type"] == "error"


def test_bytecode_loop_gas_is_the_price_plus_the_loop():
    """As bytecode.rs checks: precompiles are warm, so the loops' gas slopes
    differ only by the two calls' prices (IDENTITY with no input: 15)."""
    from dyno_adapter.bytecode import LoopCall

    def slope(op: str, data: bytes) -> int:
        code = bytes.fromhex(loop_code(op)[2:])
        call = LoopCall(address_of(op), code)
        g = [call.computation(n.to_bytes(32, "big") + data).get_gas_used() for n in (2, 3)]
        return g[1] - g[0]

    noop = slope("noop", b"")
    data = bytes(100)  # 4 words
    assert slope("sha256", data) == noop - 15 + 60 + 12 * 4
    assert slope("ripemd160", data) == noop - 15 + 600 + 120 * 4
    assert slope("identity", data) == noop - 15 + 15 + 3 * 4
    assert slope("bn254-add", bytes(128)) == noop - 15 + 150


def test_bytecode_timed_loop_is_one_call_per_sample():
    calls = []

    def loop(arg, n):
        calls.append((arg, n))
        return arg

    ns, pos, sink = dyno_protocol.worker.timed_loop(loop, ["a", "b", "c"], 1, 7, 4)
    assert len(ns) == 4 and pos == 2 and sink == "b"
    assert calls == [("b", 7), ("c", 7), ("a", 7), ("b", 7)]


# --- opcode mode (py-evm) ------------------------------------------------------------


def opcode_requests() -> dict[str, dict]:
    """Every opcode-mode prepare request of the fixture: dyno's programs and
    the words they must return (from dyno's vectors)."""
    out = {}
    for line in FIXTURE.read_text().splitlines():
        req = json.loads(line)
        if req["id"].startswith("opcode/"):
            out[req["id"]] = {**req, "implementation": "py-evm"}
    assert len(out) >= 12, f"{len(out)} opcode requests in the fixture"
    return out


def test_opcode_every_exported_program_returns_its_word_and_runs():
    h = dyno_protocol.worker.hello(ADAPTER)
    assert ("opcode/*/*", "py-evm") in {(p["id"], p["implementation"]) for p in h["patterns"]}
    for id_, req in opcode_requests().items():
        state: dict = {}
        reply = handle(req, state)
        assert reply["type"] == "prepared", (id_, reply)
        assert reply["outputs"] == [req["cases"][0]["expected"]]
        run = handle({"type": "run", "iterations": 70, "samples": 2}, state)
        assert run["type"] == "samples", id_


def test_opcode_wrong_word_mismatches_and_a_halt_is_an_error():
    req = opcode_requests()["opcode/arith-div/a256-b128-c200"]
    bad, field = corrupt(req)
    reply = handle(bad, {})
    assert reply["type"] == "mismatch" and reply["field"] == field == "output"
    halting = {
        **req,
        "cases": [{**req["cases"][0], "input": {**req["cases"][0]["input"], "code": "0xfe"}}],
    }
    reply = handle(halting, {})
    assert reply["type"] == "error" and "failed" in reply["message"], reply


def test_opcode_calldata_runs_exactly_n_sequences():
    from dyno_adapter.opcode import calldata

    d = calldata(64, b"\xab", 130)
    assert d[31] == 2 and d[63] == 2 and d[64:] == b"\xab" and len(d) == 65
