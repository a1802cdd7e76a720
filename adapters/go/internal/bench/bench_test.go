package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func mkCase(input, expected map[string]any) Case {
	c := Case{Input: map[string]json.RawMessage{}, Expected: map[string]json.RawMessage{}}
	for k, v := range input {
		c.Input[k] = raw(v)
	}
	for k, v := range expected {
		c.Expected[k] = raw(v)
	}
	return c
}

// mustPrepare prepares and checks; it fails the test on error or mismatch.
func mustPrepare(t *testing.T, id, impl string, cases []Case) *Prepared {
	t.Helper()
	p, err := Prepare(id, impl, cases)
	if err != nil {
		t.Fatalf("%s %s: %v", id, impl, err)
	}
	if m := Check(p, cases); m != nil {
		t.Fatalf("%s %s: mismatch case %d field %s: expected %s, actual %v", id, impl, m.Case, m.Field, m.Expected, m.Actual)
	}
	if len(p.Outputs) != len(cases) {
		t.Fatalf("%d outputs for %d cases", len(p.Outputs), len(cases))
	}
	p.Bench.Loop(3 * len(cases)) // runs and comes back to case 0
	return p
}

// implFor finds the implementation hello lists for id.
func implFor(t *testing.T, id string) string {
	t.Helper()
	for _, e := range List() {
		if e.ID == id {
			return e.Implementation
		}
	}
	t.Fatalf("%s not listed", id)
	return ""
}

func TestHashVectors(t *testing.T) {
	for _, h := range hashAlgs {
		for _, size := range []int{1, 32, 1024, 100 * 1024} {
			id := fmt.Sprintf("hash/%s/%s", h.alg, map[int]string{1: "1B", 32: "32B", 1024: "1KiB", 102400: "100KiB"}[size])
			t.Run(id, func(t *testing.T) {
				data, digests := hashInputs(t, h.alg, size)
				var cases []Case
				for i := range data {
					cases = append(cases, mkCase(map[string]any{"data": hx(data[i])}, map[string]any{"digest": digests[i]}))
				}
				mustPrepare(t, id, implFor(t, id), cases)
				// A corrupted digest is a mismatch at that case.
				cases[2].Expected["digest"] = raw(strings.Replace(digests[2], "0x", "0x0", 1)[:len(digests[2])])
				p, err := Prepare(id, implFor(t, id), cases)
				if err != nil {
					t.Fatal(err)
				}
				if m := Check(p, cases); m == nil || m.Case != 2 || m.Field != "digest" {
					t.Fatalf("corrupted digest: got %+v", m)
				}
			})
		}
	}
}

type secpVector struct {
	MessageHash string `json:"message_hash"`
	PrivateKey  string `json:"private_key"`
	PublicKey   string `json:"public_key"`
	R           string `json:"r"`
	S           string `json:"s"`
	V           int    `json:"v"`
}

func TestSecp256k1Vectors(t *testing.T) {
	var vs []secpVector
	loadVectors(t, "secp256k1", &vs)
	var sign, verify, recover, keygen []Case
	for _, v := range vs {
		sign = append(sign, mkCase(map[string]any{"private_key": v.PrivateKey, "message_hash": v.MessageHash},
			map[string]any{"r": v.R, "s": v.S, "v": v.V}))
		verify = append(verify, mkCase(map[string]any{"public_key": v.PublicKey, "message_hash": v.MessageHash, "r": v.R, "s": v.S},
			map[string]any{"valid": true}))
		recover = append(recover, mkCase(map[string]any{"message_hash": v.MessageHash, "r": v.R, "s": v.S, "v": v.V},
			map[string]any{"public_key": v.PublicKey}))
		keygen = append(keygen, mkCase(map[string]any{"private_key": v.PrivateKey},
			map[string]any{"public_key": v.PublicKey}))
	}
	mustPrepare(t, "crypto/secp256k1-sign/recid-direct", ImplGeth, sign)
	mustPrepare(t, "crypto/secp256k1-verify/valid", ImplGeth, verify)
	mustPrepare(t, "crypto/secp256k1-recover/valid", ImplGeth, recover)
	mustPrepare(t, "crypto/secp256k1-keygen/pubkey", ImplGeth, keygen)

	// A wrong v is a mismatch on v; a signature over another hash is invalid.
	sign[1].Expected["v"] = raw(1 - vs[1].V)
	p, err := Prepare("crypto/secp256k1-sign/recid-direct", ImplGeth, sign)
	if err != nil {
		t.Fatal(err)
	}
	if m := Check(p, sign); m == nil || m.Case != 1 || m.Field != "v" {
		t.Fatalf("wrong v: got %+v", m)
	}
	verify[0].Input["message_hash"] = raw(vs[1].MessageHash)
	p, err = Prepare("crypto/secp256k1-verify/valid", ImplGeth, verify)
	if err != nil {
		t.Fatal(err)
	}
	if m := Check(p, verify); m == nil || m.Case != 0 || m.Field != "valid" {
		t.Fatalf("verify over the wrong hash: got %+v", m)
	}
}

type nistVector struct {
	Message    string `json:"message"`
	PrivateKey string `json:"private_key"`
	PublicKey  string `json:"public_key"`
	Random     struct {
		R string `json:"r"`
		S string `json:"s"`
	} `json:"random"`
	RFC6979 struct {
		R string `json:"r"`
		S string `json:"s"`
	} `json:"rfc6979"`
}

func TestNISTVectors(t *testing.T) {
	for _, curve := range []string{"p256", "p384"} {
		t.Run(curve, func(t *testing.T) {
			var vs []nistVector
			loadVectors(t, curve, &vs)
			var sign, verify, verifyRandom []Case
			for _, v := range vs {
				sign = append(sign, mkCase(map[string]any{"private_key": v.PrivateKey, "public_key": v.PublicKey, "message": v.Message},
					map[string]any{"r": v.RFC6979.R, "s": v.RFC6979.S}))
				verify = append(verify, mkCase(map[string]any{"public_key": v.PublicKey, "message": v.Message, "r": v.RFC6979.R, "s": v.RFC6979.S},
					map[string]any{"valid": true}))
				verifyRandom = append(verifyRandom, mkCase(map[string]any{"public_key": v.PublicKey, "message": v.Message, "r": v.Random.R, "s": v.Random.S},
					map[string]any{"valid": true}))
			}
			signID, verifyID := "crypto/"+curve+"-sign/32B", "crypto/"+curve+"-verify/32B"
			p := mustPrepare(t, signID, ImplGoStd, sign)
			if !p.SelfChecked["r"] || !p.SelfChecked["s"] {
				t.Fatal("random-nonce signatures must be self-checked")
			}
			mustPrepare(t, verifyID, ImplGoStd, verify)
			mustPrepare(t, verifyID, ImplGoStd, verifyRandom)

			// Signing under another case's public key fails the self check.
			sign[0].Input["public_key"] = raw(vs[1].PublicKey)
			p, err := Prepare(signID, ImplGoStd, sign)
			if err != nil {
				t.Fatal(err)
			}
			if m := Check(p, sign); m == nil || m.Case != 0 {
				t.Fatalf("signature under the wrong key: got %+v", m)
			}
		})
	}
}

func TestNoopAndUnknown(t *testing.T) {
	cases := []Case{
		mkCase(map[string]any{"value": "0x"}, map[string]any{"value": "0x"}),
		mkCase(map[string]any{"value": "0x0102"}, map[string]any{"value": "0x0102"}),
	}
	mustPrepare(t, "harness/noop/empty", ImplNoop, cases)
	for _, c := range []struct{ id, impl string }{
		{"crypto/foo/bar", ImplGeth},
		{"hash/keccak256/32B", ImplGoStd},
		{"hash/keccak256/7B", ImplGeth},
		{"precompile/nope/x", ImplPrecomp},
		{"precompile/sha256", ImplPrecomp},
		{"jsonrpc/getlogs-raw/100", ImplGeth},
	} {
		if _, err := Prepare(c.id, c.impl, cases); err == nil {
			t.Errorf("%s %s: prepared, want an error", c.id, c.impl)
		}
	}
	bad := []Case{mkCase(map[string]any{"value": "0102"}, map[string]any{"value": "0x0102"})}
	if _, err := Prepare("harness/noop/empty", ImplNoop, bad); err == nil {
		t.Error("hex without 0x accepted")
	}
}

// gethVectorFiles maps dyno's precompile ops to go-ethereum's vector files
// (as crates/evm/src/precompile.rs does).
var gethVectorFiles = map[string]string{
	"ecrecover":            "ecRecover.json",
	"modexp":               "modexp_eip7883.json",
	"bn254-add":            "bn256Add.json",
	"bn254-mul":            "bn256ScalarMul.json",
	"bn254-pairing":        "bn256Pairing.json",
	"blake2f":              "blake2F.json",
	"kzg-point-evaluation": "pointEvaluation.json",
	"bls12-g1add":          "blsG1Add.json",
	"bls12-g1msm":          "blsG1MultiExp.json",
	"bls12-g2add":          "blsG2Add.json",
	"bls12-g2msm":          "blsG2MultiExp.json",
	"bls12-pairing":        "blsPairing.json",
	"bls12-map-fp-to-g1":   "blsMapG1.json",
	"bls12-map-fp2-to-g2":  "blsMapG2.json",
	"p256verify":           "p256Verify.json",
}

type gethVector struct {
	Input, Expected, Name string
	Gas                   uint64
}

// gethDir is go-ethereum's folder in the module cache.
func gethDir(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-mod=readonly", "-m", "-f", "{{.Dir}}", "github.com/ethereum/go-ethereum").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// TestPrecompileGethVectors runs the first vectors of each of go-ethereum's
// own files through the op name dyno uses for it, so a wrong address in
// the op table shows here.
func TestPrecompileGethVectors(t *testing.T) {
	dir := filepath.Join(gethDir(t), "core", "vm", "testdata", "precompiles")
	for _, op := range slices.Sorted(maps.Keys(gethVectorFiles)) {
		file := gethVectorFiles[op]
		addr := fixtureAddress(t, "precompile/"+op+"/")
		t.Run(op, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			var vs []gethVector
			if err := json.Unmarshal(b, &vs); err != nil {
				t.Fatal(err)
			}
			if len(vs) > 12 {
				vs = vs[:12]
			}
			var cases []Case
			for _, v := range vs {
				cases = append(cases, mkCase(map[string]any{"input": "0x" + v.Input, "gas": v.Gas, "address": addr}, map[string]any{"output": "0x" + v.Expected}))
			}
			mustPrepare(t, "precompile/"+op+"/any", ImplPrecomp, cases)
		})
	}
	// sha256, ripemd160 and identity against the hash vectors.
	data, digests := hashInputs(t, "sha256", 32)
	_, rdigests := hashInputs(t, "ripemd160", 32)
	var sha, ripe, id []Case
	shaAt, ripeAt, idAt := fixtureAddress(t, "precompile/sha256/"), fixtureAddress(t, "precompile/ripemd160/"), fixtureAddress(t, "precompile/identity/")
	for i := range data {
		sha = append(sha, mkCase(map[string]any{"input": hx(data[i]), "gas": 1000, "address": shaAt}, map[string]any{"output": digests[i]}))
		ripe = append(ripe, mkCase(map[string]any{"input": hx(data[i]), "gas": 1000, "address": ripeAt}, map[string]any{"output": "0x000000000000000000000000" + rdigests[i][2:]}))
		id = append(id, mkCase(map[string]any{"input": hx(data[i]), "gas": 1000, "address": idAt}, map[string]any{"output": hx(data[i])}))
	}
	mustPrepare(t, "precompile/sha256/32B", ImplPrecomp, sha)
	mustPrepare(t, "precompile/ripemd160/32B", ImplPrecomp, ripe)
	mustPrepare(t, "precompile/identity/32B", ImplPrecomp, id)

	// Too little gas is an error at prepare.
	low := []Case{mkCase(map[string]any{"input": hx(data[0]), "gas": 10, "address": shaAt}, map[string]any{"output": digests[0]})}
	if _, err := Prepare("precompile/sha256/32B", ImplPrecomp, low); err == nil {
		t.Error("out of gas accepted")
	}
	// The address is the case's: another address calls another precompile
	// (IDENTITY's output is not SHA-256's), none is an error, and so is one
	// geth has no precompile at.
	wrong := []Case{mkCase(map[string]any{"input": hx(data[0]), "gas": 1000, "address": idAt}, map[string]any{"output": digests[0]})}
	p, err := Prepare("precompile/sha256/32B", ImplPrecomp, wrong)
	if err != nil {
		t.Fatal(err)
	}
	if m := Check(p, wrong); m == nil {
		t.Error("IDENTITY's output passed as SHA-256's")
	}
	for _, c := range []map[string]any{{"input": hx(data[0]), "gas": 1000}, {"input": hx(data[0]), "gas": 1000, "address": 0x99}} {
		if _, err := Prepare("precompile/sha256/32B", ImplPrecomp, []Case{mkCase(c, map[string]any{"output": digests[0]})}); err == nil {
			t.Errorf("%v accepted", c)
		}
	}
}

// fixtureAddress is the precompile address dyno gives the cases of the
// first id starting with prefix in adapters/testdata/prepare.jsonl (it
// reads it from specs/gas/osaka.toml; the worker keeps no table).
func fixtureAddress(t *testing.T, prefix string) uint64 {
	t.Helper()
	v, ok := fixtureInput(t, prefix, "address").(float64)
	if !ok {
		t.Fatalf("%s: no numeric address in the fixture", prefix)
	}
	return uint64(v)
}

// fixtureInput is field of the first case of the first request whose id
// starts with prefix in adapters/testdata/prepare.jsonl.
func fixtureInput(t *testing.T, prefix, field string) any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "prepare.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		var req struct {
			ID    string `json:"id"`
			Cases []struct {
				Input map[string]any `json:"input"`
			} `json:"cases"`
		}
		if json.Unmarshal(line, &req) != nil || !strings.HasPrefix(req.ID, prefix) || len(req.Cases) == 0 {
			continue
		}
		if v, ok := req.Cases[0].Input[field]; ok {
			return v
		}
	}
	t.Fatalf("no %s* request with a %s in the fixture", prefix, field)
	return nil
}

// loopCode is the loop program dyno hands the worker for bytecode-mode
// op, read from a real prepare request in adapters/testdata/prepare.jsonl
// (dyno builds the program; no adapter assembles one).
func loopCode(t *testing.T, op string) string {
	t.Helper()
	code, ok := fixtureInput(t, "precompile-bytecode/"+op+"/", "code").(string)
	if !ok {
		t.Fatalf("precompile-bytecode/%s: the fixture's code is no string", op)
	}
	return code
}

// TestBytecodeMode runs go-ethereum's vectors through the loop contract
// in geth's EVM: the last call's output hash must match.
func TestBytecodeMode(t *testing.T) {
	dir := filepath.Join(gethDir(t), "core", "vm", "testdata", "precompiles")
	for _, op := range []string{"ecrecover", "bn254-add", "modexp", "p256verify", "bls12-g1add"} {
		t.Run(op, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, gethVectorFiles[op]))
			if err != nil {
				t.Fatal(err)
			}
			var vs []gethVector
			if err := json.Unmarshal(b, &vs); err != nil {
				t.Fatal(err)
			}
			var cases []Case
			for _, v := range vs[:3] {
				cases = append(cases, mkCase(map[string]any{"input": "0x" + v.Input, "gas": v.Gas, "address": fixtureAddress(t, "precompile-bytecode/"+op+"/"), "code": loopCode(t, op)}, map[string]any{"output": "0x" + v.Expected}))
			}
			id := "precompile-bytecode/" + op + "/x"
			p := mustPrepare(t, id, ImplEVM, cases)
			for _, n := range []int{1, 10, 100} {
				p.Bench.Loop(n)
				if SinkErr != nil || len(SinkBytes) != 64 || SinkBytes[31] != 1 {
					t.Fatalf("N=%d: %x %v", n, SinkBytes, SinkErr)
				}
			}
			cases[1].Expected["output"] = raw("0x00")
			p, err = Prepare(id, ImplEVM, cases)
			if err != nil {
				t.Fatal(err)
			}
			if m := Check(p, cases); m == nil || m.Case != 1 || m.Field != "output" {
				t.Fatalf("corrupted output: %+v", m)
			}
		})
	}
	noop := []Case{mkCase(map[string]any{"input": "0x", "address": fixtureAddress(t, "precompile-bytecode/noop/"), "code": loopCode(t, "noop")}, map[string]any{"output": "0x"})}
	mustPrepare(t, "precompile-bytecode/noop/identity-empty", ImplEVM, noop)
	// A case without the program is an error at prepare, not a panic.
	bare := []Case{mkCase(map[string]any{"input": "0x"}, map[string]any{"output": "0x"})}
	if _, err := Prepare("precompile-bytecode/noop/identity-empty", ImplEVM, bare); err == nil {
		t.Error("a case without code accepted")
	}
	// An op is whatever the case's program and address say; a case
	// without an address is an error.
	noAddress := []Case{mkCase(map[string]any{"input": "0x", "code": loopCode(t, "noop")}, map[string]any{"output": "0x"})}
	if _, err := Prepare("precompile-bytecode/noop/identity-empty", ImplEVM, noAddress); err == nil {
		t.Error("a case without an address accepted")
	}
}
