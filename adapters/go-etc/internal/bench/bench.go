// Package bench holds the go-etc worker's benchmarks (core-geth's Ethash and
// Etchash): for each (id, implementation) a prepare step that parses the
// cases into native values and runs every case once, and a tight loop that
// the protocol layer times. The protocol types below are those of
// adapters/go/internal/bench/bench.go.
package bench

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Sinks: every timed operation stores its result in one of these
// package-level variables so that the compiler cannot drop the work.
var (
	SinkBytes []byte
	SinkBool  bool
	SinkU64   uint64
)

// Bench is a prepared benchmark. Loop runs n operations, cycling through
// the cases in order; the position carries over between calls.
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

// Hex is a byte string, encoded as 0x-prefixed lower-case hex.
type Hex []byte

// MarshalJSON encodes h as "0x…".
func (h Hex) MarshalJSON() ([]byte, error) {
	return json.Marshal("0x" + hex.EncodeToString(h))
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
		for _, name := range sortedKeys(c.Expected) {
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
		w, err := decodeHex(want)
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

func decodeHex(raw json.RawMessage) ([]byte, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("not a hex string: %s", truncate(string(raw)))
	}
	if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return nil, fmt.Errorf("hex string without 0x prefix: %s", truncate(s))
	}
	b, err := hex.DecodeString(s[2:])
	if err != nil {
		return nil, fmt.Errorf("bad hex %s: %v", truncate(s), err)
	}
	return b, nil
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// inputHex reads the hex field name of case i's input.
func inputHex(cases []Case, i int, name string) ([]byte, error) {
	raw, ok := cases[i].Input[name]
	if !ok {
		return nil, fmt.Errorf("case %d: input has no field %q", i, name)
	}
	b, err := decodeHex(raw)
	if err != nil {
		return nil, fmt.Errorf("case %d: input %s: %v", i, name, err)
	}
	return b, nil
}

// inputUint reads the integer field name of case i's input.
func inputUint(cases []Case, i int, name string) (uint64, error) {
	raw, ok := cases[i].Input[name]
	if !ok {
		return 0, fmt.Errorf("case %d: input has no field %q", i, name)
	}
	var v uint64
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, fmt.Errorf("case %d: input %s: not an unsigned integer: %s", i, name, truncate(string(raw)))
	}
	return v, nil
}

func sortedKeys(m map[string]json.RawMessage) []string {
	return slices.Sorted(maps.Keys(m))
}
