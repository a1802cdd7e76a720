//go:build tools

// Package tools pins the geth command (github.com/ethereum/go-ethereum/cmd/geth)
// in go.mod/go.sum; nodes/geth/setup builds it from the module cache.
package tools

import _ "github.com/ethereum/go-ethereum/cmd/geth"
