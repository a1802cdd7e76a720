package bench

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
)

// trieVectors is vectors/trie.json: the roots py-trie computed for the
// generated accounts and slots (crates/micro/src/trie.rs).
type trieVectors struct {
	Accounts []struct {
		Count int    `json:"count"`
		Root  string `json:"root"`
	} `json:"accounts"`
	Storage []struct {
		Slots int    `json:"slots"`
		Root  string `json:"root"`
	} `json:"storage"`
	EmptyRoot string `json:"empty_root"`
}

func loadTrieVectors(t *testing.T) trieVectors {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(vectorsDir(), "trie.json"))
	if err != nil {
		t.Fatalf("reading vectors: %v", err)
	}
	var v trieVectors
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func hex0x(b []byte) string { return "0x" + hex.EncodeToString(b) }

// trieStateInput generates accounts 0..n-1 as crates/micro/src/trie.rs's
// account(i) does, in the case schema.
func trieStateInput(n int) map[string]any {
	var addrs, balances, roots, codes []string
	var nonces []uint64
	for i := range uint64(n) {
		r := seq(0xACC00000+i, 34)
		addrs = append(addrs, hex0x(r[:20]))
		nonces = append(nonces, uint64(binary.LittleEndian.Uint16(r[20:22])))
		balances = append(balances, "0x"+new(big.Int).SetBytes(r[22:34]).Text(16))
		if i%8 == 0 {
			roots = append(roots, hex0x(seq(0x57000000+i, 32)))
			codes = append(codes, hex0x(seq(0xC0DE0000+i, 32)))
		} else {
			roots = append(roots, hex0x(types.EmptyRootHash[:]))
			codes = append(codes, hex0x(types.EmptyCodeHash[:]))
		}
	}
	return map[string]any{"addresses": addrs, "nonces": nonces, "balances": balances, "storage_roots": roots, "code_hashes": codes}
}

// trieStorageInput generates slots 0..n-1 as trie.rs's slot(j) does.
func trieStorageInput(n int) map[string]any {
	var keys, vals []string
	for j := range uint64(n) {
		var k [32]byte
		binary.BigEndian.PutUint64(k[24:], j)
		keys = append(keys, hex0x(k[:]))
		vals = append(vals, hex0x(seq(0x51070000+j, 32)))
	}
	return map[string]any{"keys": keys, "values": vals}
}

// TestTrieVectors checks every size of trie/state-root and the storage
// root against vectors/trie.json, and the empty trie against empty_root.
func TestTrieVectors(t *testing.T) {
	v := loadTrieVectors(t)
	if len(v.Accounts) != len(TrieStateSizes) || len(v.Storage) != 1 {
		t.Fatalf("%d account sets, %d storage sets in trie.json", len(v.Accounts), len(v.Storage))
	}
	for _, a := range v.Accounts {
		if testing.Short() && a.Count > 1000 {
			continue
		}
		id := "trie/state-root/" + strconv.Itoa(a.Count)
		c := mkCase(trieStateInput(a.Count), map[string]any{"root": a.Root})
		mustPrepare(t, id, implFor(t, id), []Case{c})
	}
	s := v.Storage[0]
	if s.Slots != 1000 {
		t.Fatalf("storage set of %d slots", s.Slots)
	}
	mustPrepare(t, TrieStorageID, ImplTrie, []Case{mkCase(trieStorageInput(s.Slots), map[string]any{"root": s.Root})})

	empty := []Case{
		mkCase(map[string]any{"addresses": []string{}, "nonces": []uint64{}, "balances": []string{}, "storage_roots": []string{}, "code_hashes": []string{}}, map[string]any{"root": v.EmptyRoot}),
	}
	mustPrepare(t, "trie/state-root/100", ImplTrie, empty)
	mustPrepare(t, TrieStorageID, ImplTrie, []Case{mkCase(map[string]any{"keys": []string{}, "values": []string{}}, map[string]any{"root": v.EmptyRoot})})
	if v.EmptyRoot != hex0x(types.EmptyRootHash[:]) {
		t.Errorf("empty_root %s, geth's EmptyRootHash %s", v.EmptyRoot, types.EmptyRootHash)
	}
}

// TestTrieMismatchAndErrors: a wrong root is a mismatch; malformed inputs
// are errors at prepare.
func TestTrieMismatchAndErrors(t *testing.T) {
	in := trieStateInput(20)
	p, err := Prepare("trie/state-root/100", ImplTrie, []Case{mkCase(in, nil)})
	if err != nil {
		t.Fatal(err)
	}
	good := p.Outputs[0][0].Value.(Hex)
	wrong := append(Hex(nil), good...)
	wrong[31] ^= 1
	cases := []Case{mkCase(in, map[string]any{"root": hex0x(wrong)})}
	if p, err := Prepare("trie/state-root/100", ImplTrie, cases); err != nil || Check(p, cases) == nil {
		t.Errorf("wrong root accepted (err %v)", err)
	}

	// Balances: "0x0" and leading zeros are read as numbers.
	in2 := trieStateInput(20)
	in2["balances"].([]string)[3] = "0x0"
	in3 := trieStateInput(20)
	in3["balances"].([]string)[3] = "0x00"
	p2, err2 := Prepare("trie/state-root/100", ImplTrie, []Case{mkCase(in2, nil)})
	p3, err3 := Prepare("trie/state-root/100", ImplTrie, []Case{mkCase(in3, nil)})
	if err2 != nil || err3 != nil {
		t.Fatalf("zero balance: %v, %v", err2, err3)
	}
	if string(p2.Outputs[0][0].Value.(Hex)) != string(p3.Outputs[0][0].Value.(Hex)) ||
		string(p2.Outputs[0][0].Value.(Hex)) == string(good) {
		t.Error("0x0 and 0x00 balances disagree, or equal the original root")
	}

	bad := []map[string]any{
		func() map[string]any { m := trieStateInput(4); m["nonces"] = []uint64{1, 2, 3}; return m }(),
		func() map[string]any { m := trieStateInput(4); m["addresses"].([]string)[1] = "0x01"; return m }(),
		func() map[string]any { m := trieStateInput(4); m["balances"].([]string)[1] = "12"; return m }(),
		func() map[string]any {
			m := trieStateInput(4)
			m["balances"].([]string)[1] = "0x1" + strings.Repeat("0", 64)
			return m
		}(),
		func() map[string]any { m := trieStateInput(4); delete(m, "code_hashes"); return m }(),
	}
	for i, m := range bad {
		if _, err := Prepare("trie/state-root/100", ImplTrie, []Case{mkCase(m, nil)}); err == nil {
			t.Errorf("bad state input %d accepted", i)
		}
	}
	st := trieStorageInput(4)
	st["values"].([]string)[0] = "0x01"
	if _, err := Prepare(TrieStorageID, ImplTrie, []Case{mkCase(st, nil)}); err == nil {
		t.Error("short storage value accepted")
	}
}
