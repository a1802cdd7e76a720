package bench

import (
	"fmt"
	"runtime/debug"
)

// Library module paths, as reported in hello. go-ethereum's path is served
// by core-geth (go.mod replaces it).
const (
	LibGeth      = "github.com/ethereum/go-ethereum"
	LibNone      = "-"
	ImplCoreGeth = "core-geth"
	ImplNoop     = "go-etc-noop"
)

// The benchmark ids (docs/research/issue-7-systems.md, "3. Mining").
const (
	IDHashimotoLight = "pow/hashimoto-light/epoch0"
	IDHashimotoFull  = "pow/hashimoto-full/epoch0"
	IDVerifyHeader   = "pow/verify-header/mainnet-1"
	IDEtchashEpoch   = "pow/etchash-epoch/ecip1099"
	IDNoop           = "harness/noop/empty"
)

// Entry is one (id, implementation) the worker can run.
type Entry struct {
	ID             string `json:"id"`
	Implementation string `json:"implementation"`
	Library        string `json:"library"`
}

// Pattern is a family of ids: `*` matches one path segment.
type Pattern struct {
	ID             string `json:"id"`
	Implementation string `json:"implementation"`
	Library        string `json:"library"`
}

type preparer func(id string, cases []Case) (*Prepared, error)

type entry struct {
	Entry
	prepare preparer
}

func entries() []entry {
	var es []entry
	add := func(id, impl, lib string, p preparer) {
		es = append(es, entry{Entry{id, impl, lib}, p})
	}
	add(IDHashimotoLight, ImplCoreGeth, LibGeth, prepareHashimotoLight)
	add(IDHashimotoFull, ImplCoreGeth, LibGeth, prepareHashimotoFull)
	add(IDVerifyHeader, ImplCoreGeth, LibGeth, prepareVerifyHeader)
	add(IDEtchashEpoch, ImplCoreGeth, LibGeth, prepareEtchashEpoch)
	add(IDNoop, ImplNoop, LibNone, prepareNoop)
	return es
}

var registry = entries()

// ModuleVersion is the version of module path built into this binary, as
// hello reports it (a replacement as "path@version"), or "" if the binary
// does not contain it or has no build information.
func ModuleVersion(path string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, d := range bi.Deps {
		if d.Path == path {
			if d.Replace != nil {
				return d.Replace.Path + "@" + d.Replace.Version
			}
			return d.Version
		}
	}
	return ""
}

// List returns every explicit (id, implementation) the worker supports.
func List() []Entry {
	out := make([]Entry, len(registry))
	for i, e := range registry {
		out[i] = e.Entry
	}
	return out
}

// Patterns returns the id families the worker supports beyond List: none
// (an empty list, not null, which dyno's hello parser would refuse).
func Patterns() []Pattern {
	return []Pattern{}
}

// Prepare parses the cases of (id, impl), runs each once and returns the
// prepared benchmark with its outputs (not yet compared; see Check).
func Prepare(id, impl string, cases []Case) (*Prepared, error) {
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s: no cases", id)
	}
	for _, e := range registry {
		if e.ID == id && e.Implementation == impl {
			return e.prepare(id, cases)
		}
	}
	for _, e := range registry {
		if e.ID == id {
			return nil, fmt.Errorf("unknown implementation %s for id %s", impl, id)
		}
	}
	return nil, fmt.Errorf("unknown id %s", id)
}
