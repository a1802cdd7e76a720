// Package bench holds the go-etc worker's benchmarks (core-geth's Ethash and
// Etchash): for each (id, implementation) a prepare step that parses the
// cases into native values and runs every case once, and a tight loop that
// the protocol layer (adapters/go-protocol) times.
package bench

import "dyno/adapters/go-protocol/protocol"

// Library module paths, as reported in hello. go-ethereum's path is served
// by core-geth (go.mod replaces it).
const (
	LibGeth      = "github.com/ethereum/go-ethereum"
	ImplCoreGeth = "core-geth"
	ImplNoop     = "go-etc-noop"
)

// The benchmark ids (docs/research/issue-7-systems.md, "3. Mining").
const (
	IDHashimotoLight = "pow/hashimoto-light/epoch0"
	IDHashimotoFull  = "pow/hashimoto-full/epoch0"
	IDVerifyHeader   = "pow/verify-header/mainnet-1"
	IDEtchashEpoch   = "pow/etchash-epoch/ecip1099"
)

// Registry is every benchmark this worker runs, in the order hello lists
// them; it has no patterns.
var Registry = newRegistry()

func newRegistry() *protocol.Registry {
	r := new(protocol.Registry)
	r.Add(IDHashimotoLight, ImplCoreGeth, LibGeth, prepareHashimotoLight)
	r.Add(IDHashimotoFull, ImplCoreGeth, LibGeth, prepareHashimotoFull)
	r.Add(IDVerifyHeader, ImplCoreGeth, LibGeth, prepareVerifyHeader)
	r.Add(IDEtchashEpoch, ImplCoreGeth, LibGeth, prepareEtchashEpoch)
	r.AddHarness("go-etc")
	return r
}
