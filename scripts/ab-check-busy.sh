#!/usr/bin/env bash
# CI's paired A/B check (scripts/ab-check.sh) N times with a CPU-bound
# process beside it, as a busy CI neighbour would be: by default a
# `cargo build -j1 --release -p dyno` at nice 0 into a throwaway target
# directory (one core), restarted if it ends. Every trial's A/A and knob
# results are kept, gzipped, in OUTDIR/trial-K/; docs/ci.md's table is
# generated from such a folder under docs/ci/ (crates/figures/src/ci.rs).
#
# Usage: scripts/ab-check-busy.sh DYNO OUTDIR [N]   (N: 3)
#        DYNO_AB_BUSY_CMD='sha256sum /dev/zero' ... another neighbour
#        DYNO_AB_CHECK_NO_KNOB=1 ...   every trial without its knob (each must fail)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: scripts/ab-check-busy.sh DYNO OUTDIR [N]" >&2; exit 2; }
dyno=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") out=$2 n=${3:-3}
mkdir -p "$out"
scratch=$(mktemp -d)
busy_cmd=${DYNO_AB_BUSY_CMD:-cargo build -j1 --release --locked -q -p dyno}
set -m
(
  trap - EXIT
  while :; do
    CARGO_TARGET_DIR="$scratch/target" $busy_cmd >/dev/null 2>&1 || sleep 1
    rm -rf "$scratch/target"
  done
) </dev/null &
busy=$!
trap 'kill -- -$busy 2>/dev/null || true; wait $busy 2>/dev/null || true; rm -rf "$scratch"' EXIT
echo "ab-check-busy: neighbour: $busy_cmd (process group $busy)" >&2
sleep 5
{
  echo "commit $(git rev-parse HEAD 2>/dev/null || echo unknown); $(nproc) cores; $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "dyno: $dyno"
  echo "neighbour: $busy_cmd"
  echo "knob: ${DYNO_AB_CHECK_NO_KNOB:+not applied (DYNO_AB_CHECK_NO_KNOB=1)}${DYNO_AB_CHECK_NO_KNOB:-x2}"
} >"$out/README"
fails=0
for k in $(seq 1 "$n"); do
  t=$out/trial-$k
  rc=0
  scripts/ab-check.sh "$dyno" "$t" 2>"$t.log" || rc=$?
  tail -n 1 "$t.log" >&2
  echo "$rc" >"$t/exit"
  rm -f "$t"/*-stdout.json "$t"/*.md
  gzip -f "$t"/*.json
  [ "$rc" = 0 ] || fails=$((fails + 1))
  mv "$t.log" "$t/check.log"
done
echo "ab-check-busy: $((n - fails)) of $n trials passed the check" >&2
