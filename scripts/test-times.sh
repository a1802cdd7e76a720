#!/usr/bin/env bash
# Each test of one Rust test binary run alone, one after another: its exit
# code, wall seconds and CPU seconds (user + system of the test binary and
# everything it waited for: dyno, workers, geth), as TSV on stdout, slowest
# CPU first. Finds which tests a CI run's `cargo test` time goes to
# (libtest prints only each binary's total); docs/ci.md's per-test figures
# come from it.
#
# Usage: scripts/test-times.sh TEST-BINARY [DIR]
#   TEST-BINARY  e.g. target/debug/deps/cli-<hash> (cargo test --no-run
#                prints it)
#   DIR          where to run it: the crate's folder (default: bins/dyno),
#                as `cargo test` does
set -euo pipefail
[ $# -ge 1 ] && [ -x "$1" ] || {
  echo "usage: scripts/test-times.sh TEST-BINARY [DIR] (an executable from cargo test --no-run)" >&2
  exit 2
}
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
dir=${2:-$(dirname "$0")/../bins/dyno}
cd "$dir"
command -v /usr/bin/time >/dev/null || { echo "test-times: /usr/bin/time is missing (Debian's package time)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$bin" --list 2>/dev/null | sed -n 's/: test$//p' >"$out/tests"
[ -s "$out/tests" ] || { echo "test-times: $bin lists no tests" >&2; exit 2; }
n=$(wc -l <"$out/tests")
i=0
while read -r t; do
  i=$((i + 1))
  echo "test-times: $i/$n $t" >&2
  start=$(date +%s.%N)
  rc=0
  /usr/bin/time -f '%U %S' -o "$out/time" "$bin" --exact "$t" --test-threads 1 \
    </dev/null >"$out/log" 2>&1 || rc=$?
  end=$(date +%s.%N)
  # The last line: a failed command's first line says its exit status.
  read -r user sys < <(tail -n 1 "$out/time") || { user=0 sys=0; }
  printf '%s\t%.1f\t%.1f\t%s\n' "$rc" "$(echo "$end - $start" | bc)" "$(echo "$user + $sys" | bc)" "$t"
done <"$out/tests" | sort -t $'\t' -k3,3 -rn >"$out/rows"
printf 'exit\twall_s\tcpu_s\ttest\n'
cat "$out/rows"
