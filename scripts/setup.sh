#!/usr/bin/env bash
# Set-up beyond what cargo fetches by itself. Idempotent.
# - the pinned go-ethereum module, whose canonical precompile vectors
#   (core/vm/testdata/precompiles) the EVM lab reads in place from the Go
#   module cache;
# - Debian's libclang-dev, which bindgen needs to build RocksDB and MDBX for
#   the db suite (`--features db-engines`; docs/db.md).
set -euo pipefail
cd "$(dirname "$0")/.."

geth_version=v1.17.8   # keep equal to GETH_VERSION in crates/evm/src/geth.rs
if ! command -v go >/dev/null 2>&1; then
  echo "setup: 'go' is not installed; the precompile suite needs it to fetch go-ethereum's vectors" >&2
  exit 2
fi
go mod download "github.com/ethereum/go-ethereum@${geth_version}"
echo "setup: go-ethereum ${geth_version} vectors in $(go env GOMODCACHE)/github.com/ethereum/go-ethereum@${geth_version}/core/vm/testdata/precompiles" >&2

# libclang: bindgen loads libclang.so at build time.
if ! ls /usr/lib/llvm-*/lib/libclang.so >/dev/null 2>&1 && ! ldconfig -p 2>/dev/null | grep -q 'libclang\.so '; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: libclang is missing and this is not a Debian-like system: install libclang (clang's library) to build the db engines" >&2
    exit 2
  fi
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends libclang-dev \
    || { $sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends libclang-dev; }
fi
echo "setup: libclang for bindgen: $(ls /usr/lib/llvm-*/lib/libclang.so 2>/dev/null | head -1)" >&2
