package workertest

import (
	"path/filepath"
	"testing"

	"dyno/adapters/go-protocol/protocol"
	"dyno/adapters/go-protocol/worker"
)

func noopConfig() worker.Config {
	r := new(protocol.Registry)
	r.AddHarness("test")
	return worker.Config{Name: "dyno-adapter-test", Version: "0.0.0", Runtime: "go-test", Registry: r}
}

// TestPipe: a Client on Serve in this process exchanges requests and
// replies and sees the exit code (0 at EOF, 1 after a fatal error).
func TestPipe(t *testing.T) {
	c := Pipe(t, noopConfig())
	if h := c.Call(`{"type":"hello","protocol":1}`); h["type"] != "hello" || h["runtime"].(map[string]any)["name"] != "go-test" {
		t.Fatalf("hello: %v", h)
	}
	r := c.Call(`{"type":"prepare","id":"harness/noop/empty","implementation":"test-noop","cases":[{"input":{"value":"0xabcd"},"expected":{"value":"0xabcd"}}]}`)
	if r["type"] != "prepared" {
		t.Fatalf("noop: %v", r)
	}
	if r := c.Call(`{"type":"run","iterations":1,"samples":3}`); len(r["ns"].([]any)) != 3 {
		t.Fatalf("noop run: %v", r)
	}
	if code := c.Exit(); code != 0 {
		t.Fatalf("exit code %d at EOF, want 0", code)
	}

	c = Pipe(t, noopConfig())
	if r := c.Call(`{not json`); r["type"] != "error" || r["fatal"] != true {
		t.Fatalf("unparseable request: %v", r)
	}
	if code := c.Exit(); code != 1 {
		t.Fatalf("exit code %d after a fatal error, want 1", code)
	}

	// A test that ends without Exit leaves nothing running behind it.
	t.Run("abandoned", func(t *testing.T) {
		Pipe(t, noopConfig()).Call(`{"type":"hello","protocol":1}`)
	})
}

// TestFixtureReplay replays adapters/testdata/prepare.jsonl against a
// worker with the noop benchmark only: it is prepared and checked, a
// corrupted copy is a mismatch, and every other id is refused.
func TestFixtureReplay(t *testing.T) {
	Replay(t, noopConfig(), filepath.Join("..", "..", "testdata", "prepare.jsonl"))
}
