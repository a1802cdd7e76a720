#!/usr/bin/env bash
# The step timer's own test (scripts/steps.sh), run by scripts/test.sh:
# - a step's CPU is what it ran: a step that burns CPU is charged it, a job's
#   CPU goes to the job even when the job ends during another step, and a
#   step that only sleeps is charged (nearly) nothing;
# - a detached process that burns CPU outside every step is named at the end;
# - the guard: a run past its limit is stopped, prints its table and fails.
# Each case runs a small script that sources steps.sh, as test.sh does.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "steps-test: $*" >&2; exit 1; }

# Burn about $1 seconds of one core's CPU in a child process.
cat >"$work/burn" <<'BURN'
#!/usr/bin/env bash
end=$((SECONDS + $1)); n=0
while [ "$SECONDS" -lt "$end" ]; do n=$((n + 1)); done
BURN
chmod +x "$work/burn"

cat >"$work/cpu.sh" <<SCRIPT
set -euo pipefail
. "$here/steps.sh"
trap 'rc=\$?; jobs_stop; steps_report || rc=1; exit \$rc' EXIT
burnjob() { part "burn"; "$work/burn" 2; part "rest"; sleep 1; }
step "burn"
"$work/burn" 2
job bg "a job that burns" burnjob
step "idle"
# A detached process (a daemon, an orphan) that burns CPU no step is charged.
setsid bash -c 'echo \$\$ >"$work/orphan.pid"; end=\$((SECONDS + 2)); while [ \$SECONDS -lt \$end ]; do :; done; sleep 60' </dev/null >/dev/null 2>&1 &
sleep 5
await bg
SCRIPT
STEPS_LOGS=$work/logs-cpu STEPS_ALIVE_SECONDS=1 bash "$work/cpu.sh" 2>"$work/cpu.err" >/dev/null || { cat "$work/cpu.err" >&2; fail "the CPU script failed"; }
orphan=$(cat "$work/orphan.pid")
kill "$orphan" 2>/dev/null || true
# A row's CPU, in ms, from the table: | NAME | start | wall | XmY.Ys |
cpu_of() {
  local cell
  cell=$(grep -F "| $1 |" "$work/cpu.err" | head -n 1 | awk -F'|' '{print $(NF-1)}' | tr -d ' ')
  [ -n "$cell" ] || fail "no row '$1' in the table:$(printf '\n%s' "$(cat "$work/cpu.err")")"
  local m=${cell%%m*} s=${cell#*m}
  s=${s%s}
  echo $((10#$m * 60000 + 10#${s%.*} * 1000 + 10#${s#*.} * 100))
}
burn=$(cpu_of "burn")
idle=$(cpu_of "idle")
bg=$(cpu_of "a job that burns (background)")
part=$(grep -F "| bg | burn |" "$work/cpu.err" | awk -F'|' '{print $(NF-1)}' | tr -d ' ')
[ "$burn" -ge 1000 ] || fail "the burning step was charged ${burn} ms of CPU, expected about 2000"
[ "$bg" -ge 1000 ] || fail "the burning job was charged ${bg} ms of CPU, expected about 2000"
[ "$idle" -le 500 ] || fail "the sleeping step was charged ${idle} ms of CPU: the job's CPU leaked into it"
[ -n "$part" ] || fail "the job's part 'burn' is not in the table of parts"
grep -q 'on the whole machine' "$work/cpu.err" || fail "no machine-wide CPU total"
grep -q '^The whole machine by kind: user ' "$work/cpu.err" || fail "no machine-wide CPU by kind"
grep -q "^Alive at the end, .* s [^ ]* (pid $orphan);" "$work/cpu.err" ||
  fail "the detached process that burned CPU outside every step is not named:$(printf '\n%s' "$(cat "$work/cpu.err")")"
echo "steps-test: CPU charged as run (burning step ${burn} ms, job ${bg} ms, sleeping step ${idle} ms)"

cat >"$work/limit.sh" <<SCRIPT
set -euo pipefail
. "$here/steps.sh"
trap 'rc=\$?; jobs_stop; steps_report || rc=1; exit \$rc' EXIT
step "fast"
true
step "endless"
set +e
sleep 120
echo "carried on after the limit"
SCRIPT
start=$SECONDS
rc=0
STEPS_LOGS=$work/logs-limit STEPS_LIMIT_SECONDS=3 bash "$work/limit.sh" >"$work/limit.out" 2>"$work/limit.err" || rc=$?
took=$((SECONDS - start))
[ "$rc" = 1 ] || fail "a run past its limit exited $rc, expected 1"
[ "$took" -lt 30 ] || fail "a run past its 3 s limit went on for ${took} s"
grep -q 'FAILED: this run took' "$work/limit.err" || fail "a run past its limit did not say so"
grep -qF '| endless |' "$work/limit.err" || fail "a run past its limit printed no table"
if grep -q 'carried on' "$work/limit.out"; then fail "the script carried on after the limit"; fi
if pgrep -f 'sleep 120' >/dev/null; then fail "the stopped step's process is still running"; fi
echo "steps-test: a run past its limit is stopped after ${took} s, prints its table and exits 1"
