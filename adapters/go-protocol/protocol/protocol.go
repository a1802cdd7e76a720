// Package protocol holds what every Go worker of dyno shares about its
// benchmarks (docs/adapter-protocol.md): the cases a prepare request
// carries, the outputs a prepare reports, the comparison of the two, and
// the Bench that the worker times.
//
// A benchmark's prepare step parses the cases into native values, runs
// every case once (RunEach) and returns a Prepared; Check then compares its
// outputs with the cases' expected values. The package uses the standard
// library only, so that adapters pinning different go-ethereum versions
// can all import it.
package protocol

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// Bench is a prepared benchmark. Loop runs n operations, cycling through
// the cases in order; the position carries over between calls.
//
// A Bench that holds resources beyond memory (listeners, goroutines) also
// implements io.Closer; the worker closes it when it is replaced, dropped
// after a failed run, or fails its check.
type Bench interface {
	Loop(n int)
}

// Failing is a Bench whose timed operation can fail (a storage engine's
// read or write). Loop cannot return an error without costing every
// operation a check by its caller, so such a loop records its first error
// and keeps going; the worker asks Err after each run and answers that run
// with an error (and drops the benchmark) if it is set.
type Failing interface {
	Bench
	Err() error
}

// Staged is a Bench with set-up before each sample that must not be timed
// (dropping a state's pages from the OS page cache): the worker calls
// Stage before starting its clock for every sample, and answers the run
// with Stage's error if it fails.
type Staged interface {
	Bench
	Stage() error
}

// Case is one case of a prepare request: raw JSON fields.
type Case struct {
	Input    map[string]json.RawMessage `json:"input"`
	Expected map[string]json.RawMessage `json:"expected"`
}

// Field is one output field. Value is a Hex, a bool or an int64.
type Field struct {
	Name  string
	Value any
}

// Output is the outputs of one case, in schema order.
type Output []Field

// MarshalJSON encodes an Output as an object with the fields in order.
func (o Output) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.Name)
		v, err := json.Marshal(f.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// Prepared is the result of a successful prepare.
type Prepared struct {
	Bench   Bench
	Outputs []Output
	// SelfChecked lists the fields an implementation checks itself instead
	// of comparing them with expected (signatures with random nonces).
	SelfChecked map[string]bool
	// SelfMismatch is set when such a self check failed.
	SelfMismatch *Mismatch
}

// Mismatch is the first output that differs from its expected value.
type Mismatch struct {
	Case     int
	Field    string
	Expected json.RawMessage
	Actual   any
}

// Check compares the outputs with the cases' expected values and returns
// the first difference, or nil. An expected field the implementation does
// not produce is a mismatch too (actual null).
func Check(p *Prepared, cases []Case) *Mismatch {
	if p.SelfMismatch != nil {
		return p.SelfMismatch
	}
	for i, c := range cases {
		out := p.Outputs[i]
		produced := make(map[string]bool, len(out))
		for _, f := range out {
			produced[f.Name] = true
			want, ok := c.Expected[f.Name]
			if !ok || p.SelfChecked[f.Name] {
				continue
			}
			if !equal(want, f.Value) {
				return &Mismatch{Case: i, Field: f.Name, Expected: want, Actual: f.Value}
			}
		}
		for _, name := range slices.Sorted(maps.Keys(c.Expected)) {
			if !produced[name] {
				return &Mismatch{Case: i, Field: name, Expected: c.Expected[name], Actual: nil}
			}
		}
	}
	return nil
}

func equal(want json.RawMessage, got any) bool {
	switch g := got.(type) {
	case Hex:
		w, err := DecodeHex(want)
		return err == nil && string(w) == string(g)
	case bool:
		var w bool
		return json.Unmarshal(want, &w) == nil && w == g
	case int64:
		var w int64
		return json.Unmarshal(want, &w) == nil && w == g
	default:
		return false
	}
}
