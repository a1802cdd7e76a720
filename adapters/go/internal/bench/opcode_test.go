package bench

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// opcodeRequests reads every opcode-mode prepare request of
// adapters/testdata/prepare.jsonl: dyno's programs and their expected words.
func opcodeRequests(t *testing.T) map[string][]Case {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "prepare.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]Case{}
	for _, line := range bytes.Split(b, []byte("\n")) {
		var req struct {
			ID    string `json:"id"`
			Cases []Case `json:"cases"`
		}
		if json.Unmarshal(line, &req) == nil && strings.HasPrefix(req.ID, OpcodeGroup+"/") {
			out[req.ID] = req.Cases
		}
	}
	if len(out) < 12 {
		t.Fatalf("the fixture holds %d opcode requests, expected the arithmetic and KECCAK256 ones at least", len(out))
	}
	return out
}

// TestOpcodeMode runs each of dyno's opcode programs in geth's EVM: the
// word it returns must be the expected one (from dyno's vectors), and the
// loop must run at every N the engine asks for.
func TestOpcodeMode(t *testing.T) {
	for id, cases := range opcodeRequests(t) {
		t.Run(id, func(t *testing.T) {
			p, err := Prepare(id, ImplEVM, cases)
			if err != nil {
				t.Fatal(err)
			}
			if m := Check(p, cases); m != nil {
				t.Fatalf("mismatch: %+v", m)
			}
			for _, n := range []int{0, 1, 130} {
				p.Bench.Loop(n)
				if SinkErr != nil {
					t.Fatalf("N=%d: %v", n, SinkErr)
				}
			}
		})
	}
}

// TestOpcodeModeCatchesAWrongWord: a wrong expected word is a mismatch,
// and a program that halts is an error, never a timing.
func TestOpcodeModeCatchesAWrongWord(t *testing.T) {
	id := "opcode/arith-div/a256-b128-c200"
	cases, ok := opcodeRequests(t)[id]
	if !ok {
		t.Fatalf("no %s in the fixture", id)
	}
	wrong := []Case{{Input: cases[0].Input, Expected: map[string]json.RawMessage{
		"output": json.RawMessage(`"0x` + strings.Repeat("ee", 32) + `"`),
	}}}
	p, err := Prepare(id, ImplEVM, wrong)
	if err != nil {
		t.Fatal(err)
	}
	if m := Check(p, wrong); m == nil || m.Field != "output" {
		t.Fatalf("a wrong expected word passed: %+v", m)
	}
	halting := []Case{{Input: map[string]json.RawMessage{
		"code":   json.RawMessage(`"0xfe"`),
		"data":   json.RawMessage(`"0x"`),
		"unroll": json.RawMessage(`64`),
	}, Expected: cases[0].Expected}}
	if _, err := Prepare(id, ImplEVM, halting); err == nil || !strings.Contains(err.Error(), "the program failed") {
		t.Fatalf("a halting program prepared: %v", err)
	}
}
