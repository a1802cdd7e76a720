// Command dyno-adapter-go-etc is dyno's second Go worker, built on core-geth
// (the Ethereum Classic client, whose go.mod keeps go-ethereum's module
// path): it speaks the adapter protocol (docs/adapter-protocol.md) on stdin
// and stdout. The protocol loop is the shared module's
// (adapters/go-protocol); this adapter brings core-geth's proof-of-work
// benchmarks (internal/bench).
package main

import (
	"dyno/adapters/go-protocol/worker"

	"dyno/adapters/go-etc/internal/bench"
)

// config is this adapter as hello reports it, with its benchmarks. The
// runtime is called go-etc, the adapter's folder (the Go runtime with
// core-geth instead of go-ethereum); go-ethereum's path is core-geth's (go.mod
// replaces it), reported as "github.com/etclabscore/core-geth@v1.12.22".
var config = worker.Config{
	Name:      "dyno-adapter-go-etc",
	Version:   "0.1.0",
	Runtime:   "go-etc",
	Libraries: []string{"github.com/ethereum/go-ethereum", "golang.org/x/crypto"},
	Flags: func(bool) []string {
		return []string{"ethash=core-geth (unexported hashimoto/generate* reached by go:linkname)"}
	},
	Registry: bench.Registry,
}

func main() {
	worker.Main(config)
}
