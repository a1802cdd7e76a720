package bench

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// vectorsDir is the repository's vectors/ folder.
func vectorsDir() string {
	if d := os.Getenv("DYNO_VECTORS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "..", "vectors")
}

// loadVectors reads vectors/<name>.json's "cases".
func loadVectors(t testing.TB, name string, into any) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(vectorsDir(), name+".json"))
	if err != nil {
		t.Fatalf("reading vectors: %v", err)
	}
	var doc struct {
		Cases json.RawMessage `json:"cases"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(doc.Cases, into); err != nil {
		t.Fatal(err)
	}
}

type hashVector struct {
	Algorithm string `json:"algorithm"`
	Digest    string `json:"digest"`
	Len       int    `json:"len"`
	Seed      uint64 `json:"seed"`
}

// hashInputs are the inputs of hash/<alg>/<len> with their digests.
func hashInputs(t testing.TB, alg string, n int) (data [][]byte, digests []string) {
	t.Helper()
	var vs []hashVector
	loadVectors(t, "hash", &vs)
	for _, v := range vs {
		if v.Algorithm == alg && v.Len == n {
			data = append(data, seq(v.Seed, v.Len))
			digests = append(digests, v.Digest)
		}
	}
	if len(data) == 0 {
		t.Fatalf("no %s vectors of %d bytes", alg, n)
	}
	return data, digests
}

func hx(b []byte) string { return "0x" + hex.EncodeToString(b) }

func raw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
