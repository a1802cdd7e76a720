package protocol

import "time"

// NoopID is the id of the benchmark every adapter offers: the identity
// operation, which measures the harness's own loop.
const NoopID = "harness/noop/empty"

// SleepID is the other harness id every adapter offers: each operation
// sleeps 1 ms, so that `dyno adapter check` can hold the worker's clock
// against its own (docs/adapter-protocol.md, "The harness ids").
const SleepID = "harness/sleep/1ms"

// NoLibrary is the library of a benchmark that uses none.
const NoLibrary = "-"

// noopSink keeps the noop loop's reads alive.
var noopSink []byte

// noopLoop is the identity operation: it measures the loop itself.
type noopLoop struct {
	values [][]byte
	pos    int
}

func (l *noopLoop) Loop(n int) {
	values, pos := l.values, l.pos
	for i := 0; i < n; i++ {
		noopSink = values[pos]
		pos++
		if pos == len(values) {
			pos = 0
		}
	}
	l.pos = pos
}

// sleepLoop sleeps 1 ms per operation and returns its input.
type sleepLoop struct{ noopLoop }

func (l *sleepLoop) Loop(n int) {
	for i := 0; i < n; i++ {
		time.Sleep(time.Millisecond)
		l.noopLoop.Loop(1)
	}
}

// AddHarness registers the two harness ids under the worker's own names,
// prefix-noop and prefix-sleep (go-noop, go-sleep): each case's input
// "value" (hex) is its output "value".
func (r *Registry) AddHarness(prefix string) {
	r.Add(NoopID, prefix+"-noop", NoLibrary, func(_ string, cases []Case) (*Prepared, error) {
		return prepareValues(cases, func(v [][]byte) Bench { return &noopLoop{values: v} })
	})
	r.Add(SleepID, prefix+"-sleep", NoLibrary, func(_ string, cases []Case) (*Prepared, error) {
		return prepareValues(cases, func(v [][]byte) Bench { return &sleepLoop{noopLoop{values: v}} })
	})
}

func prepareValues(cases []Case, loop func([][]byte) Bench) (*Prepared, error) {
	values := make([][]byte, len(cases))
	for i := range cases {
		v, err := InputHex(cases, i, "value")
		if err != nil {
			return nil, err
		}
		values[i] = v
	}
	b := loop(values)
	outs, err := RunEach(b, len(values), func(int) (Output, error) {
		return Output{{Name: "value", Value: Clone(noopSink)}}, nil
	})
	if err != nil {
		return nil, err
	}
	return &Prepared{Bench: b, Outputs: outs}, nil
}
