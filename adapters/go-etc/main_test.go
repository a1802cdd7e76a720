package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dyno/adapters/go-protocol/workertest"

	"dyno/adapters/go-etc/internal/bench"
)

// buildWorker is the worker to start: $DYNO_GO_ETC_WORKER (e.g. HOME/run
// from setup) if set, else a binary built from this folder.
func buildWorker(t *testing.T) string {
	t.Helper()
	return workertest.Build(t, "DYNO_GO_ETC_WORKER", "dyno-adapter-go-etc")
}

// rustRequests are the prepare requests dyno-pow (Rust) printed, by id.
func rustRequests(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("internal", "bench", "testdata", "dyno-pow-cases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var r struct{ ID string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		out[r.ID] = line
	}
	return out
}

// runOK sends a run and checks it got samples positive samples.
func runOK(t *testing.T, w *workertest.Client, iterations, samples int) {
	t.Helper()
	r := w.Call(`{"type":"run","iterations":` + itoa(iterations) + `,"samples":` + itoa(samples) + `}`)
	ns, ok := r["ns"].([]any)
	if r["type"] != "samples" || !ok || len(ns) != samples {
		t.Fatalf("run: %v", r)
	}
	for _, v := range ns {
		if v.(float64) <= 0 {
			t.Fatalf("non-positive sample in %v", ns)
		}
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestEndToEnd(t *testing.T) {
	bin := buildWorker(t)
	w := workertest.Start(t, bin)

	h := w.Call(`{"type":"hello","protocol":1}`)
	if h["type"] != "hello" || h["protocol"] != float64(1) || h["jit"] != false {
		t.Fatalf("hello: %v", h)
	}
	rt := h["runtime"].(map[string]any)
	if rt["name"] != "go-etc" || !strings.HasPrefix(rt["version"].(string), "go1.") {
		t.Fatalf("runtime: %v", rt)
	}
	if libs := h["libraries"].(map[string]any); libs["github.com/ethereum/go-ethereum"] != "github.com/etclabscore/core-geth@v1.12.22" {
		t.Fatalf("libraries: %v", libs)
	}
	if p, ok := h["patterns"].([]any); !ok || len(p) != 0 {
		t.Fatalf("patterns: %v", h["patterns"])
	}

	if r := w.Call(`{"type":"run","iterations":10,"samples":1}`); r["type"] != "error" {
		t.Fatalf("run before prepare: %v", r)
	}

	reqs := rustRequests(t)
	for _, id := range []string{"pow/etchash-epoch/ecip1099", "pow/verify-header/mainnet-1", "pow/hashimoto-light/epoch0"} {
		r := w.Call(reqs[id])
		if r["type"] != "prepared" || r["id"] != id {
			t.Fatalf("%s: %v", id, r)
		}
		runOK(t, w, 3, 2)
	}

	// A wrong expected result is a mismatch, and the benchmark is dropped.
	bad := strings.Replace(reqs["pow/hashimoto-light/epoch0"], `"result":"0x8a27`, `"result":"0x8a28`, 1)
	if bad == reqs["pow/hashimoto-light/epoch0"] {
		t.Fatal("the corruption did not apply")
	}
	if r := w.Call(bad); r["type"] != "mismatch" || r["case"] != float64(0) || r["field"] != "result" {
		t.Fatalf("corrupted: %v", r)
	}
	if r := w.Call(`{"type":"run","iterations":1,"samples":1}`); r["type"] != "error" {
		t.Fatalf("run after a mismatch: %v", r)
	}

	// The full dataset is built or loaded only where a folder is given.
	if dir := os.Getenv("DYNO_ETHASH_DIR"); dir != "" {
		d, _ := json.Marshal(dir)
		req := strings.ReplaceAll(reqs["pow/hashimoto-full/epoch0"], `"/tmp/dyno-ethash"`, string(d))
		if r := w.Call(req); r["type"] != "prepared" {
			t.Fatalf("hashimoto-full: %v", r)
		}
		runOK(t, w, 100, 3)
	}

	r := w.Call(`{"type":"prepare","id":"pow/foo/bar","implementation":"core-geth","cases":[{"input":{},"expected":{}}]}`)
	if r["type"] != "error" || r["fatal"] != false || !strings.Contains(r["message"].(string), "pow/foo/bar") {
		t.Fatalf("unknown id: %v", r)
	}
	r = w.Call(`{"type":"prepare","id":"harness/noop/empty","implementation":"go-etc-noop","cases":[{"input":{"value":"0xabcd"},"expected":{"value":"0xabcd"}}]}`)
	if r["type"] != "prepared" {
		t.Fatalf("noop: %v", r)
	}
	runOK(t, w, 1, 3)

	if code := w.Exit(); code != 0 {
		t.Fatalf("exit code %d at EOF, want 0", code)
	}

	// An unparseable request gets a fatal error and the worker exits.
	w = workertest.Start(t, bin)
	if r := w.Call(`{not json`); r["type"] != "error" || r["fatal"] != true {
		t.Fatalf("unparseable request: %v", r)
	}
	if code := w.Exit(); code == 0 {
		t.Fatal("exit code 0 after a fatal error")
	}
}

// TestHello: the runtime is go-etc, patterns is an empty list (dyno's
// parser refuses null), and every pow id is offered by core-geth.
func TestHello(t *testing.T) {
	w := workertest.Pipe(t, config)
	h := w.Call(`{"type":"hello","protocol":1}`)
	if p, ok := h["patterns"].([]any); h["type"] != "hello" || !ok || len(p) != 0 || h["jit"] != false {
		t.Fatalf("hello: %v", h)
	}
	if rt := h["runtime"].(map[string]any); rt["name"] != "go-etc" {
		t.Fatalf("runtime %v", rt)
	}
	// hello lists the registry (go-protocol's worker tests check that).
	got := map[string]string{}
	for _, e := range bench.Registry.List() {
		got[e.ID] = e.Implementation
	}
	if n := len(h["benchmarks"].([]any)); n != len(got) {
		t.Errorf("hello lists %d benchmarks, the registry has %d", n, len(got))
	}
	for _, id := range []string{"pow/hashimoto-light/epoch0", "pow/hashimoto-full/epoch0", "pow/verify-header/mainnet-1", "pow/etchash-epoch/ecip1099"} {
		if got[id] != "core-geth" {
			t.Errorf("%s offered by %q", id, got[id])
		}
	}
	if got["harness/noop/empty"] != "go-etc-noop" || got["harness/sleep/1ms"] != "go-etc-sleep" || len(got) != 6 {
		t.Errorf("benchmarks: %v", got)
	}
}

// TestFixtureReplay replays adapters/testdata/prepare.jsonl (or
// $DYNO_PREPARE_FIXTURE) through this worker's protocol loop in this
// process: the ids it offers (the noop and the pow ids there) are prepared
// and checked, a corrupted copy is a mismatch, and every other id is
// refused (workertest.Replay).
func TestFixtureReplay(t *testing.T) {
	workertest.Replay(t, config, filepath.Join("..", "testdata", "prepare.jsonl"))
}
