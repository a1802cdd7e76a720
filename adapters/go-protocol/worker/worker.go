// Package worker speaks dyno's adapter protocol (docs/adapter-protocol.md)
// for a Go adapter: JSON Lines requests on one stream (hello, prepare,
// run), one reply line each on another. An adapter describes itself and
// its benchmarks in a Config and hands it to Main.
package worker

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"dyno/adapters/go-protocol/protocol"
)

// Protocol is the protocol version this worker speaks.
const Protocol = 1

// Config is one adapter: what hello reports and the benchmarks it runs.
type Config struct {
	// Name is the adapter's name in hello ("dyno-adapter-go"); it also
	// prefixes the worker's diagnostics on stderr.
	Name string
	// Version is the adapter's version in hello.
	Version string
	// Runtime is dyno's name for the runtime, the adapter's folder ("go",
	// "go-etc"): hello's runtime.name.
	Runtime string
	// Libraries are the module paths whose versions hello reports when
	// the binary contains them (see protocol.ModuleVersion).
	Libraries []string
	// Flags, if set, returns the adapter's own entries of hello's
	// runtime.flags, appended after GOGC, GOMAXPROCS, CGO_ENABLED and the
	// like; cgo says whether the binary was built with CGO_ENABLED=1.
	Flags func(cgo bool) []string
	// Registry holds the benchmarks.
	Registry *protocol.Registry
}

// Main serves the protocol on stdin and stdout and exits: 0 at the end of
// stdin, 1 after a fatal error. On Linux, file descriptor 1 then points at
// stderr, so that nothing a library prints, from Go or C, can corrupt the
// protocol stream.
func Main(c Config) {
	os.Exit(Serve(c, os.Stdin, protocolOutput()))
}

type request struct {
	Type           string          `json:"type"`
	Protocol       *int            `json:"protocol"`
	ID             string          `json:"id"`
	Implementation string          `json:"implementation"`
	Cases          []protocol.Case `json:"cases"`
	Iterations     *int64          `json:"iterations"`
	Samples        *int64          `json:"samples"`
}

type errorReply struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Fatal   bool   `json:"fatal"`
}

type preparedReply struct {
	Type    string            `json:"type"`
	ID      string            `json:"id"`
	Cases   int               `json:"cases"`
	Outputs []protocol.Output `json:"outputs"`
}

type mismatchReply struct {
	Type     string          `json:"type"`
	ID       string          `json:"id"`
	Case     int             `json:"case"`
	Field    string          `json:"field"`
	Expected json.RawMessage `json:"expected"`
	Actual   any             `json:"actual"`
}

type gcStats struct {
	Count  uint32 `json:"count"`
	TimeNs uint64 `json:"time_ns"`
}

type allocStats struct {
	Bytes uint64 `json:"bytes"`
	Count uint64 `json:"count"`
}

type samplesReply struct {
	Type  string     `json:"type"`
	Ns    []int64    `json:"ns"`
	GC    gcStats    `json:"gc"`
	Alloc allocStats `json:"alloc"`
}

// server holds the current benchmark between requests.
type server struct {
	c       Config
	out     *bufio.Writer
	enc     *json.Encoder
	current protocol.Bench
	hello   *hello
}

func newServer(c Config, out io.Writer) *server {
	bw := bufio.NewWriterSize(out, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &server{c: c, out: bw, enc: enc}
}

// Serve reads requests from in until EOF and writes replies to out. It
// returns the process exit code: 0 at EOF, 1 after a fatal error.
func Serve(c Config, in io.Reader, out io.Writer) int {
	w := newServer(c, out)
	r := bufio.NewReaderSize(in, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if fatal := w.handle(line); fatal {
				return 1
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return 0
			}
			w.logf("reading stdin: %v", err)
			return 1
		}
	}
}

// logf writes one diagnostic line to stderr.
func (w *server) logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s: %s\n", w.c.Name, fmt.Sprintf(format, args...))
}

func (w *server) reply(v any) {
	if err := w.enc.Encode(v); err != nil {
		w.logf("encoding reply: %v", err)
		_ = w.enc.Encode(errorReply{"error", "cannot encode reply: " + err.Error(), false})
	}
	if err := w.out.Flush(); err != nil {
		w.logf("writing reply: %v", err)
		os.Exit(1)
	}
}

func (w *server) fail(msg string, fatal bool) {
	w.reply(errorReply{"error", msg, fatal})
}

// handle answers one request line and says whether the worker must exit.
func (w *server) handle(line []byte) (fatal bool) {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		w.fail("unparseable request: "+err.Error(), true)
		return true
	}
	switch req.Type {
	case "hello":
		if w.hello == nil {
			h := newHello(w.c)
			w.hello = &h
		}
		w.reply(w.hello)
	case "prepare":
		w.prepare(&req)
	case "run":
		w.run(&req)
	default:
		w.fail(fmt.Sprintf("unknown request type %q", req.Type), false)
	}
	return false
}

// drop forgets the current benchmark, closing it if it holds resources.
func (w *server) drop() {
	w.closeBench(w.current)
	w.current = nil
}

func (w *server) closeBench(b protocol.Bench) {
	if c, ok := b.(io.Closer); ok {
		if err := c.Close(); err != nil {
			w.logf("closing benchmark: %v", err)
		}
	}
}

func (w *server) prepare(req *request) {
	w.drop()
	var p *protocol.Prepared
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		p, err = w.c.Registry.Prepare(req.ID, req.Implementation, req.Cases)
		return err
	}()
	if err != nil {
		w.fail(fmt.Sprintf("%s %s: %v", req.ID, req.Implementation, err), false)
		return
	}
	if m := protocol.Check(p, req.Cases); m != nil {
		w.closeBench(p.Bench)
		w.reply(mismatchReply{"mismatch", req.ID, m.Case, m.Field, m.Expected, m.Actual})
		return
	}
	w.current = p.Bench
	w.reply(preparedReply{"prepared", req.ID, len(p.Outputs), p.Outputs})
}

func (w *server) run(req *request) {
	if w.current == nil {
		w.fail("run before a successful prepare", false)
		return
	}
	if req.Iterations == nil || *req.Iterations < 1 || req.Samples == nil || *req.Samples < 1 {
		w.fail("run needs iterations >= 1 and samples >= 1", false)
		return
	}
	ns, before, after, err := measure(w.current, int(*req.Iterations), int(*req.Samples))
	if err == nil {
		// A benchmark whose operation can fail while timed (a database
		// read or write) records its first error instead of stopping the
		// loop; its samples are then worthless, so the run is an error.
		if f, ok := w.current.(protocol.Failing); ok {
			err = f.Err()
		}
	}
	if err != nil {
		w.drop()
		w.fail(err.Error(), false)
		return
	}
	w.reply(samplesReply{
		Type:  "samples",
		Ns:    ns,
		GC:    gcStats{Count: after.NumGC - before.NumGC, TimeNs: after.PauseTotalNs - before.PauseTotalNs},
		Alloc: allocStats{Bytes: after.TotalAlloc - before.TotalAlloc, Count: after.Mallocs - before.Mallocs},
	})
}

// measure times samples batches of iterations operations. The memory
// statistics are read before and after all samples, outside the timed
// regions.
func measure(b protocol.Bench, iterations, samples int) (ns []int64, before, after *runtime.MemStats, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic while running: %v", r)
		}
	}()
	ns = make([]int64, samples)
	before, after = new(runtime.MemStats), new(runtime.MemStats)
	runtime.ReadMemStats(before)
	staged, _ := b.(protocol.Staged)
	for s := range ns {
		if staged != nil {
			if err := staged.Stage(); err != nil {
				return nil, nil, nil, err
			}
		}
		t0 := time.Now()
		b.Loop(iterations)
		ns[s] = int64(time.Since(t0))
	}
	runtime.ReadMemStats(after)
	return ns, before, after, nil
}

// runtimeInfo describes the Go runtime in hello.
type runtimeInfo struct {
	Name    string   `json:"name"`
	Version string   `json:"version"`
	Flags   []string `json:"flags"`
}

// adapterInfo names this worker in hello.
type adapterInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// clock describes the timer in hello.
type clock struct {
	Source       string `json:"source"`
	ResolutionNs int64  `json:"resolution_ns"`
}

// hello is the hello reply.
type hello struct {
	Type       string             `json:"type"`
	Protocol   int                `json:"protocol"`
	Runtime    runtimeInfo        `json:"runtime"`
	Adapter    adapterInfo        `json:"adapter"`
	Libraries  map[string]string  `json:"libraries"`
	Clock      clock              `json:"clock"`
	JIT        bool               `json:"jit"`
	Benchmarks []protocol.Entry   `json:"benchmarks"`
	Patterns   []protocol.Pattern `json:"patterns"`
}

// newHello builds the hello reply: runtime, libraries, clock, benchmarks.
func newHello(c Config) hello {
	libs := map[string]string{"std": runtime.Version()}
	cgo := "unknown"
	var goarch string
	for _, l := range c.Libraries {
		if v := protocol.ModuleVersion(l); v != "" {
			libs[l] = v
		}
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "CGO_ENABLED":
				cgo = s.Value
			case "GOAMD64", "GOARM64":
				goarch = s.Key + "=" + s.Value
			}
		}
	}
	gogc := os.Getenv("GOGC")
	if gogc == "" {
		gogc = "100"
	}
	flags := []string{
		"GOGC=" + gogc,
		fmt.Sprintf("GOMAXPROCS=%d", runtime.GOMAXPROCS(0)),
		"CGO_ENABLED=" + cgo,
	}
	if goarch != "" {
		flags = append(flags, goarch)
	}
	for _, env := range []string{"GOMEMLIMIT", "GODEBUG"} {
		if v := os.Getenv(env); v != "" {
			flags = append(flags, env+"="+v)
		}
	}
	if c.Flags != nil {
		flags = append(flags, c.Flags(cgo == "1")...)
	}
	return hello{
		Type:       "hello",
		Protocol:   Protocol,
		Runtime:    runtimeInfo{Name: c.Runtime, Version: runtime.Version(), Flags: flags},
		Adapter:    adapterInfo{Name: c.Name, Version: c.Version},
		Libraries:  libs,
		Clock:      clock{Source: "time.Now (monotonic)", ResolutionNs: clockResolution()},
		JIT:        false,
		Benchmarks: c.Registry.List(),
		Patterns:   c.Registry.Patterns(),
	}
}

// clockResolution is the smallest non-zero difference between two
// consecutive monotonic clock reads seen in a short loop.
func clockResolution() int64 {
	best := int64(-1)
	for i := 0; i < 2000; i++ {
		t0 := time.Now()
		t1 := time.Now()
		for j := 0; t1.Sub(t0) == 0 && j < 1000; j++ {
			t1 = time.Now()
		}
		if d := int64(t1.Sub(t0)); d > 0 && (best < 0 || d < best) {
			best = d
		}
	}
	if best < 0 {
		best = 1
	}
	return best
}
