package bench

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/ethdb/leveldb"
	"github.com/ethereum/go-ethereum/ethdb/pebble"
)

// The storage-engine benchmarks (docs/db.md): go-ethereum's own wrappers
// of Pebble and LevelDB, on dyno's data set version 1.

const (
	// dbCacheMB and dbHandles are the cache and file-handle arguments of
	// geth's pebble.New and leveldb.New (docs/db.md, "Durability").
	dbCacheMB = 256
	dbHandles = 512
	// dbLoadBatch is how many pairs one write batch of the load holds.
	dbLoadBatch = 10000
	// dbScanLen is how many pairs db/iterate/1000 reads.
	dbScanLen = 1000
	// dbMarkerName is the file that says a directory is fully loaded.
	dbMarkerName = "DYNO_READY"
)

// The seeds of the data set (docs/db.md).
const (
	dbLenSeed    = 0xDB_0000_0000
	dbValueSeed  = 0xDB_8000_0000
	dbAccessSeed = 0xDB_A000_0000
	dbWriteSeed  = 0xDB_B000_0000
)

// dbKey is key(i) = keccak256(le64(i)).
func dbKey(i uint64) []byte {
	var le [8]byte
	binary.LittleEndian.PutUint64(le[:], i)
	return crypto.Keccak256(le[:])
}

// dbValue is value(i) = seq(0xDB_8000_0000 + i, 100 + u64_le(0xDB_0000_0000 + i) % 501).
func dbValue(i uint64) []byte {
	return seq(dbValueSeed+i, 100+int(u64le(dbLenSeed+i)%501))
}

// dbAccess is a(j) = u64_le(0xDB_A000_0000 + j) % n, the index of access j.
func dbAccess(j, n uint64) uint64 { return u64le(dbAccessSeed+j) % n }

// dbWrite says whether access j of db/mixed/r80w20 is a write.
func dbWrite(j uint64) bool { return u64le(dbWriteSeed+j)%10 >= 8 }

// dbEngine is one storage engine behind go-ethereum's ethdb interface.
type dbEngine struct {
	name string // the implementation name and the marker's engine=
	open func(dir string) (ethdb.KeyValueStore, error)
}

// dbEngines: geth's constructors with geth's own settings (NoSync writes
// with the WAL or journal on, bloom filters, its compaction options); we
// choose only the cache size and the file handles, as a node's --cache and
// handle limit do.
var dbEngines = []dbEngine{
	{"pebble", func(dir string) (ethdb.KeyValueStore, error) {
		return pebble.New(dir, dbCacheMB, dbHandles, "", false)
	}},
	{"leveldb", func(dir string) (ethdb.KeyValueStore, error) {
		return leveldb.New(dir, dbCacheMB, dbHandles, "", false)
	}},
}

type dbOp int

const (
	dbGet dbOp = iota
	dbPut
	dbBatchGet
	dbBatchPut
	dbIterate
	dbMixed
)

// dbOps are the ids of the db suite, each with its operation and how many
// indices one case holds.
var dbOps = []struct {
	id string
	op dbOp
	k  int
}{
	{"db/get/single", dbGet, 1},
	{"db/put/single", dbPut, 1},
	{"db/batch-get/10", dbBatchGet, 10},
	{"db/batch-get/100", dbBatchGet, 100},
	{"db/batch-put/10", dbBatchPut, 10},
	{"db/batch-put/100", dbBatchPut, 100},
	{"db/iterate/1000", dbIterate, 1},
	{"db/mixed/r80w20", dbMixed, 1},
}

// dbMarker is the content of DYNO_READY for engine and n keys; version is
// go-ethereum's module version as hello reports it (the wrappers and the
// engines they pin come with it).
func dbMarker(engine string, n uint64) string {
	return fmt.Sprintf("dyno-db v1 keys=%d engine=%s version=%s", n, engine, gethVersion())
}

// gethVersion is the go-ethereum module version the worker was built with
// ("unknown" in test binaries, which carry no module information).
func gethVersion() string {
	if v := ModuleVersion(LibGeth); v != "" {
		return v
	}
	return "unknown"
}

// dbEngineDir is engine's database folder in the data set's folder dir:
// <implementation>-<library version>, as dyno names its own engines'.
func dbEngineDir(dir, engine string) string {
	return filepath.Join(dir, engine+"-"+gethVersion())
}

// openDB is a database the worker keeps open.
type openDB struct {
	engine string
	keys   uint64
	db     ethdb.KeyValueStore
}

// dbOpen holds every database opened by a prepare, by absolute directory,
// for the life of the worker: successive prepares of the db ids reuse one
// open database (and its warm cache). One directory holds one engine's
// database, so a request for the same directory with another engine or
// key count closes the open one first (it is then reloaded).
var dbOpen = struct {
	sync.Mutex
	m map[string]*openDB
}{m: map[string]*openDB{}}

// dbFor returns the open database of engine e in dir with n keys, opening
// it, or loading it first if dir is not marked ready.
func dbFor(e dbEngine, dir string, n uint64) (ethdb.KeyValueStore, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	dbOpen.Lock()
	defer dbOpen.Unlock()
	if o := dbOpen.m[abs]; o != nil {
		if o.engine == e.name && o.keys == n {
			return o.db, nil
		}
		delete(dbOpen.m, abs)
		if err := o.db.Close(); err != nil {
			return nil, fmt.Errorf("closing the %s database in %s: %v", o.engine, abs, err)
		}
	}
	db, err := dbOpenOrLoad(e, abs, n)
	if err != nil {
		return nil, err
	}
	dbOpen.m[abs] = &openDB{e.name, n, db}
	return db, nil
}

// dbCloseAll closes and forgets every open database (tests).
func dbCloseAll() error {
	dbOpen.Lock()
	defer dbOpen.Unlock()
	var errs []error
	for dir, o := range dbOpen.m {
		errs = append(errs, o.db.Close())
		delete(dbOpen.m, dir)
	}
	return errors.Join(errs...)
}

// dbOpenOrLoad opens the database in dir if its marker says it holds the
// whole data set for this engine and version; otherwise it deletes dir and
// loads it (docs/db.md, "Loading").
func dbOpenOrLoad(e dbEngine, dir string, n uint64) (ethdb.KeyValueStore, error) {
	marker := dbMarker(e.name, n)
	if b, err := os.ReadFile(filepath.Join(dir, dbMarkerName)); err == nil && string(b) == marker {
		db, err := e.open(dir)
		if err != nil {
			return nil, fmt.Errorf("opening the %s database in %s: %v", e.name, dir, err)
		}
		return db, nil
	}
	if err := dbLoad(e, dir, n); err != nil {
		return nil, fmt.Errorf("loading %d keys into %s (%s): %v", n, dir, e.name, err)
	}
	if err := writeFileDurably(filepath.Join(dir, dbMarkerName), []byte(marker)); err != nil {
		return nil, err
	}
	db, err := e.open(dir)
	if err != nil {
		return nil, fmt.Errorf("reopening the %s database in %s: %v", e.name, dir, err)
	}
	return db, nil
}

// dbLoad replaces dir with a fresh database holding pairs 0..n-1, written
// in index order, 10 000 per batch, then compacted over the whole key
// range and made durable; it leaves the database closed.
//
// Durability: SyncKeyValue syncs Pebble's WAL, but geth's LevelDB wrapper
// implements it as a no-op. Both engines sync the tables a compaction
// writes, and the full compaction moves every pair out of the memtable and
// log into tables; after closing the database every file in dir and dir
// itself are fsynced as well, so the data set is on disk, for either
// engine, before the marker is written.
func dbLoad(e dbEngine, dir string, n uint64) error {
	if err := removeDBDir(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	db, err := e.open(dir)
	if err != nil {
		return err
	}
	defer func() {
		if db != nil {
			db.Close()
		}
	}()
	for start := uint64(0); start < n; start += dbLoadBatch {
		b := db.NewBatch()
		for i := start; i < n && i < start+dbLoadBatch; i++ {
			if err := b.Put(dbKey(i), dbValue(i)); err != nil {
				b.Close()
				return err
			}
		}
		err := b.Write()
		b.Close()
		if err != nil {
			return err
		}
	}
	if err := db.Compact(nil, nil); err != nil {
		return fmt.Errorf("compacting: %v", err)
	}
	if err := db.SyncKeyValue(); err != nil {
		return fmt.Errorf("syncing: %v", err)
	}
	err, db = db.Close(), nil
	if err != nil {
		return fmt.Errorf("closing: %v", err)
	}
	return syncTree(dir)
}

// removeDBDir deletes dir, which is about to be (re)loaded. As dir comes
// from a request, a directory that exists, is not empty and has neither a
// marker nor an engine's LOCK file (both engines create one) is refused
// rather than deleted.
func removeDBDir(dir string) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(ents) > 0 {
		owned := false
		for _, e := range ents {
			if e.Name() == dbMarkerName || e.Name() == "LOCK" {
				owned = true
			}
		}
		if !owned {
			return fmt.Errorf("refusing to delete %s: not empty and not a database directory (no %s, no LOCK)", dir, dbMarkerName)
		}
	}
	return os.RemoveAll(dir)
}

// syncTree fsyncs every regular file directly in dir, then dir.
func syncTree(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.Type().IsRegular() {
			if err := syncPath(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return syncPath(dir)
}

func syncPath(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("fsync %s: %v", p, err)
	}
	return nil
}

// writeFileDurably writes data to a temporary file next to path, fsyncs
// it, renames it to path and fsyncs the directory.
func writeFileDurably(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	if err := syncPath(tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return syncPath(filepath.Dir(path))
}

// dbCase is one case: its keys (1, or K for batches) and, for the writes,
// the values they are written with, generated at prepare.
type dbCase struct {
	keys  [][]byte
	vals  [][]byte
	write bool // db/mixed/r80w20
}

// dbLoop is the timed loop of every db id: one iteration is one case's
// operation. Reads store the bytes read in SinkBytes. An error from the
// database does not stop the loop (Loop has no way to return it): the
// first one is kept and reported by Err, which the worker checks after
// every run (see Failing).
type dbLoop struct {
	db    ethdb.KeyValueStore
	op    dbOp
	cases []dbCase
	pos   int
	err   error
}

func (l *dbLoop) Err() error { return l.err }

func (l *dbLoop) Loop(n int) {
	db, op, cases, pos := l.db, l.op, l.cases, l.pos
	for i := 0; i < n; i++ {
		c := &cases[pos]
		var err error
		switch op {
		case dbGet:
			SinkBytes, err = db.Get(c.keys[0])
		case dbPut:
			err = db.Put(c.keys[0], c.vals[0])
		case dbBatchGet:
			// geth's ethdb has no multi-get: K gets.
			for _, k := range c.keys {
				if SinkBytes, err = db.Get(k); err != nil {
					break
				}
			}
		case dbBatchPut:
			b := db.NewBatch()
			for j, k := range c.keys {
				if err = b.Put(k, c.vals[j]); err != nil {
					break
				}
			}
			if err == nil {
				err = b.Write()
			}
			b.Close()
		case dbIterate:
			it := db.NewIterator(nil, c.keys[0])
			var total int
			for m := 0; m < dbScanLen && it.Next(); m++ {
				k, v := it.Key(), it.Value()
				total += len(k) + len(v)
				SinkBytes = v
			}
			SinkU64 = uint64(total)
			err = it.Error()
			it.Release()
		case dbMixed:
			if c.write {
				err = db.Put(c.keys[0], c.vals[0])
			} else {
				SinkBytes, err = db.Get(c.keys[0])
			}
		}
		if err != nil && l.err == nil {
			l.err = fmt.Errorf("case %d: %v", pos, err)
			SinkErr = err
		}
		pos++
		if pos == len(cases) {
			pos = 0
		}
	}
	l.pos = pos
}

// dbOutput reads case c's output from the database, after the operation
// ran: the value(s) under its keys (read back after a write), or the scan
// from its start key.
func dbOutput(db ethdb.KeyValueStore, op dbOp, c *dbCase) (Output, error) {
	switch op {
	case dbGet, dbPut, dbMixed:
		v, err := db.Get(c.keys[0])
		if err != nil {
			return nil, fmt.Errorf("get: %v", err)
		}
		return Output{{Name: "value", Value: Hex(v)}}, nil
	case dbBatchGet, dbBatchPut:
		var all []byte
		for j, k := range c.keys {
			v, err := db.Get(k)
			if err != nil {
				return nil, fmt.Errorf("get of key %d: %v", j, err)
			}
			all = append(all, v...)
		}
		return Output{{Name: "digest", Value: Hex(crypto.Keccak256(all))}}, nil
	case dbIterate:
		count, digest, _, _, err := dbScan(db, c.keys[0], dbScanLen)
		if err != nil {
			return nil, err
		}
		return Output{{Name: "count", Value: int64(count)}, {Name: "digest", Value: Hex(digest)}}, nil
	}
	return nil, fmt.Errorf("unknown db operation %d", op)
}

// dbScan reads up to limit pairs from the first key >= start and returns
// their number, keccak256 of key || value of each, and the first and last
// keys.
func dbScan(db ethdb.KeyValueStore, start []byte, limit int) (count int, digest, first, last []byte, err error) {
	it := db.NewIterator(nil, start)
	defer it.Release()
	h := crypto.NewKeccakState()
	for count < limit && it.Next() {
		k := it.Key()
		if count == 0 {
			first = bytes.Clone(k)
		}
		last = bytes.Clone(k)
		h.Write(k)
		h.Write(it.Value())
		count++
	}
	if err := it.Error(); err != nil {
		return 0, nil, nil, nil, fmt.Errorf("iterator: %v", err)
	}
	return count, h.Sum(nil), first, last, nil
}

// inputBool reads the boolean field name of case i's input.
func inputBool(cases []Case, i int, name string) (bool, error) {
	raw, ok := cases[i].Input[name]
	if !ok {
		return false, fmt.Errorf("case %d: input has no field %q", i, name)
	}
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil {
		return false, fmt.Errorf("case %d: input %s: not a boolean: %s", i, name, truncate(string(raw)))
	}
	return b, nil
}

// prepareDB parses the cases of one db id (every case names the same dir
// and keys), derives their keys and the values they write, opens or loads
// the database, runs each case once through the timed loop and reads its
// output back from the database.
func prepareDB(e dbEngine, op dbOp, k int) preparer {
	return func(id string, cases []Case) (*Prepared, error) {
		var dir string
		var n uint64
		cs := make([]dbCase, len(cases))
		for i := range cases {
			d, err := inputString(cases, i, "dir")
			if err != nil {
				return nil, err
			}
			keys, err := inputUint(cases, i, "keys")
			if err != nil {
				return nil, err
			}
			if i == 0 {
				dir, n = d, keys
				if dir == "" {
					return nil, fmt.Errorf("case 0: empty dir")
				}
				if n == 0 {
					return nil, fmt.Errorf("case 0: keys is 0")
				}
			} else if d != dir || keys != n {
				return nil, fmt.Errorf("case %d: dir %q and keys %d differ from case 0's (%q, %d)", i, d, keys, dir, n)
			}
			idx, err := inputArray[uint64](cases, i, "index")
			if err != nil {
				return nil, err
			}
			if len(idx) != k {
				return nil, fmt.Errorf("case %d: %d indices, %s takes %d", i, len(idx), id, k)
			}
			c := dbCase{keys: make([][]byte, k)}
			if op == dbMixed {
				if c.write, err = inputBool(cases, i, "write"); err != nil {
					return nil, err
				}
			}
			writes := op == dbPut || op == dbBatchPut || c.write
			if writes {
				c.vals = make([][]byte, k)
			}
			for j, x := range idx {
				if x >= n {
					return nil, fmt.Errorf("case %d: index[%d] = %d, not below keys = %d", i, j, x, n)
				}
				c.keys[j] = dbKey(x)
				if writes {
					c.vals[j] = dbValue(x)
				}
			}
			cs[i] = c
		}
		// dir is the data set's folder, shared by every engine (docs/db.md).
		db, err := dbFor(e, dbEngineDir(dir, e.name), n)
		if err != nil {
			return nil, err
		}
		l := &dbLoop{db: db, op: op, cases: cs}
		outs, err := runEach(l, len(cs), func(i int) (Output, error) {
			if l.err != nil {
				return nil, l.err
			}
			return dbOutput(db, op, &cs[i])
		})
		if err != nil {
			return nil, err
		}
		return &Prepared{Bench: l, Outputs: outs}, nil
	}
}
