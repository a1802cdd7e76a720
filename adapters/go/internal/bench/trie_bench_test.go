package bench

import "testing"

// BenchmarkTrieState100 runs the adapter's trie/state-root/100 loop on the
// generated 100 accounts (the fixture's case), to compare
// `go test -bench TrieState100 ./internal/bench` with the adapter's slope.
func BenchmarkTrieState100(b *testing.B) {
	p, err := Prepare("trie/state-root/100", ImplTrie, []Case{mkCase(trieStateInput(100), nil)})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	p.Bench.Loop(b.N)
}
