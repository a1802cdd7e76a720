#!/usr/bin/env bash
# How long RocksDB's C++ takes to compile with each compiler and flag set:
# every 43rd of librocksdb-sys's 343 sources (8 files), two at a time as cc
# runs them, with the crate's own defines for Linux and -std=c++20. The
# figures in docs/ci.md come from this script.
#
# With `pch`: what a precompiled header would save, and what it would
# change. The same 8 files (with `pch all`, all 343) one at a time with
# clang++-14 at -O2 as CI builds them, first plainly (`-include cstdint`, as
# librocksdb-sys does), then with a PCH of the standard headers and the
# RocksDB headers most sources include (db/db_impl/db_impl.h among them):
# the CPU (user + system) of each pass and of building the PCH, and every
# object whose external definitions (name, kind, size) differ from the
# plain compile's. An experiment; the build does not use it (docs/ci.md:
# with every source, 35 objects differed, two globals among them moved from
# constant to dynamic initialisation, for 6-19% less CPU).
#
# Usage: scripts/rocksdb-compile-cost.sh [CXX...]   (default: g++ clang++-14)
#        scripts/rocksdb-compile-cost.sh pch [all]
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
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
if [ "${1:-}" = pch ]; then
  command -v clang++-14 >/dev/null || { echo "clang++-14 is not installed (Debian's clang-14)" >&2; exit 2; }
  if [ "${2:-}" = all ]; then
    sed 's|^|rocksdb/|' rocksdb_lib_sources.txt >"$out/files"
  fi
  {
    for h in cstdint algorithm array atomic cassert chrono cinttypes condition_variable cstdio \
      cstring deque functional limits list map memory mutex set sstream string thread \
      unordered_map unordered_set utility vector; do
      echo "#include <$h>"
    done
    for h in rocksdb/env.h rocksdb/slice.h rocksdb/status.h rocksdb/options.h rocksdb/db.h \
      rocksdb/table.h rocksdb/file_system.h rocksdb/system_clock.h rocksdb/comparator.h \
      rocksdb/convenience.h port/port.h util/string_util.h util/coding.h logging/logging.h \
      test_util/sync_point.h db/dbformat.h db/db_impl/db_impl.h; do
      echo "#include \"$h\""
    done
  } >"$out/pch.h"
  flags="-O2 ${base/ -include cstdint/}"
  # CPU (ms) of this shell's reaped children so far, into CPU (`times` in
  # this shell: in a command substitution it would count the subshell's).
  cpu() {
    times >"$out/t"
    CPU=$(tail -n 1 "$out/t" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%d\n", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000 }')
  }
  obj() { echo "$out/obj-$1/$(echo "$2" | tr / _).o"; }
  mkdir -p "$out/obj-plain" "$out/obj-pch"
  echo "librocksdb-sys $version, $(wc -l <"$out/files") files, one at a time, clang++-14 -O2"
  cpu
  c0=$CPU
  while read -r f; do clang++-14 $flags -include cstdint -c "$f" -o "$(obj plain "$f")"; done <"$out/files"
  cpu
  c1=$CPU
  clang++-14 $flags -x c++-header "$out/pch.h" -o "$out/pch.h.pch"
  cpu
  c2=$CPU
  while read -r f; do clang++-14 $flags -include-pch "$out/pch.h.pch" -c "$f" -o "$(obj pch "$f")"; done <"$out/files"
  cpu
  c3=$CPU
  printf 'plain:            %7.1f s CPU\n' "$(((c1 - c0) / 100))e-1"
  printf 'building the PCH: %7.1f s CPU\n' "$(((c2 - c1) / 100))e-1"
  printf 'with the PCH:     %7.1f s CPU (%d%% of plain)\n' "$(((c3 - c2) / 100))e-1" $(((c3 - c2) * 100 / (c1 - c0)))
  # The external definitions (name, kind, size) of each object against the
  # plain compile's: a header the PCH brings that a source does not include
  # can change what the source compiles to.
  external() { nm -S --defined-only "$1" | awk 'NF == 4 && $3 ~ /[A-Z]/ { print $2, $3, $4 }' | sort; }
  differ=0
  while read -r f; do
    if ! diff <(external "$(obj plain "$f")") <(external "$(obj pch "$f")") >"$out/diff"; then
      differ=$((differ + 1))
      echo "differs: $f"
      grep '^[<>]' "$out/diff" | sed 's/^/  /'
    fi
  done <"$out/files"
  echo "objects whose external definitions (name, kind, size) differ from the plain compile's: $differ"
  exit 0
fi
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
