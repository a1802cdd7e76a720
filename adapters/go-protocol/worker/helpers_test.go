package worker

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"dyno/adapters/go-protocol/protocol"
)

// panicky panics in its loop once armed.
type panicky struct{ armed bool }

func (b *panicky) Loop(int) {
	if b.armed {
		panic("loop on fire")
	}
}

// testConfig is a worker with the noop benchmark (test-noop) and two that
// misbehave: one whose prepare panics, one whose loop panics when timed.
func testConfig() Config {
	r := new(protocol.Registry)
	r.Add("test/panic/prepare", "test", protocol.NoLibrary, func(string, []protocol.Case) (*protocol.Prepared, error) {
		panic("prepare on fire")
	})
	r.Add("test/panic/run", "test", protocol.NoLibrary, func(_ string, cases []protocol.Case) (*protocol.Prepared, error) {
		b := &panicky{}
		outs, err := protocol.RunEach(b, len(cases), func(int) (protocol.Output, error) { return protocol.Output{}, nil })
		b.armed = true
		return &protocol.Prepared{Bench: b, Outputs: outs}, err
	})
	r.Add("test/error/prepare", "test", protocol.NoLibrary, func(string, []protocol.Case) (*protocol.Prepared, error) {
		return nil, errors.New("no such input")
	})
	r.AddHarness("test")
	return Config{
		Name:      "dyno-adapter-test",
		Version:   "9.8.7",
		Runtime:   "go-test",
		Libraries: []string{"example.invalid/not-built-in"},
		Flags: func(cgo bool) []string {
			return []string{"test-flag", map[bool]string{true: "cgo=yes", false: "cgo=no"}[cgo]}
		},
		Registry: r,
	}
}

// newTestWorker is a worker writing its replies to a buffer.
func newTestWorker() (*server, *bytes.Buffer) {
	var buf bytes.Buffer
	return newServer(testConfig(), &buf), &buf
}

// ask hands one request line to w and decodes its one reply.
func ask(t *testing.T, w *server, buf *bytes.Buffer, line []byte) map[string]json.RawMessage {
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
