package worker

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
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dyno/adapters/go/internal/bench"
)

// fixturePath is the lead's export of real prepare requests.
func fixturePath() string {
	if p := os.Getenv("DYNO_PREPARE_FIXTURE"); p != "" {
		return p
	}
	return filepath.Join("..", "..", "..", "testdata", "prepare.jsonl")
}

// newTestWorker is a worker writing its replies to a buffer.
func newTestWorker() (*Worker, *bytes.Buffer) {
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &Worker{out: bw, enc: enc}, &buf
}

// ask hands one request line to w and decodes its one reply.
func ask(t *testing.T, w *Worker, buf *bytes.Buffer, line []byte) map[string]json.RawMessage {
	t.Helper()
	buf.Reset()
	if fatal := w.handle(line); fatal {
		t.Fatalf("fatal reply to %.100s: %s", line, buf.Bytes())
	}
	if n := bytes.Count(buf.Bytes(), []byte("\n")); n != 1 {
		t.Fatalf("%d reply lines, want 1", n)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatalf("reply is not JSON: %v", err)
	}
	return m
}

func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// globMatch matches an id against a hello pattern: `*` is one segment.
func globMatch(pattern, id string) bool {
	p, s := strings.Split(pattern, "/"), strings.Split(id, "/")
	if len(p) != len(s) {
		return false
	}
	for i := range p {
		if s[i] == "" || (p[i] != "*" && p[i] != s[i]) {
			return false
		}
	}
	return true
}

// implementationFor is the implementation hello offers for id: the
// request's own if it is one of ours, else the first listed.
func implementationFor(h Hello, id, requested string) (string, bool) {
	var found []string
	for _, e := range h.Benchmarks {
		if e.ID == id {
			found = append(found, e.Implementation)
		}
	}
	for _, p := range h.Patterns {
		if globMatch(p.ID, id) {
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

// randomNonceSigner says whether id is signed with Go's random nonces,
// whose r and s are verified rather than compared.
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

// TestFixtureReplay replays every prepare request of the fixture: ids the
// worker offers must be prepared with outputs equal to expected (random
// nonce signatures must verify), a corrupted copy must be a mismatch, and
// ids it does not offer must be an error.
func TestFixtureReplay(t *testing.T) {
	f, err := os.Open(fixturePath())
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("no fixture at %s yet (the lead generates it from Rust)", fixturePath())
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := NewHello()
	w, buf := newTestWorker()
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
			var cases []bench.Case
			if err := json.Unmarshal(req["cases"], &cases); err != nil {
				t.Fatalf("line %d: cases: %v", lineNo, err)
			}
			impl, ok := implementationFor(h, id, str(req["implementation"]))
			if !ok {
				reply := ask(t, w, buf, line)
				if str(reply["type"]) != "error" {
					t.Errorf("line %d: %s is not offered, got %s", lineNo, id, reply["type"])
				}
				refused++
			} else {
				req["implementation"], _ = json.Marshal(impl)
				replayOne(t, w, buf, lineNo, id, req, cases, &corruptions)
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

func replayOne(t *testing.T, w *Worker, buf *bytes.Buffer, lineNo int, id string, req map[string]json.RawMessage, cases []bench.Case, corruptions *int) {
	t.Helper()
	line, _ := json.Marshal(req)
	reply := ask(t, w, buf, line)
	if str(reply["type"]) != "prepared" {
		t.Errorf("line %d: %s: %s", lineNo, id, buf.Bytes())
		return
	}
	var outs []map[string]json.RawMessage
	if err := json.Unmarshal(reply["outputs"], &outs); err != nil || len(outs) != len(cases) {
		t.Errorf("line %d: %s: %d outputs for %d cases (%v)", lineNo, id, len(outs), len(cases), err)
		return
	}
	curve, hash, random := randomNonceSigner(id)
	for i, c := range cases {
		for field, want := range c.Expected {
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
			pub, err := ecdsa.ParseUncompressedPublicKey(curve, unhex(t, c.Input["public_key"]))
			if err != nil {
				t.Fatal(err)
			}
			rr := new(big.Int).SetBytes(unhex(t, outs[i]["r"]))
			ss := new(big.Int).SetBytes(unhex(t, outs[i]["s"]))
			if !ecdsa.Verify(pub, hash(unhex(t, c.Input["message"])), rr, ss) {
				t.Errorf("line %d: %s case %d: the signature does not verify", lineNo, id, i)
			}
		}
	}

	// The same request with one value corrupted must be a mismatch at it.
	bad := make([]bench.Case, len(cases))
	for i, c := range cases {
		bad[i] = bench.Case{Input: maps.Clone(c.Input), Expected: maps.Clone(c.Expected)}
	}
	wantField := ""
	switch {
	case random && len(cases) > 1 && str(cases[0].Input["public_key"]) != str(cases[1].Input["public_key"]):
		bad[0].Input["public_key"] = cases[1].Input["public_key"]
	case random:
		return
	default:
		keys := make([]string, 0, len(bad[0].Expected))
		for k := range bad[0].Expected {
			keys = append(keys, k)
		}
		if len(keys) == 0 {
			return
		}
		slices.Sort(keys)
		wantField = keys[0]
		bad[0].Expected[wantField] = corrupted(bad[0].Expected[wantField])
	}
	req["cases"], _ = json.Marshal(bad)
	line, _ = json.Marshal(req)
	reply = ask(t, w, buf, line)
	if str(reply["type"]) != "mismatch" || string(reply["case"]) != "0" || (wantField != "" && str(reply["field"]) != wantField) {
		t.Errorf("line %d: %s corrupted: %s", lineNo, id, buf.Bytes())
		return
	}
	*corruptions++
}
