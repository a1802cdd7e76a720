package main

import (
	"crypto/sha256"

	"dyno/adapters/go-protocol/protocol"
)

// The example: SHA-256 from the standard library on dyno's hash/sha256 ids.

// sink keeps the loop's results alive.
var sink [32]byte

type sha256Loop struct {
	data [][]byte
	pos  int
}

// Loop runs n operations, cycling through the cases.
func (l *sha256Loop) Loop(n int) {
	data, pos := l.data, l.pos
	for i := 0; i < n; i++ {
		sink = sha256.Sum256(data[pos])
		pos++
		if pos == len(data) {
			pos = 0
		}
	}
	l.pos = pos
}

// prepareSha256 parses each case's input "data"; the output is "digest".
func prepareSha256(_ string, cases []protocol.Case) (*protocol.Prepared, error) {
	data := make([][]byte, len(cases))
	for i := range cases {
		d, err := protocol.InputHex(cases, i, "data")
		if err != nil {
			return nil, err
		}
		data[i] = d
	}
	b := &sha256Loop{data: data}
	outs, err := protocol.RunEach(b, len(data), func(int) (protocol.Output, error) {
		return protocol.Output{{Name: "digest", Value: protocol.Clone(sink[:])}}, nil
	})
	if err != nil {
		return nil, err
	}
	return &protocol.Prepared{Bench: b, Outputs: outs}, nil
}
