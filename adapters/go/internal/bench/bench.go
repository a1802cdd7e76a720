// Package bench holds dyno's Go benchmarks: for each (id, implementation) a
// prepare step that parses the cases into native values and runs every case
// once, and a tight loop that the protocol layer times. The case, output
// and benchmark types are the shared module's (adapters/go-protocol), under
// the names this package has always used.
package bench

import "dyno/adapters/go-protocol/protocol"

// The shared protocol types (see package protocol).
type (
	Bench    = protocol.Bench
	Failing  = protocol.Failing
	Staged   = protocol.Staged
	Case     = protocol.Case
	Field    = protocol.Field
	Hex      = protocol.Hex
	Output   = protocol.Output
	Prepared = protocol.Prepared
	Mismatch = protocol.Mismatch
	Entry    = protocol.Entry
	Pattern  = protocol.Pattern
	preparer = protocol.Preparer
)

// A Bench that holds resources beyond memory (net/handshake/local's
// loopback listeners and their goroutines) also implements io.Closer; the
// worker closes it when it is replaced, dropped after a failed run, or
// fails its check.

// Sinks: every timed operation stores its result in one of these
// package-level variables so that the compiler cannot drop the work.
var (
	SinkBytes []byte
	SinkBool  bool
	SinkErr   error
	Sink32    [32]byte
	Sink48    [48]byte
	Sink64    [64]byte
	SinkU64   uint64
)

// Check compares the outputs with the cases' expected values and returns
// the first difference, or nil (protocol.Check).
func Check(p *Prepared, cases []Case) *Mismatch { return protocol.Check(p, cases) }

// Short names for the shared helpers used throughout this package.
var (
	decodeHex   = protocol.DecodeHex
	truncate    = protocol.Truncate
	inputHex    = protocol.InputHex
	inputUint   = protocol.InputUint
	inputString = protocol.InputString
	runEach     = protocol.RunEach
	clone       = protocol.Clone
)

// funcLoop cycles a per-case operation; used where one operation costs
// microseconds and a function-value call is noise.
type funcLoop[T any] struct {
	cases []T
	pos   int
	op    func(*T)
}

func (l *funcLoop[T]) Loop(n int) {
	cases, pos, op := l.cases, l.pos, l.op
	for i := 0; i < n; i++ {
		op(&cases[pos])
		pos++
		if pos == len(cases) {
			pos = 0
		}
	}
	l.pos = pos
}
