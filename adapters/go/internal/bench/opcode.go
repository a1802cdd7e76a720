package bench

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/core/vm/runtime"
	"github.com/ethereum/go-ethereum/params"
)

// Opcode mode, the counterpart of crates/evm/src/opcode.rs: a short,
// stack-neutral sequence around one opcode, run N times in a loop inside
// one call of a contract in geth's EVM (core/vm/runtime, Osaka rules).
// dyno builds the program (`code`) and hands it over with the case, so
// every EVM runs the same bytes. The calldata that runs exactly N
// sequences is the word N / unroll, the word N % unroll, then `data`.
// `run` with `iterations` = N is one call per sample: the fitted slope is
// one sequence (and 1/unroll of a loop turn), the intercept the call
// around the loops. The program returns one word: the opcode run once
// more after the loops, which must equal the case's expected output.

// OpcodeGroup is the id group of opcode mode.
const OpcodeGroup = "opcode"

// opcodeLoop calls the deployed program once per Loop call with N = n.
type opcodeLoop struct {
	cfg      *runtime.Config
	rules    params.Rules
	data     []byte
	unroll   uint64
	calldata map[int][]byte
}

// opcodeCalldata is the calldata that runs exactly n sequences.
func opcodeCalldata(n int, unroll uint64, data []byte) []byte {
	d := make([]byte, 64, 64+len(data))
	new(big.Int).SetUint64(uint64(n) / unroll).FillBytes(d[:32])
	new(big.Int).SetUint64(uint64(n) % unroll).FillBytes(d[32:64])
	return append(d, data...)
}

func (l *opcodeLoop) Loop(n int) {
	data, ok := l.calldata[n]
	if !ok {
		data = opcodeCalldata(n, l.unroll, l.data)
		l.calldata[n] = data
	}
	SinkBytes, SinkU64, SinkErr = runtime.Call(loopContract, data, l.cfg)
	l.cfg.State.Finalise(l.rules)
}

// prepareOpcode deploys the program of the one case and runs it with
// N = unroll + 3 (a turn of each loop), reporting the word it returns.
func prepareOpcode(cases []Case) (*Prepared, error) {
	if len(cases) != 1 {
		return nil, fmt.Errorf("opcode mode runs one case (one program), got %d", len(cases))
	}
	code, err := inputHex(cases, 0, "code")
	if err != nil {
		return nil, err
	}
	data, err := inputHex(cases, 0, "data")
	if err != nil {
		return nil, err
	}
	unroll, err := inputUint(cases, 0, "unroll")
	if err != nil {
		return nil, err
	}
	if unroll == 0 {
		return nil, fmt.Errorf("case 0: unroll must be at least 1")
	}
	cfg, rules, err := deployLoop(code)
	if err != nil {
		return nil, err
	}
	l := &opcodeLoop{
		cfg:      cfg,
		rules:    rules,
		data:     data,
		unroll:   unroll,
		calldata: map[int][]byte{},
	}
	l.Loop(int(unroll) + 3)
	if SinkErr != nil {
		return nil, fmt.Errorf("case 0: the program failed: %v", SinkErr)
	}
	if len(SinkBytes) != 32 {
		return nil, fmt.Errorf("case 0: the program returned %d bytes, not one word", len(SinkBytes))
	}
	return &Prepared{Bench: l, Outputs: []Output{{{Name: "output", Value: clone(SinkBytes)}}}}, nil
}
