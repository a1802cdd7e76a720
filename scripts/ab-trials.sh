#!/usr/bin/env bash
# The paired A/B gate (`dyno ab`, docs/gate.md) measured on real runs:
#
#   scripts/ab-trials.sh aa [N] [FILTER]
#       N times (default 20): `dyno ab --base (this same dyno) FILTER --quick`
#       (FILTER: default the default suites); count what each check flags
#   scripts/ab-trials.sh knob [N] [FACTOR] [ID] [FILTER]
#       the same with DYNO_TEST_SLOWDOWN=ID=FACTOR (default 1.25,
#       hash/keccak256/1KiB, FILTER hash) slowing the candidate side only;
#       count the trials that flag ID, and anything else flagged
#   scripts/ab-trials.sh aa-adapter [N] RUNTIME ID
#   scripts/ab-trials.sh knob-adapter [N] RUNTIME FACTOR ID
#       the same for an adapter's implementations of ID: the base side is a
#       copy of the installed adapter's folder (--base-adapter)
#
# Uses target/release/dyno (built if missing; DYNO_TRIALS_BIN for another), --no-store,
# 4 passes (DYNO_TRIALS_PASSES for another count). Each trial's
# result goes to $DYNO_TRIALS (default docs/trials/ab-<mode>-<date>/) as
# trial-K.json.gz (every round of every pass: re-check any row from it),
# with one row per trial in summary.tsv; the specs are copied there first.
# DYNO_TRIALS_START=K resumes a series at trial K.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
n=${2:-20}
usage="usage: $0 aa [N] [FILTER] | knob [N] [FACTOR] [ID] [FILTER] | aa-adapter [N] RUNTIME ID | knob-adapter [N] RUNTIME FACTOR ID"
[[ "$n" =~ ^[0-9]+$ ]] || { echo "N must be a number, got $n; $usage" >&2; exit 2; }
filter="" factor="" id="" runtime=""
case "$mode" in
  aa) filter=${3:-} ;;
  knob) factor=${3:-1.25}; id=${4:-hash/keccak256/1KiB}; filter=${5:-hash} ;;
  aa-adapter) runtime=${3:?$usage}; id=${4:?$usage}; filter=$id ;;
  knob-adapter) runtime=${3:?$usage}; factor=${4:?$usage}; id=${5:?$usage}; filter=$id ;;
  *) echo "$usage" >&2; exit 2 ;;
esac

dyno_bin=${DYNO_TRIALS_BIN:-target/release/dyno}
[ -x "$dyno_bin" ] || cargo build --release --locked -q -p dyno
label=$mode${runtime:+-$runtime}${factor:+-x$factor}
out=${DYNO_TRIALS:-docs/trials/ab-$label-$(date -u +%Y-%m-%d)}
mkdir -p "$out"
[ -d "$out/specs" ] || cp -r specs "$out/specs"
base=(--base "$dyno_bin")
if [ -n "$runtime" ]; then
  installed="${DYNO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dyno}/adapters/$runtime"
  [ -x "$installed/run" ] || { echo "the $runtime adapter is not installed: run dyno setup $runtime" >&2; exit 2; }
  rm -rf "$out/base-$runtime"
  cp -r "$installed" "$out/base-$runtime"
  base=(--base-adapter "$runtime=$out/base-$runtime")
fi
start=${DYNO_TRIALS_START:-1}
summary="$out/summary.tsv"
if [ "$start" = 1 ] || [ ! -f "$summary" ]; then
  printf 'trial\texit\tcompared\tregressed\timproved\tunchanged\tinconclusive\tnot_compared\tslowed_id\tslowed_id_regressed\tothers_flagged\tmedian_detectable\tmax_detectable\tsteal_pct\tloadavg\tseconds\n' >"$summary"
fi

for k in $(seq "$start" "$n"); do
  json="$out/trial-$k.json"
  env_knob=()
  [ -n "$factor" ] && env_knob=(env "DYNO_TEST_SLOWDOWN=$id=$factor")
  set +e
  "${env_knob[@]}" "$dyno_bin" --specs "$out/specs" ab "${base[@]}" ${filter:+"$filter"} --quick --no-store -q \
    --passes "${DYNO_TRIALS_PASSES:-4}" --format json -o "$json" >/dev/null
  code=$?
  set -e
  if [ ! -f "$json" ]; then
    echo "trial $k: dyno ab exited $code and wrote no result" >&2
    exit 1
  fi
  rm -f "${json%.json}.md"
  python3 - "$json" "$k" "$id" "$code" "$factor" >>"$summary" <<'PY'
import json, statistics, sys
path, k, slowed, code, factor = sys.argv[1:]
run = json.load(open(path))
ps = run["paired"]
count = lambda v: sum(1 for p in ps if p["verdict"] == v)
flag = ("regressed", "improved")
slowed_rows = [p for p in ps if factor and p["id"] == slowed]
others = [p for p in ps if not (factor and p["id"] == slowed) and p["verdict"] in flag]
mdes = [p["min_detectable"] for p in ps if p["min_detectable"] is not None]
noise = run.get("noise") or {}
print("\t".join(str(x) for x in [
    k, code, len(ps) - count("not compared"), count("regressed"), count("improved"), count("unchanged"),
    count("inconclusive"), count("not compared"), len(slowed_rows),
    sum(1 for p in slowed_rows if p["verdict"] == "regressed"),
    ";".join(f"{p['id']}:{p['implementation']}:{p['verdict']}" for p in others) or "-",
    f"{statistics.median(mdes):.4f}" if mdes else "-", f"{max(mdes):.4f}" if mdes else "-",
    f"{noise.get('steal_pct') or 0:.2f}", f"{noise.get('loadavg') or 0:.2f}",
    f"{noise.get('seconds', 0):.0f}",
]))
PY
  gzip -f "$json"
  tail -1 "$summary" >&2
done
