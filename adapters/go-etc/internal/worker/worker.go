// Package worker speaks dyno's adapter protocol (docs/adapter-protocol.md):
// JSON Lines requests on one stream, one reply line each on another.
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

	"dyno/adapters/go-etc/internal/bench"
)

// Protocol is the protocol version this worker speaks.
const Protocol = 1

// RuntimeName is dyno's name for this runtime: the adapter's folder,
// adapters/go-etc (the Go runtime with core-geth instead of go-ethereum).
const RuntimeName = "go-etc"

// Adapter name and version, as reported in hello.
const (
	AdapterName    = "dyno-adapter-go-etc"
	AdapterVersion = "0.1.0"
)

type request struct {
	Type           string       `json:"type"`
	Protocol       *int         `json:"protocol"`
	ID             string       `json:"id"`
	Implementation string       `json:"implementation"`
	Cases          []bench.Case `json:"cases"`
	Iterations     *int64       `json:"iterations"`
	Samples        *int64       `json:"samples"`
}

type errorReply struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Fatal   bool   `json:"fatal"`
}

type preparedReply struct {
	Type    string         `json:"type"`
	ID      string         `json:"id"`
	Cases   int            `json:"cases"`
	Outputs []bench.Output `json:"outputs"`
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

// Worker holds the current benchmark between requests.
type Worker struct {
	out     *bufio.Writer
	enc     *json.Encoder
	current bench.Bench
	hello   *Hello
}

// Serve reads requests from in until EOF and writes replies to out. It
// returns the process exit code: 0 at EOF, 1 after a fatal error.
func Serve(in io.Reader, out io.Writer) int {
	bw := bufio.NewWriterSize(out, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	w := &Worker{out: bw, enc: enc}
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
			fmt.Fprintln(os.Stderr, "dyno-adapter-go-etc: reading stdin:", err)
			return 1
		}
	}
}

func (w *Worker) reply(v any) {
	if err := w.enc.Encode(v); err != nil {
		fmt.Fprintln(os.Stderr, "dyno-adapter-go-etc: encoding reply:", err)
		_ = w.enc.Encode(errorReply{"error", "cannot encode reply: " + err.Error(), false})
	}
	if err := w.out.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "dyno-adapter-go-etc: writing reply:", err)
		os.Exit(1)
	}
}

func (w *Worker) fail(msg string, fatal bool) {
	w.reply(errorReply{"error", msg, fatal})
}

// handle answers one request line and says whether the worker must exit.
func (w *Worker) handle(line []byte) (fatal bool) {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		w.fail("unparseable request: "+err.Error(), true)
		return true
	}
	switch req.Type {
	case "hello":
		if w.hello == nil {
			h := NewHello()
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

func (w *Worker) prepare(req *request) {
	w.current = nil
	var p *bench.Prepared
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		p, err = bench.Prepare(req.ID, req.Implementation, req.Cases)
		return err
	}()
	if err != nil {
		w.fail(fmt.Sprintf("%s %s: %v", req.ID, req.Implementation, err), false)
		return
	}
	if m := bench.Check(p, req.Cases); m != nil {
		w.reply(mismatchReply{"mismatch", req.ID, m.Case, m.Field, m.Expected, m.Actual})
		return
	}
	w.current = p.Bench
	w.reply(preparedReply{"prepared", req.ID, len(p.Outputs), p.Outputs})
}

func (w *Worker) run(req *request) {
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
		if f, ok := w.current.(bench.Failing); ok {
			err = f.Err()
		}
	}
	if err != nil {
		w.current = nil
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
func measure(b bench.Bench, iterations, samples int) (ns []int64, before, after *runtime.MemStats, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic while running: %v", r)
		}
	}()
	ns = make([]int64, samples)
	before, after = new(runtime.MemStats), new(runtime.MemStats)
	runtime.ReadMemStats(before)
	for s := range ns {
		t0 := time.Now()
		b.Loop(iterations)
		ns[s] = int64(time.Since(t0))
	}
	runtime.ReadMemStats(after)
	return ns, before, after, nil
}

// Runtime describes the Go runtime in hello.
type Runtime struct {
	Name    string   `json:"name"`
	Version string   `json:"version"`
	Flags   []string `json:"flags"`
}

// Adapter names this worker in hello.
type Adapter struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Clock describes the timer in hello.
type Clock struct {
	Source       string `json:"source"`
	ResolutionNs int64  `json:"resolution_ns"`
}

// Hello is the hello reply.
type Hello struct {
	Type       string            `json:"type"`
	Protocol   int               `json:"protocol"`
	Runtime    Runtime           `json:"runtime"`
	Adapter    Adapter           `json:"adapter"`
	Libraries  map[string]string `json:"libraries"`
	Clock      Clock             `json:"clock"`
	JIT        bool              `json:"jit"`
	Benchmarks []bench.Entry     `json:"benchmarks"`
	Patterns   []bench.Pattern   `json:"patterns"`
}

// reportedLibraries are the modules whose versions hello reports when the
// binary contains them. go-ethereum's path is core-geth's (go.mod replaces
// it), reported as "github.com/etclabscore/core-geth@v1.12.22".
var reportedLibraries = []string{
	"github.com/ethereum/go-ethereum",
	"golang.org/x/crypto",
}

// NewHello builds the hello reply: runtime, libraries, clock, benchmarks.
func NewHello() Hello {
	libs := map[string]string{"std": runtime.Version()}
	cgo := "unknown"
	var goarch string
	for _, l := range reportedLibraries {
		if v := bench.ModuleVersion(l); v != "" {
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
	flags = append(flags, "ethash=core-geth (unexported hashimoto/generate* reached by go:linkname)")
	return Hello{
		Type:       "hello",
		Protocol:   Protocol,
		Runtime:    Runtime{Name: RuntimeName, Version: runtime.Version(), Flags: flags},
		Adapter:    Adapter{Name: AdapterName, Version: AdapterVersion},
		Libraries:  libs,
		Clock:      Clock{Source: "time.Now (monotonic)", ResolutionNs: clockResolution()},
		JIT:        false,
		Benchmarks: bench.List(),
		Patterns:   bench.Patterns(),
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
