package bench

import (
	"encoding/binary"
	"fmt"
	"maps"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm"
)

// precompileAddresses maps dyno's precompile op names
// (crates/evm/src/precompile.rs) to their addresses.
var precompileAddresses = map[string]uint64{
	"ecrecover":            0x01,
	"sha256":               0x02,
	"ripemd160":            0x03,
	"identity":             0x04,
	"modexp":               0x05,
	"bn254-add":            0x06,
	"bn254-mul":            0x07,
	"bn254-pairing":        0x08,
	"blake2f":              0x09,
	"kzg-point-evaluation": 0x0a,
	"bls12-g1add":          0x0b,
	"bls12-g1msm":          0x0c,
	"bls12-g2add":          0x0d,
	"bls12-g2msm":          0x0e,
	"bls12-pairing":        0x0f,
	"bls12-map-fp-to-g1":   0x10,
	"bls12-map-fp2-to-g2":  0x11,
	"p256verify":           0x100,
}

// PrecompileSet is the fork whose precompile table the worker calls.
const PrecompileSet = "Osaka"

// PrecompileOps lists the supported op names.
func PrecompileOps() []string {
	return slices.Sorted(maps.Keys(precompileAddresses))
}

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

func preparePrecompile(op string, cases []Case) (*Prepared, error) {
	addr, ok := precompileAddresses[op]
	if !ok {
		return nil, fmt.Errorf("unknown precompile op %s", op)
	}
	p, ok := vm.PrecompiledContractsOsaka[addressOf(addr)]
	if !ok {
		return nil, fmt.Errorf("go-ethereum has no %s precompile at %#x", PrecompileSet, addr)
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
