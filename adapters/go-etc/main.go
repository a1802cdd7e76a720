// Command dyno-adapter-go-etc is dyno's second Go worker, built on core-geth
// (the Ethereum Classic client, whose go.mod keeps go-ethereum's module
// path): it speaks the adapter protocol (docs/adapter-protocol.md) on stdin
// and stdout.
package main

import (
	"os"

	"dyno/adapters/go-etc/internal/worker"
)

func main() {
	out := protocolOutput()
	os.Exit(worker.Serve(os.Stdin, out))
}
