package bench

import (
	"strings"

	"dyno/adapters/go-protocol/protocol"
)

// Library module paths, as reported in hello.
const (
	LibGeth     = "github.com/ethereum/go-ethereum"
	LibXCrypto  = "golang.org/x/crypto"
	LibStd      = "std"
	ImplGeth    = "geth"
	ImplGoStd   = "go-std"
	ImplXCrypto = "x-crypto"
	ImplPrecomp = "geth-precompile"
	ImplNoop    = "go-noop"
)

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

// newRegistry registers every benchmark, in the order hello lists them.
func newRegistry() *protocol.Registry {
	r := new(protocol.Registry)
	add := r.Add
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
	// State access on go-ethereum's own state stack (state.go).
	for _, a := range StateAccesses {
		for _, n := range StateSizes {
			for _, suffix := range []string{"", "-dropped"} {
				add("state/"+a+"/"+n+suffix, ImplStateGeth, LibGeth, prepareState)
			}
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
	// Block validation in go-ethereum's core (block.go).
	for _, m := range BlockLimits {
		for _, k := range BlockKinds {
			add("block/validate/"+m+"M-"+k, ImplGeth, LibGeth, prepareBlockValidate)
		}
	}
	r.AddHarness("go")
	// hello's patterns: the second segment names the precompile.
	r.AddPattern("precompile/*/*", ImplPrecomp, LibGeth, func(id string, cases []Case) (*Prepared, error) {
		return preparePrecompile(strings.Split(id, "/")[1], cases)
	})
	r.AddPattern(BytecodeGroup+"/*/*", ImplEVM, LibGeth, func(id string, cases []Case) (*Prepared, error) {
		return prepareBytecode(strings.Split(id, "/")[1], cases)
	})
	// Opcode mode: the program comes with the case, so any exported
	// opcode id runs (dyno exports those that need no pre-state).
	r.AddPattern(OpcodeGroup+"/*/*", ImplEVM, LibGeth, func(_ string, cases []Case) (*Prepared, error) {
		return prepareOpcode(cases)
	})
	return r
}

// Registry is every benchmark this worker runs.
var Registry = newRegistry()

// List returns every explicit (id, implementation) the worker supports.
func List() []Entry { return Registry.List() }

// Prepare parses the cases of (id, impl), runs each once and returns the
// prepared benchmark with its outputs (not yet compared; see Check).
func Prepare(id, impl string, cases []Case) (*Prepared, error) {
	return Registry.Prepare(id, impl, cases)
}

// ModuleVersion is the version of module path built into this binary, as
// hello reports it (protocol.ModuleVersion).
func ModuleVersion(path string) string { return protocol.ModuleVersion(path) }
