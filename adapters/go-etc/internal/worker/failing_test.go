package worker

import (
	"errors"
	"testing"
)

// failingBench is a benchmark whose operation fails on its second call.
type failingBench struct {
	calls int
	err   error
}

func (b *failingBench) Loop(n int) {
	for i := 0; i < n; i++ {
		b.calls++
		if b.calls == 2 && b.err == nil {
			b.err = errors.New("disk on fire")
		}
	}
}

func (b *failingBench) Err() error { return b.err }

// TestRunReportsLoopError: a run during which a Failing benchmark met an
// error is answered with that error, not samples, and drops the benchmark.
func TestRunReportsLoopError(t *testing.T) {
	w, buf := newTestWorker()
	b := &failingBench{}
	w.current = b
	if r := ask(t, w, buf, []byte(`{"type":"run","iterations":1,"samples":1}`)); str(r["type"]) != "samples" {
		t.Fatalf("first run: %s", buf.Bytes())
	}
	r := ask(t, w, buf, []byte(`{"type":"run","iterations":1,"samples":1}`))
	if str(r["type"]) != "error" || str(r["message"]) != "disk on fire" {
		t.Fatalf("run with a loop error: %s", buf.Bytes())
	}
	if r := ask(t, w, buf, []byte(`{"type":"run","iterations":1,"samples":1}`)); str(r["type"]) != "error" || w.current != nil {
		t.Fatalf("run after a loop error: %s", buf.Bytes())
	}
}
