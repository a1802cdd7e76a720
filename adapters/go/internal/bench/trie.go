package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/holiman/uint256"
)

// ImplTrie is go-ethereum's StackTrie over keccak-hashed keys.
const ImplTrie = "geth-trie"

// TrieStateSizes are the account counts of trie/state-root/<N>.
var TrieStateSizes = []string{"100", "1000", "10000", "100000"}

// TrieStorageID is the storage-root benchmark.
const TrieStorageID = "trie/storage-root/1000-slots"

// trieEntry is one (hashed key, RLP value) pair of a trie being built.
type trieEntry struct {
	key common.Hash
	val []byte
}

func compareTrieEntries(a, b trieEntry) int { return bytes.Compare(a.key[:], b.key[:]) }

// buildTrie sorts the entries by hashed key, inserts them into a fresh
// StackTrie in that order and returns its root.
func buildTrie(es []trieEntry) (common.Hash, error) {
	slices.SortFunc(es, compareTrieEntries)
	st := trie.NewStackTrie(nil)
	for _, e := range es {
		if err := st.Update(e.key[:], e.val); err != nil {
			return common.Hash{}, err
		}
	}
	return st.Hash(), nil
}

// trieStateCase is one state: addresses and accounts parsed at prepare.
type trieStateCase struct {
	addrs []common.Address
	accts []types.StateAccount
}

// stateRoot is the timed operation: keccak-256 of every address, RLP of
// every types.StateAccount (nonce, uint256 balance, storage root, code
// hash), sort by hashed key, StackTrie, Hash. Everything it builds is
// allocated per call, as a commit from nothing would.
func stateRoot(c *trieStateCase) (common.Hash, error) {
	es := make([]trieEntry, len(c.addrs))
	for i := range c.addrs {
		val, err := rlp.EncodeToBytes(&c.accts[i])
		if err != nil {
			return common.Hash{}, err
		}
		es[i] = trieEntry{crypto.Keccak256Hash(c.addrs[i][:]), val}
	}
	return buildTrie(es)
}

// trieStorageCase is one contract's storage: slot keys and values as
// 32-byte words.
type trieStorageCase struct {
	keys, vals []common.Hash
}

// storageRoot is the timed operation: keccak-256 of every slot key, RLP of
// the value with its leading zeros trimmed (a minimal big-endian integer,
// as geth's state writes a slot), sort, StackTrie, Hash.
func storageRoot(c *trieStorageCase) (common.Hash, error) {
	es := make([]trieEntry, len(c.keys))
	for i := range c.keys {
		val, err := rlp.EncodeToBytes(common.TrimLeftZeroes(c.vals[i][:]))
		if err != nil {
			return common.Hash{}, err
		}
		es[i] = trieEntry{crypto.Keccak256Hash(c.keys[i][:]), val}
	}
	return buildTrie(es)
}

// inputArray reads the array field name of case i's input.
func inputArray[T any](cases []Case, i int, name string) ([]T, error) {
	raw, ok := cases[i].Input[name]
	if !ok {
		return nil, fmt.Errorf("case %d: input has no field %q", i, name)
	}
	var v []T
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("case %d: input %s: %v", i, name, err)
	}
	return v, nil
}

// hexArray reads an array of hex strings of exactly size bytes each.
func hexArray(cases []Case, i int, name string, size int) ([][]byte, error) {
	raws, err := inputArray[json.RawMessage](cases, i, name)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(raws))
	for j, r := range raws {
		b, err := decodeHex(r)
		if err != nil {
			return nil, fmt.Errorf("case %d: input %s[%d]: %v", i, name, j, err)
		}
		if len(b) != size {
			return nil, fmt.Errorf("case %d: input %s[%d] is %d bytes, want %d", i, name, j, len(b), size)
		}
		out[j] = b
	}
	return out, nil
}

// parseQuantity reads a hex quantity ("0x1a2b"; leading zeros tolerated)
// into a uint256.
func parseQuantity(s string) (*uint256.Int, error) {
	if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return nil, fmt.Errorf("hex quantity without 0x prefix: %s", truncate(s))
	}
	b, ok := new(big.Int).SetString(s[2:], 16)
	if !ok || b.Sign() < 0 {
		return nil, fmt.Errorf("bad hex quantity: %s", truncate(s))
	}
	v, overflow := uint256.FromBig(b)
	if overflow {
		return nil, fmt.Errorf("hex quantity above 256 bits: %s", truncate(s))
	}
	return v, nil
}

func sameLengths(i int, names []string, lens ...int) error {
	for j := 1; j < len(lens); j++ {
		if lens[j] != lens[0] {
			return fmt.Errorf("case %d: %d %s but %d %s", i, lens[0], names[0], lens[j], names[j])
		}
	}
	return nil
}

func prepareTrieState(_ string, cases []Case) (*Prepared, error) {
	cs := make([]trieStateCase, len(cases))
	for i := range cases {
		addrs, err := hexArray(cases, i, "addresses", common.AddressLength)
		if err != nil {
			return nil, err
		}
		nonces, err := inputArray[uint64](cases, i, "nonces")
		if err != nil {
			return nil, err
		}
		balances, err := inputArray[string](cases, i, "balances")
		if err != nil {
			return nil, err
		}
		roots, err := hexArray(cases, i, "storage_roots", common.HashLength)
		if err != nil {
			return nil, err
		}
		codes, err := hexArray(cases, i, "code_hashes", common.HashLength)
		if err != nil {
			return nil, err
		}
		names := []string{"addresses", "nonces", "balances", "storage_roots", "code_hashes"}
		if err := sameLengths(i, names, len(addrs), len(nonces), len(balances), len(roots), len(codes)); err != nil {
			return nil, err
		}
		c := trieStateCase{
			addrs: make([]common.Address, len(addrs)),
			accts: make([]types.StateAccount, len(addrs)),
		}
		for j := range addrs {
			bal, err := parseQuantity(balances[j])
			if err != nil {
				return nil, fmt.Errorf("case %d: balances[%d]: %v", i, j, err)
			}
			c.addrs[j] = common.BytesToAddress(addrs[j])
			c.accts[j] = types.StateAccount{
				Nonce:    nonces[j],
				Balance:  bal,
				Root:     common.BytesToHash(roots[j]),
				CodeHash: codes[j],
			}
		}
		cs[i] = c
	}
	return prepareTrie(cs, stateRoot)
}

func prepareTrieStorage(_ string, cases []Case) (*Prepared, error) {
	cs := make([]trieStorageCase, len(cases))
	for i := range cases {
		keys, err := hexArray(cases, i, "keys", common.HashLength)
		if err != nil {
			return nil, err
		}
		vals, err := hexArray(cases, i, "values", common.HashLength)
		if err != nil {
			return nil, err
		}
		if err := sameLengths(i, []string{"keys", "values"}, len(keys), len(vals)); err != nil {
			return nil, err
		}
		c := trieStorageCase{keys: make([]common.Hash, len(keys)), vals: make([]common.Hash, len(keys))}
		for j := range keys {
			c.keys[j] = common.BytesToHash(keys[j])
			c.vals[j] = common.BytesToHash(vals[j])
		}
		cs[i] = c
	}
	return prepareTrie(cs, storageRoot)
}

// prepareTrie loops root over the cases (one function-value call per
// root: each costs tens of microseconds or more) and reports `root`.
func prepareTrie[T any](cs []T, root func(*T) (common.Hash, error)) (*Prepared, error) {
	b := &funcLoop[T]{cases: cs, op: func(c *T) {
		Sink32, SinkErr = root(c)
	}}
	outs, err := runEach(b, len(cs), func(int) (Output, error) {
		if SinkErr != nil {
			return nil, SinkErr
		}
		return Output{{Name: "root", Value: clone(Sink32[:])}}, nil
	})
	if err != nil {
		return nil, err
	}
	return &Prepared{Bench: b, Outputs: outs}, nil
}
