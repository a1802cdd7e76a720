#!/usr/bin/env bash
# Rehearse a CI run: a fresh clone of this repository's HEAD, run exactly as
# CI runs it (`CI=true bash .ci/run`, no standard input), with every cache
# of its own under DIR, and its log kept; then the README's main command
# (its first), exactly as written there, in the same clone: its time, exit
# code and number of verified results go in the log's last line.
#
#   scripts/ci-rehearsal.sh fresh DIR   a new machine: DIR must not exist.
#                                       Every Debian package a new machine
#                                       lacks (scripts/ci-base-packages.txt)
#                                       is removed first, so the run installs
#                                       what scripts/test.sh installs; the
#                                       kernel's page cache is dropped; a new
#                                       HOME under DIR, so the cargo registry,
#                                       the dyno cache (workers, geth, the
#                                       cargo target directory), the Go
#                                       module and build caches (GOCACHE,
#                                       GOMODCACHE and GOPATH named inside
#                                       DIR), npm's, pip's and Maven's caches
#                                       all start empty. The toolchains stay
#                                       (rustup's RUSTUP_HOME, Go, the JDKs,
#                                       Node), as a new machine has them.
#   scripts/ci-rehearsal.sh warm DIR    a second run on what an earlier
#                                       rehearsal in DIR left: a new clone,
#                                       the same caches and packages.
#
# Before it starts it says what it could not reset (a package it could not
# remove, a base package missing, the page cache, other processes using the
# CPU). The log is DIR/run-N.log; the step table, with wall and CPU per step
# and job, is at its end.
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

# What a new machine would not have, and what could not be made so.
unreset=()
note() { echo "ci-rehearsal: $*" >&2; }
if [ "$mode" = fresh ]; then
  base=$repo/scripts/ci-base-packages.txt
  if command -v dpkg-query >/dev/null; then
    # The packages installed now, and those of a new machine, sorted.
    installed() { dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' | awk '$1 ~ /^.i/ {print $2}' | sort; }
    listed() { grep -v '^#' "$base" | sort; }
    extra=$(comm -13 <(listed) <(installed))
    missing=$(comm -23 <(listed) <(installed))
    if [ -n "$extra" ]; then
      note "removing $(echo "$extra" | wc -l) Debian packages a new machine lacks: $(echo $extra | cut -c1-300)"
      # shellcheck disable=SC2086
      if ! DEBIAN_FRONTEND=noninteractive apt-get purge -y -q $extra >"$dir/apt-purge.log" 2>&1; then
        unreset+=("Debian packages a new machine lacks could not be removed (apt-get purge failed: $dir/apt-purge.log)")
      fi
      left=$(comm -13 <(listed) <(installed))
      [ -z "$left" ] || unreset+=("Debian packages still installed that a new machine lacks: $(echo $left)")
    fi
    [ -z "$missing" ] || unreset+=("Debian packages of a new machine that this one lacks (not reinstalled): $(echo $missing)")
  else
    unreset+=("Debian's packages (no dpkg-query here)")
  fi
  if sync && echo 3 2>/dev/null >/proc/sys/vm/drop_caches; then
    note "dropped the kernel's page cache"
  else
    unreset+=("the kernel's page cache (dropping it needs root)")
  fi
fi
# Other processes using the CPU make a run slower than CI's: measure the
# machine's busy time over two seconds before starting.
busy() { awk '/^cpu / {print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat; }
read -r b0 t0 < <(busy)
sleep 2
read -r b1 t1 < <(busy)
pct=$(( (b1 - b0) * 100 / (t1 - t0 > 0 ? t1 - t0 : 1) ))
if [ "$pct" -gt 10 ]; then
  unreset+=("other processes: the CPU was ${pct}% busy before the start ($(ps -eo pcpu=,comm= --sort=-pcpu | head -n 3 | awk '{printf "%s %s%%; ", $2, $1}'))")
fi
if [ "$mode" = warm ]; then
  note "warm: the caches and Debian packages the earlier runs in $dir left are kept"
fi
if [ "${#unreset[@]}" -gt 0 ]; then
  note "could not reset, so this run may differ from a new machine's:"
  printf '  - %s\n' "${unreset[@]}" >&2
elif [ "$mode" = fresh ]; then
  note "nothing left to reset: this machine is as a new one (toolchains kept), CPU idle"
fi

n=1
while [ -e "$dir/run-$n.log" ]; do n=$((n + 1)); done
clone=$dir/clone-$n
git clone -q "$repo" "$clone"
echo "ci-rehearsal: $mode run $n of $(git -C "$clone" rev-parse --short HEAD) in $clone, log $dir/run-$n.log" >&2
{
  echo "ci-rehearsal: $mode run $n of $(git -C "$clone" rev-parse HEAD), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  if [ "${#unreset[@]}" -gt 0 ]; then
    echo "ci-rehearsal: could not reset:"
    printf '  - %s\n' "${unreset[@]}"
  elif [ "$mode" = fresh ]; then
    echo "ci-rehearsal: nothing left to reset (toolchains kept), CPU idle"
  else
    echo "ci-rehearsal: warm: the earlier runs' caches and packages kept, CPU idle"
  fi
} >"$dir/run-$n.log"

rustup_home=${RUSTUP_HOME:-$HOME/.rustup}
toolchain_bin=${CARGO_HOME:-$HOME/.cargo}/bin
# The environment both commands run in: this machine's caches and
# settings left out, a HOME and caches of the rehearsal's own.
rehearsal_env=(env -u DYNO_CACHE -u XDG_CACHE_HOME -u GOPATH -u GOCACHE -u GOMODCACHE -u CARGO_TARGET_DIR
  -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS -u GOFLAGS -u GOENV -u GOBIN -u CI
  HOME="$dir/home" CARGO_HOME="$dir/home/.cargo" RUSTUP_HOME="$rustup_home"
  GOCACHE="$dir/home/.cache/go-build" GOMODCACHE="$dir/home/go/pkg/mod" GOPATH="$dir/home/go"
  PATH="$toolchain_bin:$PATH")
start=$(date +%s)
set +e
(
  cd "$clone"
  "${rehearsal_env[@]}" CI=true bash .ci/run </dev/null
) >>"$dir/run-$n.log" 2>&1
rc=$?
set -e
took=$(($(date +%s) - start))
printf 'ci-rehearsal: %s run %d exited %d after %dm%02ds\n' "$mode" "$n" "$rc" $((took / 60)) $((took % 60)) | tee -a "$dir/run-$n.log" >&2

# Then the README's other command, its first, exactly as written there, in
# the same clone and caches, as a newcomer runs it (no CI=true): its time,
# its exit code and how many results it verified. After the test command,
# whatever that did: a failed CI run still says whether the main job works.
main=$(awk '/^```sh$/ {f = 1; next} f {print; exit}' "$clone/README.md")
main=${main%%#*}
main=$(echo "$main" | sed 's/[[:space:]]*$//')
echo "ci-rehearsal: the README's main command, as written: $main" | tee -a "$dir/run-$n.log" >&2
mstart=$(date +%s)
set +e
(
  cd "$clone"
  "${rehearsal_env[@]}" bash -c "$main" </dev/null >"$dir/main-$n.txt" 2>"$dir/main-$n.err"
)
mrc=$?
set -e
mtook=$(($(date +%s) - mstart))
result=$(ls -t "$clone"/dyno-results/*.json 2>/dev/null | grep -E '/[0-9]{8}T[0-9]{6}Z-[0-9a-f]+\.json$' | head -n 1 || true)
verified="no result file in dyno-results/"
if [ -n "$result" ]; then
  # Its first line counts the verified results; a failed check adds why.
  checked=$(python3 "$clone/scripts/smoke-checks.py" main "$result" 2>&1) && crc=0 || crc=$?
  verified=$(echo "$checked" | head -n 1)
  if [ "$crc" -ne 0 ]; then
    verified="$verified; the check failed: $(echo "$checked" | tail -n 1)"
    [ "$mrc" -ne 0 ] || mrc=1
  fi
fi
{
  echo "ci-rehearsal: the main command's table (stdout, $(wc -l <"$dir/main-$n.txt") lines; its tail):"
  tail -n 6 "$dir/main-$n.txt"
  echo "ci-rehearsal: its stderr's tail:"
  tail -n 3 "$dir/main-$n.err"
} >>"$dir/run-$n.log"
printf 'ci-rehearsal: main command `%s` exited %d after %dm%02ds; %s\n' "$main" "$mrc" \
  $((mtook / 60)) $((mtook % 60)) "$verified" | tee -a "$dir/run-$n.log" >&2
if [ "$rc" -ne 0 ]; then
  exit "$rc"
fi
exit "$mrc"
