package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// proc is a running worker process, talked to over pipes.
type proc struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// buildWorker is the worker to start: $DYNO_GO_ETC_WORKER (e.g. HOME/run
// from setup) if set, else a binary built from this folder.
func buildWorker(t *testing.T) string {
	t.Helper()
	if w := os.Getenv("DYNO_GO_ETC_WORKER"); w != "" {
		return w
	}
	bin := filepath.Join(t.TempDir(), "dyno-adapter-go-etc")
	cmd := exec.Command("go", "build", "-mod=readonly", "-trimpath", "-o", bin, ".")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go build: %v", err)
	}
	return bin
}

func startWorker(t *testing.T, path string) *proc {
	t.Helper()
	cmd := exec.Command(path)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &proc{t: t, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return w
}

// call sends one request and decodes the one reply line.
func (w *proc) call(req string) map[string]any {
	w.t.Helper()
	if _, err := io.WriteString(w.in, req+"\n"); err != nil {
		w.t.Fatalf("write: %v", err)
	}
	line, err := w.out.ReadBytes('\n')
	if err != nil {
		w.t.Fatalf("read reply to %.80s: %v", req, err)
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		w.t.Fatalf("reply is not JSON: %q", line)
	}
	return m
}

// exit closes stdin and returns the exit code, failing after 5 s.
func (w *proc) exit() int {
	w.t.Helper()
	w.in.Close()
	rest, _ := io.ReadAll(w.out)
	if len(strings.TrimSpace(string(rest))) > 0 {
		w.t.Errorf("output after the last reply: %q", rest)
	}
	done := make(chan error, 1)
	go func() { done <- w.cmd.Wait() }()
	select {
	case <-done:
		return w.cmd.ProcessState.ExitCode()
	case <-time.After(5 * time.Second):
		w.t.Fatal("worker did not exit after EOF")
		return -1
	}
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
func (w *proc) runOK(iterations, samples int) {
	w.t.Helper()
	r := w.call(`{"type":"run","iterations":` + itoa(iterations) + `,"samples":` + itoa(samples) + `}`)
	ns, ok := r["ns"].([]any)
	if r["type"] != "samples" || !ok || len(ns) != samples {
		w.t.Fatalf("run: %v", r)
	}
	for _, v := range ns {
		if v.(float64) <= 0 {
			w.t.Fatalf("non-positive sample in %v", ns)
		}
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestEndToEnd(t *testing.T) {
	bin := buildWorker(t)
	w := startWorker(t, bin)

	h := w.call(`{"type":"hello","protocol":1}`)
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

	if r := w.call(`{"type":"run","iterations":10,"samples":1}`); r["type"] != "error" {
		t.Fatalf("run before prepare: %v", r)
	}

	reqs := rustRequests(t)
	for _, id := range []string{"pow/etchash-epoch/ecip1099", "pow/verify-header/mainnet-1", "pow/hashimoto-light/epoch0"} {
		r := w.call(reqs[id])
		if r["type"] != "prepared" || r["id"] != id {
			t.Fatalf("%s: %v", id, r)
		}
		w.runOK(3, 2)
	}

	// A wrong expected result is a mismatch, and the benchmark is dropped.
	bad := strings.Replace(reqs["pow/hashimoto-light/epoch0"], `"result":"0x8a27`, `"result":"0x8a28`, 1)
	if bad == reqs["pow/hashimoto-light/epoch0"] {
		t.Fatal("the corruption did not apply")
	}
	if r := w.call(bad); r["type"] != "mismatch" || r["case"] != float64(0) || r["field"] != "result" {
		t.Fatalf("corrupted: %v", r)
	}
	if r := w.call(`{"type":"run","iterations":1,"samples":1}`); r["type"] != "error" {
		t.Fatalf("run after a mismatch: %v", r)
	}

	// The full dataset is built or loaded only where a folder is given.
	if dir := os.Getenv("DYNO_ETHASH_DIR"); dir != "" {
		d, _ := json.Marshal(dir)
		req := strings.ReplaceAll(reqs["pow/hashimoto-full/epoch0"], `"/tmp/dyno-ethash"`, string(d))
		if r := w.call(req); r["type"] != "prepared" {
			t.Fatalf("hashimoto-full: %v", r)
		}
		w.runOK(100, 3)
	}

	r := w.call(`{"type":"prepare","id":"pow/foo/bar","implementation":"core-geth","cases":[{"input":{},"expected":{}}]}`)
	if r["type"] != "error" || r["fatal"] != false || !strings.Contains(r["message"].(string), "pow/foo/bar") {
		t.Fatalf("unknown id: %v", r)
	}
	r = w.call(`{"type":"prepare","id":"harness/noop/empty","implementation":"go-etc-noop","cases":[{"input":{"value":"0xabcd"},"expected":{"value":"0xabcd"}}]}`)
	if r["type"] != "prepared" {
		t.Fatalf("noop: %v", r)
	}
	w.runOK(1, 3)

	if code := w.exit(); code != 0 {
		t.Fatalf("exit code %d at EOF, want 0", code)
	}

	// An unparseable request gets a fatal error and the worker exits.
	w = startWorker(t, bin)
	if r := w.call(`{not json`); r["type"] != "error" || r["fatal"] != true {
		t.Fatalf("unparseable request: %v", r)
	}
	if code := w.exit(); code == 0 {
		t.Fatal("exit code 0 after a fatal error")
	}
}
