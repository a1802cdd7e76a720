package bench

import (
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"hash"

	"github.com/ethereum/go-ethereum/crypto"
	"golang.org/x/crypto/blake2b"
	"golang.org/x/crypto/blake2s"
	//lint:ignore SA1019 geth's RIPEMD-160 precompile uses this package, the one measured here
	"golang.org/x/crypto/ripemd160"
)

// One explicit loop per algorithm, so that the timed loop calls the hash
// function directly (no function value or interface call per operation).

// KeccakLoop hashes with go-ethereum's crypto.Keccak256. It is exported
// for the Go benchmark in keccak_test.go, which runs the same loop.
type KeccakLoop struct {
	Data [][]byte
	pos  int
}

// Loop runs n hashes, cycling through Data.
func (l *KeccakLoop) Loop(n int) {
	data, pos := l.Data, l.pos
	for i := 0; i < n; i++ {
		SinkBytes = crypto.Keccak256(data[pos])
		pos++
		if pos == len(data) {
			pos = 0
		}
	}
	l.pos = pos
}

type sha256Loop struct {
	data [][]byte
	pos  int
}

func (l *sha256Loop) Loop(n int) {
	data, pos := l.data, l.pos
	for i := 0; i < n; i++ {
		Sink32 = sha256.Sum256(data[pos])
		pos++
		if pos == len(data) {
			pos = 0
		}
	}
	l.pos = pos
}

type sha384Loop struct {
	data [][]byte
	pos  int
}

func (l *sha384Loop) Loop(n int) {
	data, pos := l.data, l.pos
	for i := 0; i < n; i++ {
		Sink48 = sha512.Sum384(data[pos])
		pos++
		if pos == len(data) {
			pos = 0
		}
	}
	l.pos = pos
}

type sha512Loop struct {
	data [][]byte
	pos  int
}

func (l *sha512Loop) Loop(n int) {
	data, pos := l.data, l.pos
	for i := 0; i < n; i++ {
		Sink64 = sha512.Sum512(data[pos])
		pos++
		if pos == len(data) {
			pos = 0
		}
	}
	l.pos = pos
}

// ripemd160Loop reuses one hasher (Reset, Write, Sum into a fixed buffer):
// x/crypto's ripemd160 has no one-shot function.
type ripemd160Loop struct {
	data [][]byte
	pos  int
	h    hash.Hash
	buf  [ripemd160.Size]byte
}

func (l *ripemd160Loop) Loop(n int) {
	data, pos, h := l.data, l.pos, l.h
	for i := 0; i < n; i++ {
		h.Reset()
		h.Write(data[pos])
		SinkBytes = h.Sum(l.buf[:0])
		pos++
		if pos == len(data) {
			pos = 0
		}
	}
	l.pos = pos
}

type blake2bLoop struct {
	data [][]byte
	pos  int
}

func (l *blake2bLoop) Loop(n int) {
	data, pos := l.data, l.pos
	for i := 0; i < n; i++ {
		Sink64 = blake2b.Sum512(data[pos])
		pos++
		if pos == len(data) {
			pos = 0
		}
	}
	l.pos = pos
}

type blake2sLoop struct {
	data [][]byte
	pos  int
}

func (l *blake2sLoop) Loop(n int) {
	data, pos := l.data, l.pos
	for i := 0; i < n; i++ {
		Sink32 = blake2s.Sum256(data[pos])
		pos++
		if pos == len(data) {
			pos = 0
		}
	}
	l.pos = pos
}

// prepareHash builds the loop for alg; the outputs come from running the
// loop itself once per case and reading its sink.
func prepareHash(alg string, cases []Case) (*Prepared, error) {
	data := make([][]byte, len(cases))
	for i := range cases {
		b, err := inputHex(cases, i, "data")
		if err != nil {
			return nil, err
		}
		data[i] = b
	}
	var b Bench
	var last func() []byte
	switch alg {
	case "keccak256":
		b, last = &KeccakLoop{Data: data}, func() []byte { return SinkBytes }
	case "sha256":
		b, last = &sha256Loop{data: data}, func() []byte { return Sink32[:] }
	case "sha384":
		b, last = &sha384Loop{data: data}, func() []byte { return Sink48[:] }
	case "sha512":
		b, last = &sha512Loop{data: data}, func() []byte { return Sink64[:] }
	case "ripemd160":
		b, last = &ripemd160Loop{data: data, h: ripemd160.New()}, func() []byte { return SinkBytes }
	case "blake2b512":
		b, last = &blake2bLoop{data: data}, func() []byte { return Sink64[:] }
	case "blake2s256":
		b, last = &blake2sLoop{data: data}, func() []byte { return Sink32[:] }
	default:
		return nil, fmt.Errorf("unknown hash %s", alg)
	}
	outs := make([]Output, len(cases))
	for i := range cases {
		b.Loop(1)
		outs[i] = Output{{Name: "digest", Value: Hex(append([]byte(nil), last()...))}}
	}
	return &Prepared{Bench: b, Outputs: outs}, nil
}
