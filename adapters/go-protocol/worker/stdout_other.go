//go:build !linux

package worker

import "os"

// protocolOutput keeps stdout for protocol lines and sends what Go code
// prints to os.Stdout to stderr instead.
func protocolOutput() *os.File {
	out := os.Stdout
	os.Stdout = os.Stderr
	return out
}
