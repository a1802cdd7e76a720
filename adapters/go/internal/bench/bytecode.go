package bench

import (
	"bytes"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/core/vm/runtime"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

// Bytecode mode, the counterpart of crates/evm/src/bytecode.rs: a contract
// STATICCALLs one precompile N times with the same input, in geth's EVM
// (core/vm/runtime, Osaka rules). `run` with `iterations` = N is one call
// of the contract per sample, so the fitted slope is one loop iteration
// (the STATICCALL and the loop around it) and the intercept the call
// around the loop. The control `precompile-bytecode/noop/identity-empty`
// calls IDENTITY with no input.

// ImplEVM names geth's interpreter running the loop contract.
const ImplEVM = "geth-evm"

// BytecodeGroup is the id group of bytecode mode.
const BytecodeGroup = "precompile-bytecode"

var loopContract = common.HexToAddress("0x00000000000000000000000000000000006c6f6f") // "loop"

// asm is a tiny EVM assembler with labels (PUSH2 targets).
type asm struct {
	code   []byte
	labels map[string]int
	fixups map[int]string
}

func (a *asm) op(ops ...vm.OpCode) *asm {
	for _, o := range ops {
		a.code = append(a.code, byte(o))
	}
	return a
}

func (a *asm) push(v byte) *asm { a.code = append(a.code, byte(vm.PUSH1), v); return a }

func (a *asm) pushBytes(b []byte) *asm {
	a.code = append(a.code, byte(vm.PUSH1)+byte(len(b)-1))
	a.code = append(a.code, b...)
	return a
}

func (a *asm) mark(l string) *asm {
	a.labels[l] = len(a.code)
	return a.op(vm.JUMPDEST)
}

func (a *asm) jumpTo(l string, j vm.OpCode) *asm {
	a.code = append(a.code, byte(vm.PUSH2), 0, 0)
	a.fixups[len(a.code)-2] = l
	return a.op(j)
}

func (a *asm) finish() []byte {
	for at, l := range a.fixups {
		pc := a.labels[l]
		a.code[at], a.code[at+1] = byte(pc>>8), byte(pc)
	}
	return a.code
}

// loopProgram is the program of bytecode.rs's precompile_loop: calldata
// is N (one word) then the input; it returns the last call's success flag
// and the keccak-256 of its return data.
func loopProgram(target common.Address) []byte {
	a := &asm{labels: map[string]int{}, fixups: map[int]string{}}
	a.push(32).op(vm.CALLDATASIZE, vm.SUB)                             // [L]
	a.op(vm.DUP1).push(32).push(0).op(vm.CALLDATACOPY)                 // memory[0..L] = calldata[32..]
	a.push(0).push(0).op(vm.CALLDATALOAD)                              // [n, success, L]
	a.mark("top")                                                      //
	a.op(vm.DUP1, vm.ISZERO).jumpTo("end", vm.JUMPI)                   //
	a.op(vm.SWAP1, vm.POP)                                             // [n, L]
	a.push(0).push(0).op(vm.DUP4).push(0)                              // retSize, retOffset, argsSize, argsOffset
	a.pushBytes(target.Bytes()).op(vm.GAS, vm.STATICCALL)              // [success, n, L]
	a.op(vm.SWAP1).push(1).op(vm.SWAP1, vm.SUB).jumpTo("top", vm.JUMP) // [n-1, success, L]
	a.mark("end").op(vm.POP)                                           // [success, L]
	a.op(vm.RETURNDATASIZE).push(0).push(0).op(vm.RETURNDATACOPY)
	a.op(vm.RETURNDATASIZE).push(0).op(vm.KECCAK256).push(32).op(vm.MSTORE)
	a.push(0).op(vm.MSTORE).push(64).push(0).op(vm.RETURN)
	return a.finish()
}

// bytecodeLoop runs the loop contract once per Loop call, with N = n and
// the input of the current case; the case advances once per call (one
// transaction cannot cycle inputs).
type bytecodeLoop struct {
	cfg      *runtime.Config
	rules    params.Rules
	inputs   [][]byte
	calldata []map[int][]byte
	pos      int
}

func (l *bytecodeLoop) Loop(n int) {
	data, ok := l.calldata[l.pos][n]
	if !ok {
		data = make([]byte, 32, 32+len(l.inputs[l.pos]))
		new(big.Int).SetUint64(uint64(n)).FillBytes(data)
		data = append(data, l.inputs[l.pos]...)
		l.calldata[l.pos][n] = data
	}
	SinkBytes, SinkU64, SinkErr = runtime.Call(loopContract, data, l.cfg)
	l.cfg.State.Finalise(l.rules)
	l.pos++
	if l.pos == len(l.inputs) {
		l.pos = 0
	}
}

func prepareBytecode(op string, cases []Case) (*Prepared, error) {
	target := uint64(0x04)
	if op != "noop" {
		addr, ok := precompileAddresses[op]
		if !ok {
			return nil, fmt.Errorf("unknown precompile op %s", op)
		}
		target = addr
	}
	chain := params.MergedTestChainConfig
	rules := chain.Rules(new(big.Int), true, 0)
	if !rules.IsOsaka {
		return nil, fmt.Errorf("the chain config does not run Osaka")
	}
	db, err := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	if err != nil {
		return nil, err
	}
	db.CreateAccount(loopContract)
	db.SetCode(loopContract, loopProgram(addressOf(target)), tracing.CodeChangeUnspecified)
	db.Finalise(rules)
	l := &bytecodeLoop{
		cfg:      &runtime.Config{ChainConfig: chain, State: db, Time: 0, BlockNumber: new(big.Int)},
		rules:    rules,
		inputs:   make([][]byte, len(cases)),
		calldata: make([]map[int][]byte, len(cases)),
	}
	expected := make([][]byte, len(cases))
	for i := range cases {
		in, err := inputHex(cases, i, "input")
		if err != nil {
			return nil, err
		}
		raw, ok := cases[i].Expected["output"]
		if !ok {
			return nil, fmt.Errorf("case %d: expected has no output", i)
		}
		out, err := decodeHex(raw)
		if err != nil {
			return nil, fmt.Errorf("case %d: expected output: %v", i, err)
		}
		l.inputs[i], l.calldata[i], expected[i] = in, map[int][]byte{}, out
	}
	outs := make([]Output, len(cases))
	var bad *Mismatch
	for i := range cases {
		l.Loop(2) // as bytecode.rs checks: N = 2
		if SinkErr != nil {
			return nil, fmt.Errorf("case %d: the loop contract failed: %v", i, SinkErr)
		}
		want := append(common.LeftPadBytes([]byte{1}, 32), crypto.Keccak256(expected[i])...)
		got := SinkBytes
		if bad == nil && !bytes.Equal(got, want) {
			actual := fmt.Sprintf("success=%x keccak256(returndata)=0x%x", got[:min(32, len(got))], got[min(32, len(got)):])
			bad = &Mismatch{Case: i, Field: "output", Expected: hexJSON(expected[i]), Actual: strings.TrimSpace(actual)}
		}
		// The contract returns only the hash of the output; it matched the
		// expected output's hash, so that is the output reported.
		outs[i] = Output{{Name: "output", Value: clone(expected[i])}}
	}
	return &Prepared{Bench: l, Outputs: outs, SelfChecked: map[string]bool{"output": true}, SelfMismatch: bad}, nil
}

func hexJSON(b []byte) []byte {
	out, _ := Hex(b).MarshalJSON()
	return out
}
