package workertest

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"math/big"
	"os"
	"slices"
	"strings"
	"testing"

	"dyno/adapters/go-protocol/protocol"
	"dyno/adapters/go-protocol/worker"
)

// FixtureEnv names a fixture file that replaces Replay's default.
const FixtureEnv = "DYNO_PREPARE_FIXTURE"

// Replay replays every prepare request of the fixture at path (JSON
// Lines; $DYNO_PREPARE_FIXTURE instead, if set) through worker.Serve with
// config in this process (Pipe), skipping the test while the fixture does
// not exist. Each request goes with the implementation that hello offers
// for its id (the request's own if offered, else the first): offered ids
// must be prepared with outputs equal to expected (the signatures of
// crypto/p256-sign/32B and crypto/p384-sign/32B, made with random nonces,
// must verify instead), a corrupted copy must be a mismatch, and ids not
// offered must be an error. At least one id must be offered, and the
// worker must end with 0 at the end of its input.
func Replay(t *testing.T, config worker.Config, path string) {
	t.Helper()
	if p := os.Getenv(FixtureEnv); p != "" {
		path = p
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		// The fixture is committed: its absence is a broken checkout, not
		// a reason to pass.
		t.Fatalf("no fixture at %s: it is committed (adapters/testdata/prepare.jsonl); restore it, or regenerate it with DYNO_BLESS=1 cargo test -p dyno-lab", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := Pipe(t, config)
	defer func() {
		if code := c.Exit(); code != 0 && !t.Failed() {
			t.Errorf("exit code %d at the end of the fixture", code)
		}
	}()
	var h struct {
		Benchmarks []protocol.Entry
		Patterns   []protocol.Pattern
	}
	if err := json.Unmarshal(c.roundTrip(`{"type":"hello","protocol":1}`), &h); err != nil {
		t.Fatalf("hello: %v", err)
	}
	r := bufio.NewReaderSize(f, 1<<20)
	var prepared, refused, corruptions int
	for lineNo := 1; ; lineNo++ {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var req map[string]json.RawMessage
			if err := json.Unmarshal(line, &req); err != nil {
				t.Fatalf("line %d: %v", lineNo, err)
			}
			id := str(req["id"])
			var cases []protocol.Case
			if err := json.Unmarshal(req["cases"], &cases); err != nil {
				t.Fatalf("line %d: cases: %v", lineNo, err)
			}
			impl, ok := implementationFor(h.Benchmarks, h.Patterns, id, str(req["implementation"]))
			if !ok {
				reply := ask(t, c, bytes.TrimSpace(line))
				if str(reply["type"]) != "error" {
					t.Errorf("line %d: %s is not offered, got %s", lineNo, id, reply["type"])
				}
				refused++
			} else {
				req["implementation"], _ = json.Marshal(impl)
				if replayOne(t, c, lineNo, id, req, cases) {
					corruptions++
				}
				prepared++
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("fixture: %d prepared and checked, %d corrupted copies caught, %d refused", prepared, corruptions, refused)
	if prepared == 0 {
		t.Error("the fixture has no id this worker offers")
	}
}

// ask sends one request line and decodes its reply, failing on a fatal one.
func ask(t *testing.T, c *Client, line []byte) map[string]json.RawMessage {
	t.Helper()
	reply := c.roundTrip(string(line))
	var m map[string]json.RawMessage
	if err := json.Unmarshal(reply, &m); err != nil {
		t.Fatalf("reply is not JSON: %v", err)
	}
	if string(m["fatal"]) == "true" {
		t.Fatalf("fatal reply to %.100s: %s", line, reply)
	}
	return m
}

// replayOne prepares one offered request and checks its outputs, then a
// corrupted copy; it says whether the corruption was caught.
func replayOne(t *testing.T, c *Client, lineNo int, id string, req map[string]json.RawMessage, cases []protocol.Case) bool {
	t.Helper()
	line, _ := json.Marshal(req)
	reply := ask(t, c, line)
	if str(reply["type"]) != "prepared" {
		t.Errorf("line %d: %s: %s", lineNo, id, mustJSON(reply))
		return false
	}
	var outs []map[string]json.RawMessage
	if err := json.Unmarshal(reply["outputs"], &outs); err != nil || len(outs) != len(cases) {
		t.Errorf("line %d: %s: %d outputs for %d cases (%v)", lineNo, id, len(outs), len(cases), err)
		return false
	}
	curve, hash, random := randomNonceSigner(id)
	for i, cs := range cases {
		for field, want := range cs.Expected {
			got, ok := outs[i][field]
			if !ok {
				t.Errorf("line %d: %s case %d: no output %s", lineNo, id, i, field)
				continue
			}
			if random {
				continue
			}
			if !sameValue(got, want) {
				t.Errorf("line %d: %s case %d: %s = %s, want %s", lineNo, id, i, field, got, want)
			}
		}
		if random {
			pub, err := ecdsa.ParseUncompressedPublicKey(curve, unhex(t, cs.Input["public_key"]))
			if err != nil {
				t.Fatal(err)
			}
			rr := new(big.Int).SetBytes(unhex(t, outs[i]["r"]))
			ss := new(big.Int).SetBytes(unhex(t, outs[i]["s"]))
			if !ecdsa.Verify(pub, hash(unhex(t, cs.Input["message"])), rr, ss) {
				t.Errorf("line %d: %s case %d: the signature does not verify", lineNo, id, i)
			}
		}
	}

	// The same request with one value corrupted must be a mismatch at it.
	bad := make([]protocol.Case, len(cases))
	for i, cs := range cases {
		bad[i] = protocol.Case{Input: maps.Clone(cs.Input), Expected: maps.Clone(cs.Expected)}
	}
	wantField := ""
	switch {
	case random && len(cases) > 1 && str(cases[0].Input["public_key"]) != str(cases[1].Input["public_key"]):
		bad[0].Input["public_key"] = cases[1].Input["public_key"]
	case random:
		return false
	default:
		keys := slices.Sorted(maps.Keys(bad[0].Expected))
		if len(keys) == 0 {
			return false
		}
		wantField = keys[0]
		bad[0].Expected[wantField] = corrupted(bad[0].Expected[wantField])
	}
	req["cases"], _ = json.Marshal(bad)
	line, _ = json.Marshal(req)
	reply = ask(t, c, line)
	if str(reply["type"]) != "mismatch" || string(reply["case"]) != "0" || (wantField != "" && str(reply["field"]) != wantField) {
		t.Errorf("line %d: %s corrupted: %s", lineNo, id, mustJSON(reply))
		return false
	}
	return true
}

func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// implementationFor is the implementation hello offers for id: the
// request's own if it is one of those, else the first listed.
func implementationFor(benchmarks []protocol.Entry, patterns []protocol.Pattern, id, requested string) (string, bool) {
	var found []string
	for _, e := range benchmarks {
		if e.ID == id {
			found = append(found, e.Implementation)
		}
	}
	for _, p := range patterns {
		if p.Matches(id) {
			found = append(found, p.Implementation)
		}
	}
	if len(found) == 0 {
		return "", false
	}
	if slices.Contains(found, requested) {
		return requested, true
	}
	return found[0], true
}

// sameValue compares an output value with its expected value: hex
// strings case-insensitively, anything else as JSON.
func sameValue(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	if xs, ok := x.(string); ok {
		ys, ok := y.(string)
		return ok && strings.EqualFold(xs, ys)
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

// corrupted returns a different value of the same JSON type.
func corrupted(raw json.RawMessage) json.RawMessage {
	var v any
	_ = json.Unmarshal(raw, &v)
	switch x := v.(type) {
	case string:
		if x == "0x" {
			return json.RawMessage(`"0x00"`)
		}
		last := x[len(x)-1]
		repl := "0"
		if last == '0' {
			repl = "1"
		}
		b, _ := json.Marshal(x[:len(x)-1] + repl)
		return b
	case bool:
		b, _ := json.Marshal(!x)
		return b
	case float64:
		b, _ := json.Marshal(x + 1)
		return b
	}
	return json.RawMessage(`"corrupted"`)
}

// randomNonceSigner says whether id is signed with random nonces (Go's
// crypto/ecdsa), whose r and s are verified rather than compared.
func randomNonceSigner(id string) (elliptic.Curve, func([]byte) []byte, bool) {
	switch id {
	case "crypto/p256-sign/32B":
		return elliptic.P256(), func(m []byte) []byte { h := sha256.Sum256(m); return h[:] }, true
	case "crypto/p384-sign/32B":
		return elliptic.P384(), func(m []byte) []byte { h := sha512.Sum384(m); return h[:] }, true
	}
	return nil, nil, false
}

func unhex(t *testing.T, raw json.RawMessage) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.TrimPrefix(str(raw), "0x"))
	if err != nil {
		t.Fatalf("bad hex %s", raw)
	}
	return b
}
