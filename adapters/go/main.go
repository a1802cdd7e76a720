// Command dyno-adapter-go is dyno's Go worker: it speaks the adapter
// protocol (docs/adapter-protocol.md) on stdin and stdout. The protocol
// loop is the shared module's (adapters/go-protocol); this adapter brings
// go-ethereum's benchmarks (internal/bench).
package main

import (
	"dyno/adapters/go-protocol/worker"

	"dyno/adapters/go/internal/bench"
)

// config is this adapter as hello reports it, with its benchmarks.
var config = worker.Config{
	Name:    "dyno-adapter-go",
	Version: "0.1.0",
	Runtime: "go",
	Libraries: []string{
		"github.com/ethereum/go-ethereum",
		"golang.org/x/crypto",
		"github.com/decred/dcrd/dcrec/secp256k1/v4",
		"github.com/consensys/gnark-crypto",
		"github.com/supranational/blst",
		"github.com/crate-crypto/go-eth-kzg",
		"github.com/ethereum/c-kzg-4844/v2",
		"github.com/holiman/uint256",
	},
	Flags: func(cgo bool) []string {
		secp := "secp256k1=decred (pure Go)"
		if cgo {
			secp = "secp256k1=libsecp256k1 (cgo)"
		}
		return []string{secp, "precompiles=" + bench.PrecompileSet, "kzg4844=go-eth-kzg (geth's default backend)"}
	},
	Registry: bench.Registry,
}

func main() {
	worker.Main(config)
}
