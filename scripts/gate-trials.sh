#!/usr/bin/env bash
# The regression gate measured on real runs (docs/gate.md):
#
#   scripts/gate-trials.sh aa [N]      N times (default 20): run the quick
#                                      suite twice, check the second against
#                                      the first; count flagged benchmarks
#   scripts/gate-trials.sh aa-count [N]
#                                      the same with callgrind instruction
#                                      counts (run --instructions, check
#                                      --metric instructions); N+1 runs, each
#                                      checked against the one before
#   scripts/gate-trials.sh knob-count [N] [ID] [FILTER]
#                                      the same with instruction counts (the
#                                      knob then adds 25% more iterations)
#   scripts/gate-trials.sh knob [N] [ID] [FILTER]
#                                      N times: a quick run of FILTER, then one
#                                      with ID slowed 25% by DYNO_TEST_SLOWDOWN,
#                                      checked (the re-measure slowed too);
#                                      count the trials that flag ID
#
# Uses target/release/dyno (built if missing). Runs are kept out of the
# history (--no-store); files go to $DYNO_TRIALS (default
# dyno-results/trials-<mode>-<time>/), with a summary.tsv, and the specs are
# copied there first (runs use the copy, so editing specs/ during an hour of
# trials cannot break them). DYNO_TRIALS_START=K resumes a series in the
# same folder at trial K. Run it on a quiet machine: it measures the gate,
# and the gate measures the machine.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
n=${2:-20}
case "$mode" in
  aa|aa-count|knob|knob-count) ;;
  *) echo "usage: $0 aa [N] | aa-count [N] | knob [N] [ID] [FILTER] | knob-count [N] [ID] [FILTER]" >&2; exit 2 ;;
esac
[[ "$n" =~ ^[0-9]+$ ]] || { echo "N must be a number, got $n" >&2; exit 2; }
id=${3:-hash/keccak256/1KiB}
filter=${4:-hash}

dyno_bin=target/release/dyno
[ -x "$dyno_bin" ] || cargo build --release --locked -q -p dyno
out=${DYNO_TRIALS:-dyno-results/trials-$mode-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
[ -d "$out/specs" ] || cp -r specs "$out/specs"
dyno() { "$dyno_bin" --specs "$out/specs" "$@"; }
start=${DYNO_TRIALS_START:-1}
[[ "$start" =~ ^[1-9][0-9]*$ ]] || { echo "DYNO_TRIALS_START must be a trial number, got $start" >&2; exit 2; }
summary="$out/summary.tsv"
if [ "$start" = 1 ] || [ ! -f "$summary" ]; then
  printf 'trial\tfirst_pass_regressed\tfirst_pass_improved\tconfirmed_regressed\tinsufficient\tcompared\tslowed_id_verdict\tconfirmed_other_ids\n' >"$summary"
fi

verdicts() { # check.json -> counts, and the slowed id's verdict
  python3 - "$1" "$id" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
rows = c["rows"]
first_reg = sum(1 for r in rows if r["verdict"] == "regressed" or r.get("first_verdict") == "regressed")
impr = sum(1 for r in rows if r["verdict"] == "improved")
conf = sum(1 for r in rows if r["verdict"] == "regressed")
ins = sum(1 for r in rows if r["verdict"] == "insufficient")
slowed = sorted({r["verdict"] for r in rows if r["id"] == sys.argv[2]})
other = sum(1 for r in rows if r["verdict"] == "regressed" and r["id"] != sys.argv[2])
print(f"{first_reg}\t{impr}\t{conf}\t{ins}\t{len(rows)}\t{','.join(slowed) or '-'}\t{other}")
PY
}

for i in $(seq "$start" "$n"); do
  a="$out/$i-a.json"; b="$out/$i-b.json"; c="$out/$i-check.json"
  if [ "$mode" = aa-count ]; then
    if [ "$i" = 1 ]; then
      dyno --no-store run --quick -q --instructions --out "$a" >/dev/null
    else
      cp "$out/$((i - 1))-b.json" "$a"
    fi
    dyno --no-store run --quick -q --instructions --out "$b" >/dev/null
    dyno --no-store check --baseline "$a" "$b" --metric instructions --format json -q >"$c" || true
  elif [ "$mode" = aa ]; then
    dyno --no-store run --quick -q --out "$a" >/dev/null
    dyno --no-store run --quick -q --out "$b" >/dev/null
    dyno --no-store check --baseline "$a" "$b" --format json -q >"$c" || true
  elif [ "$mode" = knob-count ]; then
    dyno --no-store run "$filter" --quick -q --instructions --out "$a" >/dev/null
    DYNO_TEST_SLOWDOWN="$id=1.25" dyno --no-store run "$filter" --quick -q --instructions --out "$b" >/dev/null 2>&1
    dyno --no-store check --baseline "$a" "$b" --metric instructions --format json -q >"$c" 2>/dev/null || true
  else
    dyno --no-store run "$filter" --quick -q --out "$a" >/dev/null
    DYNO_TEST_SLOWDOWN="$id=1.25" dyno --no-store run "$filter" --quick -q --out "$b" >/dev/null 2>&1
    DYNO_TEST_SLOWDOWN="$id=1.25" dyno --no-store check --baseline "$a" "$b" --format json -q >"$c" 2>/dev/null || true
  fi
  line="$i	$(verdicts "$c")"
  printf '%s\n' "$line" >>"$summary"
  printf 'trial %s: %s\n' "$i" "$line" >&2
done

python3 - "$summary" "$mode" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
n = len(rows)
tot = lambda k: sum(int(r[k]) for r in rows)
if sys.argv[2].startswith("aa"):
    print(f"A/A: {n} checks, {tot('compared') // max(n, 1)} benchmarks each: "
          f"{tot('confirmed_regressed')} confirmed regressions, {tot('first_pass_regressed')} flagged before the "
          f"re-measure, {tot('first_pass_improved')} 'improved', {tot('insufficient')} insufficient-data verdicts")
else:
    caught = sum(1 for r in rows if "regressed" in r["slowed_id_verdict"])
    print(f"25% slowdown: flagged and confirmed in {caught} of {n} trials; "
          f"confirmed regressions of other ids: {tot('confirmed_other_ids')}")
PY
