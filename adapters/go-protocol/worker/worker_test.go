package worker

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// TestHello: hello reports the config's names, the runtime's version and
// flags (the generic ones, then the adapter's), the standard library and
// no module the binary lacks, a clock, no JIT, and the registry's
// benchmarks, with an empty list of patterns (dyno refuses null).
func TestHello(t *testing.T) {
	w, buf := newTestWorker()
	r := ask(t, w, buf, []byte(`{"type":"hello","protocol":1}`))
	var h hello
	if err := json.Unmarshal(buf.Bytes(), &h); err != nil {
		t.Fatal(err)
	}
	if h.Type != "hello" || h.Protocol != 1 || h.JIT || string(r["jit"]) != "false" {
		t.Fatalf("hello: %s", buf.Bytes())
	}
	if h.Runtime.Name != "go-test" || h.Runtime.Version != runtime.Version() {
		t.Fatalf("runtime: %+v", h.Runtime)
	}
	if h.Adapter != (adapterInfo{Name: "dyno-adapter-test", Version: "9.8.7"}) {
		t.Fatalf("adapter: %+v", h.Adapter)
	}
	if len(h.Libraries) != 1 || h.Libraries["std"] != runtime.Version() {
		t.Fatalf("libraries: %v", h.Libraries)
	}
	f := h.Runtime.Flags
	if len(f) < 5 || !strings.HasPrefix(f[0], "GOGC=") || !strings.HasPrefix(f[1], "GOMAXPROCS=") ||
		!strings.HasPrefix(f[2], "CGO_ENABLED=") || f[len(f)-2] != "test-flag" || !strings.HasPrefix(f[len(f)-1], "cgo=") {
		t.Fatalf("flags: %v", f)
	}
	if h.Clock.Source != "time.Now (monotonic)" || h.Clock.ResolutionNs < 1 {
		t.Fatalf("clock: %+v", h.Clock)
	}
	if string(r["patterns"]) != "[]" || len(h.Benchmarks) != 5 || h.Benchmarks[3].ID != "harness/noop/empty" ||
		h.Benchmarks[3].Implementation != "test-noop" || h.Benchmarks[3].Library != "-" ||
		h.Benchmarks[4].ID != "harness/sleep/1ms" || h.Benchmarks[4].Implementation != "test-sleep" {
		t.Fatalf("benchmarks %v, patterns %s", h.Benchmarks, r["patterns"])
	}
	// A second hello is the same reply.
	first := append([]byte(nil), buf.Bytes()...)
	ask(t, w, buf, []byte(`{"type":"hello","protocol":1}`))
	if !bytes.Equal(first, buf.Bytes()) {
		t.Fatalf("second hello differs:\n%s\n%s", first, buf.Bytes())
	}
}

// TestProtocolLoop: prepare, mismatch and run as docs/adapter-protocol.md
// describes them, with the errors that keep the worker going.
func TestProtocolLoop(t *testing.T) {
	w, buf := newTestWorker()
	run := []byte(`{"type":"run","iterations":1000,"samples":5,"unknown_field":true}`)
	if r := ask(t, w, buf, run); str(r["type"]) != "error" || string(r["fatal"]) != "false" {
		t.Fatalf("run before prepare: %s", buf.Bytes())
	}
	noop := `{"type":"prepare","id":"harness/noop/empty","implementation":"test-noop","cases":[{"input":{"value":"0xabcd"},"expected":{"value":"0xabcd"}},{"input":{"value":"0x"},"expected":{"value":"0x"}}]}`
	r := ask(t, w, buf, []byte(noop))
	if str(r["type"]) != "prepared" || str(r["id"]) != "harness/noop/empty" || string(r["cases"]) != "2" ||
		string(r["outputs"]) != `[{"value":"0xabcd"},{"value":"0x"}]` {
		t.Fatalf("prepare: %s", buf.Bytes())
	}
	r = ask(t, w, buf, run)
	var s samplesReply
	if err := json.Unmarshal(buf.Bytes(), &s); err != nil || s.Type != "samples" || len(s.Ns) != 5 {
		t.Fatalf("run: %s", buf.Bytes())
	}
	for _, ns := range s.Ns {
		if ns <= 0 {
			t.Fatalf("non-positive sample in %v", s.Ns)
		}
	}
	for _, k := range []string{"gc", "alloc"} {
		if _, ok := r[k]; !ok {
			t.Fatalf("run without %s: %s", k, buf.Bytes())
		}
	}
	for _, bad := range []string{
		`{"type":"run","iterations":0,"samples":1}`,
		`{"type":"run","iterations":1,"samples":0}`,
		`{"type":"run","samples":1}`,
	} {
		if r := ask(t, w, buf, []byte(bad)); str(r["type"]) != "error" {
			t.Fatalf("%s: %s", bad, buf.Bytes())
		}
	}
	// A bad run request leaves the benchmark prepared.
	if r := ask(t, w, buf, []byte(`{"type":"run","iterations":1,"samples":3}`)); str(r["type"]) != "samples" {
		t.Fatalf("run after a bad run request: %s", buf.Bytes())
	}

	// A mismatch reports the first difference and drops the benchmark.
	wrong := strings.Replace(noop, `"expected":{"value":"0x"}`, `"expected":{"value":"0x00"}`, 1)
	r = ask(t, w, buf, []byte(wrong))
	if str(r["type"]) != "mismatch" || string(r["case"]) != "1" || str(r["field"]) != "value" ||
		string(r["expected"]) != `"0x00"` || str(r["actual"]) != "0x" || str(r["id"]) != "harness/noop/empty" {
		t.Fatalf("mismatch: %s", buf.Bytes())
	}
	if r := ask(t, w, buf, run); str(r["type"]) != "error" {
		t.Fatalf("run after a mismatch: %s", buf.Bytes())
	}

	for req, want := range map[string]string{
		`{"type":"prepare","id":"crypto/foo/bar","implementation":"test","cases":[{"input":{},"expected":{}}]}`:     "crypto/foo/bar test: unknown id crypto/foo/bar",
		`{"type":"prepare","id":"test/error/prepare","implementation":"test","cases":[{"input":{},"expected":{}}]}`: "test/error/prepare test: no such input",
		`{"type":"prepare","id":"test/panic/prepare","implementation":"test","cases":[{"input":{},"expected":{}}]}`: "test/panic/prepare test: panic: prepare on fire",
		`{"type":"prepare","id":"harness/noop/empty","implementation":"test-noop","cases":[]}`:                      "harness/noop/empty test-noop: harness/noop/empty: no cases",
		`{"type":"frobnicate"}`: `unknown request type "frobnicate"`,
	} {
		r := ask(t, w, buf, []byte(req))
		if str(r["type"]) != "error" || string(r["fatal"]) != "false" || str(r["message"]) != want {
			t.Errorf("%s: %s, want message %q", req, buf.Bytes(), want)
		}
	}

	// A loop that panics while timed is an error, and the benchmark is dropped.
	if r := ask(t, w, buf, []byte(`{"type":"prepare","id":"test/panic/run","implementation":"test","cases":[{"input":{},"expected":{}}]}`)); str(r["type"]) != "prepared" {
		t.Fatalf("prepare: %s", buf.Bytes())
	}
	if r := ask(t, w, buf, run); str(r["type"]) != "error" || str(r["message"]) != "panic while running: loop on fire" || w.current != nil {
		t.Fatalf("panicking run: %s", buf.Bytes())
	}
}

// TestServe: blank lines are skipped, EOF ends the worker with 0 (also
// without a final newline), and an unparseable request gets a fatal error
// and ends it with 1, without reading further.
func TestServe(t *testing.T) {
	var out bytes.Buffer
	in := "\n  \n" + `{"type":"hello","protocol":1}` + "\n\n" + `{"type":"run","iterations":1,"samples":1}`
	if code := Serve(testConfig(), strings.NewReader(in), &out); code != 0 {
		t.Fatalf("exit code %d at EOF", code)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"type":"hello"`) || !strings.HasPrefix(lines[1], `{"type":"error"`) {
		t.Fatalf("replies: %q", out.String())
	}
	out.Reset()
	in = "{not json\n" + `{"type":"hello","protocol":1}` + "\n"
	if code := Serve(testConfig(), strings.NewReader(in), &out); code != 1 {
		t.Fatalf("exit code %d after a fatal error", code)
	}
	var r errorReply
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || r.Type != "error" || !r.Fatal || !strings.HasPrefix(r.Message, "unparseable request: ") {
		t.Fatalf("unparseable request: %q", out.String())
	}
}
