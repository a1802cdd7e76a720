#!/usr/bin/env bash
# Agreement check between dyno's Go adapter and `go test -bench`:
# go-ethereum's crypto.Keccak256 of 32 B, measured ROUNDS times (default 10)
# by each harness in the same session, interleaved round by round (the
# order alternates, so neither harness always runs first). Their medians
# must agree within ±10%.
#
#   dyno:    target/release/dyno run hash/keccak256/32B --impl geth
#            -> the geth result's fitted slope (`fit.slope`), the figure
#               dyno's comparison tables use ("ns per operation: the fitted
#               slope where samples were fitted, else the P50"); the P50 of
#               the per-sample ns/iteration is printed beside it.
#   go test: BenchmarkKeccak256_32B in adapters/go/internal/bench, the plain
#            Go benchmark of the same 8 inputs cycled in the same order into
#            the same sink (not BenchmarkKeccak256_32B_AdapterLoop, which
#            calls the adapter's own loop and so would not check it
#            independently) -> ns/op at -benchtime 1s.
#
# The test binary is built once (`go test -c`) and run with the flags
# `go test -run '^$' -bench 'Keccak256_32B$' -count 1 -benchtime 1s` passes
# it, so no round pays for a rebuild.
#
# Needs: cargo, go (>= 1.25), jq or python3. Installs the Go adapter with
# `dyno setup go` if it is not installed. Exit 0 PASS, 1 FAIL, 2 error.
set -euo pipefail

ROUNDS=${ROUNDS:-10}
ID=hash/keccak256/32B
IMPL=geth
LOW=0.9
HIGH=1.1

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
pkg="$root/adapters/go/internal/bench"
export GOTOOLCHAIN=local

die() {
  echo "bench-go-agreement: $*" >&2
  exit 2
}

command -v go >/dev/null 2>&1 || die "go not found"
if command -v jq >/dev/null 2>&1; then
  json=jq
elif command -v python3 >/dev/null 2>&1; then
  json=python3
else
  die "needs jq or python3 to read dyno's JSON"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"

echo "== building dyno (release)"
cargo build --release -q -p dyno
dyno="$root/target/release/dyno"

# The cache dyno installs adapters into (see crates/lab/src/paths.rs).
if [ -n "${DYNO_CACHE:-}" ]; then
  cache=$DYNO_CACHE
elif [ -n "${XDG_CACHE_HOME:-}" ]; then
  cache=$XDG_CACHE_HOME/dyno
else
  cache=$HOME/.cache/dyno
fi
if [ ! -x "$cache/adapters/go/run" ]; then
  echo "== the Go adapter is not installed: dyno setup go"
  "$dyno" setup go
fi

echo "== building the Go benchmark ($(go env GOVERSION))"
(cd "$pkg" && go test -mod=readonly -c -o "$tmp/bench.test" .)

# The geth result's "slope p50" (ns) from a dyno JSON result.
dyno_figures() {
  local file=$1
  if [ "$json" = jq ]; then
    jq -r --arg id "$ID" --arg imp "$IMPL" '
      [.results[] | select(.id == $id and .implementation.name == $imp)][0]
      | if . == null then "none"
        elif .incomplete_reason != null then "incomplete: \(.incomplete_reason)"
        elif .verification.status != "passed" then "verification \(.verification.status)"
        else "\(if (.fit.slope // 0) > 0 then .fit.slope else .stats.p50 end) \(.stats.p50)"
        end' "$file"
  else
    python3 - "$file" "$ID" "$IMPL" <<'PY'
import json, sys
path, want_id, imp = sys.argv[1:]
rs = [r for r in json.load(open(path))["results"]
      if r["id"] == want_id and r["implementation"]["name"] == imp]
if not rs:
    print("none")
else:
    r = rs[0]
    slope = (r.get("fit") or {}).get("slope") or 0
    if r.get("incomplete_reason"):
        print("incomplete: " + r["incomplete_reason"])
    elif r["verification"]["status"] != "passed":
        print("verification " + r["verification"]["status"])
    else:
        print(slope if slope > 0 else r["stats"]["p50"], r["stats"]["p50"])
PY
  fi
}

run_dyno() {
  local k=$1 out="$tmp/dyno-$1.json" figs
  if ! "$dyno" run "$ID" --impl "$IMPL" --format json -q --out "$out" >/dev/null 2>"$tmp/dyno-$k.err"; then
    cat "$tmp/dyno-$k.err" >&2
    die "round $k: dyno run failed"
  fi
  figs=$(dyno_figures "$out")
  [[ $figs =~ ^[0-9.eE+-]+\ [0-9.eE+-]+$ ]] || die "round $k: no usable $IMPL result in $out: $figs"
  read -r "dyno_slope[k]" "dyno_p50[k]" <<<"$figs"
}

run_go() {
  local k=$1 ns
  if ! (cd "$pkg" && "$tmp/bench.test" -test.run '^$' -test.bench 'Keccak256_32B$' \
    -test.count 1 -test.benchtime 1s) >"$tmp/go-$k.out" 2>&1; then
    cat "$tmp/go-$k.out" >&2
    die "round $k: the Go benchmark failed"
  fi
  ns=$(awk '$1 ~ /^BenchmarkKeccak256_32B(-[0-9]+)?$/ { for (i = 3; i <= NF; i++) if ($(i + 1) == "ns/op") { print $i; exit } }' "$tmp/go-$k.out")
  [ -n "$ns" ] || die "round $k: no ns/op in: $(cat "$tmp/go-$k.out")"
  go_ns[k]=$ns
}

declare -a dyno_slope dyno_p50 go_ns
echo "== $ROUNDS interleaved rounds of dyno ($ID --impl $IMPL) and go test -bench Keccak256_32B"
for ((k = 1; k <= ROUNDS; k++)); do
  if ((k % 2)); then
    run_dyno "$k"
    run_go "$k"
  else
    run_go "$k"
    run_dyno "$k"
  fi
  printf '   round %2d/%d done\n' "$k" "$ROUNDS" >&2
done

# Medians, the ratio and the verdict in one awk pass.
{
  for ((k = 1; k <= ROUNDS; k++)); do
    echo "$k ${dyno_slope[k]} ${dyno_p50[k]} ${go_ns[k]}"
  done
} | awk -v low="$LOW" -v high="$HIGH" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" '
  function median(a, n,   i, j, t, b) {
    for (i = 1; i <= n; i++) b[i] = a[i]
    for (i = 2; i <= n; i++) for (j = i; j > 1 && b[j - 1] > b[j]; j--) { t = b[j]; b[j] = b[j - 1]; b[j - 1] = t }
    return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
  }
  BEGIN {
    printf "\n%5s  %16s  %14s  %16s  %9s\n", "round", "dyno slope ns/op", "(dyno P50 ns)", "go test ns/op", "dyno/go"
  }
  {
    n++; d[n] = $2; p[n] = $3; g[n] = $4
    printf "%5d  %16.1f  %14.1f  %16.1f  %9.3f\n", $1, $2, $3, $4, $2 / $4
  }
  END {
    md = median(d, n); mp = median(p, n); mg = median(g, n); r = md / mg
    printf "%5s  %16.1f  %14.1f  %16.1f  %9.3f\n", "median", md, mp, mg, r
    printf "\nmedian dyno slope %.1f ns/op, median go test %.1f ns/op, ratio %.3f (must be within %.2f-%.2f)\n", md, mg, r, low, high
    printf "load average after: %s\n", load
    if (r >= low && r <= high) { print "PASS"; exit 0 } else { print "FAIL"; exit 1 }
  }'
