package bench

import (
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

// BenchmarkKeccak256_32B is the plain Go benchmark of what the adapter
// times as hash/keccak256/32B: the same 8 inputs (seq(seed, 32) for the
// seeds of vectors/hash.json), cycled in order, crypto.Keccak256 of each,
// the digest stored in the same package-level sink. The loop has the
// shape of KeccakLoop.Loop; compare `go test -bench Keccak256_32B` with the
// adapter's fitted slope.
func BenchmarkKeccak256_32B(b *testing.B) {
	data, _ := hashInputs(b, "keccak256", 32)
	pos := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		SinkBytes = crypto.Keccak256(data[pos])
		pos++
		if pos == len(data) {
			pos = 0
		}
	}
}

// BenchmarkKeccak256_32B_AdapterLoop runs the adapter's own loop
// (KeccakLoop.Loop, as the worker's run request calls it) under go test.
func BenchmarkKeccak256_32B_AdapterLoop(b *testing.B) {
	data, _ := hashInputs(b, "keccak256", 32)
	l := &KeccakLoop{Data: data}
	b.ReportAllocs()
	b.ResetTimer()
	l.Loop(b.N)
}

func TestSeqMatchesReference(t *testing.T) {
	// SplitMix64 seeded with 0 (Vigna's splitmix64.c), as seq.rs tests.
	got := hx(seq(0, 24))
	want := "0xafcd1d7b39a820e2f465b9a16a9e786e4f450980185dc406"
	if got != want {
		t.Fatalf("seq(0, 24) = %s, want %s", got, want)
	}
}
