// Command dyno-adapter-go is dyno's Go worker: it speaks the adapter
// protocol (docs/adapter-protocol.md) on stdin and stdout.
package main

import (
	"os"

	"dyno/adapters/go/internal/worker"
)

func main() {
	out := protocolOutput()
	os.Exit(worker.Serve(os.Stdin, out))
}
