package bench

import (
	"encoding/binary"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm"
)

// PrecompileSet is the fork whose precompile table the worker calls.
const PrecompileSet = "Osaka"

type precompileCase struct {
	input []byte
	gas   uint64
}

// precompileLoop calls a contract of geth's Osaka table directly, as
// vm.RunPrecompiledContract does without the EVM around it: RequiredGas,
// the gas check, then Run (revm's timed call prices the input too).
type precompileLoop struct {
	p     vm.PrecompiledContract
	cases []precompileCase
	pos   int
}

func (l *precompileLoop) Loop(n int) {
	p, cases, pos := l.p, l.cases, l.pos
	for i := 0; i < n; i++ {
		c := &cases[pos]
		if p.RequiredGas(c.input) > c.gas {
			SinkErr = vm.ErrOutOfGas
		} else {
			SinkBytes, SinkErr = p.Run(c.input)
		}
		pos++
		if pos == len(cases) {
			pos = 0
		}
	}
	l.pos = pos
}

func addressOf(a uint64) common.Address {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], a)
	return common.BytesToAddress(b[:])
}

// precompileAddress is the address every case of an id gives (dyno reads
// it from the fork's gas file, specs/gas/osaka.toml; the worker keeps no
// table of its own).
func precompileAddress(cases []Case) (uint64, error) {
	if len(cases) == 0 {
		return 0, fmt.Errorf("no cases")
	}
	addr, err := inputUint(cases, 0, "address")
	if err != nil {
		return 0, err
	}
	for i := range cases {
		other, err := inputUint(cases, i, "address")
		if err != nil {
			return 0, err
		}
		if other != addr {
			return 0, fmt.Errorf("case %d: address %#x differs from case 0's %#x: one id calls one precompile", i, other, addr)
		}
	}
	return addr, nil
}

func preparePrecompile(op string, cases []Case) (*Prepared, error) {
	addr, err := precompileAddress(cases)
	if err != nil {
		return nil, err
	}
	p, ok := vm.PrecompiledContractsOsaka[addressOf(addr)]
	if !ok {
		return nil, fmt.Errorf("go-ethereum has no %s precompile at %#x (the case's address for %s)", PrecompileSet, addr, op)
	}
	cs := make([]precompileCase, len(cases))
	for i := range cases {
		in, err := inputHex(cases, i, "input")
		if err != nil {
			return nil, err
		}
		gas, err := inputUint(cases, i, "gas")
		if err != nil {
			return nil, err
		}
		if need := p.RequiredGas(in); need > gas {
			return nil, fmt.Errorf("case %d: %s needs %d gas, the case gives %d", i, op, need, gas)
		}
		cs[i] = precompileCase{in, gas}
	}
	b := &precompileLoop{p: p, cases: cs}
	outs, err := runEach(b, len(cs), func(int) (Output, error) {
		if SinkErr != nil {
			return nil, fmt.Errorf("%s (%s) failed: %v", op, p.Name(), SinkErr)
		}
		return Output{{Name: "output", Value: clone(SinkBytes)}}, nil
	})
	if err != nil {
		return nil, err
	}
	return &Prepared{Bench: b, Outputs: outs}, nil
}
