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

// closingBench is a Failing benchmark that holds a resource.
type closingBench struct {
	failingBench
	closed int
}

func (b *closingBench) Close() error {
	b.closed++
	return nil
}

// TestCloserClosed: a benchmark that is an io.Closer is closed once when a
// later prepare replaces it, and when a failed run drops it.
func TestCloserClosed(t *testing.T) {
	w, buf := newTestWorker()
	b := &closingBench{}
	w.current = b
	noop := []byte(`{"type":"prepare","id":"harness/noop/empty","implementation":"test-noop","cases":[{"input":{"value":"0x01"},"expected":{"value":"0x01"}}]}`)
	if r := ask(t, w, buf, noop); str(r["type"]) != "prepared" || b.closed != 1 {
		t.Fatalf("replaced: closed %d times, reply %s", b.closed, buf.Bytes())
	}
	b = &closingBench{}
	w.current = b
	ask(t, w, buf, []byte(`{"type":"run","iterations":1,"samples":1}`))
	if r := ask(t, w, buf, []byte(`{"type":"run","iterations":1,"samples":1}`)); str(r["type"]) != "error" || b.closed != 1 || w.current != nil {
		t.Fatalf("failed run: closed %d times, reply %s", b.closed, buf.Bytes())
	}
}

// stagedBench counts its stages and loops, and fails to stage when told.
type stagedBench struct {
	stages, loops int
	fail          error
}

func (b *stagedBench) Loop(int) { b.loops++ }

func (b *stagedBench) Stage() error {
	b.stages++
	return b.fail
}

// TestRunStagesEverySample: a Staged benchmark is staged once before each
// sample (outside the clock), and a failed stage answers the run with its
// error.
func TestRunStagesEverySample(t *testing.T) {
	w, buf := newTestWorker()
	b := &stagedBench{}
	w.current = b
	if r := ask(t, w, buf, []byte(`{"type":"run","iterations":5,"samples":3}`)); str(r["type"]) != "samples" {
		t.Fatalf("run: %s", buf.Bytes())
	}
	if b.stages != 3 || b.loops != 3 {
		t.Fatalf("%d stages, %d loops for 3 samples", b.stages, b.loops)
	}
	b.fail = errors.New("cannot evict")
	if r := ask(t, w, buf, []byte(`{"type":"run","iterations":5,"samples":3}`)); str(r["type"]) != "error" || str(r["message"]) != "cannot evict" {
		t.Fatalf("run with a failing stage: %s", buf.Bytes())
	}
}
