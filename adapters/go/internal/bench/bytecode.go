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

// prepareBytecode deploys the loop program the cases carry (`code`: dyno
// builds it once, in crates/evm/src/bytecode.rs, for every adapter) and
// checks each case with N = 2.
func prepareBytecode(op string, cases []Case) (*Prepared, error) {
	// The precompile the program calls is the case's address (dyno's, from
	// the fork's gas file); the worker keeps no table of its own.
	if _, err := precompileAddress(cases); err != nil {
		return nil, fmt.Errorf("%s: %v", op, err)
	}
	code, err := inputHex(cases, 0, "code")
	if err != nil {
		return nil, err
	}
	for i := range cases {
		other, err := inputHex(cases, i, "code")
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(other, code) {
			return nil, fmt.Errorf("case %d: code differs from case 0's: one id runs one loop program", i)
		}
	}
	cfg, rules, err := deployLoop(code)
	if err != nil {
		return nil, err
	}
	l := &bytecodeLoop{
		cfg:      cfg,
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

// deployLoop puts code at the loop contract's address in a fresh in-memory
// state under Osaka rules, and returns the runtime config that calls it.
func deployLoop(code []byte) (*runtime.Config, params.Rules, error) {
	chain := params.MergedTestChainConfig
	rules := chain.Rules(new(big.Int), true, 0)
	if !rules.IsOsaka {
		return nil, rules, fmt.Errorf("the chain config does not run Osaka")
	}
	db, err := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	if err != nil {
		return nil, rules, err
	}
	db.CreateAccount(loopContract)
	db.SetCode(loopContract, code, tracing.CodeChangeUnspecified)
	db.Finalise(rules)
	return &runtime.Config{ChainConfig: chain, State: db, Time: 0, BlockNumber: new(big.Int)}, rules, nil
}

func hexJSON(b []byte) []byte {
	out, _ := Hex(b).MarshalJSON()
	return out
}
