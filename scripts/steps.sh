# shellcheck shell=bash
# Timed steps and background jobs for scripts/test.sh (sourced, not run).
#
#   step "NAME"              ends the step before it and starts NAME; prints
#                            how far into the CI budget it starts
#   job NAME "WHAT" CMD...   runs CMD (a command or a function, with errexit)
#                            in the background, niced, in a process group of
#                            its own; output kept in $STEPS_LOGS/NAME.log
#   part "NAME"              (inside a job) a timed part of the job
#   after NAME...            (inside a job) waits for other jobs to end
#   jobs_unnice              running and later jobs at normal priority
#   await NAME               waits for job NAME as a step of its own; prints
#                            its log; a failed job fails the run with the
#                            log's last lines
#   steps_report             (on exit) the table of every step's, job's and
#                            part's wall and CPU time, the totals, and the
#                            largest CPU consumers; a warning past
#                            STEPS_WARN_MINUTES (40); returns 1 past
#                            STEPS_LIMIT_MINUTES (80)
#
# The guard: a watchdog stops a run still going at STEPS_LIMIT_MINUTES (CI
# cuts a run at 90 minutes, and then prints nothing), so the table of what
# ran is printed and the run fails, loudly, before CI's limit.
#
# Wall times are whole seconds from bash's SECONDS, which a background job's
# subshell inherits, so a job's start and end are on the same clock. CPU
# times are user + system of the processes a step or job ran and waited for
# (bash's `times`: the shell's reaped children), in milliseconds; a daemon
# that detaches (PostgreSQL's server) is counted only in the machine's total,
# read from /proc/stat (every process on the machine, busy time).

STEPS_LOGS=${STEPS_LOGS:-$(mktemp -d)}
mkdir -p "$STEPS_LOGS"
STEPS_WARN_MINUTES=${STEPS_WARN_MINUTES:-40}
STEPS_LIMIT_MINUTES=${STEPS_LIMIT_MINUTES:-80}
# The limit in seconds (tests set it directly).
STEPS_LIMIT_SECONDS=${STEPS_LIMIT_SECONDS:-$((STEPS_LIMIT_MINUTES * 60))}
# How nice a job started from now on runs (jobs_unnice lowers it).
STEPS_JOB_NICE=10
_step_name=""
_step_start=0
_step_cpu0=0
_step_rows=() # "WALL<TAB>START<TAB>KIND<TAB>NAME<TAB>CPU_MS"
declare -A _job_pid=() _job_what=() _job_all=() _job_counted=()

_mmss() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
# Milliseconds as m:ss.s of CPU.
_cpu_fmt() { printf '%dm%04.1fs' $(($1 / 60000)) "$(($1 % 60000 / 100))e-1"; }

# _cpu: the CPU (ms, user + system) of this shell's reaped children. `times`
# must run in this shell (a command substitution would be a new process, with
# no children yet), so it writes to a file.
_cpu=0
_cpu_read() {
  local f=$STEPS_LOGS/.times.$BASHPID _u _s cu cs
  times >"$f"
  { read -r _u _s && read -r cu cs; } <"$f"
  rm -f "$f"
  _cpu=$(($(_times_ms "$cu") + $(_times_ms "$cs")))
}
# "1m2.345s" -> 62345
_times_ms() {
  local m=${1%%m*} s=${1#*m}
  s=${s%s}
  local whole=${s%%.*} frac=${s#*.}000
  echo $((10#$m * 60000 + 10#$whole * 1000 + 10#${frac:0:3}))
}
# The machine's busy time (ms) since boot, every process: user, nice,
# system, irq, softirq and steal from /proc/stat.
_machine_ms() {
  local _ user nice system _idle _iowait irq softirq steal
  read -r _ user nice system _idle _iowait irq softirq steal _ </proc/stat 2>/dev/null || { echo 0; return; }
  echo $(((user + nice + system + irq + softirq + steal) * 1000 / $(getconf CLK_TCK)))
}
_steps_machine0=$(_machine_ms)
# The same busy time by kind (ms): user at nice 0 (the steps), niced user
# (the jobs), the kernel (system, irq, softirq) and steal (the host's other
# guests); and each process's CPU seconds, to name what burned CPU outside
# the steps' and jobs' accounting (a kernel thread, a daemon, an orphan).
_machine_split() {
  local _ user nice system _idle _iowait irq softirq steal hz
  read -r _ user nice system _idle _iowait irq softirq steal _ </proc/stat 2>/dev/null || { echo "0 0 0 0"; return; }
  hz=$(getconf CLK_TCK)
  echo "$((user * 1000 / hz)) $((nice * 1000 / hz)) $(((system + irq + softirq) * 1000 / hz)) $((steal * 1000 / hz))"
}
_steps_split0=$(_machine_split)
ps -e -o pid=,cputimes=,comm= >"$STEPS_LOGS/.ps0" 2>/dev/null || true

# The CPU of the jobs the shell has reaped since the last call, which lands in
# this shell's children's total when bash reaps a job (when it ends, or at
# `wait`): a step's CPU leaves it out.
_jobs_reaped=0
_jobs_reaped_read() {
  local name start end rc cpu
  _jobs_reaped=0
  for name in "${!_job_all[@]}"; do
    [ -z "${_job_counted[$name]:-}" ] || continue
    [ -f "$STEPS_LOGS/$name.time" ] || continue
    [ ! -e "/proc/${_job_all[$name]}" ] || continue # not reaped yet
    read -r start end rc cpu <"$STEPS_LOGS/$name.time"
    _jobs_reaped=$((_jobs_reaped + ${cpu:-0}))
    _job_counted[$name]=1
  done
}

step_end() {
  if [ -n "$_step_name" ]; then
    _cpu_read
    _jobs_reaped_read
    local cpu=$((_cpu - _step_cpu0 - _jobs_reaped))
    [ "$cpu" -ge 0 ] || cpu=0
    _step_rows+=("$((SECONDS - _step_start))	$_step_start	step	$_step_name	$cpu")
    _step_name=""
  fi
}

step() {
  step_end
  _step_name=$*
  _step_start=$SECONDS
  _cpu_read
  _jobs_reaped_read # a job reaped between steps is nobody's step
  _step_cpu0=$((_cpu - _jobs_reaped))
  printf '\n== [%s] %s\n' "$(_mmss "$SECONDS")" "$*" >&2
}

# Inside a job: ends the part before it and starts NAME. Each part's wall and
# CPU go to the job's .parts file for the table.
_part_name=""
_part_start=0
_part_cpu0=0
part_end() {
  if [ -n "$_part_name" ]; then
    _cpu_read
    printf '%s\t%s\t%s\t%s\n' "$((SECONDS - _part_start))" "$_part_start" "$((_cpu - _part_cpu0))" \
      "$_part_name" >>"$STEPS_LOGS/$_steps_job.parts"
    printf -- '-- [%s] done in %s wall, %s CPU: %s\n' "$(_mmss "$SECONDS")" "$(_mmss "$((SECONDS - _part_start))")" \
      "$(_cpu_fmt "$((_cpu - _part_cpu0))")" "$_part_name"
    _part_name=""
  fi
}
part() {
  part_end
  _part_name=$*
  _part_start=$SECONDS
  _cpu_read
  _part_cpu0=$_cpu
  printf '\n-- [%s] %s\n' "$(_mmss "$SECONDS")" "$*"
}

# Job control gives each background job a process group of its own, so a
# failed run can stop a job and everything it started.
set -m

job() {
  local name=$1 what=$2
  shift 2
  _job_what[$name]=$what
  printf '   [%s] background: %s (log: %s)\n' "$(_mmss "$SECONDS")" "$what" "$STEPS_LOGS/$name.log" >&2
  (
    set +e
    start=$SECONDS
    renice -n "$STEPS_JOB_NICE" -p "$BASHPID" >/dev/null
    # Not `( ... ) || rc=$?`: errexit is ignored on the left of `||`.
    (
      set -e
      _steps_job=$name
      trap part_end EXIT
      "$@"
    )
    rc=$?
    _cpu_read
    printf '%s %s %s %s\n' "$start" "$SECONDS" "$rc" "$_cpu" >"$STEPS_LOGS/$name.time"
    exit $rc
  ) </dev/null >"$STEPS_LOGS/$name.log" 2>&1 &
  _job_pid[$name]=$!
  _job_all[$name]=$!
}

# Inside a job: wait until the jobs named have ended; fail if one failed.
after() {
  local name start end rc
  for name in "$@"; do
    echo "waiting for the job '$name' to end"
    until [ -f "$STEPS_LOGS/$name.time" ]; do sleep 1; done
    read -r start end rc _ <"$STEPS_LOGS/$name.time"
    if [ "${rc:-1}" != 0 ]; then
      echo "this job needs '$name', which failed (exit $rc)"
      return 1
    fi
  done
}

await() {
  local name=$1 rc=0
  local pid=${_job_pid[$name]:?"await: no job called $1"}
  step "wait for: ${_job_what[$name]}"
  wait "$pid" || rc=$?
  unset "_job_pid[$name]"
  local start end cpu
  read -r start end _ cpu <"$STEPS_LOGS/$name.time" 2>/dev/null || { start=$_step_start end=$SECONDS cpu=0; }
  _step_rows+=("$((end - start))	$start	background	${_job_what[$name]}	${cpu:-0}")
  if [ "$rc" -ne 0 ]; then
    echo "--- last 60 lines of $STEPS_LOGS/$name.log" >&2
    tail -n 60 "$STEPS_LOGS/$name.log" >&2
    echo "background job failed (exit $rc): ${_job_what[$name]}" >&2
    return "$rc"
  fi
  sed 's/^/   | /' "$STEPS_LOGS/$name.log" >&2
}

# From now on, jobs run at normal priority, and so do the ones still
# running: once the compile they made way for is done, niceness would only
# delay what the rest of the run waits on. (Raising priority needs root, as
# CI has; elsewhere they stay niced.)
jobs_unnice() {
  local name
  STEPS_JOB_NICE=0
  for name in "${!_job_pid[@]}"; do
    renice -n 0 -g "${_job_pid[$name]}" >/dev/null 2>&1 || true
  done
}

# Stop every job still running (a failed or interrupted run), and the
# watchdog.
jobs_stop() {
  local name
  for name in "${!_job_pid[@]}"; do
    kill -- "-${_job_pid[$name]}" 2>/dev/null || true
  done
  if [ -n "${_steps_watchdog:-}" ]; then
    kill -- "-$_steps_watchdog" 2>/dev/null || true
    wait "$_steps_watchdog" 2>/dev/null || true
    _steps_watchdog=""
  fi
}

# The watchdog: at the limit it marks the run as over time and stops what
# the run is doing (every process group the script started: the step in the
# foreground and the jobs), so the script's EXIT trap prints the table and
# the run fails. Its own process group (set -m), stopped by jobs_stop.
_steps_main=$BASHPID
# The watchdog signals the script first, so a step that would carry on after
# its command is stopped (a `set +e` stretch) exits instead; the script's
# EXIT trap then runs as on any exit.
trap 'exit 1' USR1
(
  trap - EXIT
  sleep "$STEPS_LIMIT_SECONDS" &
  wait $! || exit 0
  : >"$STEPS_LOGS/overtime"
  kill -USR1 "$_steps_main" 2>/dev/null || true
  printf '\n!! the run passed its %s limit (CI stops at 90 minutes, with no table): stopping it\n' \
    "$(_mmss "$STEPS_LIMIT_SECONDS")" >&2
  for p in $(pgrep -P "$_steps_main"); do
    [ "$p" != "$BASHPID" ] || continue
    kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null || true
  done
) </dev/null &
_steps_watchdog=$!

steps_report() {
  step_end
  local total=$SECONDS row secs start kind name cpu sum=0 machine
  machine=$(($(_machine_ms) - _steps_machine0))
  {
    printf '\n== step times (background jobs ran beside the steps; their waits are steps)\n\n'
    printf '| step | started | wall | CPU |\n|---|--:|--:|--:|\n'
    for row in "${_step_rows[@]}"; do
      IFS=$'\t' read -r secs start kind name cpu <<<"$row"
      [ "$kind" = background ] && name="$name (background)"
      sum=$((sum + cpu))
      printf '| %s | %s | %s | %s |\n' "$name" "$(_mmss "$start")" "$(_mmss "$secs")" "$(_cpu_fmt "$cpu")"
    done
    printf '| **total** | | **%s** | **%s** |\n' "$(_mmss "$total")" "$(_cpu_fmt "$sum")"
    printf '\nCPU (user + system): %s in the steps and jobs above; %s on the whole machine while the run ran (every process; %.0f%% of its 2 cores x wall)\n' \
      "$(_cpu_fmt "$sum")" "$(_cpu_fmt "$machine")" "$(((machine / 10) / (total > 0 ? total * $(nproc) : 1)))"
    local u0 n0 k0 st0 u1 n1 k1 st1
    read -r u0 n0 k0 st0 <<<"$_steps_split0"
    read -r u1 n1 k1 st1 <<<"$(_machine_split)"
    printf 'The whole machine by kind: user %s, niced user (the jobs) %s, kernel %s, steal %s\n' \
      "$(_cpu_fmt $((u1 - u0)))" "$(_cpu_fmt $((n1 - n0)))" "$(_cpu_fmt $((k1 - k0)))" "$(_cpu_fmt $((st1 - st0)))"
    # Processes alive now that burned STEPS_ALIVE_SECONDS (10) or more during the run.
    ps -e -o pid=,cputimes=,comm= 2>/dev/null | awk -v before="$STEPS_LOGS/.ps0" -v least="${STEPS_ALIVE_SECONDS:-10}" '
      BEGIN { while ((getline l < before) > 0) { split(l, f, " "); was[f[1]] = f[2] } }
      { d = $2 - ($1 in was ? was[$1] : 0); if (d >= least) printf "%d\t%s (pid %s)\n", d, $3, $1 }' |
      sort -nr | head -n 5 | { mapfile -t alive; if [ "${#alive[@]}" -gt 0 ]; then
        printf 'Alive at the end, %s s of CPU or more during the run:' "${STEPS_ALIVE_SECONDS:-10}"
        printf ' %s;' "${alive[@]/$'\t'/ s }"
        printf '\n'
      fi; }
    local f job parts=()
    for f in "$STEPS_LOGS"/*.parts; do
      [ -e "$f" ] || continue
      job=$(basename "$f" .parts)
      while IFS=$'\t' read -r secs start cpu name; do
        parts+=("$secs	$start	$job	$name	$cpu")
      done <"$f"
    done
    if [ "${#parts[@]}" -gt 0 ]; then
      printf '\n== inside the background jobs\n\n| job | part | started | wall | CPU |\n|---|---|--:|--:|--:|\n'
      printf '%s\n' "${parts[@]}" | sort -t$'\t' -k3,3 -k2,2n |
        while IFS=$'\t' read -r secs start job name cpu; do
          printf '| %s | %s | %s | %s | %s |\n' "$job" "$name" "$(_mmss "$start")" "$(_mmss "$secs")" "$(_cpu_fmt "$cpu")"
        done
    fi
    printf '\nThe largest CPU consumers (steps and the jobs'"'"' parts):\n'
    {
      for row in "${_step_rows[@]}"; do
        IFS=$'\t' read -r secs start kind name cpu <<<"$row"
        [ "$kind" = step ] && printf '%s\t%s\t%s\n' "$cpu" "$secs" "$name"
      done
      for row in "${parts[@]}"; do
        IFS=$'\t' read -r secs start job name cpu <<<"$row"
        printf '%s\t%s\t%s\n' "$cpu" "$secs" "$job: $name"
      done
    } | sort -t$'\t' -k1,1nr | head -n 8 | while IFS=$'\t' read -r cpu secs name; do
      printf '  %s CPU, %s wall  %s\n' "$(_cpu_fmt "$cpu")" "$(_mmss "$secs")" "$name"
    done
    if [ "$total" -gt $((STEPS_WARN_MINUTES * 60)) ]; then
      printf '\nWARNING: this run took %s, past the %d-minute mark (CI stops at 90). The slowest:\n' \
        "$(_mmss "$total")" "$STEPS_WARN_MINUTES"
      printf '%s\n' "${_step_rows[@]}" | sort -t$'\t' -k1,1nr | head -n 3 |
        while IFS=$'\t' read -r secs start kind name _; do
          printf '  %s  %s (%s)\n' "$(_mmss "$secs")" "$name" "$kind"
        done
    fi
  } >&2
  if [ -e "$STEPS_LOGS/overtime" ] || [ "$total" -ge "$STEPS_LIMIT_SECONDS" ]; then
    printf '\nFAILED: this run took %s, past its %s limit: it was stopped (or would be cut by CI at 90 minutes with no table). The table above says where the time went.\n' \
      "$(_mmss "$total")" "$(_mmss "$STEPS_LIMIT_SECONDS")" >&2
    return 1
  fi
}
