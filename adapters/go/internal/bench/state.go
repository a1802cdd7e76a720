package bench

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm/runtime"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/ethdb/pebble"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/ethereum/go-ethereum/triedb/pathdb"
	"github.com/holiman/uint256"
	"golang.org/x/sys/unix"
)

// The state-access suite (docs/state.md) in go-ethereum's own state stack:
// the generated state, version 1, written through core/state into a
// path-scheme trie database (geth's default) over Pebble, its root checked
// against dyno's (vectors/state.json) before any timing; each benchmark is
// the loop program dyno builds (crates/state/src/access.rs), run by geth's
// EVM (core/vm/runtime, Osaka) as the token, on a fresh StateDB per run so
// that every access is cold, reading through pathdb's flat state and
// clean caches as a node does.

// ImplStateGeth names geth's state stack in results.
const ImplStateGeth = "geth"

// StateAccesses are the access kinds of the suite, as crates/state names
// them; StateSizes its sizes (each also with the "-dropped" suffix).
var (
	StateAccesses = []string{
		"sload-cold", "sload-missing", "sload-warm",
		"balance-cold", "balance-missing", "balance-warm",
		"extcodesize-cold", "extcodesize-missing",
		"extcodehash-cold", "extcodehash-missing",
		"call-value-cold", "call-value-warm",
		"sstore-fresh", "sstore-modify", "sstore-clear", "sstore-warm",
		"create", "create2",
	}
	StateSizes = []string{"10000", "100000", "1000000", "10000000"}
)

// --- the generated state, version 1 (vectors/gen/state_shape.py) ---

const (
	stateContractEvery = 10
	stateMaxSlots      = 1000
	stateZipfScale     = 1_000_000_000_000_000
	stateChunk         = 50_000 // accounts per commit while writing
)

// stateTag is keccak256("dyno-state/v1/" || name || "/" || u64be(x)...).
func stateTag(name string, xs ...uint64) common.Hash {
	b := append([]byte("dyno-state/v1/"+name), '/')
	for _, x := range xs {
		b = binary.BigEndian.AppendUint64(b, x)
	}
	return crypto.Keccak256Hash(b)
}

var stateZipf = sync.OnceValue(func() []uint64 {
	c := make([]uint64, stateMaxSlots)
	var acc uint64
	for k := uint64(1); k <= stateMaxSlots; k++ {
		acc += stateZipfScale / (k * k)
		c[k-1] = acc
	}
	return c
})

func stateAccount(i uint64) (common.Address, uint64, *uint256.Int) {
	h := stateTag("account", i)
	nonce := uint64(binary.BigEndian.Uint16(h[0:2]))
	balance := new(uint256.Int).AddUint64(uint256.NewInt(binary.BigEndian.Uint64(h[2:10])), 1)
	return common.BytesToAddress(h[12:]), nonce, balance
}

func stateCode(i uint64) []byte {
	c := []byte{0x67}
	c = binary.BigEndian.AppendUint64(c, i)
	c = append(c, 0x50)
	c = append(c, bytes.Repeat([]byte{0x5b}, int(i%61))...)
	return append(c, 0x00)
}

func stateSlotCount(i, n uint64) uint64 {
	if i == 0 {
		return n / 8
	}
	cum := stateZipf()
	u := binary.BigEndian.Uint64(stateTag("slots", i).Bytes()[0:8]) % cum[len(cum)-1]
	return uint64(sort.Search(len(cum), func(j int) bool { return cum[j] > u })) + 1
}

func stateSlot(i, j uint64) (common.Hash, common.Hash) {
	v := stateTag("value", i, j)
	var value common.Hash
	copy(value[16:], v[16:])
	value[31] |= 1
	return stateTag("slot", i, j), value
}

// stateWrite writes the state of n accounts into sdb, stateChunk accounts
// per commit, flushing each to disk; it returns the root.
func stateWrite(sdb state.Database, tdb *triedb.Database, n uint64) (common.Hash, error) {
	rules := params.MergedTestChainConfig.Rules(new(big.Int), true, 0)
	root := types.EmptyRootHash
	for start, block := uint64(0), uint64(1); start < n; start, block = start+stateChunk, block+1 {
		st, err := state.New(root, sdb)
		if err != nil {
			return common.Hash{}, err
		}
		for i := start; i < min(n, start+stateChunk); i++ {
			addr, nonce, balance := stateAccount(i)
			st.SetNonce(addr, nonce, tracing.NonceChangeUnspecified)
			st.SetBalance(addr, balance, tracing.BalanceChangeUnspecified)
			if i%stateContractEvery != 0 {
				continue
			}
			st.SetCode(addr, stateCode(i), tracing.CodeChangeUnspecified)
			for j := uint64(0); j < stateSlotCount(i, n); j++ {
				key, value := stateSlot(i, j)
				st.SetState(addr, key, value)
			}
		}
		if root, err = st.Commit(rules, block); err != nil {
			return common.Hash{}, err
		}
		if err := tdb.Commit(root, false); err != nil {
			return common.Hash{}, err
		}
	}
	return root, nil
}

// --- the stores ---

// gethState is one state of n accounts, open in geth's stack.
type gethState struct {
	dir  string // the Pebble folder
	root common.Hash
	kv   ethdb.KeyValueStore
	tdb  *triedb.Database
	sdb  state.Database
}

func (s *gethState) open() error {
	kv, err := pebble.New(s.dir, dbCacheMB, dbHandles, "", false)
	if err != nil {
		return err
	}
	disk := rawdb.NewDatabase(kv)
	s.kv = kv
	s.tdb = triedb.NewDatabase(disk, &triedb.Config{PathDB: pathdb.Defaults})
	s.sdb = state.NewDatabase(s.tdb, state.NewCodeDB(disk))
	return nil
}

func (s *gethState) close() {
	if s.tdb != nil {
		_ = s.tdb.Close()
	}
	if s.kv != nil {
		_ = s.kv.Close()
	}
	s.kv, s.tdb, s.sdb = nil, nil, nil
}

// evict closes the state, writes back and drops its files from the OS page
// cache (posix_fadvise DONTNEED: a file this process no longer holds open
// loses its clean pages), and reopens it: the next reads come from disk.
func (s *gethState) evict() error {
	s.close()
	err := filepath.WalkDir(s.dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := f.Sync(); err != nil {
			return err
		}
		return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
	})
	if err != nil {
		return err
	}
	return s.open()
}

var (
	stateMu    sync.Mutex
	stateStore = map[string]*gethState{} // by folder, for the worker's life
)

// stateOpen opens (writing it first, unless a complete one is there) the
// state of n accounts under root, checking its root against want.
func stateOpen(rootDir string, n uint64, want common.Hash) (*gethState, error) {
	stateMu.Lock()
	defer stateMu.Unlock()
	dir := filepath.Join(rootDir, fmt.Sprintf("v1-%d", n), "geth-"+gethVersion())
	if s, ok := stateStore[dir]; ok {
		return s, nil
	}
	marker := filepath.Join(dir, dbMarkerName)
	wantMarker := fmt.Sprintf("dyno-state v1 accounts=%d engine=geth version=%s root=%s", n, gethVersion(), want.Hex())
	s := &gethState{dir: filepath.Join(dir, "db"), root: want}
	if got, err := os.ReadFile(marker); err != nil || string(got) != wantMarker {
		// Absent or half written: written again from the start.
		if err := os.RemoveAll(dir); err != nil {
			return nil, err
		}
		if err := stateRoom(rootDir, n); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			return nil, err
		}
		if err := s.open(); err != nil {
			return nil, err
		}
		root, err := stateWrite(s.sdb, s.tdb, n)
		if err != nil {
			s.close()
			return nil, fmt.Errorf("writing the state of %d accounts: %v", n, err)
		}
		if root != want {
			s.close()
			return nil, fmt.Errorf("the state of %d accounts written by geth has root %s, vectors/state.json says %s", n, root.Hex(), want.Hex())
		}
		// Close and reopen, so that what is timed is what is on disk.
		s.close()
		if err := os.WriteFile(marker, []byte(wantMarker), 0o644); err != nil {
			return nil, err
		}
	}
	if err := s.open(); err != nil {
		return nil, err
	}
	if _, err := state.New(want, s.sdb); err != nil {
		s.close()
		return nil, fmt.Errorf("%s: the root %s is not readable (delete the folder and dyno writes it again): %v", dir, want.Hex(), err)
	}
	stateStore[dir] = s
	return s, nil
}

// stateDiskNeed is what the state of n accounts takes in geth's stack, with
// a margin (docs/state.md, "Disk").
func stateDiskNeed(n uint64) uint64 { return n*stateBytesPerAccount + 512<<20 }

const stateBytesPerAccount = 600

// stateRoom refuses, before anything is written, a state the disk under
// dir (or its nearest existing parent) has no room for.
func stateRoom(dir string, n uint64) error {
	at := dir
	for {
		if _, err := os.Stat(at); err == nil {
			break
		}
		parent := filepath.Dir(at)
		if parent == at {
			break
		}
		at = parent
	}
	var fs unix.Statfs_t
	if err := unix.Statfs(at, &fs); err != nil {
		return fmt.Errorf("%s: %v", at, err)
	}
	free := fs.Bavail * uint64(fs.Bsize)
	if need := stateDiskNeed(n); need > free {
		return fmt.Errorf("the state of %d accounts needs about %d MB at %s, and %d MB are free there (free some space, choose a smaller size, or set DYNO_STATE_DIR to a roomier disk)", n, need/1_000_000, dir, free/1_000_000)
	}
	return nil
}

// --- the benchmark ---

// stateLoop runs the access program once per Loop call with N = n, on a
// fresh StateDB over the state's root, as the token.
type stateLoop struct {
	s       *gethState
	evicted bool
	program []byte
	keys    []byte // 32-byte keys, concatenated
	target  common.Address
	cfg     runtime.Config
	err     error
	// What every run is checked against (dyno's, from the state's
	// definition): the output after n accesses is sums[32(n-1):32n]; an
	// SSTORE's slot k holds originals[k] before and written[k] after; a
	// CREATE's run makes n contracts.
	sums      []byte
	originals []byte
	written   []byte
	creates   bool
	// The last timed run, checked outside the clock (before the next
	// sample and when the worker asks Err).
	pending *stateRun
}

// stateRun is one run's result, kept for its check.
type stateRun struct {
	n     int
	out   []byte
	st    *state.StateDB
	nonce uint64 // the target's nonce before the run
}

// The worker stages every sample (the eviction) outside its clock, and asks
// for the first error a timed run met.
var (
	_ Staged  = (*stateLoop)(nil)
	_ Failing = (*stateLoop)(nil)
)

var stateBalance = new(uint256.Int).Lsh(uint256.NewInt(1), 128)

// Stage evicts the state before a sample, outside the worker's clock
// (protocol.Staged); with the page cache warm there is nothing to do.
// The last timed run is checked here too, before the next sample's clock
// starts.
func (l *stateLoop) Stage() error {
	l.checkPending()
	if l.err != nil {
		return l.err
	}
	if !l.evicted {
		return nil
	}
	return l.s.evict()
}

func (l *stateLoop) call(n int) (*stateRun, error) {
	if n > len(l.keys)/32 {
		return nil, fmt.Errorf("%d accesses asked of a pool of %d keys", n, len(l.keys)/32)
	}
	st, err := state.New(l.s.root, l.s.sdb)
	if err != nil {
		return nil, err
	}
	st.SetCode(l.target, l.program, tracing.CodeChangeUnspecified)
	st.SetBalance(l.target, stateBalance, tracing.BalanceChangeUnspecified)
	nonce := st.GetNonce(l.target)
	cfg := l.cfg
	cfg.State = st
	data := make([]byte, 32, 32+len(l.keys))
	new(big.Int).SetUint64(uint64(n)).FillBytes(data)
	data = append(data, l.keys...)
	out, _, err := runtime.Call(l.target, data, &cfg)
	return &stateRun{n: n, out: out, st: st, nonce: nonce}, err
}

// check compares a run with what dyno says it must give: its output, an
// SSTORE's slots before and after, a CREATE's number of contracts.
func (l *stateLoop) check(r *stateRun) error {
	if r.n < 1 || 32*r.n > len(l.sums) {
		return fmt.Errorf("%d accesses: no expected sum (the case holds %d)", r.n, len(l.sums)/32)
	}
	if want := l.sums[32*(r.n-1) : 32*r.n]; !bytes.Equal(r.out, want) {
		return fmt.Errorf("%d accesses returned 0x%x, expected 0x%x", r.n, r.out, want)
	}
	return l.checkPost(r)
}

// checkPost checks a run's post-state: an SSTORE's slots before and after,
// a CREATE's number of contracts.
func (l *stateLoop) checkPost(r *stateRun) error {
	if l.written != nil {
		for k := 0; k < r.n; k++ {
			slot := common.BytesToHash(l.keys[32*k : 32*k+32])
			before := common.BytesToHash(l.originals[32*k : 32*k+32])
			after := common.BytesToHash(l.written[32*k : 32*k+32])
			gotBefore, gotAfter := r.st.GetCommittedState(l.target, slot), r.st.GetState(l.target, slot)
			if gotBefore != before || gotAfter != after {
				return fmt.Errorf("slot %x: %x before and %x after, expected %x and %x", slot, gotBefore, gotAfter, before, after)
			}
		}
	}
	if l.creates {
		// Every CREATE and CREATE2 raises the creator's nonce; the output
		// (the sum of the new contracts' code sizes) says each has its code.
		if made := r.st.GetNonce(l.target) - r.nonce; made != uint64(r.n) {
			return fmt.Errorf("%d accesses made %d contracts", r.n, made)
		}
	}
	return nil
}

// checkPending checks the last timed run, once, keeping the first error.
func (l *stateLoop) checkPending() {
	r := l.pending
	l.pending = nil
	if r == nil || l.err != nil {
		return
	}
	if err := l.check(r); err != nil {
		l.err = fmt.Errorf("a timed run: %v", err)
	}
}

func (l *stateLoop) Loop(n int) {
	r, err := l.call(n)
	if err != nil && l.err == nil {
		l.err = err
	}
	if r != nil {
		SinkBytes = r.out
	}
	l.pending = r
}

// Err is the first error a timed run met, or the first wrong result (the
// last run is checked here).
func (l *stateLoop) Err() error {
	l.checkPending()
	return l.err
}

// prepareState opens the state the case names (writing it the first
// time), and checks the program's output for 2 accesses and for every key.
func prepareState(id string, cases []Case) (*Prepared, error) {
	if len(cases) != 1 {
		return nil, fmt.Errorf("%s: one case expected, got %d", id, len(cases))
	}
	dir, err := inputString(cases, 0, "dir")
	if err != nil {
		return nil, err
	}
	n, err := inputUint(cases, 0, "accounts")
	if err != nil {
		return nil, err
	}
	evicted, err := inputBool(cases, 0, "evicted")
	if err != nil {
		return nil, err
	}
	rootBytes, err := inputHex(cases, 0, "root")
	if err != nil {
		return nil, err
	}
	program, err := inputHex(cases, 0, "code")
	if err != nil {
		return nil, err
	}
	keys, err := inputHex(cases, 0, "keys")
	if err != nil {
		return nil, err
	}
	if len(keys)%32 != 0 || len(keys) == 0 {
		return nil, fmt.Errorf("keys: %d bytes, not a whole number of 32-byte keys", len(keys))
	}
	s, err := stateOpen(dir, n, common.BytesToHash(rootBytes))
	if err != nil {
		return nil, err
	}
	sums, err := inputHex(cases, 0, "sums")
	if err != nil {
		return nil, err
	}
	if len(sums) != len(keys) {
		return nil, fmt.Errorf("sums: %d bytes for %d keys (one 32-byte sum a key)", len(sums), len(keys)/32)
	}
	creates, err := inputBool(cases, 0, "creates")
	if err != nil {
		return nil, err
	}
	var originals, written []byte
	if _, ok := cases[0].Input["written"]; ok {
		if originals, err = inputHex(cases, 0, "originals"); err != nil {
			return nil, err
		}
		if written, err = inputHex(cases, 0, "written"); err != nil {
			return nil, err
		}
		if len(originals) != len(keys) || len(written) != len(keys) {
			return nil, fmt.Errorf("originals, written: %d and %d bytes for %d keys", len(originals), len(written), len(keys)/32)
		}
	}
	chain := params.MergedTestChainConfig
	target, _, _ := stateAccount(0)
	l := &stateLoop{
		s: s, evicted: evicted, program: program, keys: keys, target: target,
		cfg:  runtime.Config{ChainConfig: chain, Time: 0, BlockNumber: new(big.Int), Origin: common.HexToAddress("0x00000000000000000000000000000000000ca11e")},
		sums: sums, originals: originals, written: written, creates: creates,
	}
	out := Output{}
	for _, c := range []struct {
		field string
		n     int
	}{{"sum_2", min(2, len(keys)/32)}, {"sum_all", len(keys) / 32}} {
		if err := l.Stage(); err != nil {
			return nil, err
		}
		r, err := l.call(c.n)
		if err != nil {
			return nil, fmt.Errorf("%d accesses: %v", c.n, err)
		}
		// The output goes to dyno's comparison; the post-state is checked
		// here (dyno sees only the output).
		if err := l.checkPost(r); err != nil {
			return nil, fmt.Errorf("%d accesses: %v", c.n, err)
		}
		out = append(out, Field{Name: c.field, Value: Hex(r.out)})
	}
	return &Prepared{Bench: l, Outputs: []Output{out}}, nil
}
