package protocol

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Entry is one (id, implementation) a worker can run, as hello lists it.
type Entry struct {
	ID             string `json:"id"`
	Implementation string `json:"implementation"`
	Library        string `json:"library"`
}

// Pattern is a family of ids, as hello lists it: `*` matches one path
// segment.
type Pattern struct {
	ID             string `json:"id"`
	Implementation string `json:"implementation"`
	Library        string `json:"library"`
}

// Preparer parses the cases of one id, runs each once and returns the
// prepared benchmark with its outputs (not yet compared; see Check).
type Preparer func(id string, cases []Case) (*Prepared, error)

// Registry is the benchmarks one worker runs, in the order hello lists
// them. The zero value is empty and ready to use.
type Registry struct {
	entries  []registered[Entry]
	patterns []registered[Pattern]
}

type registered[T any] struct {
	info    T
	prepare Preparer
}

// Add registers the (id, implementation) pair, built on the module lib
// ("-" for none).
func (r *Registry) Add(id, impl, lib string, p Preparer) {
	r.entries = append(r.entries, registered[Entry]{Entry{ID: id, Implementation: impl, Library: lib}, p})
}

// AddPattern registers a family of ids for implementation impl: a prepare
// of impl with an id that matches pattern (`*` is one non-empty path
// segment) goes to p; an id of impl that matches none of its patterns is
// unknown (explicit entries of impl are not consulted).
func (r *Registry) AddPattern(pattern, impl, lib string, p Preparer) {
	r.patterns = append(r.patterns, registered[Pattern]{Pattern{ID: pattern, Implementation: impl, Library: lib}, p})
}

// List returns every explicit (id, implementation), in registration order.
func (r *Registry) List() []Entry {
	out := make([]Entry, len(r.entries))
	for i, e := range r.entries {
		out[i] = e.info
	}
	return out
}

// Patterns returns the id families beyond List: an empty list, never nil
// (dyno's hello parser refuses null).
func (r *Registry) Patterns() []Pattern {
	out := make([]Pattern, len(r.patterns))
	for i, p := range r.patterns {
		out[i] = p.info
	}
	return out
}

// Prepare parses the cases of (id, impl), runs each once and returns the
// prepared benchmark with its outputs (not yet compared; see Check).
func (r *Registry) Prepare(id, impl string, cases []Case) (*Prepared, error) {
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s: no cases", id)
	}
	patterned := false
	for _, p := range r.patterns {
		if p.info.Implementation == impl {
			if p.info.Matches(id) {
				return p.prepare(id, cases)
			}
			patterned = true
		}
	}
	if patterned {
		return nil, fmt.Errorf("unknown id %s for implementation %s", id, impl)
	}
	for _, e := range r.entries {
		if e.info.ID == id && e.info.Implementation == impl {
			return e.prepare(id, cases)
		}
	}
	for _, e := range r.entries {
		if e.info.ID == id {
			return nil, fmt.Errorf("unknown implementation %s for id %s", impl, id)
		}
	}
	return nil, fmt.Errorf("unknown id %s", id)
}

// Matches says whether id is in the family p.ID: as many path segments,
// each equal or matched by a `*`, none empty.
func (p Pattern) Matches(id string) bool {
	ps, s := strings.Split(p.ID, "/"), strings.Split(id, "/")
	if len(ps) != len(s) {
		return false
	}
	for i := range ps {
		if s[i] == "" || (ps[i] != "*" && ps[i] != s[i]) {
			return false
		}
	}
	return true
}

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
