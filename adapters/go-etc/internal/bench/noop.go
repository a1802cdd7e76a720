package bench

import "fmt"

// noopLoop is the identity operation: it measures the loop itself.
type noopLoop struct {
	values [][]byte
	pos    int
}

func (l *noopLoop) Loop(n int) {
	values, pos := l.values, l.pos
	for i := 0; i < n; i++ {
		SinkBytes = values[pos]
		pos++
		if pos == len(values) {
			pos = 0
		}
	}
	l.pos = pos
}

func prepareNoop(_ string, cases []Case) (*Prepared, error) {
	values := make([][]byte, len(cases))
	for i := range cases {
		v, err := inputHex(cases, i, "value")
		if err != nil {
			return nil, err
		}
		values[i] = v
	}
	b := &noopLoop{values: values}
	outs, err := runEach(b, len(values), func(int) (Output, error) {
		return Output{{"value", clone(SinkBytes)}}, nil
	})
	if err != nil {
		return nil, err
	}
	return &Prepared{Bench: b, Outputs: outs}, nil
}

// runEach runs b once per case (b must be at position 0) and collects the
// output of each from read, which looks at the sinks.
func runEach(b Bench, n int, read func(i int) (Output, error)) ([]Output, error) {
	outs := make([]Output, n)
	for i := 0; i < n; i++ {
		b.Loop(1)
		o, err := read(i)
		if err != nil {
			return nil, fmt.Errorf("case %d: %v", i, err)
		}
		outs[i] = o
	}
	return outs, nil
}

func clone(b []byte) Hex { return append(Hex(nil), b...) }
