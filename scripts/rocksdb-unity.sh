#!/usr/bin/env bash
# RocksDB's C++ for CI's build, compiled as RocksDB's own unity build.
#
# librocksdb-sys compiles RocksDB's 342 library sources one by one: about a
# fifth of a fresh CI run's CPU (docs/ci.md), most of it instantiating and
# optimising the same templates and inline functions in every file. RocksDB
# itself offers a unity build (its Makefile's `unity.cc`: every library
# source #included into one file, in the source list's order), which its
# own CI compiles and tests on every pull request (the
# build-linux-unity-and-headers job, `make unity_test`). This script
# compiles the same sources, from the librocksdb-sys crate Cargo.lock pins,
# with the flags and defines that crate's build.rs gives them on
# x86_64-linux, as four unity files in the list's order (two cores compile
# them two at a time), and archives them into librocksdb.a. The crate's
# build script links it instead of compiling (its documented
# ROCKSDB_LIB_DIR and ROCKSDB_STATIC), and still generates the bindings from
# the same headers. Decision D28 says why CI, and only CI, builds it so.
#
# Usage: scripts/rocksdb-unity.sh CACHE_DIR
#   Prints the directory holding librocksdb.a on stdout. The directory is
#   named by a digest of this script, the crate's version and the compiler's
#   version, so a later run reuses it and a change to any of them builds a
#   new one. CXX (default c++) and AR (default ar) as cc would use them.
set -euo pipefail
cd "$(dirname "$0")/.."

# The crate whose build.rs the flags below copy (build_rocksdb(), the
# x86_64 and linux branches, with cc's defaults for opt-level 2 without
# debug info). Another version may compile other sources or with other
# defines: read its build.rs and update FLAGS and this line together.
written_for="0.19.0+11.8.1"

die() { echo "rocksdb-unity: $*" >&2; exit 2; }

[ $# -eq 1 ] || die "usage: scripts/rocksdb-unity.sh CACHE_DIR"
cache=$1
[ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] \
  || die "this unity build copies librocksdb-sys's flags for x86_64 Linux; on $(uname -s)-$(uname -m) let the crate build RocksDB (unset ROCKSDB_LIB_DIR)"
if [ -n "${RUSTFLAGS:-}${CARGO_BUILD_RUSTFLAGS:-}${CARGO_ENCODED_RUSTFLAGS:-}" ]; then
  die "RUSTFLAGS is set: the crate passes -Ctarget-cpu and target features on to RocksDB's flags, which this script does not copy; unset RUSTFLAGS or let the crate build RocksDB"
fi

version=$(awk '/^name = "librocksdb-sys"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
[ -n "$version" ] || die "Cargo.lock names no librocksdb-sys package"
[ "$version" = "$written_for" ] \
  || die "Cargo.lock pins librocksdb-sys $version, but this script copies the flags of $written_for's build.rs: compare build_rocksdb() in the new version's build.rs with FLAGS in scripts/rocksdb-unity.sh, then update both"

cxx=${CXX:-c++}
ar=${AR:-ar}
command -v "$cxx" >/dev/null || die "the C++ compiler '$cxx' (CXX) is not installed"
key=$( { cat "$0"; echo "$version"; "$cxx" --version; } | sha256sum | cut -c1-16)
out=$cache/$version-$key
if [ -f "$out/librocksdb.a" ]; then
  echo "rocksdb-unity: reusing $out/librocksdb.a" >&2
  echo "$out"
  exit 0
fi

# The crate's sources: cargo fetches them (its lockfile, offline if it can).
src=$(cargo metadata --locked --format-version 1 --features dyno/db-engines 2>/dev/null \
  | python3 -c 'import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p["name"] == "librocksdb-sys":
        print(p["manifest_path"].rsplit("/", 1)[0])
        break')
[ -n "$src" ] && [ -f "$src/rocksdb_lib_sources.txt" ] || die "cargo metadata found no librocksdb-sys sources (run 'cargo fetch --locked' and retry)"

work=$(mktemp -d "${TMPDIR:-/tmp}/rocksdb-unity.XXXXXX")
trap 'rm -rf "$work"' EXIT

# build.rs: every listed source but util/build_version.cc, then the crate's
# own pre-generated build_version.cc.
{
  grep -v '^util/build_version.cc$' "$src/rocksdb_lib_sources.txt" | sed "s|^|$src/rocksdb/|"
  echo "$src/build_version.cc"
} >"$work/sources"
n=$(wc -l <"$work/sources")
[ "$n" -gt 300 ] || die "$src/rocksdb_lib_sources.txt lists $n sources; expected RocksDB's 342"
split -n l/4 -d -a 1 "$work/sources" "$work/part"
for p in "$work"/part?; do
  sed 's|.*|#include "&"|' "$p" >"$p.cc"
done

# cc's flags for opt-level 2 without debug info (the dev profile sets
# `debug = false` for librocksdb-sys), then build.rs's, in its order.
FLAGS=(
  -O2 -ffunction-sections -fdata-sections -fPIC -m64
  -I "$src/rocksdb/include/" -I "$src/rocksdb/" -I "$src/rocksdb/third-party/gtest-1.8.1/fused-src/" -I "$src"
  -Wall -Wextra -msse2 -std=c++20
  -Wsign-compare -Wshadow -Wno-unused-parameter -Wno-unused-variable -Woverloaded-virtual
  -Wnon-virtual-dtor -Wno-missing-field-initializers -Wno-strict-aliasing -Wno-invalid-offsetof
  -include cstdint
  -DNDEBUG=1 -DHAVE_ALIGNED_NEW -DHAVE_UINT128_EXTENSION
  -DOS_LINUX -DROCKSDB_PLATFORM_POSIX -DROCKSDB_LIB_IO_POSIX -DROCKSDB_SCHED_GETCPU_PRESENT
  -DROCKSDB_AUXV_GETAUXVAL_PRESENT -DROCKSDB_FALLOCATE_PRESENT -DROCKSDB_RANGESYNC_PRESENT
)
if "$cxx" --version | grep -q clang; then
  FLAGS+=(--target=x86_64-unknown-linux-gnu)
fi

echo "rocksdb-unity: compiling RocksDB $version's $n sources as 4 unity files with $cxx (two at a time)" >&2
start=$SECONDS
# xargs runs two compiles at a time and fails if one fails; a unity
# file's diagnostics are printed only when it fails.
printf '%s\n' "$work"/part? | xargs -P 2 -I{} sh -c \
  '"$0" "$@" -c {}.cc -o {}.o 2>{}.log || { cat {}.log >&2; exit 1; }' "$cxx" "${FLAGS[@]}" \
  || die "a unity file failed to compile (its diagnostics above)"
"$ar" crs "$work/librocksdb.a" "$work"/part?.o
mkdir -p "$cache"
# Another script, crate or compiler's library is never used again.
find "$cache" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
mkdir "$out.tmp.$$"
mv "$work/librocksdb.a" "$out.tmp.$$/"
mv "$out.tmp.$$" "$out"
echo "rocksdb-unity: $out/librocksdb.a in $((SECONDS - start)) s" >&2
echo "$out"
