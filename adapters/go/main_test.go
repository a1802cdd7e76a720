package main

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"dyno/adapters/go-protocol/workertest"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/golang/snappy"
)

// buildWorker is the worker to start: $DYNO_GO_WORKER (e.g. HOME/run
// from setup) if set, else a binary built from this folder.
func buildWorker(t *testing.T) string {
	t.Helper()
	return workertest.Build(t, "DYNO_GO_WORKER", "dyno-adapter-go")
}

func seq(seed uint64, n int) []byte {
	out := make([]byte, 0, n+8)
	for state := seed; len(out) < n; {
		state += 0x9E3779B97F4A7C15
		z := state
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		out = binary.LittleEndian.AppendUint64(out, z^(z>>31))
	}
	return out[:n]
}

// keccakPrepare is a hash/keccak256/32B prepare request built from
// vectors/hash.json; corrupt changes case 1's expected digest.
func keccakPrepare(t *testing.T, corrupt bool) (req string, n int) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "vectors", "hash.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []struct {
			Algorithm, Digest string
			Len               int
			Seed              uint64
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, c := range doc.Cases {
		if c.Algorithm != "keccak256" || c.Len != 32 {
			continue
		}
		d := c.Digest
		if corrupt && len(cases) == 1 {
			d = d[:len(d)-1] + map[bool]string{true: "1", false: "0"}[strings.HasSuffix(d, "0")]
		}
		cases = append(cases, `{"input":{"data":"0x`+hex.EncodeToString(seq(c.Seed, c.Len))+`"},"expected":{"digest":"`+d+`"}}`)
	}
	return `{"type":"prepare","id":"hash/keccak256/32B","implementation":"geth","cases":[` + strings.Join(cases, ",") + `]}`, len(cases)
}

func TestEndToEnd(t *testing.T) {
	bin := buildWorker(t)
	w := workertest.Start(t, bin)

	h := w.Call(`{"type":"hello","protocol":1}`)
	if h["type"] != "hello" || h["protocol"] != float64(1) || h["jit"] != false {
		t.Fatalf("hello: %v", h)
	}
	rt := h["runtime"].(map[string]any)
	if rt["name"] != "go" || !strings.HasPrefix(rt["version"].(string), "go1.") {
		t.Fatalf("runtime: %v", rt)
	}
	if libs := h["libraries"].(map[string]any); libs["github.com/ethereum/go-ethereum"] != "v1.17.8" {
		t.Fatalf("libraries: %v", libs)
	}
	listed := map[string]string{}
	for _, b := range h["benchmarks"].([]any) {
		e := b.(map[string]any)
		listed[e["id"].(string)] = e["implementation"].(string)
	}
	if listed["harness/noop/empty"] != "go-noop" || listed["hash/keccak256/32B"] != "geth" {
		t.Fatalf("benchmarks: %v", listed)
	}

	if r := w.Call(`{"type":"run","iterations":10,"samples":1}`); r["type"] != "error" {
		t.Fatalf("run before prepare: %v", r)
	}

	req, n := keccakPrepare(t, false)
	r := w.Call(req)
	if r["type"] != "prepared" || r["cases"] != float64(n) || len(r["outputs"].([]any)) != n {
		t.Fatalf("prepare: %v", r)
	}

	r = w.Call(`{"type":"run","iterations":1000,"samples":5,"unknown_field":true}`)
	if r["type"] != "samples" {
		t.Fatalf("run: %v", r)
	}
	ns := r["ns"].([]any)
	if len(ns) != 5 {
		t.Fatalf("%d samples, want 5", len(ns))
	}
	for _, v := range ns {
		if v.(float64) <= 0 {
			t.Fatalf("non-positive sample in %v", ns)
		}
	}
	if alloc := r["alloc"].(map[string]any); alloc["count"].(float64) < 1000 {
		t.Fatalf("alloc %v: Keccak256 allocates its digest", alloc)
	}
	if r := w.Call(`{"type":"run","iterations":0,"samples":1}`); r["type"] != "error" {
		t.Fatalf("run with 0 iterations: %v", r)
	}

	req, _ = keccakPrepare(t, true)
	r = w.Call(req)
	if r["type"] != "mismatch" || r["case"] != float64(1) || r["field"] != "digest" {
		t.Fatalf("corrupted prepare: %v", r)
	}
	if r := w.Call(`{"type":"run","iterations":10,"samples":1}`); r["type"] != "error" {
		t.Fatalf("run after a mismatch: %v", r)
	}

	r = w.Call(`{"type":"prepare","id":"crypto/foo/bar","implementation":"geth","cases":[{"input":{},"expected":{}}]}`)
	if r["type"] != "error" || r["fatal"] != false || !strings.Contains(r["message"].(string), "crypto/foo/bar") {
		t.Fatalf("unknown id: %v", r)
	}
	r = w.Call(`{"type":"prepare","id":"harness/noop/empty","implementation":"go-noop","cases":[{"input":{"value":"0xabcd"},"expected":{"value":"0xabcd"}}]}`)
	if r["type"] != "prepared" {
		t.Fatalf("noop: %v", r)
	}
	if r := w.Call(`{"type":"run","iterations":1,"samples":3}`); len(r["ns"].([]any)) != 3 {
		t.Fatalf("noop run: %v", r)
	}

	// Generic RLP: the EIP-155 example transaction, one list of 9 strings.
	for _, in := range []string{"tiny-account", "medium-body", "vlarge-body"} {
		for _, op := range []string{"decode-generic", "encode-generic"} {
			if id := "rlp/" + op + "/" + in; listed[id] != "geth-rlp" {
				t.Fatalf("%s listed as %q", id, listed[id])
			}
		}
	}
	const tx = "0xf86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83"
	r = w.Call(`{"type":"prepare","id":"rlp/decode-generic/small-legacy-tx","implementation":"geth-rlp","cases":[{"input":{"encoded":"` + tx + `"},"expected":{"lists":1,"strings":9,"bytes":101}}]}`)
	if r["type"] != "prepared" {
		t.Fatalf("rlp decode: %v", r)
	}
	if r := w.Call(`{"type":"run","iterations":100,"samples":2}`); len(r["ns"].([]any)) != 2 {
		t.Fatalf("rlp decode run: %v", r)
	}
	r = w.Call(`{"type":"prepare","id":"rlp/encode-generic/tiny-account","implementation":"geth-rlp","cases":[{"input":{"tree":["0x01",["0x","0x80"]]},"expected":{"encoded":"0xc501c3808181"}}]}`)
	if r["type"] != "mismatch" || r["field"] != "encoded" || r["actual"] != "0xc501c3808180" {
		t.Fatalf("rlp encode, corrupted: %v", r)
	}

	// devp2p: a Status routed by its wire code, and handshakes against the
	// worker's own loopback responder (responder key 1: node id = G).
	for _, id := range []string{"net/encode/status", "net/decode/block-bodies-10", "net/route/mixed", "net/handshake/local"} {
		if listed[id] != "geth" {
			t.Fatalf("%s listed as %q", id, listed[id])
		}
	}
	status, err := rlp.EncodeToBytes([]any{uint64(69), uint64(1), make([]byte, 32), []any{[]byte{1, 2, 3, 4}, uint64(0)}, uint64(0), uint64(1234), make([]byte, 32)})
	if err != nil {
		t.Fatal(err)
	}
	wire := "0x" + hex.EncodeToString(snappy.Encode(nil, status))
	r = w.Call(`{"type":"prepare","id":"net/route/mixed","implementation":"geth","cases":[{"input":{"code":16,"wire":"` + wire + `"},"expected":{"message":"0x` + hex.EncodeToString(status) + `"}}]}`)
	if r["type"] != "prepared" {
		t.Fatalf("net route: %v", r)
	}
	if r := w.Call(`{"type":"run","iterations":100,"samples":2}`); r["type"] != "samples" {
		t.Fatalf("net route run: %v", r)
	}
	r = w.Call(`{"type":"prepare","id":"net/route/mixed","implementation":"geth","cases":[{"input":{"code":17,"wire":"` + wire + `"},"expected":{"message":"0x"}}]}`)
	if r["type"] != "error" || !strings.Contains(r["message"].(string), "no decoder") {
		t.Fatalf("net route, unknown code: %v", r)
	}
	const g = "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"
	one, two := strings.Repeat("00", 31)+"01", strings.Repeat("00", 31)+"02"
	r = w.Call(`{"type":"prepare","id":"net/handshake/local","implementation":"geth","cases":[{"input":{"initiator_key":"0x` + two + `","responder_key":"0x` + one + `"},"expected":{"node_id":"0x` + g + `"}}]}`)
	if r["type"] != "prepared" {
		t.Fatalf("net handshake: %v", r)
	}
	if r := w.Call(`{"type":"run","iterations":3,"samples":2}`); r["type"] != "samples" {
		t.Fatalf("net handshake run: %v", r)
	}
	r = w.Call(`{"type":"prepare","id":"net/handshake/local","implementation":"geth","cases":[{"input":{"initiator_key":"0x` + one + `","responder_key":"0x` + two + `"},"expected":{"node_id":"0x` + g + `"}}]}`)
	if r["type"] != "mismatch" || r["field"] != "node_id" {
		t.Fatalf("net handshake, wrong node id: %v", r)
	}

	if code := w.Exit(); code != 0 {
		t.Fatalf("exit code %d at EOF, want 0", code)
	}

	// An unparseable request gets a fatal error and the worker exits.
	w = workertest.Start(t, bin)
	if r := w.Call(`{not json`); r["type"] != "error" || r["fatal"] != true {
		t.Fatalf("unparseable request: %v", r)
	}
	if code := w.Exit(); code == 0 {
		t.Fatal("exit code 0 after a fatal error")
	}
}

// dbValue is value(i) of docs/db.md's data set.
func dbValue(i uint64) string {
	n := 100 + binary.LittleEndian.Uint64(seq(0xDB_0000_0000+i, 8))%501
	return "0x" + hex.EncodeToString(seq(0xDB_8000_0000+i, int(n)))
}

// TestEndToEndDB: both engines load a small data set through the worker,
// write the marker with hello's go-ethereum version, answer gets and run;
// a wrong value is a mismatch.
func TestEndToEndDB(t *testing.T) {
	w := workertest.Start(t, buildWorker(t))
	h := w.Call(`{"type":"hello","protocol":1}`)
	version := h["libraries"].(map[string]any)["github.com/ethereum/go-ethereum"].(string)
	listed := map[string]bool{}
	for _, b := range h["benchmarks"].([]any) {
		e := b.(map[string]any)
		listed[e["id"].(string)+" "+e["implementation"].(string)] = true
	}
	root := t.TempDir()
	for _, engine := range []string{"pebble", "leveldb"} {
		for _, id := range []string{"db/get/single", "db/put/single", "db/batch-get/10", "db/batch-get/100",
			"db/batch-put/10", "db/batch-put/100", "db/iterate/1000", "db/mixed/r80w20"} {
			if !listed[id+" "+engine] {
				t.Errorf("%s %s not listed", id, engine)
			}
		}
		// The data set's folder is shared; each engine keeps its own inside.
		dir := filepath.Join(root, engine+"-"+version)
		dirJSON, _ := json.Marshal(root)
		get := func(i uint64, value string) string {
			return `{"input":{"dir":` + string(dirJSON) + `,"keys":1000,"index":[` + strconv.FormatUint(i, 10) + `]},"expected":{"value":"` + value + `"}}`
		}
		req := `{"type":"prepare","id":"db/get/single","implementation":"` + engine + `","cases":[` + get(7, dbValue(7)) + "," + get(999, dbValue(999)) + `]}`
		if r := w.Call(req); r["type"] != "prepared" || r["cases"] != float64(2) {
			t.Fatalf("%s: prepare: %v", engine, r)
		}
		if r := w.Call(`{"type":"run","iterations":100,"samples":2}`); r["type"] != "samples" {
			t.Fatalf("%s: run: %v", engine, r)
		}
		marker, err := os.ReadFile(filepath.Join(dir, "DYNO_READY"))
		if want := "dyno-db v1 keys=1000 engine=" + engine + " version=" + version; err != nil || string(marker) != want {
			t.Fatalf("%s: marker %q (%v), want %q", engine, marker, err, want)
		}
		req = `{"type":"prepare","id":"db/put/single","implementation":"` + engine + `","cases":[` + get(7, dbValue(7)) + "," + get(8, dbValue(7)) + `]}`
		if r := w.Call(req); r["type"] != "mismatch" || r["case"] != float64(1) || r["field"] != "value" || r["actual"] != dbValue(8) {
			t.Fatalf("%s: wrong value: %v", engine, r)
		}
	}
	if code := w.Exit(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// TestFixtureReplay replays adapters/testdata/prepare.jsonl (or
// $DYNO_PREPARE_FIXTURE) through this worker's protocol loop in this
// process: every offered id is prepared and checked (random-nonce
// signatures verified), a corrupted copy is a mismatch, and the rest are
// refused (workertest.Replay).
func TestFixtureReplay(t *testing.T) {
	workertest.Replay(t, config, filepath.Join("..", "testdata", "prepare.jsonl"))
}
