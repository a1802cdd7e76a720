#!/usr/bin/env bash
# Set-up beyond what cargo fetches by itself: the pinned go-ethereum module,
# whose canonical precompile vectors (core/vm/testdata/precompiles) the EVM
# lab reads in place from the Go module cache. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

geth_version=v1.17.8   # keep equal to GETH_VERSION in crates/evm/src/geth.rs
if ! command -v go >/dev/null 2>&1; then
  echo "setup: 'go' is not installed; the precompile suite needs it to fetch go-ethereum's vectors" >&2
  exit 2
fi
go mod download "github.com/ethereum/go-ethereum@${geth_version}"
echo "setup: go-ethereum ${geth_version} vectors in $(go env GOMODCACHE)/github.com/ethereum/go-ethereum@${geth_version}/core/vm/testdata/precompiles" >&2
