"""precompile-bytecode/<op>/<input>: a precompile called N times from EVM bytecode in py-evm.

The counterpart of crates/evm/src/bytecode.rs (and the Go adapter's
internal/bench/bytecode.go): the loop contract, whose code comes with the
cases (`code`: dyno builds the program once for every adapter), copies
calldata[32..] to memory, STATICCALLs the precompile N times (N = calldata[0..32]) with that
input and all gas, then returns two words: the last call's success flag and
the keccak-256 of its return data. It runs in py-evm's newest VM, PragueVM
(py-evm has no Osaka; Osaka's only change to the ops offered here is
modexp's price, which does not change its output), as one
`PragueComputation.apply_computation` on a `PragueState` over an in-memory
`AtomicDB`, the contract's code set at a fixed address and the precompile
marked warm, as it is from the start of a transaction.

One `run` sample is one call with N = `iterations`, so dyno fits time
against N: the slope is one loop iteration (the STATICCALL and the loop
around it), the intercept the call around the loop. With several cases the
input changes once per sample (one call has one input). Prepare runs N = 2
per case and compares the returned words with (1, keccak-256(expected
output)); once they match, the reported `output` is the expected one (the
contract returns only its hash). The `gas` field is ignored: the calls get
all the gas there is.

Offered ops are those whose every vector finishes one call quickly:
py-evm's bn254 pairing (pure-Python py_ecc, 1-5 s per call), its BLS12-381
MSMs and pairing (up to 12 s) and its KZG point evaluation (which reloads
the trusted setup on every call, ~5 s) are left out, as are blake2f (pure
Python, minutes for 8,000,000 rounds) and p256verify (Osaka only).
"""

from __future__ import annotations

from dyno_protocol import Bench, BenchError, Family, hexfield

GROUP = "precompile-bytecode"
NOOP_ID = f"{GROUP}/noop/identity-empty"
VM_NAME = "PragueVM"

# The precompiles offered here (those py-evm's Prague VM has that these
# ids need); each case gives the address, which dyno reads from the fork's
# gas file (specs/gas/osaka.toml): no table of addresses is kept here.
OFFERED = (
    "ecrecover",
    "sha256",
    "ripemd160",
    "identity",
    "modexp",
    "bn254-add",
    "bn254-mul",
    "bls12-g1add",
    "bls12-g2add",
    "bls12-map-fp-to-g1",
    "bls12-map-fp2-to-g2",
)

LOOP_ADDRESS = bytes(17) + b"loo"  # 0x…6c6f6f, as the Go adapter's "loop"
SENDER = bytes(19) + b"\x01"
CALL_GAS = 1 << 62
ONE = (1).to_bytes(32, "big")


class LoopCall:
    """The loop contract `code` in a fresh PragueState, called with (N, input).

    `target` is the precompile marked warm, or None when the program calls
    none (opcode mode).
    """

    def __init__(self, target: int | None, code: bytes):
        from eth.constants import BLANK_ROOT_HASH
        from eth.db.atomic import AtomicDB
        from eth.vm.execution_context import ExecutionContext
        from eth.vm.forks.cancun.transaction_context import CancunTransactionContext
        from eth.vm.forks.prague.computation import PragueComputation
        from eth.vm.forks.prague.state import PragueState
        from eth.vm.message import Message

        context = ExecutionContext(
            coinbase=bytes(20),
            timestamp=0,
            block_number=0,
            difficulty=0,
            mix_hash=bytes(32),
            gas_limit=30_000_000,
            prev_hashes=(),
            chain_id=1,
            base_fee_per_gas=0,
            excess_blob_gas=0,
        )
        self.state = PragueState(AtomicDB(), context, BLANK_ROOT_HASH)
        self.target = target
        self.code = code
        self.state.set_code(LOOP_ADDRESS, self.code)
        self.state.mark_address_warm(LOOP_ADDRESS)
        if target is not None:
            self.state.mark_address_warm(target.to_bytes(20, "big"))
        self.tx = CancunTransactionContext(gas_price=0, origin=SENDER)
        self.message = Message
        self.apply = PragueComputation.apply_computation

    def computation(self, calldata: bytes):
        msg = self.message(
            gas=CALL_GAS,
            to=LOOP_ADDRESS,
            sender=SENDER,
            value=0,
            data=calldata,
            code=self.code,
        )
        return self.apply(self.state, msg, self.tx)

    def __call__(self, calldata: bytes) -> bytes:
        computation = self.computation(calldata)
        if computation.is_error:
            raise BenchError(f"the loop contract failed: {computation.error!r}")
        return computation.output


class Input:
    """One case's input, with its calldata per N (built once per N)."""

    __slots__ = ("calldata", "data")

    def __init__(self, data: bytes):
        self.data = data
        self.calldata: dict[int, bytes] = {}

    def with_n(self, n: int) -> bytes:
        d = self.calldata.get(n)
        if d is None:
            d = self.calldata[n] = n.to_bytes(32, "big") + self.data
        return d


def _make(id_: str) -> Bench:
    parts = id_.split("/")
    if len(parts) != 3 or parts[0] != GROUP:
        raise BenchError(f"unknown id {id_}")
    if id_ != NOOP_ID and parts[1] not in OFFERED:
        raise BenchError(f"py-evm bytecode mode does not offer {parts[1]}")
    from eth_hash.auto import keccak

    # The contract, deployed with the first case's program; every case of
    # one id carries the same one.
    deployed: list[LoopCall] = []

    def parse(inp: dict) -> Input:
        data = hexfield(inp, "input")
        if id_ == NOOP_ID and data:
            raise BenchError("the no-op control takes an empty input")
        code = hexfield(inp, "code")
        target = inp.get("address")
        if not isinstance(target, int) or isinstance(target, bool) or not 0 < target < 1 << 160:
            raise BenchError("address: expected the precompile's address as a positive integer")
        if not deployed:
            deployed.append(LoopCall(target, code))
        elif deployed[0].code != code:
            raise BenchError("code differs from the first case's: one id runs one loop program")
        elif deployed[0].target != target:
            raise BenchError("address differs from the first case's: one id calls one precompile")
        return Input(data)

    def loop(arg: Input, n: int) -> bytes:
        return deployed[0](arg.with_n(n))

    def verify_call(arg: Input) -> bytes:
        return loop(arg, 2)  # as bytecode.rs verifies: N = 2

    def encode(out: bytes, _inp: dict, expected: dict) -> dict:
        want = expected.get("output")
        if not isinstance(want, str):
            raise BenchError("expected has no output")
        try:
            w = hexfield(expected, "output")
        except BenchError:
            w = None  # not hex: it cannot match, report what came back
        if w is not None and out == ONE + keccak(w):
            return {"output": want}  # its hash matched: the expected output
        if len(out) != 64:
            return {"output": f"unexpected return 0x{out.hex()}"}
        flag = int.from_bytes(out[:32], "big")
        return {"output": f"success={flag} keccak256(returndata)=0x{out[32:].hex()}"}

    return Bench(parse, verify_call, encode, loop=loop, encode_expected=True)


def families() -> list[Family]:
    return [Family(f"{GROUP}/{op}/*", "py-evm", "py-evm", _make) for op in OFFERED] + [
        Family(NOOP_ID, "py-evm", "py-evm", _make, explicit=(NOOP_ID,))
    ]
