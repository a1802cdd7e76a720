package protocol

// NoopID is the id of the benchmark every adapter offers: the identity
// operation, which measures the harness's own loop.
const NoopID = "harness/noop/empty"

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

// AddNoop registers harness/noop/empty under the worker's own
// implementation name (go-noop, go-etc-noop): each case's input "value"
// (hex) is its output "value".
func (r *Registry) AddNoop(impl string) {
	r.Add(NoopID, impl, NoLibrary, prepareNoop)
}

func prepareNoop(_ string, cases []Case) (*Prepared, error) {
	values := make([][]byte, len(cases))
	for i := range cases {
		v, err := InputHex(cases, i, "value")
		if err != nil {
			return nil, err
		}
		values[i] = v
	}
	b := &noopLoop{values: values}
	outs, err := RunEach(b, len(values), func(int) (Output, error) {
		return Output{{Name: "value", Value: Clone(noopSink)}}, nil
	})
	if err != nil {
		return nil, err
	}
	return &Prepared{Bench: b, Outputs: outs}, nil
}
