package bench

import (
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

// stateRoots reads the roots of vectors/state.json (computed in Python).
func stateRoots(t *testing.T) map[uint64]common.Hash {
	raw, err := os.ReadFile(filepath.Join(vectorsDir(), "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Sizes []struct {
			Accounts uint64 `json:"accounts"`
			Root     string `json:"root"`
		} `json:"sizes"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	out := map[uint64]common.Hash{}
	for _, s := range f.Sizes {
		out[s.Accounts] = common.HexToHash(s.Root)
	}
	return out
}

// TestStateWrittenByGethHasTheIndependentRoot writes the 1 000-account
// state through core/state into Pebble and checks its root against the
// Python generator's; a wrong root is refused, and a state with a marker
// is reused.
func TestStateWrittenByGethHasTheIndependentRoot(t *testing.T) {
	roots := stateRoots(t)
	dir := t.TempDir()
	s, err := stateOpen(dir, 1000, roots[1000])
	if err != nil {
		t.Fatal(err)
	}
	if s.root != roots[1000] {
		t.Fatalf("root %s", s.root.Hex())
	}
	// geth reads it through pathdb's flat state (its snapshot), not the
	// tries: the flat reader answers for an account and a slot.
	flat, err := s.tdb.StateReader(s.root)
	if err != nil {
		t.Fatalf("no flat state for the root: %v", err)
	}
	addr, nonce, _ := stateAccount(10)
	acc, err := flat.Account(crypto.Keccak256Hash(addr.Bytes()))
	if err != nil || acc == nil || acc.Nonce != nonce {
		t.Fatalf("flat state, account 10: %+v %v", acc, err)
	}
	key, value := stateSlot(10, 0)
	token := crypto.Keccak256Hash(addr.Bytes())
	raw, err := flat.Storage(token, crypto.Keccak256Hash(key.Bytes()))
	if err != nil || len(raw) == 0 {
		t.Fatalf("flat state, contract 10's slot 0: %x %v (want %x)", raw, err, value)
	}
	if _, err := stateOpen(t.TempDir(), 1000, common.Hash{1}); err == nil {
		t.Fatal("a state whose root differs from the vectors' was accepted")
	}
}

// sloadProgram is crates/state's sload program (access.rs): acc = 0;
// n = calldata[0]; while n != 0 { acc += SLOAD(calldata[32 n]); n-- };
// return acc.
var sloadProgram = common.FromHex("5f5f355b801561001c578060051b3554909101906001900361000356" + "5b505f5260205ff3")

// TestStateProgramsRunOnGethsState runs the SLOAD program over two of the
// token's slots, with the page cache warm and evicted, and checks the sum
// from the definition; a slot read from the wrong account gives another.
func TestStateProgramsRunOnGethsState(t *testing.T) {
	roots := stateRoots(t)
	s, err := stateOpen(t.TempDir(), 1000, roots[1000])
	if err != nil {
		t.Fatal(err)
	}
	if n := stateSlotCount(0, 1000); n != 125 {
		t.Fatalf("the token holds %d slots", n)
	}
	k0, v0 := stateSlot(0, 3)
	k1, v1 := stateSlot(0, 7)
	target, _, _ := stateAccount(0)
	l := &stateLoop{s: s, program: sloadProgram, keys: append(k0.Bytes(), k1.Bytes()...), target: target}
	l.cfg.ChainConfig = params.MergedTestChainConfig
	l.cfg.BlockNumber = new(big.Int)
	want := new(big.Int).Add(v0.Big(), v1.Big())
	for _, evicted := range []bool{false, true} {
		l.evicted = evicted
		if err := l.Stage(); err != nil {
			t.Fatal(err)
		}
		r, err := l.call(2)
		if err != nil {
			t.Fatal(err)
		}
		if out := r.out; new(big.Int).SetBytes(out).Cmp(want) != 0 {
			t.Fatalf("evicted=%v: sum %x, want %x", evicted, out, want)
		}
	}
	// As another contract, the same keys hold nothing: the sum is zero.
	other, _, _ := stateAccount(10)
	l.target = other
	r, err := l.call(2)
	if err != nil || new(big.Int).SetBytes(r.out).Sign() != 0 {
		t.Fatalf("the keys as contract 10's: %x %v", r.out, err)
	}
}

// TestStatePrepareChecksTheSums prepares sload-cold at 1 000 accounts as
// dyno sends it (a state folder, the root, the program, the keys and the
// two sums the definition gives) and checks the outputs; a sum one off is
// reported as a mismatch of that field.
func TestStatePrepareChecksTheSums(t *testing.T) {
	roots := stateRoots(t)
	var keys []byte
	sum := new(big.Int)
	for _, j := range []uint64{3, 7, 11} {
		k, v := stateSlot(0, j)
		keys = append(keys, k.Bytes()...)
		sum.Add(sum, v.Big())
	}
	_, v0 := stateSlot(0, 3)
	_, v1 := stateSlot(0, 7)
	two := new(big.Int).Add(v0.Big(), v1.Big())
	var sums []byte
	for _, x := range []*big.Int{v0.Big(), two, sum} {
		sums = append(sums, common.BigToHash(x).Bytes()...)
	}
	word := func(x *big.Int) json.RawMessage {
		return json.RawMessage(`"0x` + common.Bytes2Hex(common.BigToHash(x).Bytes()) + `"`)
	}
	str := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	c := Case{
		Input: map[string]json.RawMessage{
			"dir":      str(t.TempDir()),
			"accounts": json.RawMessage("1000"),
			"evicted":  json.RawMessage("false"),
			"root":     str(roots[1000].Hex()),
			"code":     str("0x" + common.Bytes2Hex(sloadProgram)),
			"keys":     str("0x" + common.Bytes2Hex(keys)),
			"sums":     str("0x" + common.Bytes2Hex(sums)),
			"creates":  json.RawMessage("false"),
		},
		Expected: map[string]json.RawMessage{"sum_2": word(two), "sum_all": word(sum)},
	}
	// The loop takes keys N down to 1: two accesses read keys 0 and 1.
	p, err := prepareState("state/sload-cold/1000", []Case{c})
	if err != nil {
		t.Fatal(err)
	}
	if m := Check(p, []Case{c}); m != nil {
		t.Fatalf("mismatch %+v", m)
	}
	c.Expected["sum_all"] = word(new(big.Int).Add(sum, big.NewInt(1)))
	if m := Check(p, []Case{c}); m == nil || m.Field != "sum_all" {
		t.Fatalf("a wrong sum was not reported: %+v", m)
	}
}

// sstoreProgram is sloadProgram with DUP1 DUP1 SSTORE before the SLOAD
// (crates/state's sstore-modify: each key written with itself, then read).
var sstoreProgram = common.FromHex("5f5f355b801561001f578060051b3580805554909101906001900361000356" + "5b505f5260205ff3")

// TestStateTimedRunsAreChecked: every timed run's output and an SSTORE's
// slots before and after are checked outside the clock, and the first
// wrong one is the run's error (the loop once discarded its output).
func TestStateTimedRunsAreChecked(t *testing.T) {
	roots := stateRoots(t)
	s, err := stateOpen(t.TempDir(), 1000, roots[1000])
	if err != nil {
		t.Fatal(err)
	}
	k0, v0 := stateSlot(0, 3)
	k1, v1 := stateSlot(0, 7)
	target, _, _ := stateAccount(0)
	keyInt := func(k common.Hash) *big.Int { return new(big.Int).SetBytes(k.Bytes()) }
	loop := func() *stateLoop {
		var sums []byte
		sums = append(sums, common.BigToHash(keyInt(k0)).Bytes()...)
		sums = append(sums, common.BigToHash(new(big.Int).Add(keyInt(k0), keyInt(k1))).Bytes()...)
		l := &stateLoop{
			s: s, program: sstoreProgram, keys: append(k0.Bytes(), k1.Bytes()...), target: target,
			sums:      sums,
			originals: append(common.BigToHash(v0.Big()).Bytes(), common.BigToHash(v1.Big()).Bytes()...),
			written:   append(k0.Bytes(), k1.Bytes()...),
		}
		l.cfg.ChainConfig = params.MergedTestChainConfig
		l.cfg.BlockNumber = new(big.Int)
		return l
	}
	l := loop()
	for _, n := range []int{1, 2, 2} {
		if err := l.Stage(); err != nil {
			t.Fatal(err)
		}
		l.Loop(n)
	}
	if err := l.Err(); err != nil {
		t.Fatalf("right runs: %v", err)
	}
	// A slot's original value other than the state's: the post-state
	// check fails.
	l = loop()
	l.originals[63]++
	l.Loop(2)
	if err := l.Err(); err == nil || !strings.Contains(err.Error(), "before") {
		t.Fatalf("a wrong original value: %v", err)
	}
	// A wrong sum for one access: the next Stage says so.
	l = loop()
	l.sums[31]++
	l.Loop(1)
	if err := l.Stage(); err == nil || !strings.Contains(err.Error(), "1 accesses returned") {
		t.Fatalf("a wrong sum: %v", err)
	}
}

// TestStateRefusesTooLittleDisk: a size no disk holds is refused before
// anything is written, naming the need and the free space.
func TestStateRefusesTooLittleDisk(t *testing.T) {
	dir := t.TempDir()
	_, err := stateOpen(dir, 1<<50, common.Hash{1})
	if err == nil || !strings.Contains(err.Error(), "MB are free") {
		t.Fatalf("got %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Fatalf("something was written: %v", entries)
	}
}
