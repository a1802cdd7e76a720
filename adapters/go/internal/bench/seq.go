package bench

import "encoding/binary"

// seq is dyno's input stream (crates/workload/src/seq.rs, docs/vectors.md):
// SplitMix64 words, little-endian, truncated to n bytes.
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

// u64le is the first 8 bytes of seq(seed, 8) read little-endian: the
// first SplitMix64 word.
func u64le(seed uint64) uint64 {
	return binary.LittleEndian.Uint64(seq(seed, 8))
}
