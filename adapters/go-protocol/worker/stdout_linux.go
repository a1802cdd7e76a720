package worker

import (
	"os"
	"syscall"
)

// protocolOutput keeps a private copy of stdout for protocol lines and
// points file descriptor 1 (and os.Stdout) at stderr, so that nothing a
// library prints, from Go or C, can corrupt the protocol stream.
func protocolOutput() *os.File {
	fd, err := syscall.Dup(1)
	if err != nil {
		return os.Stdout
	}
	if err := syscall.Dup3(2, 1, 0); err != nil {
		syscall.Close(fd)
		return os.Stdout
	}
	out := os.NewFile(uintptr(fd), "protocol-stdout")
	os.Stdout = os.Stderr
	return out
}
