package worker

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"
)

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

// TestHello: the runtime is go-etc, patterns is an empty list (dyno's
// parser refuses null), and every pow id is offered by core-geth.
func TestHello(t *testing.T) {
	w, buf := newTestWorker()
	r := ask(t, w, buf, []byte(`{"type":"hello","protocol":1}`))
	if str(r["type"]) != "hello" || string(r["patterns"]) != "[]" || string(r["jit"]) != "false" {
		t.Fatalf("hello: %s", buf.Bytes())
	}
	var rt Runtime
	if err := json.Unmarshal(r["runtime"], &rt); err != nil || rt.Name != "go-etc" {
		t.Fatalf("runtime %s (%v)", r["runtime"], err)
	}
	var bs []struct{ ID, Implementation string }
	if err := json.Unmarshal(r["benchmarks"], &bs); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, b := range bs {
		got[b.ID] = b.Implementation
	}
	for _, id := range []string{"pow/hashimoto-light/epoch0", "pow/hashimoto-full/epoch0", "pow/verify-header/mainnet-1", "pow/etchash-epoch/ecip1099"} {
		if got[id] != "core-geth" {
			t.Errorf("%s offered by %q", id, got[id])
		}
	}
	if got["harness/noop/empty"] != "go-etc-noop" || len(got) != 5 {
		t.Errorf("benchmarks: %v", got)
	}
}
