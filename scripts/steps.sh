# shellcheck shell=bash
# Timed steps and background jobs for scripts/test.sh (sourced, not run).
#
#   step "NAME"              ends the step before it and starts NAME; prints
#                            how far into the CI budget it starts
#   job NAME "WHAT" CMD...   runs CMD (a command or a function, with errexit)
#                            in the background, niced, in a process group of
#                            its own; output kept in $STEPS_LOGS/NAME.log
#   after NAME...            (inside a job) waits for other jobs to end
#   jobs_unnice              running and later jobs at normal priority
#   await NAME               waits for job NAME as a step of its own; prints
#                            its log; a failed job fails the run with the
#                            log's last lines
#   steps_report             (on exit) the table of every step's and job's
#                            time and the total; a warning past
#                            STEPS_WARN_MINUTES (40) naming the slowest
#
# Times are whole seconds from bash's SECONDS, which a background job's
# subshell inherits, so a job's start and end are on the same clock.

STEPS_LOGS=${STEPS_LOGS:-$(mktemp -d)}
STEPS_WARN_MINUTES=${STEPS_WARN_MINUTES:-40}
# How nice a job started from now on runs (jobs_unnice lowers it).
STEPS_JOB_NICE=10
_step_name=""
_step_start=0
_step_rows=() # "SECONDS<TAB>START<TAB>KIND<TAB>NAME"
declare -A _job_pid=() _job_what=()

_mmss() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

step_end() {
  if [ -n "$_step_name" ]; then
    _step_rows+=("$((SECONDS - _step_start))	$_step_start	step	$_step_name")
    _step_name=""
  fi
}

step() {
  step_end
  _step_name=$*
  _step_start=$SECONDS
  printf '\n== [%s] %s\n' "$(_mmss "$SECONDS")" "$*" >&2
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
      "$@"
    )
    rc=$?
    printf '%s %s %s\n' "$start" "$SECONDS" "$rc" >"$STEPS_LOGS/$name.time"
    exit $rc
  ) </dev/null >"$STEPS_LOGS/$name.log" 2>&1 &
  _job_pid[$name]=$!
}

# Inside a job: wait until the jobs named have ended; fail if one failed.
after() {
  local name start end rc
  for name in "$@"; do
    echo "waiting for the job '$name' to end"
    until [ -f "$STEPS_LOGS/$name.time" ]; do sleep 1; done
    read -r start end rc <"$STEPS_LOGS/$name.time"
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
  local start end
  read -r start end _ <"$STEPS_LOGS/$name.time" 2>/dev/null || { start=$_step_start end=$SECONDS; }
  _step_rows+=("$((end - start))	$start	background	${_job_what[$name]}")
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

# Stop every job still running (a failed or interrupted run).
jobs_stop() {
  local name
  for name in "${!_job_pid[@]}"; do
    kill -- "-${_job_pid[$name]}" 2>/dev/null || true
  done
}

steps_report() {
  step_end
  local total=$SECONDS row secs start kind name
  {
    printf '\n== step times (background jobs ran beside the steps; their waits are steps)\n\n'
    printf '| step | started | time |\n|---|--:|--:|\n'
    for row in "${_step_rows[@]}"; do
      IFS=$'\t' read -r secs start kind name <<<"$row"
      [ "$kind" = background ] && name="$name (background)"
      printf '| %s | %s | %s |\n' "$name" "$(_mmss "$start")" "$(_mmss "$secs")"
    done
    printf '| **total** | | **%s** |\n' "$(_mmss "$total")"
    if [ "$total" -gt $((STEPS_WARN_MINUTES * 60)) ]; then
      printf '\nWARNING: this run took %s, past the %d-minute mark (CI stops at 90). The slowest:\n' \
        "$(_mmss "$total")" "$STEPS_WARN_MINUTES"
      printf '%s\n' "${_step_rows[@]}" | sort -t$'\t' -k1,1nr | head -n 3 |
        while IFS=$'\t' read -r secs start kind name; do
          printf '  %s  %s (%s)\n' "$(_mmss "$secs")" "$name" "$kind"
        done
    fi
  } >&2
}
