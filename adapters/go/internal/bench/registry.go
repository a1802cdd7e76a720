package bench

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Library module paths, as reported in hello.
const (
	LibGeth     = "github.com/ethereum/go-ethereum"
	LibXCrypto  = "golang.org/x/crypto"
	LibStd      = "std"
	LibNone     = "-"
	ImplGeth    = "geth"
	ImplGoStd   = "go-std"
	ImplXCrypto = "x-crypto"
	ImplPrecomp = "geth-precompile"
	ImplNoop    = "go-noop"
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

var hashSizes = []string{"1B", "32B", "1KiB", "100KiB"}

var hashAlgs = []struct {
	alg, impl, lib string
}{
	{"keccak256", ImplGeth, LibGeth},
	{"sha256", ImplGoStd, LibStd},
	{"sha384", ImplGoStd, LibStd},
	{"sha512", ImplGoStd, LibStd},
	{"ripemd160", ImplXCrypto, LibXCrypto},
	{"blake2b512", ImplXCrypto, LibXCrypto},
	{"blake2s256", ImplXCrypto, LibXCrypto},
}

func entries() []entry {
	var es []entry
	add := func(id, impl, lib string, p preparer) {
		es = append(es, entry{Entry{id, impl, lib}, p})
	}
	for _, h := range hashAlgs {
		alg := h.alg
		for _, size := range hashSizes {
			add("hash/"+alg+"/"+size, h.impl, h.lib, func(_ string, cases []Case) (*Prepared, error) {
				return prepareHash(alg, cases)
			})
		}
	}
	add("crypto/secp256k1-sign/recid-direct", ImplGeth, LibGeth, prepareSecpSign)
	add("crypto/secp256k1-verify/valid", ImplGeth, LibGeth, prepareSecpVerify)
	add("crypto/secp256k1-recover/valid", ImplGeth, LibGeth, prepareSecpRecover)
	add("crypto/secp256k1-keygen/pubkey", ImplGeth, LibGeth, prepareSecpKeygen)
	add("crypto/p256-sign/32B", ImplGoStd, LibStd, prepareNISTSign(p256))
	add("crypto/p384-sign/32B", ImplGoStd, LibStd, prepareNISTSign(p384))
	add("crypto/p256-verify/32B", ImplGoStd, LibStd, prepareNISTVerify(p256))
	add("crypto/p384-verify/32B", ImplGoStd, LibStd, prepareNISTVerify(p384))
	for _, n := range TrieStateSizes {
		add("trie/state-root/"+n, ImplTrie, LibGeth, prepareTrieState)
	}
	add(TrieStorageID, ImplTrie, LibGeth, prepareTrieStorage)
	for _, in := range RLPInputs {
		add("rlp/decode-generic/"+in, ImplRLP, LibGeth, prepareRLPDecode)
	}
	for _, in := range RLPInputs {
		add("rlp/encode-generic/"+in, ImplRLP, LibGeth, prepareRLPEncode)
	}
	for _, e := range dbEngines {
		for _, o := range dbOps {
			add(o.id, e.name, LibGeth, prepareDB(e, o.op, o.k))
		}
	}
	// devp2p: eth/69 messages with eth/protocols/eth's packets, snappy,
	// p2p/rlpx (net.go).
	for _, m := range NetMessages {
		add("net/encode/"+m, ImplGeth, LibGeth, prepareNetEncode)
	}
	for _, m := range NetMessages {
		add("net/decode/"+m, ImplGeth, LibGeth, prepareNetDecode)
	}
	add("net/route/mixed", ImplGeth, LibGeth, prepareNetRoute)
	add("net/handshake/local", ImplGeth, LibGeth, prepareNetHandshake)
	add("harness/noop/empty", ImplNoop, LibNone, prepareNoop)
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

// Patterns returns the id families the worker supports beyond List.
func Patterns() []Pattern {
	return []Pattern{
		{ID: "precompile/*/*", Implementation: ImplPrecomp, Library: LibGeth},
		{ID: BytecodeGroup + "/*/*", Implementation: ImplEVM, Library: LibGeth},
	}
}

// Prepare parses the cases of (id, impl), runs each once and returns the
// prepared benchmark with its outputs (not yet compared; see Check).
func Prepare(id, impl string, cases []Case) (*Prepared, error) {
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s: no cases", id)
	}
	if impl == ImplPrecomp {
		parts := strings.Split(id, "/")
		if len(parts) != 3 || parts[0] != "precompile" || parts[2] == "" {
			return nil, fmt.Errorf("unknown id %s for implementation %s", id, impl)
		}
		return preparePrecompile(parts[1], cases)
	}
	if impl == ImplEVM {
		parts := strings.Split(id, "/")
		if len(parts) != 3 || parts[0] != BytecodeGroup || parts[2] == "" {
			return nil, fmt.Errorf("unknown id %s for implementation %s", id, impl)
		}
		return prepareBytecode(parts[1], cases)
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
