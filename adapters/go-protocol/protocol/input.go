package protocol

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// Hex is a byte string, encoded as 0x-prefixed lower-case hex.
type Hex []byte

// MarshalJSON encodes h as "0x…".
func (h Hex) MarshalJSON() ([]byte, error) {
	return json.Marshal("0x" + hex.EncodeToString(h))
}

// Clone copies b into a new Hex, for an output read from a sink that the
// next operation overwrites.
func Clone(b []byte) Hex { return append(Hex(nil), b...) }

// DecodeHex decodes a JSON string "0x…" (either case of prefix and digits).
func DecodeHex(raw json.RawMessage) ([]byte, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("not a hex string: %s", Truncate(string(raw)))
	}
	if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return nil, fmt.Errorf("hex string without 0x prefix: %s", Truncate(s))
	}
	b, err := hex.DecodeString(s[2:])
	if err != nil {
		return nil, fmt.Errorf("bad hex %s: %v", Truncate(s), err)
	}
	return b, nil
}

// Truncate shortens s to 40 bytes and an ellipsis, for error messages that
// quote an input.
func Truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// InputHex reads the hex field name of case i's input.
func InputHex(cases []Case, i int, name string) ([]byte, error) {
	raw, ok := cases[i].Input[name]
	if !ok {
		return nil, fmt.Errorf("case %d: input has no field %q", i, name)
	}
	b, err := DecodeHex(raw)
	if err != nil {
		return nil, fmt.Errorf("case %d: input %s: %v", i, name, err)
	}
	return b, nil
}

// InputUint reads the integer field name of case i's input.
func InputUint(cases []Case, i int, name string) (uint64, error) {
	raw, ok := cases[i].Input[name]
	if !ok {
		return 0, fmt.Errorf("case %d: input has no field %q", i, name)
	}
	var v uint64
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, fmt.Errorf("case %d: input %s: not an unsigned integer: %s", i, name, Truncate(string(raw)))
	}
	return v, nil
}

// InputString reads the string field name of case i's input.
func InputString(cases []Case, i int, name string) (string, error) {
	raw, ok := cases[i].Input[name]
	if !ok {
		return "", fmt.Errorf("case %d: input has no field %q", i, name)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("case %d: input %s: not a string: %s", i, name, Truncate(string(raw)))
	}
	return s, nil
}

// RunEach runs b once per case (b must be at position 0) and collects the
// output of each from read, which looks at the sinks the loop wrote.
func RunEach(b Bench, n int, read func(i int) (Output, error)) ([]Output, error) {
	outs := make([]Output, n)
	for i := 0; i < n; i++ {
		b.Loop(1)
		o, err := read(i)
		if err != nil {
			return nil, fmt.Errorf("case %d: %v", i, err)
		}
		outs[i] = o
	}
	return outs, nil
}
