#!/usr/bin/env bash
# How long RocksDB's C++ takes to compile with each compiler and flag set:
# every 43rd of librocksdb-sys's 343 sources (8 files), two at a time as cc
# runs them, with the crate's own defines for Linux and -std=c++20. The
# figures in docs/ci.md come from this script.
#
# Usage: scripts/rocksdb-compile-cost.sh [CXX...]   (default: g++ clang++-14)
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n '/^name = "librocksdb-sys"/{n;s/^version = "\(.*\)"/\1/p}' Cargo.lock)
src=$(find "${CARGO_HOME:-$HOME/.cargo}"/registry/src -maxdepth 2 -type d \
  -name "librocksdb-sys-$version" 2>/dev/null | head -1)
[ -n "$src" ] || { echo "librocksdb-sys $version is not downloaded: run 'cargo fetch' first" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$src"
awk 'NR % 43 == 7 { print "rocksdb/" $0 }' rocksdb_lib_sources.txt >"$out/files"
defines="-D_GNU_SOURCE -DNDEBUG=1 -DHAVE_ALIGNED_NEW -DHAVE_UINT128_EXTENSION -DOS_LINUX"
defines+=" -DROCKSDB_PLATFORM_POSIX -DROCKSDB_LIB_IO_POSIX -DROCKSDB_SCHED_GETCPU_PRESENT"
defines+=" -DROCKSDB_AUXV_GETAUXVAL_PRESENT -DROCKSDB_FALLOCATE_PRESENT -DROCKSDB_RANGESYNC_PRESENT"
base="-std=c++20 -I rocksdb/include/ -I rocksdb/ -I . $defines -fPIC -ffunction-sections"
base+=" -fdata-sections -m64 -march=x86-64 -msse2 -include cstdint -w"
echo "librocksdb-sys $version, $(wc -l <"$out/files") files, two at a time"
compilers=("$@")
[ ${#compilers[@]} -gt 0 ] || compilers=(g++ clang++-14)
for cxx in "${compilers[@]}"; do
  command -v "$cxx" >/dev/null || { echo "$cxx: not installed, skipped"; continue; }
  for flags in "-O2 -g -gdwarf-4" "-O2" "-O1 -g" "-O1" "-O0"; do
    start=$(date +%s.%N)
    xargs -P2 -I{} sh -c "$cxx $base $flags -c {} -o $out/\$(basename {}).o" <"$out/files"
    printf '%-12s %-18s %6.1f s\n' "$cxx" "$flags" "$(echo "$(date +%s.%N) - $start" | bc)"
  done
done
