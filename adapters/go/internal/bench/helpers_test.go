package bench

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// seq is dyno's input stream (crates/workload/src/seq.rs): SplitMix64
// words, little-endian, truncated to n bytes.
func seq(seed uint64, n int) []byte {
	out := make([]byte, 0, n+8)
	state := seed
	for len(out) < n {
		state += 0x9E3779B97F4A7C15
		z := state
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		z ^= z >> 31
		out = binary.LittleEndian.AppendUint64(out, z)
	}
	return out[:n]
}

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
