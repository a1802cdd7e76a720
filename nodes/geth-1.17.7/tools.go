//go:build tools

// Package tools pins the geth command of go-ethereum v1.17.7, the release
// before the one nodes/geth pins, in go.mod/go.sum: the B side of `dyno
// replay --against geth-1.17.7`. nodes/geth/setup (linked here as setup)
// builds it from this folder's go.mod.
package tools

import _ "github.com/ethereum/go-ethereum/cmd/geth"
