// Command {{name}} is a dyno adapter (docs/adapter-protocol.md): its
// benchmarks, served by dyno's Go protocol library (go-protocol).
package main

import (
	"dyno/adapters/go-protocol/protocol"
	"dyno/adapters/go-protocol/worker"
)

// registry holds every (id, implementation) the adapter offers; the
// protocol library adds the harness ids.
var registry = func() *protocol.Registry {
	var r protocol.Registry
	for _, size := range []string{"1B", "32B", "1KiB", "100KiB"} {
		r.Add("hash/sha256/"+size, "{{name}}-sha256", "crypto/sha256", prepareSha256)
	}
	r.AddHarness("{{name}}")
	return &r
}()

// config is the adapter as hello reports it.
var config = worker.Config{
	Name:     "{{name}}",
	Version:  "0.1.0",
	Runtime:  "go",
	Registry: registry,
}

func main() {
	worker.Main(config)
}
