package bench

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb"
)

// dbVectors is vectors/db.json: the data set as an independent Python
// generator computed it (vectors/gen/generate.py --only db).
type dbVectors struct {
	Samples []struct {
		Index uint64 `json:"index"`
		Key   string `json:"key"`
		Value string `json:"value"`
	} `json:"samples"`
	ValuesDigest string        `json:"values_digest_0_999"`
	MixedWrites  int           `json:"mixed_writes"`
	MixedFlags   []bool        `json:"mixed_write_flags_0_31"`
	Sets         []dbVectorSet `json:"sets"`
}

type dbVectorSet struct {
	Keys         uint64              `json:"keys"`
	Access       []uint64            `json:"access"`
	BatchDigests map[string][]string `json:"batch_digests"`
	Iterate      []struct {
		Start    uint64 `json:"start"`
		Count    int64  `json:"count"`
		Digest   string `json:"digest"`
		FirstKey string `json:"first_key"`
		LastKey  string `json:"last_key"`
	} `json:"iterate"`
	LastKeys []string `json:"last_keys"`
}

func loadDBVectors(t *testing.T) dbVectors {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(vectorsDir(), "db.json"))
	if err != nil {
		t.Fatalf("reading vectors: %v", err)
	}
	var v dbVectors
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Sets) != 2 || v.Sets[0].Keys != 10000 || v.Sets[1].Keys != 1000000 {
		t.Fatalf("db.json: unexpected sets")
	}
	return v
}

// TestDBDataSet: keys, values, access indices and write flags match the
// Python generator.
func TestDBDataSet(t *testing.T) {
	v := loadDBVectors(t)
	for _, s := range v.Samples {
		if got := hx(dbKey(s.Index)); got != s.Key {
			t.Errorf("key(%d) = %s, want %s", s.Index, got, s.Key)
		}
		if got := hx(dbValue(s.Index)); got != s.Value {
			t.Errorf("value(%d) = %s, want %s", s.Index, got, s.Value)
		}
	}
	var all []byte
	for i := range uint64(1000) {
		val := dbValue(i)
		if len(val) < 100 || len(val) > 600 {
			t.Fatalf("value(%d) is %d bytes", i, len(val))
		}
		all = append(all, val...)
	}
	if got := hx(crypto.Keccak256(all)); got != v.ValuesDigest {
		t.Errorf("values digest %s, want %s", got, v.ValuesDigest)
	}
	for _, s := range v.Sets {
		for j, want := range s.Access {
			if got := dbAccess(uint64(j), s.Keys); got != want {
				t.Errorf("N=%d: a(%d) = %d, want %d", s.Keys, j, got, want)
			}
		}
	}
	writes := 0
	for j := range uint64(4096) {
		if dbWrite(j) {
			writes++
		}
		if j < uint64(len(v.MixedFlags)) && dbWrite(j) != v.MixedFlags[j] {
			t.Errorf("write flag %d = %v", j, dbWrite(j))
		}
	}
	if writes != v.MixedWrites {
		t.Errorf("%d writes in 4096 accesses, want %d", writes, v.MixedWrites)
	}
}

// dbTestDir is a fresh directory for a database; every database the test
// opened is closed before the directory is removed.
func dbTestDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "db")
	t.Cleanup(func() {
		if err := dbCloseAll(); err != nil {
			t.Errorf("closing: %v", err)
		}
	})
	return dir
}

func dbIn(dir string, n uint64, idx ...uint64) map[string]any {
	return map[string]any{"dir": dir, "keys": n, "index": idx}
}

// TestDBEngines loads N = 10 000 into each engine and checks every id
// against vectors/db.json through the registry (prepare, check, and the
// timed loop three times round), plus the scan's first and last keys and
// scans that stop at the end of the key space.
func TestDBEngines(t *testing.T) {
	v := loadDBVectors(t)
	s := v.Sets[0]
	n := s.Keys
	for _, e := range dbEngines {
		t.Run(e.name, func(t *testing.T) {
			dir := dbTestDir(t)
			a := func(j int) uint64 { return dbAccess(uint64(j), n) }

			for _, k := range []int{10, 100} {
				var cases []Case
				for j, d := range s.BatchDigests[strconv.Itoa(k)] {
					idx := make([]uint64, k)
					for m := range idx {
						idx[m] = a(j*k + m)
					}
					cases = append(cases, mkCase(dbIn(dir, n, idx...), map[string]any{"digest": d}))
				}
				if len(cases) != 4 {
					t.Fatalf("%d batch digests for K=%d", len(cases), k)
				}
				mustPrepareDB(t, "db/batch-get/"+strconv.Itoa(k), e.name, cases)
				mustPrepareDB(t, "db/batch-put/"+strconv.Itoa(k), e.name, cases)
			}

			var scans []Case
			for j, it := range s.Iterate {
				if it.Start != a(j) {
					t.Fatalf("iterate[%d] starts at %d, a(%d) = %d", j, it.Start, j, a(j))
				}
				scans = append(scans, mkCase(dbIn(dir, n, it.Start), map[string]any{"count": it.Count, "digest": it.Digest}))
			}
			mustPrepareDB(t, "db/iterate/1000", e.name, scans)

			db, err := dbFor(e, dbEngineDir(dir, e.name), n)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range s.Iterate {
				count, _, first, last, err := dbScan(db, dbKey(it.Start), dbScanLen)
				if err != nil || int64(count) != it.Count || hx(first) != it.FirstKey || hx(last) != it.LastKey {
					t.Errorf("scan from %d: %d pairs, %s .. %s, %v", it.Start, count, hx(first), hx(last), err)
				}
			}

			// Scans from the last keys stop at the end: 5, 4, ... pairs.
			index := map[string]uint64{}
			for i := range n {
				index[hx(dbKey(i))] = i
			}
			var tail []Case
			for m, key := range s.LastKeys {
				i, ok := index[key]
				if !ok {
					t.Fatalf("last key %s is not a key of the set", key)
				}
				var want []byte
				for _, k := range s.LastKeys[m:] {
					kb, _ := decodeHex(raw(k))
					want = append(append(want, kb...), dbValue(index[k])...)
				}
				tail = append(tail, mkCase(dbIn(dir, n, i), map[string]any{"count": len(s.LastKeys) - m, "digest": hx(crypto.Keccak256(want))}))
			}
			mustPrepareDB(t, "db/iterate/1000", e.name, tail)

			var singles, mixed []Case
			for j := range 64 {
				exp := map[string]any{"value": hx(dbValue(a(j)))}
				singles = append(singles, mkCase(dbIn(dir, n, a(j)), exp))
				in := dbIn(dir, n, a(j))
				in["write"] = dbWrite(uint64(j))
				mixed = append(mixed, mkCase(in, exp))
			}
			mustPrepareDB(t, "db/get/single", e.name, singles)
			mustPrepareDB(t, "db/put/single", e.name, singles)
			mustPrepareDB(t, "db/mixed/r80w20", e.name, mixed)
		})
	}
}

// mustPrepareDB is mustPrepare for a db id, and checks that the timed
// loop met no error.
func mustPrepareDB(t *testing.T, id, impl string, cases []Case) {
	t.Helper()
	p := mustPrepare(t, id, impl, cases)
	if err := p.Bench.(Failing).Err(); err != nil {
		t.Fatalf("%s %s: loop error %v", id, impl, err)
	}
}

// TestDBSameValues: every engine gives the same values back for the same
// keys, value(i) for key(i), over the 1000 sampled keys a(0..999).
func TestDBSameValues(t *testing.T) {
	const n = 10000
	dbs := map[string]ethdb.KeyValueStore{}
	for _, e := range dbEngines {
		db, err := dbFor(e, dbTestDir(t), n)
		if err != nil {
			t.Fatal(err)
		}
		dbs[e.name] = db
	}
	for j := range uint64(1000) {
		i := dbAccess(j, n)
		want := dbValue(i)
		for _, e := range dbEngines {
			got, err := dbs[e.name].Get(dbKey(i))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s: key(%d) gives %x (err %v), want value(%d)", e.name, i, got, err, i)
			}
		}
	}
}

// TestDBReopen: a directory marked ready is opened, not reloaded; one with
// a wrong or missing marker is reloaded; a foreign directory is not
// deleted.
func TestDBReopen(t *testing.T) {
	const n = 2000
	sentinel := []byte("not a key of the data set")
	for _, e := range dbEngines {
		t.Run(e.name, func(t *testing.T) {
			dir := dbTestDir(t)
			marker := filepath.Join(dir, dbMarkerName)
			db, err := dbFor(e, dir, n)
			if err != nil {
				t.Fatal(err)
			}
			if again, _ := dbFor(e, dir, n); again != db {
				t.Fatal("a second prepare did not reuse the open database")
			}
			if b, err := os.ReadFile(marker); err != nil || string(b) != dbMarker(e.name, n) {
				t.Fatalf("marker %q, %v", b, err)
			}
			if err := db.Put(sentinel, []byte{1}); err != nil {
				t.Fatal(err)
			}
			has := func() bool {
				t.Helper()
				if err := dbCloseAll(); err != nil {
					t.Fatal(err)
				}
				db, err := dbFor(e, dir, n)
				if err != nil {
					t.Fatal(err)
				}
				ok, err := db.Has(sentinel)
				if err != nil {
					t.Fatal(err)
				}
				if v, err := db.Get(dbKey(n - 1)); err != nil || !bytes.Equal(v, dbValue(n-1)) {
					t.Fatalf("key(%d) after reopening: %v", n-1, err)
				}
				return ok
			}
			if !has() {
				t.Fatal("a ready directory was reloaded")
			}
			for name, corrupt := range map[string]func() error{
				"wrong marker":   func() error { return os.WriteFile(marker, []byte(dbMarker(e.name, n+1)), 0o644) },
				"marker newline": func() error { return os.WriteFile(marker, []byte(dbMarker(e.name, n)+"\n"), 0o644) },
				"no marker":      func() error { return os.Remove(marker) },
			} {
				db, err := dbFor(e, dir, n)
				if err != nil {
					t.Fatal(err)
				}
				if err := db.Put(sentinel, []byte{1}); err != nil {
					t.Fatal(err)
				}
				if err := corrupt(); err != nil {
					t.Fatal(err)
				}
				if has() {
					t.Errorf("%s: not reloaded", name)
				}
			}
			// The same directory with another key count is closed and reloaded.
			if _, err := dbFor(e, dir, n/2); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(marker); string(b) != dbMarker(e.name, n/2) {
				t.Errorf("marker %q after reloading %d keys", b, n/2)
			}
		})
	}

	foreign := t.TempDir()
	if err := os.WriteFile(filepath.Join(foreign, "precious"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := dbFor(dbEngines[0], foreign, 10); err == nil {
		t.Error("a foreign directory was taken over")
	}
	if _, err := os.Stat(filepath.Join(foreign, "precious")); err != nil {
		t.Errorf("a foreign directory was deleted: %v", err)
	}
}

// TestDBMismatchAndErrors: a wrong expected value is a mismatch; bad
// inputs are errors at prepare; an error in the timed loop is recorded,
// not a panic.
func TestDBMismatchAndErrors(t *testing.T) {
	const n = 1000
	dir := dbTestDir(t)
	for _, e := range dbEngines {
		edir := filepath.Join(dir, e.name)
		good := mkCase(dbIn(edir, n, 7), map[string]any{"value": hx(dbValue(7))})
		wrong := dbValue(8)
		for _, id := range []string{"db/get/single", "db/put/single"} {
			cases := []Case{good, mkCase(dbIn(edir, n, 8), map[string]any{"value": hx(wrong[:len(wrong)-1])})}
			p, err := Prepare(id, e.name, cases)
			if err != nil {
				t.Fatal(err)
			}
			if m := Check(p, cases); m == nil || m.Case != 1 || m.Field != "value" {
				t.Errorf("%s %s: wrong value gives %+v", id, e.name, m)
			}
		}
		cases := []Case{mkCase(dbIn(edir, n, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10), map[string]any{"digest": hx(crypto.Keccak256(nil))})}
		p, err := Prepare("db/batch-get/10", e.name, cases)
		if err != nil {
			t.Fatal(err)
		}
		if m := Check(p, cases); m == nil || m.Field != "digest" {
			t.Errorf("%s: wrong digest gives %+v", e.name, m)
		}

		mixedNoWrite := mkCase(dbIn(edir, n, 7), nil)
		other := mkCase(dbIn(edir+"x", n, 7), nil)
		bad := map[string][]Case{
			"db/get/single":    {mkCase(dbIn(edir, n, n), nil)},
			"db/batch-get/10":  {mkCase(dbIn(edir, n, 1, 2), nil)},
			"db/iterate/1000":  {mkCase(map[string]any{"dir": edir, "index": []uint64{1}}, nil)},
			"db/put/single":    {good, other},
			"db/mixed/r80w20":  {mixedNoWrite},
			"db/batch-put/100": {mkCase(map[string]any{"dir": "", "keys": n, "index": []uint64{1}}, nil)},
		}
		for id, cs := range bad {
			if _, err := Prepare(id, e.name, cs); err == nil {
				t.Errorf("%s %s: bad input accepted", id, e.name)
			}
		}
	}

	// A closed database: the loop records the error and goes on.
	for _, e := range dbEngines {
		db, err := e.open(filepath.Join(t.TempDir(), e.name))
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		l := &dbLoop{db: db, op: dbGet, cases: []dbCase{{keys: [][]byte{dbKey(0)}}}}
		l.Loop(3)
		if l.Err() == nil {
			t.Errorf("%s: a get from a closed database gave no error", e.name)
		}
	}
}

// TestDBListed: both engines offer every db id under LibGeth.
func TestDBListed(t *testing.T) {
	for _, e := range dbEngines {
		for _, o := range dbOps {
			if !slices.Contains(List(), Entry{ID: o.id, Implementation: e.name, Library: LibGeth}) {
				t.Errorf("%s %s not listed", o.id, e.name)
			}
		}
	}
	if v := ModuleVersion(LibGeth); v != "v1.17.8" {
		t.Logf("go-ethereum's version in this binary: %q", v)
	}
}
