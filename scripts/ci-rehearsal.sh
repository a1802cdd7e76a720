#!/usr/bin/env bash
# Rehearse a CI run: a fresh clone of this repository's HEAD, run exactly as
# CI runs it (`CI=true bash .ci/run`, no standard input), with every cache
# of its own under DIR, and its log kept.
#
#   scripts/ci-rehearsal.sh fresh DIR   empty caches: DIR must not exist. A
#                                       new HOME under DIR, so the cargo
#                                       registry, the dyno cache (workers,
#                                       geth, the cargo target directory),
#                                       the Go module and build caches, npm's,
#                                       pip's and Maven's caches all start
#                                       empty. The toolchains stay (rustup's
#                                       RUSTUP_HOME, Go, the JDKs, Node).
#   scripts/ci-rehearsal.sh warm DIR    a second run on what an earlier
#                                       rehearsal in DIR left: a new clone,
#                                       the same caches.
#
# Debian's packages are the machine's: for a fresh-machine run, remove what
# scripts/test.sh installs first (docs/ci.md says how). The log is
# DIR/run-N.log; the step table is at its end.
set -euo pipefail

if [ $# -ne 2 ] || { [ "$1" != fresh ] && [ "$1" != warm ]; }; then
  echo "usage: scripts/ci-rehearsal.sh fresh|warm DIR" >&2
  exit 2
fi
mode=$1 dir=$2
repo=$(cd "$(dirname "$0")/.." && pwd)

if [ "$mode" = fresh ]; then
  [ ! -e "$dir" ] || { echo "ci-rehearsal: $dir exists; a fresh run needs a new DIR" >&2; exit 2; }
  mkdir -p "$dir/home"
elif [ ! -d "$dir/home" ]; then
  echo "ci-rehearsal: $dir/home is missing: run 'fresh' into $dir first" >&2
  exit 2
fi
dir=$(cd "$dir" && pwd)

n=1
while [ -e "$dir/run-$n.log" ]; do n=$((n + 1)); done
clone=$dir/clone-$n
git clone -q "$repo" "$clone"
echo "ci-rehearsal: $mode run $n of $(git -C "$clone" rev-parse --short HEAD) in $clone, log $dir/run-$n.log" >&2

rustup_home=${RUSTUP_HOME:-$HOME/.rustup}
toolchain_bin=${CARGO_HOME:-$HOME/.cargo}/bin
start=$(date +%s)
set +e
(
  cd "$clone"
  env -u DYNO_CACHE -u XDG_CACHE_HOME -u GOPATH -u GOCACHE -u GOMODCACHE -u CARGO_TARGET_DIR \
    -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS -u GOFLAGS -u GOENV -u GOBIN \
    HOME="$dir/home" CARGO_HOME="$dir/home/.cargo" RUSTUP_HOME="$rustup_home" \
    GOCACHE="$dir/home/.cache/go-build" GOMODCACHE="$dir/home/go/pkg/mod" GOPATH="$dir/home/go" \
    PATH="$toolchain_bin:$PATH" CI=true \
    bash .ci/run </dev/null
) >"$dir/run-$n.log" 2>&1
rc=$?
set -e
took=$(($(date +%s) - start))
printf 'ci-rehearsal: %s run %d exited %d after %dm%02ds\n' "$mode" "$n" "$rc" $((took / 60)) $((took % 60)) | tee -a "$dir/run-$n.log" >&2
exit $rc
