// Package workertest drives a Go worker the way dyno does, for the
// adapters' tests: a Client sends one request line and reads its one reply
// line, to a worker process (Start) or to worker.Serve in the test's own
// process (Pipe). Replay checks a worker against the prepare requests of a
// fixture file.
package workertest

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

	"dyno/adapters/go-protocol/worker"
)

// Client is a running worker, talked to over pipes.
type Client struct {
	t   testing.TB
	in  io.WriteCloser
	out *bufio.Reader
	// wait blocks until the worker has ended and returns its exit code.
	wait func() int
}

// Build returns the worker to start: $env (e.g. HOME/run from setup) if it
// is set, else a binary called name, built from the package in the current
// folder with go build -mod=readonly -trimpath.
func Build(t testing.TB, env, name string) string {
	t.Helper()
	if w := os.Getenv(env); w != "" {
		return w
	}
	bin := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("go", "build", "-mod=readonly", "-trimpath", "-o", bin, ".")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go build: %v", err)
	}
	return bin
}

// Start runs the worker at path, its stderr on the test's; it is killed at
// the end of the test if it is still running.
func Start(t testing.TB, path string) *Client {
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
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return &Client{t: t, in: in, out: bufio.NewReaderSize(out, 1<<20), wait: func() int {
		_ = cmd.Wait()
		return cmd.ProcessState.ExitCode()
	}}
}

// Pipe runs worker.Serve(c, …) in this process, on pipes. Serve ends at
// the end of the test if it has not ended before.
func Pipe(t testing.TB, c worker.Config) *Client {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := worker.Serve(c, inR, outW)
		inR.Close()
		outW.Close()
		done <- code
	}()
	t.Cleanup(func() {
		// End of input ends Serve; what it still writes is read and
		// dropped (a failed write would exit the test binary).
		inW.Close()
		go func() { _, _ = io.Copy(io.Discard, outR) }()
	})
	return &Client{t: t, in: inW, out: bufio.NewReaderSize(outR, 1<<20), wait: func() int { return <-done }}
}

// Call sends one request and decodes the one reply line.
func (c *Client) Call(req string) map[string]any {
	c.t.Helper()
	var m map[string]any
	if line := c.roundTrip(req); json.Unmarshal(line, &m) != nil {
		c.t.Fatalf("reply is not JSON: %q", line)
	}
	return m
}

// roundTrip sends one request and returns the one reply line.
func (c *Client) roundTrip(req string) []byte {
	c.t.Helper()
	if _, err := io.WriteString(c.in, req+"\n"); err != nil {
		c.t.Fatalf("write: %v", err)
	}
	line, err := c.out.ReadBytes('\n')
	if err != nil {
		c.t.Fatalf("read reply to %.80s: %v", req, err)
	}
	return line
}

// Exit closes the worker's stdin and returns its exit code, failing if it
// writes anything more or has not ended 5 s after its stdout closed.
func (c *Client) Exit() int {
	c.t.Helper()
	c.in.Close()
	rest, _ := io.ReadAll(c.out)
	if len(strings.TrimSpace(string(rest))) > 0 {
		c.t.Errorf("output after the last reply: %q", rest)
	}
	done := make(chan int, 1)
	go func() { done <- c.wait() }()
	select {
	case code := <-done:
		return code
	case <-time.After(5 * time.Second):
		c.t.Fatal("worker did not exit after EOF")
		return -1
	}
}
